// Identities of oxla-simplify-stablehlo. Each case names its rule: `applies` cases must be rewritten,
// `keeps` cases must stay; test/python/transforms/test_simplify_rules.py also evaluates every case
// before and after the pass on random and special inputs.
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo=strict=true | FileCheck %s
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo="strict=true fast-math=true" | FileCheck %s --check-prefix=FAST

// rule: add_zero applies
// CHECK-LABEL: func.func @add_zero_int
// CHECK-NEXT:    return %arg0
func.func @add_zero_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %zero = stablehlo.constant dense<0> : tensor<4xi32>
  %r = stablehlo.add %zero, %x : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: add_zero applies
// CHECK-LABEL: func.func @add_negative_zero_float
// CHECK-NEXT:    return %arg0
func.func @add_negative_zero_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<-0.0> : tensor<4xf32>
  %r = stablehlo.add %x, %zero : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// x + 0.0 is not x when x is -0.0: kept unless fast-math.
// rule: add_zero keeps
// rule: add_positive_zero_fast applies fast-math
// CHECK-LABEL: func.func @add_positive_zero_float
// CHECK:         stablehlo.add
// FAST-LABEL:  func.func @add_positive_zero_float
// FAST-NEXT:     return %arg0
func.func @add_positive_zero_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<4xf32>
  %r = stablehlo.add %x, %zero : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: add_positive_zero_fast keeps fast-math
// FAST-LABEL:  func.func @add_one_float
// FAST:          stablehlo.add
func.func @add_one_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %r = stablehlo.add %one, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: multiply_one applies
// CHECK-LABEL: func.func @multiply_one
// CHECK-NEXT:    return %arg0
func.func @multiply_one(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<2x3xf32>
  %r = stablehlo.multiply %one, %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: multiply_one keeps
// CHECK-LABEL: func.func @multiply_two
// CHECK:         stablehlo.multiply
func.func @multiply_two(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<2x3xf32>
  %r = stablehlo.multiply %two, %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: subtract_self applies
// CHECK-LABEL: func.func @subtract_self_int
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0> : tensor<5xi8>
// CHECK-NEXT:    return %[[Z]]
func.func @subtract_self_int(%x: tensor<5xi8>) -> tensor<5xi8> {
  %r = stablehlo.subtract %x, %x : tensor<5xi8>
  return %r : tensor<5xi8>
}

// -----

// inf - inf and NaN - NaN are NaN, so floats keep their subtraction.
// rule: subtract_self keeps
// CHECK-LABEL: func.func @subtract_self_float
// CHECK:         stablehlo.subtract
func.func @subtract_self_float(%x: tensor<5xf32>) -> tensor<5xf32> {
  %r = stablehlo.subtract %x, %x : tensor<5xf32>
  return %r : tensor<5xf32>
}
