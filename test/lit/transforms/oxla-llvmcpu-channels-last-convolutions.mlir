// A convolution in another layout than channels-last runs as a channels-last one between transposes; a
// kernel computed at run time passes through an optimization barrier after its transpose (IREE would fuse
// the transpose into the convolution), a constant one does not (IREE folds its transpose while compiling).
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-channels-last-convolutions)' | FileCheck %s

// CHECK-LABEL: func.func @nchw
// CHECK-NEXT:    %[[X:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 3, 1] : (tensor<1x4x6x7xf32>) -> tensor<1x6x7x4xf32>
// CHECK-NEXT:    %[[T:.*]] = stablehlo.transpose %arg1, dims = [2, 3, 1, 0] : (tensor<8x4x3x3xf32>) -> tensor<3x3x4x8xf32>
// CHECK-NEXT:    %[[K:.*]] = stablehlo.optimization_barrier %[[T]]
// CHECK-NEXT:    %[[Y:.*]] = stablehlo.convolution(%[[X]], %[[K]]) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = {{\[}}[1, 1], [1, 1]]}
// CHECK-SAME:      -> tensor<1x3x7x8xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.transpose %[[Y]], dims = [0, 3, 1, 2] : (tensor<1x3x7x8xf32>) -> tensor<1x8x3x7xf32>
// CHECK-NEXT:    return %[[R]]
func.func @nchw(%x: tensor<1x4x6x7xf32>, %k: tensor<8x4x3x3xf32>) -> tensor<1x8x3x7xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x6x7xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x3x7xf32>
  return %0 : tensor<1x8x3x7xf32>
}

// -----

// CHECK-LABEL: func.func @constant_kernel
// CHECK:         stablehlo.transpose %{{.*}}, dims = [2, 3, 1, 0]
// CHECK-NOT:     optimization_barrier
// CHECK:         stablehlo.convolution
func.func @constant_kernel(%x: tensor<1x4x6x6xf32>) -> tensor<1x8x4x4xf32> {
  %k = stablehlo.constant dense<0.5> : tensor<8x4x3x3xf32>
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// Kernel in HWIO but the input channels-first: only the input and the result are transposed.
// CHECK-LABEL: func.func @mixed
// CHECK-NEXT:    stablehlo.transpose %arg0, dims = [0, 2, 3, 1]
// CHECK-NEXT:    stablehlo.convolution(%{{.*}}, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
// CHECK-NEXT:    stablehlo.transpose
func.func @mixed(%x: tensor<1x4x6x6xf32>, %k: tensor<3x3x4x8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[0, 1, i, o]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<3x3x4x8xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// Channels-last already, in one, two or three spatial dimensions: left alone.
// CHECK-LABEL: func.func @channels_last
// CHECK-NEXT:    stablehlo.convolution(%arg0, %arg1)
// CHECK-NEXT:    stablehlo.convolution(%arg2, %arg3)
// CHECK-NEXT:    return
func.func @channels_last(%x: tensor<1x6x6x4xf32>, %k: tensor<3x3x4x2xf32>, %x3: tensor<1x4x4x4x2xf32>, %k3: tensor<2x2x2x2x3xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x3x3x3x3xf32>) {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = stablehlo.convolution(%x3, %k3) dim_numbers = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x4x2xf32>, tensor<2x2x2x2x3xf32>) -> tensor<1x3x3x3x3xf32>
  return %0, %1 : tensor<1x4x4x2xf32>, tensor<1x3x3x3x3xf32>
}
