// RUN: oxla-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(oxla-materialize-shared-elementwise))' | FileCheck %s
// RUN: oxla-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(oxla-materialize-shared-elementwise{min-elements=1}))' | FileCheck %s --check-prefix=SMALL

// A tanh that a sum and the centred output both need: written once, read by both.
// CHECK-LABEL: func.func @shared_by_a_reduction
// CHECK:         %[[Y:.*]] = stablehlo.tanh %arg0
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[Y]]
// CHECK:         stablehlo.reduce(%[[B]] init:
// CHECK:         stablehlo.subtract %[[B]],
// CHECK-NOT:     optimization_barrier
func.func @shared_by_a_reduction(%x: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %y = stablehlo.tanh %x : tensor<256x128xf32>
  %s = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<256x128xf32>, tensor<f32>) -> tensor<256xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<256xf32>) -> tensor<256x128xf32>
  %c = stablehlo.subtract %y, %b : tensor<256x128xf32>
  return %c : tensor<256x128xf32>
}

// -----

// Cheap values stay fused however many reductions read them.
// CHECK-LABEL: func.func @cheap_value
// CHECK-NOT:     optimization_barrier
func.func @cheap_value(%x: tensor<256x128xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %y = stablehlo.multiply %x, %x : tensor<256x128xf32>
  %s = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<256x128xf32>, tensor<f32>) -> tensor<256xf32>
  %m = stablehlo.reduce(%y init: %zero) applies stablehlo.maximum across dimensions = [1] : (tensor<256x128xf32>, tensor<f32>) -> tensor<256xf32>
  return %s, %m : tensor<256xf32>, tensor<256xf32>
}

// -----

// One consumer, or consumers none of which reduces: nothing is recomputed per reduction.
// CHECK-LABEL: func.func @no_reduction
// CHECK-NOT:     optimization_barrier
func.func @no_reduction(%x: tensor<256x128xf32>) -> (tensor<256x128xf32>, tensor<256x128xf32>) {
  %y = stablehlo.exponential %x : tensor<256x128xf32>
  %a = stablehlo.add %y, %x : tensor<256x128xf32>
  %b = stablehlo.multiply %y, %x : tensor<256x128xf32>
  return %a, %b : tensor<256x128xf32>, tensor<256x128xf32>
}

// -----

// Below min-elements (16384 by default) recomputing is cheaper than a round trip to memory.
// CHECK-LABEL: func.func @small
// CHECK-NOT:     optimization_barrier
// SMALL-LABEL: func.func @small
// SMALL:         stablehlo.optimization_barrier
func.func @small(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %y = stablehlo.logistic %x : tensor<4x8xf32>
  %s = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %c = stablehlo.divide %y, %b : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
