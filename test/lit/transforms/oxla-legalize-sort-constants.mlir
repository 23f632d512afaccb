// Dense constant operands of a sort reach it through an optimization_barrier, so IREE hands the
// sort a copy to work in; splat constants, other values and sorts without constants stay as they are.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-sort-constants)' | FileCheck %s

// CHECK-LABEL: func.func @payload
// CHECK:         %[[C:.*]] = stablehlo.constant dense<{{\[}}[2, 0, 1]]> : tensor<1x3xi32>
// CHECK:         %[[S:.*]] = stablehlo.constant dense<7> : tensor<1x3xi32>
// CHECK:         %[[B:.*]] = stablehlo.optimization_barrier %[[C]] : tensor<1x3xi32>
// CHECK:         "stablehlo.sort"(%arg0, %[[B]], %[[S]])
func.func @payload(%arg0: tensor<1x3xf32>) -> tensor<1x3xi32> {
  %c = stablehlo.constant dense<[[2, 0, 1]]> : tensor<1x3xi32>
  %s = stablehlo.constant dense<7> : tensor<1x3xi32>
  %0:3 = "stablehlo.sort"(%arg0, %c, %s) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c0: tensor<i32>, %c1: tensor<i32>, %s0: tensor<i32>, %s1: tensor<i32>):
    %1 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<1x3xf32>, tensor<1x3xi32>, tensor<1x3xi32>) -> (tensor<1x3xf32>, tensor<1x3xi32>, tensor<1x3xi32>)
  return %0#1 : tensor<1x3xi32>
}

// -----

// CHECK-LABEL: func.func @no_constants
// CHECK-NOT:     stablehlo.optimization_barrier
func.func @no_constants(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
