// A convolution with 2-16 feature groups of 8 channels or more becomes one convolution per group, over
// its slice of the input's features and of the kernel's outputs, concatenated along the output features;
// depthwise convolutions and narrower groups stay.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-split-grouped-convolutions)' | FileCheck %s

// CHECK-LABEL: func.func @two_groups
// CHECK-DAG:     %[[X0:.*]] = stablehlo.slice %arg0 [0:1, 0:6, 0:6, 0:8]
// CHECK-DAG:     %[[K0:.*]] = stablehlo.slice %arg1 [0:3, 0:3, 0:8, 0:4]
// CHECK-DAG:     %[[X1:.*]] = stablehlo.slice %arg0 [0:1, 0:6, 0:6, 8:16]
// CHECK-DAG:     %[[K1:.*]] = stablehlo.slice %arg1 [0:3, 0:3, 0:8, 4:8]
// CHECK-DAG:     %[[Y0:.*]] = stablehlo.convolution(%[[X0]], %[[K0]]) {{.*}} feature_group_count = 1 : i64} : (tensor<1x6x6x8xf32>, tensor<3x3x8x4xf32>) -> tensor<1x6x6x4xf32>
// CHECK-DAG:     %[[Y1:.*]] = stablehlo.convolution(%[[X1]], %[[K1]]) {{.*}} feature_group_count = 1 : i64} : (tensor<1x6x6x8xf32>, tensor<3x3x8x4xf32>) -> tensor<1x6x6x4xf32>
// CHECK:         %[[Y:.*]] = stablehlo.concatenate %[[Y0]], %[[Y1]], dim = 3
// CHECK:         return %[[Y]] : tensor<1x6x6x8xf32>
func.func @two_groups(%x: tensor<1x6x6x16xf32>, %k: tensor<3x3x8x8xf32>) -> tensor<1x6x6x8xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x6x6x16xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

// CHECK-LABEL: func.func @depthwise
// CHECK:         stablehlo.convolution{{.*}}feature_group_count = 16 : i64
// CHECK-NOT:     stablehlo.convolution
func.func @depthwise(%x: tensor<1x6x6x16xf32>, %k: tensor<3x3x1x16xf32>) -> tensor<1x6x6x16xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 16 : i64} : (tensor<1x6x6x16xf32>, tensor<3x3x1x16xf32>) -> tensor<1x6x6x16xf32>
  return %0 : tensor<1x6x6x16xf32>
}

// -----

// CHECK-LABEL: func.func @narrow_groups
// CHECK:         stablehlo.convolution{{.*}}feature_group_count = 4 : i64
// CHECK-NOT:     stablehlo.convolution
func.func @narrow_groups(%x: tensor<1x6x6x16xf32>, %k: tensor<3x3x4x16xf32>) -> tensor<1x6x6x16xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<1x6x6x16xf32>, tensor<3x3x4x16xf32>) -> tensor<1x6x6x16xf32>
  return %0 : tensor<1x6x6x16xf32>
}
