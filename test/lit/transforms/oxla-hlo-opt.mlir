// oxla-hlo-opt: simplify, canonicalize/cse, fold and dce, round after round, to a fixed point.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-hlo-opt | FileCheck %s
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-hlo-opt="max-iterations=1" \
// RUN:   | FileCheck %s --check-prefix=ONCE
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-hlo-opt="fast-math=true" \
// RUN:   | FileCheck %s --check-prefix=FAST

// Identities go, constant arithmetic folds, duplicates merge, dead ops and
// unused private functions go.
// CHECK-LABEL: func.func @interplay
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<[5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00]>
// CHECK-NEXT:    %[[A:.*]] = stablehlo.add %arg0, %[[C]]
// CHECK-NEXT:    %[[M:.*]] = stablehlo.multiply %[[A]], %[[A]]
// CHECK-NEXT:    return %[[M]]
// CHECK-NEXT:  }
// CHECK-NOT:   func.func private @unused
func.func @interplay(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %m = stablehlo.multiply %x, %one : tensor<4xf32>
  %t = stablehlo.transpose %m, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = stablehlo.constant dense<0.5> : tensor<4xf32>
  %c = stablehlo.multiply %a, %b : tensor<4xf32>
  %s1 = stablehlo.add %t, %c : tensor<4xf32>
  %s2 = stablehlo.add %t, %c : tensor<4xf32>
  %r = stablehlo.multiply %s1, %s2 : tensor<4xf32>
  %dead = stablehlo.exponential %r : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// A select whose predicate folds to a constant goes in the next round:
// max-iterations=1 stops before it.
// CHECK-LABEL: func.func @two_rounds
// CHECK-NEXT:    return %arg0
// ONCE-LABEL:  func.func @two_rounds
// ONCE:          stablehlo.select
func.func @two_rounds(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = stablehlo.constant dense<1> : tensor<4xi32>
  %b = stablehlo.constant dense<2> : tensor<4xi32>
  %p = stablehlo.compare LT, %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %s = stablehlo.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// x + 0.0 is not x for x = -0.0: it stays unless fast-math.
// CHECK-LABEL: func.func @fast_math
// CHECK:         stablehlo.add
// FAST-LABEL:  func.func @fast_math
// FAST-NEXT:     return %arg0
func.func @fast_math(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<4xf32>
  %r = stablehlo.add %x, %z : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Ops of other dialects, and ops with effects, stay as they are.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %[[T:.*]] = "test.opaque"(%arg0)
// CHECK-NEXT:    %[[S:.*]] = stablehlo.custom_call @log(%[[T]]) {has_side_effect = true}
// CHECK-NEXT:    return %[[S]]
func.func @untouched(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = "test.opaque"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = stablehlo.custom_call @log(%t) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
