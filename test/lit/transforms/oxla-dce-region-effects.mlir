// XFAIL: *
// BUG (python/oxla/transforms/dce.py): is_pure() looks inside the regions of
// stablehlo.while/if/case only; any other stablehlo op with a region
// (reduce, reduce_window, sort, map, scatter, select_and_scatter) counts as
// pure whatever its body does, so oxla-dce erases an unused reduce whose
// reducer calls a side-effecting custom_call. canonicalize keeps it.
// RUN: oxla-opt %s --oxla-dce | FileCheck %s
// RUN: oxla-opt %s --canonicalize | FileCheck %s

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
