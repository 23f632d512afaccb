// Stable sorts of several operands also carry each element's position, and their comparator orders
// equal elements by it; single-operand sorts, unstable ones and top-k prefixes stay as they are.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-stable-sorts)' | FileCheck %s

// CHECK-LABEL: func.func @argsort
// CHECK:         %[[AT:.*]] = stablehlo.iota dim = 1 : tensor<2x5xi32>
// CHECK:         %[[S:.*]]:3 = "stablehlo.sort"(%arg0, %arg1, %[[AT]]) <{dimension = 1 : i64, is_stable = true}>
// CHECK:         ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>, %[[PA:.*]]: tensor<i32>, %[[PB:.*]]: tensor<i32>):
// CHECK:           %[[EARLIER:.*]] = stablehlo.compare LT, %[[PA]], %[[PB]], SIGNED
// CHECK:           %[[AB:.*]] = stablehlo.compare LT, %[[A]], %[[B]], TOTALORDER
// CHECK:           %[[BA:.*]] = stablehlo.compare LT, %[[B]], %[[A]], TOTALORDER
// CHECK:           %[[NOT:.*]] = stablehlo.not %[[BA]]
// CHECK:           %[[TIE:.*]] = stablehlo.and %[[NOT]], %[[EARLIER]]
// CHECK:           %[[FIRST:.*]] = stablehlo.or %[[AB]], %[[TIE]]
// CHECK:           stablehlo.return %[[FIRST]]
// CHECK:         return %[[S]]#1
func.func @argsort(%arg0: tensor<2x5xf32>, %arg1: tensor<2x5xi32>) -> tensor<2x5xi32> {
  %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<2x5xf32>, tensor<2x5xi32>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
  return %0#1 : tensor<2x5xi32>
}

// -----

// CHECK-LABEL: func.func @unstable
// CHECK-NOT:     stablehlo.iota
// CHECK:         "stablehlo.sort"(%arg0, %arg1)
func.func @unstable(%arg0: tensor<5xf32>, %arg1: tensor<5xi32>) -> tensor<5xi32> {
  %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
  return %0#1 : tensor<5xi32>
}

// -----

// CHECK-LABEL: func.func @top_two
// CHECK-NOT:     stablehlo.iota dim = 0 : tensor<5xi32>
// CHECK:         "stablehlo.sort"(%arg0, %arg1)
func.func @top_two(%arg0: tensor<5xf32>, %arg1: tensor<5xi32>) -> tensor<2xi32> {
  %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
  %2 = stablehlo.slice %0#1 [0:2] : (tensor<5xi32>) -> tensor<2xi32>
  return %2 : tensor<2xi32>
}
