// A convolution over one spatial dimension becomes a 2-D one over a unit height (the new first spatial
// dimension), between reshapes, in any layout; its window attributes gain the unit dimension's identity.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-widen-1d-convolutions)' | FileCheck %s

// CHECK-LABEL: func.func @nwc
// CHECK-NEXT:    %[[X:.*]] = stablehlo.reshape %arg0 : (tensor<2x16x4xf32>) -> tensor<2x1x16x4xf32>
// CHECK-NEXT:    %[[K:.*]] = stablehlo.reshape %arg1 : (tensor<5x4x3xf32>) -> tensor<1x5x4x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = stablehlo.convolution(%[[X]], %[[K]]) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 2], pad = {{\[}}[0, 0], [2, 1]], rhs_dilate = [1, 2], reverse = [false, true]}
// CHECK-SAME:      -> tensor<2x1x6x3xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %[[Y]] : (tensor<2x1x6x3xf32>) -> tensor<2x6x3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @nwc(%x: tensor<2x16x4xf32>, %k: tensor<5x4x3xf32>) -> tensor<2x6x3xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[2, 1]], rhs_dilate = [2], reverse = [true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x16x4xf32>, tensor<5x4x3xf32>) -> tensor<2x6x3xf32>
  return %0 : tensor<2x6x3xf32>
}

// -----

// PyTorch's layout (NCW, OIW): the unit dimension goes just before the spatial one.
// CHECK-LABEL: func.func @ncw
// CHECK-NEXT:    stablehlo.reshape %arg0 : (tensor<2x4x16xf32>) -> tensor<2x4x1x16xf32>
// CHECK-NEXT:    stablehlo.reshape %arg1 : (tensor<6x2x3xf32>) -> tensor<6x2x1x3xf32>
// CHECK-NEXT:    stablehlo.convolution(%{{.*}}, %{{.*}}) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {lhs_dilate = [1, 2]}
// CHECK-SAME:      feature_group_count = 2
// CHECK-SAME:      -> tensor<2x6x1x29xf32>
func.func @ncw(%x: tensor<2x4x16xf32>, %k: tensor<6x2x3xf32>) -> tensor<2x6x29xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x4x16xf32>, tensor<6x2x3xf32>) -> tensor<2x6x29xf32>
  return %0 : tensor<2x6x29xf32>
}

// -----

// CHECK-LABEL: func.func @two_dimensional
// CHECK-NEXT:    stablehlo.convolution(%arg0, %arg1)
func.func @two_dimensional(%x: tensor<1x6x6x4xf32>, %k: tensor<3x3x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}
