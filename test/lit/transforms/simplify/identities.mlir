// Identities of oxla-simplify-stablehlo. Each case names its rule: `applies` cases must be rewritten,
// `keeps` cases must stay; test/python/test_simplify_rules.py also evaluates every case
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

// -----

// (1 + 0i) * z computes re(z) * 1 - im(z) * 0: NaN for an infinite imaginary part, +0.0 for -0.0 - 0.0i.
// rule: multiply_one keeps
// rule: multiply_one_fast applies fast-math
// CHECK-LABEL: func.func @multiply_one_complex
// CHECK:         stablehlo.multiply
// FAST-LABEL:  func.func @multiply_one_complex
// FAST-NEXT:     return %arg0
func.func @multiply_one_complex(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<4xcomplex<f32>>
  %r = stablehlo.multiply %x, %one : tensor<4xcomplex<f32>>
  return %r : tensor<4xcomplex<f32>>
}

// -----

// rule: multiply_one_fast keeps fast-math
// FAST-LABEL:  func.func @multiply_two_complex
// FAST:          stablehlo.multiply
func.func @multiply_two_complex(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %two = stablehlo.constant dense<(2.0, 0.0)> : tensor<4xcomplex<f32>>
  %r = stablehlo.multiply %x, %two : tensor<4xcomplex<f32>>
  return %r : tensor<4xcomplex<f32>>
}

// -----

// rule: multiply_zero applies
// CHECK-LABEL: func.func @multiply_zero_int
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0> : tensor<4xi32>
// CHECK-NEXT:    return %[[Z]]
func.func @multiply_zero_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %zero = stablehlo.constant dense<0> : tensor<4xi32>
  %r = stablehlo.multiply %zero, %x : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: multiply_zero applies
// CHECK-LABEL: func.func @multiply_false
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<false> : tensor<2x2xi1>
// CHECK-NEXT:    return %[[Z]]
func.func @multiply_false(%x: tensor<2x2xi1>) -> tensor<2x2xi1> {
  %zero = stablehlo.constant dense<false> : tensor<2x2xi1>
  %r = stablehlo.multiply %x, %zero : tensor<2x2xi1>
  return %r : tensor<2x2xi1>
}

// -----

// NaN * 0.0 and inf * 0.0 are NaN, -1.0 * 0.0 is -0.0: kept unless fast-math.
// rule: multiply_zero keeps
// rule: multiply_zero_fast applies fast-math
// CHECK-LABEL: func.func @multiply_zero_float
// CHECK:         stablehlo.multiply
// FAST-LABEL:  func.func @multiply_zero_float
// FAST-NEXT:     %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
// FAST-NEXT:     return %[[Z]]
func.func @multiply_zero_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<4xf32>
  %r = stablehlo.multiply %x, %zero : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: multiply_zero keeps
// rule: multiply_zero_fast keeps fast-math
// CHECK-LABEL: func.func @multiply_three_int
// CHECK:         stablehlo.multiply
// FAST-LABEL:  func.func @multiply_three_int
// FAST:          stablehlo.multiply
func.func @multiply_three_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %three = stablehlo.constant dense<3> : tensor<4xi32>
  %r = stablehlo.multiply %x, %three : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: multiply_zero_fast keeps fast-math
// FAST-LABEL:  func.func @multiply_half_float
// FAST:          stablehlo.multiply
func.func @multiply_half_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %half = stablehlo.constant dense<0.5> : tensor<4xf32>
  %r = stablehlo.multiply %x, %half : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: subtract_self_fast applies fast-math
// FAST-LABEL:  func.func @subtract_self_float_fast
// FAST-NEXT:     %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<5xf32>
// FAST-NEXT:     return %[[Z]]
func.func @subtract_self_float_fast(%x: tensor<5xf32>) -> tensor<5xf32> {
  %r = stablehlo.subtract %x, %x : tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// rule: subtract_self keeps
// rule: subtract_self_fast keeps fast-math
// CHECK-LABEL: func.func @subtract_other
// CHECK:         stablehlo.subtract
// FAST-LABEL:  func.func @subtract_other
// FAST:          stablehlo.subtract
func.func @subtract_other(%x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<5xf32> {
  %r = stablehlo.subtract %x, %y : tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// rule: subtract_zero applies
// CHECK-LABEL: func.func @subtract_zero_uint
// CHECK-NEXT:    return %arg0
func.func @subtract_zero_uint(%x: tensor<3xui16>) -> tensor<3xui16> {
  %zero = stablehlo.constant dense<0> : tensor<3xui16>
  %r = stablehlo.subtract %x, %zero : tensor<3xui16>
  return %r : tensor<3xui16>
}

// -----

// x - (+0.0) is x + (-0.0): -0.0 stays -0.0.
// rule: subtract_zero applies
// CHECK-LABEL: func.func @subtract_positive_zero_float
// CHECK-NEXT:    return %arg0
func.func @subtract_positive_zero_float(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<3xf32>
  %r = stablehlo.subtract %x, %zero : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Complex subtraction is part by part, so (+0.0, +0.0) is exact too.
// rule: subtract_zero applies
// CHECK-LABEL: func.func @subtract_zero_complex
// CHECK-NEXT:    return %arg0
func.func @subtract_zero_complex(%x: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<3xcomplex<f32>>
  %r = stablehlo.subtract %x, %zero : tensor<3xcomplex<f32>>
  return %r : tensor<3xcomplex<f32>>
}

// -----

// -0.0 - (-0.0) is +0.0: kept unless fast-math.
// rule: subtract_zero keeps
// rule: subtract_negative_zero_fast applies fast-math
// CHECK-LABEL: func.func @subtract_negative_zero_float
// CHECK:         stablehlo.subtract
// FAST-LABEL:  func.func @subtract_negative_zero_float
// FAST-NEXT:     return %arg0
func.func @subtract_negative_zero_float(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = stablehlo.constant dense<-0.0> : tensor<3xf32>
  %r = stablehlo.subtract %x, %zero : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// 0 - x is not x.
// rule: subtract_zero keeps
// rule: subtract_negative_zero_fast keeps fast-math
// CHECK-LABEL: func.func @subtract_from_zero
// CHECK:         stablehlo.subtract
// FAST-LABEL:  func.func @subtract_from_zero
// FAST:          stablehlo.subtract
func.func @subtract_from_zero(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = stablehlo.constant dense<-0.0> : tensor<3xf32>
  %r = stablehlo.subtract %zero, %x : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// rule: divide_one applies
// CHECK-LABEL: func.func @divide_one_int
// CHECK-NEXT:    return %arg0
func.func @divide_one_int(%x: tensor<6xi8>) -> tensor<6xi8> {
  %one = stablehlo.constant dense<1> : tensor<6xi8>
  %r = stablehlo.divide %x, %one : tensor<6xi8>
  return %r : tensor<6xi8>
}

// -----

// rule: divide_one applies
// CHECK-LABEL: func.func @divide_one_float
// CHECK-NEXT:    return %arg0
func.func @divide_one_float(%x: tensor<6xbf16>) -> tensor<6xbf16> {
  %one = stablehlo.constant dense<1.0> : tensor<6xbf16>
  %r = stablehlo.divide %x, %one : tensor<6xbf16>
  return %r : tensor<6xbf16>
}

// -----

// 1 / x is not x.
// rule: divide_one keeps
// CHECK-LABEL: func.func @divide_into_one
// CHECK:         stablehlo.divide
func.func @divide_into_one(%x: tensor<6xf32>) -> tensor<6xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<6xf32>
  %r = stablehlo.divide %one, %x : tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// Complex division by (1, 0) turns an infinite part into NaN.
// rule: divide_one keeps
// CHECK-LABEL: func.func @divide_one_complex
// CHECK:         stablehlo.divide
func.func @divide_one_complex(%x: tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>> {
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<6xcomplex<f32>>
  %r = stablehlo.divide %x, %one : tensor<6xcomplex<f32>>
  return %r : tensor<6xcomplex<f32>>
}

// -----

// rule: power_one applies
// CHECK-LABEL: func.func @power_one_float
// CHECK-NEXT:    return %arg0
func.func @power_one_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %r = stablehlo.power %x, %one : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: power_one applies
// CHECK-LABEL: func.func @power_one_int
// CHECK-NEXT:    return %arg0
func.func @power_one_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %one = stablehlo.constant dense<1> : tensor<4xi32>
  %r = stablehlo.power %x, %one : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// 1 ** x is not x.
// rule: power_one keeps
// CHECK-LABEL: func.func @power_of_one
// CHECK:         stablehlo.power
func.func @power_of_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %r = stablehlo.power %one, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: and_zero applies
// CHECK-LABEL: func.func @and_zero_int
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0> : tensor<4xi32>
// CHECK-NEXT:    return %[[Z]]
func.func @and_zero_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %zero = stablehlo.constant dense<0> : tensor<4xi32>
  %r = stablehlo.and %zero, %x : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: and_zero applies
// CHECK-LABEL: func.func @and_false
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<false> : tensor<4xi1>
// CHECK-NEXT:    return %[[Z]]
func.func @and_false(%x: tensor<4xi1>) -> tensor<4xi1> {
  %zero = stablehlo.constant dense<false> : tensor<4xi1>
  %r = stablehlo.and %x, %zero : tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: and_zero keeps
// rule: and_all_ones keeps
// CHECK-LABEL: func.func @and_one_int
// CHECK:         stablehlo.and
func.func @and_one_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %one = stablehlo.constant dense<1> : tensor<4xi32>
  %r = stablehlo.and %x, %one : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: and_all_ones applies
// CHECK-LABEL: func.func @and_all_ones_uint
// CHECK-NEXT:    return %arg0
func.func @and_all_ones_uint(%x: tensor<4xui8>) -> tensor<4xui8> {
  %ones = stablehlo.constant dense<255> : tensor<4xui8>
  %r = stablehlo.and %ones, %x : tensor<4xui8>
  return %r : tensor<4xui8>
}

// -----

// rule: and_all_ones applies
// CHECK-LABEL: func.func @and_true
// CHECK-NEXT:    return %arg0
func.func @and_true(%x: tensor<4xi1>) -> tensor<4xi1> {
  %true = stablehlo.constant dense<true> : tensor<4xi1>
  %r = stablehlo.and %x, %true : tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// 127 is not every bit of an i8.
// rule: and_all_ones keeps
// CHECK-LABEL: func.func @and_max_signed
// CHECK:         stablehlo.and
func.func @and_max_signed(%x: tensor<4xi8>) -> tensor<4xi8> {
  %max = stablehlo.constant dense<127> : tensor<4xi8>
  %r = stablehlo.and %x, %max : tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// rule: and_self applies
// CHECK-LABEL: func.func @and_self
// CHECK-NEXT:    return %arg0
func.func @and_self(%x: tensor<4xi16>) -> tensor<4xi16> {
  %r = stablehlo.and %x, %x : tensor<4xi16>
  return %r : tensor<4xi16>
}

// -----

// rule: and_self keeps
// CHECK-LABEL: func.func @and_other
// CHECK:         stablehlo.and
func.func @and_other(%x: tensor<4xi16>, %y: tensor<4xi16>) -> tensor<4xi16> {
  %r = stablehlo.and %x, %y : tensor<4xi16>
  return %r : tensor<4xi16>
}

// -----

// rule: or_zero applies
// CHECK-LABEL: func.func @or_zero_int
// CHECK-NEXT:    return %arg0
func.func @or_zero_int(%x: tensor<4xi64>) -> tensor<4xi64> {
  %zero = stablehlo.constant dense<0> : tensor<4xi64>
  %r = stablehlo.or %zero, %x : tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// rule: or_zero applies
// CHECK-LABEL: func.func @or_false
// CHECK-NEXT:    return %arg0
func.func @or_false(%x: tensor<4xi1>) -> tensor<4xi1> {
  %zero = stablehlo.constant dense<false> : tensor<4xi1>
  %r = stablehlo.or %x, %zero : tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: or_zero keeps
// rule: or_all_ones keeps
// CHECK-LABEL: func.func @or_one_int
// CHECK:         stablehlo.or
func.func @or_one_int(%x: tensor<4xi64>) -> tensor<4xi64> {
  %one = stablehlo.constant dense<1> : tensor<4xi64>
  %r = stablehlo.or %x, %one : tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// rule: or_all_ones applies
// CHECK-LABEL: func.func @or_all_ones_int
// CHECK-NEXT:    %[[ONES:.*]] = stablehlo.constant dense<-1> : tensor<4xi16>
// CHECK-NEXT:    return %[[ONES]]
func.func @or_all_ones_int(%x: tensor<4xi16>) -> tensor<4xi16> {
  %ones = stablehlo.constant dense<-1> : tensor<4xi16>
  %r = stablehlo.or %x, %ones : tensor<4xi16>
  return %r : tensor<4xi16>
}

// -----

// rule: or_all_ones applies
// CHECK-LABEL: func.func @or_true
// CHECK-NEXT:    %[[T:.*]] = stablehlo.constant dense<true> : tensor<4xi1>
// CHECK-NEXT:    return %[[T]]
func.func @or_true(%x: tensor<4xi1>) -> tensor<4xi1> {
  %true = stablehlo.constant dense<true> : tensor<4xi1>
  %r = stablehlo.or %true, %x : tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: or_self applies
// CHECK-LABEL: func.func @or_self
// CHECK-NEXT:    return %arg0
func.func @or_self(%x: tensor<4xi1>) -> tensor<4xi1> {
  %r = stablehlo.or %x, %x : tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: or_self keeps
// CHECK-LABEL: func.func @or_other
// CHECK:         stablehlo.or
func.func @or_other(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
  %r = stablehlo.or %x, %y : tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: xor_self applies
// CHECK-LABEL: func.func @xor_self
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0> : tensor<4xui32>
// CHECK-NEXT:    return %[[Z]]
func.func @xor_self(%x: tensor<4xui32>) -> tensor<4xui32> {
  %r = stablehlo.xor %x, %x : tensor<4xui32>
  return %r : tensor<4xui32>
}

// -----

// rule: xor_self keeps
// CHECK-LABEL: func.func @xor_other
// CHECK:         stablehlo.xor
func.func @xor_other(%x: tensor<4xui32>, %y: tensor<4xui32>) -> tensor<4xui32> {
  %r = stablehlo.xor %x, %y : tensor<4xui32>
  return %r : tensor<4xui32>
}

// -----

// rule: xor_zero applies
// CHECK-LABEL: func.func @xor_false
// CHECK-NEXT:    return %arg0
func.func @xor_false(%x: tensor<4xi1>) -> tensor<4xi1> {
  %zero = stablehlo.constant dense<false> : tensor<4xi1>
  %r = stablehlo.xor %zero, %x : tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// x ^ -1 flips every bit.
// rule: xor_zero keeps
// CHECK-LABEL: func.func @xor_all_ones
// CHECK:         stablehlo.xor
func.func @xor_all_ones(%x: tensor<4xi32>) -> tensor<4xi32> {
  %ones = stablehlo.constant dense<-1> : tensor<4xi32>
  %r = stablehlo.xor %x, %ones : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: negate_negate applies
// CHECK-LABEL: func.func @negate_negate_float
// CHECK-NEXT:    return %arg0
func.func @negate_negate_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %n = stablehlo.negate %x : tensor<4xf32>
  %r = stablehlo.negate %n : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// -(-MIN) wraps around back to MIN.
// rule: negate_negate applies
// CHECK-LABEL: func.func @negate_negate_int
// CHECK-NEXT:    return %arg0
func.func @negate_negate_int(%x: tensor<4xi8>) -> tensor<4xi8> {
  %n = stablehlo.negate %x : tensor<4xi8>
  %r = stablehlo.negate %n : tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// rule: negate_negate keeps
// CHECK-LABEL: func.func @negate_abs
// CHECK:         stablehlo.abs
// CHECK:         stablehlo.negate
func.func @negate_abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = stablehlo.abs %x : tensor<4xf32>
  %r = stablehlo.negate %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: not_not applies
// CHECK-LABEL: func.func @not_not_bool
// CHECK-NEXT:    return %arg0
func.func @not_not_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  %n = stablehlo.not %x : tensor<4xi1>
  %r = stablehlo.not %n : tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: not_not applies
// CHECK-LABEL: func.func @not_not_int
// CHECK-NEXT:    return %arg0
func.func @not_not_int(%x: tensor<4xui8>) -> tensor<4xui8> {
  %n = stablehlo.not %x : tensor<4xui8>
  %r = stablehlo.not %n : tensor<4xui8>
  return %r : tensor<4xui8>
}

// -----

// rule: not_not keeps
// CHECK-LABEL: func.func @not_once
// CHECK:         stablehlo.not
func.func @not_once(%x: tensor<4xi32>) -> tensor<4xi32> {
  %r = stablehlo.not %x : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: select_constant_predicate applies
// CHECK-LABEL: func.func @select_true_scalar
// CHECK-NEXT:    return %arg0
func.func @select_true_scalar(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %p = stablehlo.constant dense<true> : tensor<i1>
  %r = stablehlo.select %p, %x, %y : tensor<i1>, tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: select_constant_predicate applies
// CHECK-LABEL: func.func @select_false
// CHECK-NEXT:    return %arg1
func.func @select_false(%x: tensor<2x3xi32>, %y: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %p = stablehlo.constant dense<false> : tensor<2x3xi1>
  %r = stablehlo.select %p, %x, %y : tensor<2x3xi1>, tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}

// -----

// A predicate that is not a splat picks from both branches.
// rule: select_constant_predicate keeps
// CHECK-LABEL: func.func @select_mixed_predicate
// CHECK:         stablehlo.select
func.func @select_mixed_predicate(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %p = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %r = stablehlo.select %p, %x, %y : tensor<2xi1>, tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// rule: select_same_branches applies
// CHECK-LABEL: func.func @select_same_branches
// CHECK-NEXT:    return %arg1
func.func @select_same_branches(%p: tensor<3xi1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = stablehlo.select %p, %x, %x : tensor<3xi1>, tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// rule: select_same_branches keeps
// CHECK-LABEL: func.func @select_two_branches
// CHECK:         stablehlo.select
func.func @select_two_branches(%p: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %r = stablehlo.select %p, %x, %y : tensor<3xi1>, tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// rule: compare_self applies
// CHECK-LABEL: func.func @compare_self_eq_int
// CHECK-NEXT:    %[[T:.*]] = stablehlo.constant dense<true> : tensor<4xi1>
// CHECK-NEXT:    return %[[T]]
func.func @compare_self_eq_int(%x: tensor<4xi32>) -> tensor<4xi1> {
  %r = stablehlo.compare EQ, %x, %x, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: compare_self applies
// CHECK-LABEL: func.func @compare_self_lt_uint
// CHECK-NEXT:    %[[F:.*]] = stablehlo.constant dense<false> : tensor<4xi1>
// CHECK-NEXT:    return %[[F]]
func.func @compare_self_lt_uint(%x: tensor<4xui8>) -> tensor<4xi1> {
  %r = stablehlo.compare LT, %x, %x : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// In the total order every value, each NaN included, equals itself.
// rule: compare_self applies
// CHECK-LABEL: func.func @compare_self_totalorder
// CHECK-NEXT:    %[[T:.*]] = stablehlo.constant dense<true> : tensor<4xi1>
// CHECK-NEXT:    return %[[T]]
func.func @compare_self_totalorder(%x: tensor<4xf32>) -> tensor<4xi1> {
  %r = stablehlo.compare GE, %x, %x, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// NaN == NaN is false: kept unless fast-math.
// rule: compare_self keeps
// rule: compare_self_fast applies fast-math
// CHECK-LABEL: func.func @compare_self_float
// CHECK:         stablehlo.compare
// FAST-LABEL:  func.func @compare_self_float
// FAST-NEXT:     %[[T:.*]] = stablehlo.constant dense<true> : tensor<4xi1>
// FAST-NEXT:     return %[[T]]
func.func @compare_self_float(%x: tensor<4xf32>) -> tensor<4xi1> {
  %r = stablehlo.compare EQ, %x, %x, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: compare_self keeps
// rule: compare_self_fast keeps fast-math
// CHECK-LABEL: func.func @compare_other
// CHECK:         stablehlo.compare
// FAST-LABEL:  func.func @compare_other
// FAST:          stablehlo.compare
func.func @compare_other(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %r = stablehlo.compare LE, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: maximum_self applies
// CHECK-LABEL: func.func @maximum_self
// CHECK-NEXT:    return %arg0
func.func @maximum_self(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.maximum %x, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: maximum_self keeps
// CHECK-LABEL: func.func @maximum_other
// CHECK:         stablehlo.maximum
func.func @maximum_other(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.maximum %x, %y : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: minimum_self applies
// CHECK-LABEL: func.func @minimum_self
// CHECK-NEXT:    return %arg0
func.func @minimum_self(%x: tensor<4xi32>) -> tensor<4xi32> {
  %r = stablehlo.minimum %x, %x : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: minimum_self keeps
// CHECK-LABEL: func.func @minimum_other
// CHECK:         stablehlo.minimum
func.func @minimum_other(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %r = stablehlo.minimum %x, %y : tensor<4xi32>
  return %r : tensor<4xi32>
}
