// An NHWC convolution whose kernel is one tap wide along one dimension becomes a matmul over the input's
// taps side by side (strided slices of the padded input, concatenated along the features); others stay.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-unfold-strip-convolutions)' | FileCheck %s

// CHECK-LABEL: func.func @three_by_one
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 1, 0, 0], high = [0, 1, 0, 0]
// CHECK:         %[[T0:.*]] = stablehlo.slice %[[P]] [0:1, 0:5:2, 0:6, 0:4]
// CHECK:         %[[T1:.*]] = stablehlo.slice %[[P]] [0:1, 1:6:2, 0:6, 0:4]
// CHECK:         %[[T2:.*]] = stablehlo.slice %[[P]] [0:1, 2:7:2, 0:6, 0:4]
// CHECK:         %[[X:.*]] = stablehlo.concatenate %[[T0]], %[[T1]], %[[T2]], dim = 3 : {{.*}} -> tensor<1x3x6x12xf32>
// CHECK:         %[[W:.*]] = stablehlo.reshape %arg1 : (tensor<3x1x4x2xf32>) -> tensor<12x2xf32>
// CHECK:         %[[Y:.*]] = stablehlo.dot_general %[[X]], %[[W]], contracting_dims = [3] x [0]
// CHECK:         return %[[Y]] : tensor<1x3x6x2xf32>
func.func @three_by_one(%x: tensor<1x6x6x4xf32>, %k: tensor<3x1x4x2xf32>) -> tensor<1x3x6x2xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x4xf32>, tensor<3x1x4x2xf32>) -> tensor<1x3x6x2xf32>
  return %0 : tensor<1x3x6x2xf32>
}

// -----

// CHECK-LABEL: func.func @square
// CHECK:         stablehlo.convolution
func.func @square(%x: tensor<1x6x6x4xf32>, %k: tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32>
  return %0 : tensor<1x6x6x2xf32>
}
