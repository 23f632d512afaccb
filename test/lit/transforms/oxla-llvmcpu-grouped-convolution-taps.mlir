// A grouped convolution the split leaves (groups of 2-7 channels, or more than 16 groups) becomes a sum
// over its kernel's taps: each tap's window of the padded input, as [N, H, W, G, C], times the tap's
// kernel [G, C, O], summed over C; the sum reshaped to the output's features. Depthwise convolutions and
// kernels of more than 9 taps stay.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-grouped-convolution-taps)' | FileCheck %s

// CHECK-LABEL: func.func @four_groups_of_four
// CHECK:         %[[X:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 1, 1, 0], high = [0, 1, 1, 0]
// CHECK:         %[[K:.*]] = stablehlo.transpose {{.*}} dims = [0, 1, 3, 2, 4] : (tensor<3x3x4x4x2xf32>) -> tensor<3x3x4x4x2xf32>
// CHECK:         %[[W0:.*]] = stablehlo.slice %[[X]] [0:1, 0:6, 0:6, 0:16]
// CHECK:         stablehlo.reshape %[[W0]] : (tensor<1x6x6x16xf32>) -> tensor<1x6x6x4x4xf32>
// CHECK:         stablehlo.slice %[[K]] [0:1, 0:1, 0:4, 0:4, 0:2]
// CHECK:         %[[P0:.*]] = stablehlo.multiply {{.*}} : tensor<1x6x6x4x4x2xf32>
// CHECK:         %[[S0:.*]] = stablehlo.reduce(%[[P0]] init: %{{.*}}) applies stablehlo.add across dimensions = [4] : (tensor<1x6x6x4x4x2xf32>, tensor<f32>) -> tensor<1x6x6x4x2xf32>
// CHECK:         stablehlo.slice %[[X]] [0:1, 0:6, 1:7, 0:16]
// CHECK:         %[[S1:.*]] = stablehlo.reduce
// CHECK:         stablehlo.add %[[S0]], %[[S1]] : tensor<1x6x6x4x2xf32>
// CHECK-COUNT-7: stablehlo.reduce
// CHECK:         %[[Y:.*]] = stablehlo.reshape {{.*}} : (tensor<1x6x6x4x2xf32>) -> tensor<1x6x6x8xf32>
// CHECK-NOT:     stablehlo.convolution
// CHECK:         return %[[Y]] : tensor<1x6x6x8xf32>
func.func @four_groups_of_four(%x: tensor<1x6x6x16xf32>, %k: tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<1x6x6x16xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

// NCHW in and out: the input's features go last for the taps, the sum's come back to dimension 1.
// CHECK-LABEL: func.func @nchw_strided
// CHECK:         stablehlo.transpose %arg0, dims = [0, 2, 3, 1] : (tensor<1x8x5x5xf32>) -> tensor<1x5x5x8xf32>
// CHECK:         stablehlo.slice %{{.*}} [0:1, 0:3:2, 0:3:2, 0:8]
// CHECK-COUNT-9: stablehlo.reduce
// CHECK:         stablehlo.transpose %{{.*}}, dims = [0, 3, 1, 2] : (tensor<1x2x2x4xf32>) -> tensor<1x4x2x2xf32>
func.func @nchw_strided(%x: tensor<1x8x5x5xf32>, %k: tensor<4x2x3x3xf32>) -> tensor<1x4x2x2xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<1x8x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @depthwise
// CHECK:         stablehlo.convolution{{.*}}feature_group_count = 16 : i64
// CHECK-NOT:     stablehlo.reduce
func.func @depthwise(%x: tensor<1x6x6x16xf32>, %k: tensor<3x3x1x16xf32>) -> tensor<1x6x6x16xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 16 : i64} : (tensor<1x6x6x16xf32>, tensor<3x3x1x16xf32>) -> tensor<1x6x6x16xf32>
  return %0 : tensor<1x6x6x16xf32>
}

// -----

// CHECK-LABEL: func.func @five_by_five
// CHECK:         stablehlo.convolution{{.*}}feature_group_count = 4 : i64
// CHECK-NOT:     stablehlo.reduce
func.func @five_by_five(%x: tensor<1x6x6x16xf32>, %k: tensor<5x5x4x8xf32>) -> tensor<1x6x6x8xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [2, 2]]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<1x6x6x16xf32>, tensor<5x5x4x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}
