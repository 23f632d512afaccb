// RUN: oxla-opt %s --split-input-file --pass-pipeline='builtin.module(oxla-llvmcpu-outer-reduction-dispatches)' | FileCheck %s
// RUN: oxla-opt %s --split-input-file --pass-pipeline='builtin.module(oxla-llvmcpu-outer-reduction-dispatches{min-elements=1})' | FileCheck %s --check-prefix=SMALL

// A column max broadcast back and subtracted: the max goes through a barrier, read by the broadcast.
// CHECK-LABEL: func.func @column_max_subtracted
// CHECK:         %[[M:.*]] = stablehlo.reduce(%arg0 init:
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[M]]
// CHECK-NEXT:    stablehlo.broadcast_in_dim %[[B]]
// CHECK-NOT:     optimization_barrier
func.func @column_max_subtracted(%x: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<1024x256xf32>, tensor<f32>) -> tensor<256xf32>
  %b = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<256xf32>) -> tensor<1024x256xf32>
  %c = stablehlo.subtract %x, %b : tensor<1024x256xf32>
  return %c : tensor<1024x256xf32>
}

// -----

// A mean over N, H and W of NHWC: the mean (the sum divided by the count) is fenced, so the division
// runs once per channel, not once per element of the subtraction.
// CHECK-LABEL: func.func @batch_mean_centred
// CHECK:         %[[S:.*]] = stablehlo.reduce(%arg0 init:
// CHECK-NEXT:    %[[M:.*]] = stablehlo.divide %[[S]],
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[M]]
// CHECK-NEXT:    stablehlo.broadcast_in_dim %[[B]]
func.func @batch_mean_centred(%x: tensor<8x16x16x64xf32>) -> tensor<8x16x16x64xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<2048.0> : tensor<64xf32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<8x16x16x64xf32>, tensor<f32>) -> tensor<64xf32>
  %m = stablehlo.divide %s, %n : tensor<64xf32>
  %b = stablehlo.broadcast_in_dim %m, dims = [3] : (tensor<64xf32>) -> tensor<8x16x16x64xf32>
  %c = stablehlo.subtract %x, %b : tensor<8x16x16x64xf32>
  return %c : tensor<8x16x16x64xf32>
}

// -----

// Reductions over the innermost dimension (a softmax's over rows) keep IREE's fused dispatch.
// CHECK-LABEL: func.func @row_max_subtracted
// CHECK-NOT:     optimization_barrier
func.func @row_max_subtracted(%x: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<1024x256xf32>, tensor<f32>) -> tensor<1024xf32>
  %b = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<1024xf32>) -> tensor<1024x256xf32>
  %c = stablehlo.subtract %x, %b : tensor<1024x256xf32>
  return %c : tensor<1024x256xf32>
}

// -----

// A column sum returned, never broadcast back: nothing would share its dispatch.
// CHECK-LABEL: func.func @column_sum
// CHECK-NOT:     optimization_barrier
func.func @column_sum(%x: tensor<1024x256xf32>) -> tensor<256xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<1024x256xf32>, tensor<f32>) -> tensor<256xf32>
  %h = stablehlo.multiply %s, %s : tensor<256xf32>
  return %h : tensor<256xf32>
}

// -----

// Below min-elements (65536 by default) the fused dispatch costs little.
// CHECK-LABEL: func.func @small
// CHECK-NOT:     optimization_barrier
// SMALL-LABEL: func.func @small
// SMALL:         stablehlo.optimization_barrier
func.func @small(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64x64xf32>, tensor<f32>) -> tensor<64xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<64xf32>) -> tensor<64x64xf32>
  %c = stablehlo.subtract %x, %b : tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// -----

// A variance computed in a private function (as JAX writes jnp.var) and broadcast back by its caller:
// the caller's reciprocal square root of it is fenced.
// CHECK-LABEL: func.func @normalised
// CHECK:         %[[R:.*]] = stablehlo.rsqrt
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[R]]
// CHECK-NEXT:    stablehlo.broadcast_in_dim %[[B]]
// CHECK-LABEL: func.func private @variance
// CHECK-NOT:     optimization_barrier
func.func @normalised(%x: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %v = call @variance(%x) : (tensor<1024x256xf32>) -> tensor<256xf32>
  %r = stablehlo.rsqrt %v : tensor<256xf32>
  %b = stablehlo.broadcast_in_dim %r, dims = [1] : (tensor<256xf32>) -> tensor<1024x256xf32>
  %c = stablehlo.multiply %x, %b : tensor<1024x256xf32>
  return %c : tensor<1024x256xf32>
}
func.func private @variance(%x: tensor<1024x256xf32>) -> tensor<256xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.multiply %x, %x : tensor<1024x256xf32>
  %v = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<1024x256xf32>, tensor<f32>) -> tensor<256xf32>
  return %v : tensor<256xf32>
}

// -----

// A column sum handed to a private function that broadcasts it back: fenced there, where it arrives.
// CHECK-LABEL: func.func @centred_by_a_callee
// CHECK-NOT:     optimization_barrier
// CHECK-LABEL: func.func private @centre
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %arg1
// CHECK-NEXT:    stablehlo.broadcast_in_dim %[[B]]
func.func @centred_by_a_callee(%x: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<1024x256xf32>, tensor<f32>) -> tensor<256xf32>
  %c = call @centre(%x, %s) : (tensor<1024x256xf32>, tensor<256xf32>) -> tensor<1024x256xf32>
  return %c : tensor<1024x256xf32>
}
func.func private @centre(%x: tensor<1024x256xf32>, %s: tensor<256xf32>) -> tensor<1024x256xf32> {
  %b = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<256xf32>) -> tensor<1024x256xf32>
  %c = stablehlo.subtract %x, %b : tensor<1024x256xf32>
  return %c : tensor<1024x256xf32>
}

// -----

// JAX's keepdims mean: a broadcast that only reshapes ([64] to [1,1,1,64]) is followed to the one that
// spreads the mean over the image.
// CHECK-LABEL: func.func @keepdims_mean
// CHECK:         %[[D:.*]] = stablehlo.divide
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[D]] : tensor<1x1x1x64xf32>
// CHECK-NEXT:    stablehlo.broadcast_in_dim %[[B]], dims = [0, 1, 2, 3]
func.func @keepdims_mean(%x: tensor<8x16x16x64xf32>) -> tensor<8x16x16x64xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<2048.0> : tensor<1x1x1x64xf32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<8x16x16x64xf32>, tensor<f32>) -> tensor<64xf32>
  %k = stablehlo.broadcast_in_dim %s, dims = [3] : (tensor<64xf32>) -> tensor<1x1x1x64xf32>
  %m = stablehlo.divide %k, %n : tensor<1x1x1x64xf32>
  %b = stablehlo.broadcast_in_dim %m, dims = [0, 1, 2, 3] : (tensor<1x1x1x64xf32>) -> tensor<8x16x16x64xf32>
  %c = stablehlo.subtract %x, %b : tensor<8x16x16x64xf32>
  return %c : tensor<8x16x16x64xf32>
}
