// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-unsigned)' | FileCheck %s

// reverse on an unsigned type runs on the signless type of the same width.
// CHECK-LABEL: func.func @reverse
// CHECK:         %[[IN:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<4x5xui16>) -> tensor<4x5xi16>
// CHECK:         %[[REV:.*]] = stablehlo.reverse %[[IN]], dims = [0] : tensor<4x5xi16>
// CHECK:         %[[OUT:.*]] = stablehlo.bitcast_convert %[[REV]] : (tensor<4x5xi16>) -> tensor<4x5xui16>
// CHECK:         return %[[OUT]]
func.func @reverse(%arg0: tensor<4x5xui16>) -> tensor<4x5xui16> {
  %0 = stablehlo.reverse %arg0, dims = [0] : tensor<4x5xui16>
  return %0 : tensor<4x5xui16>
}

// -----

// A padded reduce_window (jnp.cummax) pads explicitly with its init value;
// its body is left as it is.
// CHECK-LABEL: func.func @cummax
// CHECK:         %[[C:.*]] = stablehlo.constant dense<0> : tensor<ui32>
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %[[C]], low = [7, 0], high = [0, 0], interior = [0, 0] : (tensor<8x9xui32>, tensor<ui32>) -> tensor<15x9xui32>
// CHECK:         "stablehlo.reduce_window"(%[[P]], %[[C]]) <{window_dimensions = array<i64: 8, 1>}>
// CHECK:           stablehlo.maximum %{{.*}}, %{{.*}} : tensor<ui32>
// CHECK:         }) : (tensor<15x9xui32>, tensor<ui32>) -> tensor<8x9xui32>
func.func @cummax(%arg0: tensor<8x9xui32>) -> tensor<8x9xui32> {
  %c = stablehlo.constant dense<0> : tensor<ui32>
  %0 = "stablehlo.reduce_window"(%arg0, %c) <{padding = dense<[[7, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 8, 1>}> ({
  ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
    %1 = stablehlo.maximum %a, %b : tensor<ui32>
    stablehlo.return %1 : tensor<ui32>
  }) : (tensor<8x9xui32>, tensor<ui32>) -> tensor<8x9xui32>
  return %0 : tensor<8x9xui32>
}

// -----

// Base dilation becomes interior padding of the same pad; strides stay.
// CHECK-LABEL: func.func @dilated
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [1, 0], high = [1, 0], interior = [1, 0] : (tensor<4x3xui8>, tensor<ui8>) -> tensor<9x3xui8>
// CHECK:         "stablehlo.reduce_window"(%[[P]], %{{.*}}) <{window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>}>
func.func @dilated(%arg0: tensor<4x3xui8>) -> tensor<4x3xui8> {
  %c = stablehlo.constant dense<0> : tensor<ui8>
  %0 = "stablehlo.reduce_window"(%arg0, %c) <{base_dilations = array<i64: 2, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[1, 1], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 1>}> ({
  ^bb0(%a: tensor<ui8>, %b: tensor<ui8>):
    %1 = stablehlo.add %a, %b : tensor<ui8>
    stablehlo.return %1 : tensor<ui8>
  }) : (tensor<4x3xui8>, tensor<ui8>) -> tensor<4x3xui8>
  return %0 : tensor<4x3xui8>
}

// -----

// Left alone: signed types, and unsigned ops IREE lowers (an unpadded
// reduce_window, other ops on unsigned values).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     stablehlo.bitcast_convert
// CHECK-NOT:     stablehlo.pad
// CHECK:         stablehlo.reverse %arg0, dims = [0] : tensor<4xi32>
// CHECK:         "stablehlo.reduce_window"(%arg0, %{{.*}}) <{padding = dense<{{\[\[}}3, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 4>}>
// CHECK:         "stablehlo.reduce_window"(%arg1, %{{.*}}) <{window_dimensions = array<i64: 2>}>
// CHECK:         stablehlo.add %arg1, %arg1 : tensor<4xui32>
func.func @left_alone(%arg0: tensor<4xi32>, %arg1: tensor<4xui32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<3xui32>, tensor<4xui32>) {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %u = stablehlo.constant dense<0> : tensor<ui32>
  %0 = stablehlo.reverse %arg0, dims = [0] : tensor<4xi32>
  %1 = "stablehlo.reduce_window"(%arg0, %c) <{padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 4>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %2 = "stablehlo.reduce_window"(%arg1, %u) <{window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
    %s = stablehlo.add %a, %b : tensor<ui32>
    stablehlo.return %s : tensor<ui32>
  }) : (tensor<4xui32>, tensor<ui32>) -> tensor<3xui32>
  %3 = stablehlo.add %arg1, %arg1 : tensor<4xui32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<3xui32>, tensor<4xui32>
}
