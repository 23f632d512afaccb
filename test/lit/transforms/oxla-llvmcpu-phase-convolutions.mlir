// An input-dilated convolution becomes one convolution per output phase over the undilated input (every
// s-th kernel tap), the phases interleaved; others stay.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-phase-convolutions)' | FileCheck %s

// A 3x3 transposed convolution of stride 2 along the height only: phase 0 takes taps 0 and 2, phase 1
// tap 1.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT:     lhs_dilate = [2, 1]
// CHECK:         %[[K0:.*]] = stablehlo.slice %arg1 [0:3:2, 0:3, 0:4, 0:2]
// CHECK:         %[[C0:.*]] = stablehlo.convolution(%arg0, %[[K0]]) {{.*}}pad = {{\[}}[1, 0], [1, 1]], lhs_dilate = [1, 1]{{.*}} -> tensor<1x5x5x2xf32>
// CHECK:         %[[K1:.*]] = stablehlo.slice %arg1 [1:3:2, 0:3, 0:4, 0:2]
// CHECK:         %[[C1:.*]] = stablehlo.convolution(%arg0, %[[K1]]) {{.*}}pad = {{\[}}[0, 0], [1, 1]], lhs_dilate = [1, 1]{{.*}} -> tensor<1x5x5x2xf32>
// CHECK:         %[[R0:.*]] = stablehlo.reshape %[[C0]] : (tensor<1x5x5x2xf32>) -> tensor<1x5x1x5x2xf32>
// CHECK:         %[[R1:.*]] = stablehlo.reshape %[[C1]] : (tensor<1x5x5x2xf32>) -> tensor<1x5x1x5x2xf32>
// CHECK:         %[[J:.*]] = stablehlo.concatenate %[[R0]], %[[R1]], dim = 2
// CHECK:         %[[OUT:.*]] = stablehlo.reshape %[[J]] : (tensor<1x5x2x5x2xf32>) -> tensor<1x10x5x2xf32>
// CHECK:         return %[[OUT]]
func.func @transposed(%x: tensor<1x5x5x4xf32>, %k: tensor<3x3x4x2xf32>) -> tensor<1x10x5x2xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [1, 1]], lhs_dilate = [2, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x10x5x2xf32>
  return %0 : tensor<1x10x5x2xf32>
}

// -----

// CHECK-LABEL: func.func @grouped
// CHECK:         stablehlo.convolution(%arg0, %arg1) {{.*}}lhs_dilate = [2, 2]
func.func @grouped(%x: tensor<1x5x5x4xf32>, %k: tensor<3x3x2x4xf32>) -> tensor<1x10x10x4xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x5x5x4xf32>, tensor<3x3x2x4xf32>) -> tensor<1x10x10x4xf32>
  return %0 : tensor<1x10x10x4xf32>
}
