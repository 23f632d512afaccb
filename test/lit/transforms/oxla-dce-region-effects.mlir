// oxla-dce keeps an op whose region holds a side effect, as canonicalize does.
// RUN: oxla-opt %s --split-input-file --oxla-dce | FileCheck %s
// RUN: oxla-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @reduce_with_effect
// CHECK:         stablehlo.reduce
// CHECK:         stablehlo.custom_call @log_to_host
func.func @reduce_with_effect(%arg0: tensor<4xf32>, %init: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%arg0 init: %init) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %log = stablehlo.custom_call @log_to_host(%a) {has_side_effect = true} : (tensor<f32>) -> tensor<f32>
      %s = stablehlo.add %log, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }
  return %arg0 : tensor<4xf32>
}

// -----

// An unused reduce with a pure body goes.
// CHECK-LABEL: func.func @reduce_pure
// CHECK-NOT:     stablehlo.reduce
// CHECK:         return
func.func @reduce_pure(%arg0: tensor<4xf32>, %init: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%arg0 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %arg0 : tensor<4xf32>
}
