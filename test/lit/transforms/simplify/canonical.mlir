// Canonical forms of oxla-simplify-stablehlo: constants move to the right-hand side.
// Each case names its rule: `applies` cases must be rewritten, `keeps` cases must stay;
// test/python/test_simplify_rules.py also evaluates every case before and after the pass.
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo=strict=true | FileCheck %s
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo="strict=true fast-math=true" | FileCheck %s --check-prefix=FAST

// rule: constant_to_rhs applies
// CHECK-LABEL: func.func @add_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant dense<2.500000e+00>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.add %arg0, %[[C]] : tensor<4xf32>
// CHECK-NEXT:    return %[[R]]
// FAST-LABEL:  func.func @add_constant_left
// FAST:          stablehlo.add %arg0, %{{.*}} : tensor<4xf32>
func.func @add_constant_left(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<2.5> : tensor<4xf32>
  %r = stablehlo.add %c, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: constant_to_rhs applies
// CHECK-LABEL: func.func @multiply_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant dense<[1, 2, 3, 4]>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.multiply %arg0, %[[C]] : tensor<4xi32>
// CHECK-NEXT:    return %[[R]]
func.func @multiply_constant_left(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %r = stablehlo.multiply %c, %x : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: constant_to_rhs applies
// CHECK-LABEL: func.func @maximum_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant
// CHECK-NEXT:    %[[R:.*]] = stablehlo.maximum %arg0, %[[C]] : tensor<4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @maximum_constant_left(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<-1.5> : tensor<4xf32>
  %r = stablehlo.maximum %c, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: constant_to_rhs applies
// CHECK-LABEL: func.func @minimum_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant
// CHECK-NEXT:    %[[R:.*]] = stablehlo.minimum %arg0, %[[C]] : tensor<4xui8>
// CHECK-NEXT:    return %[[R]]
func.func @minimum_constant_left(%x: tensor<4xui8>) -> tensor<4xui8> {
  %c = stablehlo.constant dense<100> : tensor<4xui8>
  %r = stablehlo.minimum %c, %x : tensor<4xui8>
  return %r : tensor<4xui8>
}

// -----

// rule: constant_to_rhs applies
// CHECK-LABEL: func.func @and_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant
// CHECK-NEXT:    %[[R:.*]] = stablehlo.and %arg0, %[[C]] : tensor<4xi32>
// CHECK-NEXT:    return %[[R]]
func.func @and_constant_left(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<12> : tensor<4xi32>
  %r = stablehlo.and %c, %x : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: constant_to_rhs applies
// CHECK-LABEL: func.func @or_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant
// CHECK-NEXT:    %[[R:.*]] = stablehlo.or %arg0, %[[C]] : tensor<2xi1>
// CHECK-NEXT:    return %[[R]]
func.func @or_constant_left(%x: tensor<2xi1>) -> tensor<2xi1> {
  %c = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %r = stablehlo.or %c, %x : tensor<2xi1>
  return %r : tensor<2xi1>
}

// -----

// rule: constant_to_rhs applies
// CHECK-LABEL: func.func @xor_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant
// CHECK-NEXT:    %[[R:.*]] = stablehlo.xor %arg0, %[[C]] : tensor<4xi8>
// CHECK-NEXT:    return %[[R]]
func.func @xor_constant_left(%x: tensor<4xi8>) -> tensor<4xi8> {
  %c = stablehlo.constant dense<5> : tensor<4xi8>
  %r = stablehlo.xor %c, %x : tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// rule: constant_to_rhs keeps
// CHECK-LABEL: func.func @add_constant_right
// CHECK:         stablehlo.add %arg0, %{{.*}} : tensor<4xf32>
func.func @add_constant_right(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<2.5> : tensor<4xf32>
  %r = stablehlo.add %x, %c : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Two constants: left as they are (folding is another pass's job), so nothing swaps back and forth.
// rule: constant_to_rhs keeps
// CHECK-LABEL: func.func @add_two_constants
// CHECK-DAG:     %[[A:.*]] = stablehlo.constant dense<1.000000e+00>
// CHECK-DAG:     %[[B:.*]] = stablehlo.constant dense<2.000000e+00>
// CHECK:         stablehlo.add %[[A]], %[[B]]
func.func @add_two_constants() -> tensor<4xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<4xf32>
  %b = stablehlo.constant dense<2.0> : tensor<4xf32>
  %r = stablehlo.add %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Subtraction is not commutative.
// rule: constant_to_rhs keeps
// CHECK-LABEL: func.func @subtract_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant
// CHECK-NEXT:    stablehlo.subtract %[[C]], %arg0
func.func @subtract_constant_left(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<2.5> : tensor<4xf32>
  %r = stablehlo.subtract %c, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: compare_constant_to_rhs applies
// CHECK-LABEL: func.func @compare_lt_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant
// CHECK-NEXT:    %[[R:.*]] = stablehlo.compare GT, %arg0, %[[C]], FLOAT
// CHECK-NEXT:    return %[[R]]
func.func @compare_lt_constant_left(%x: tensor<4xf32>) -> tensor<4xi1> {
  %c = stablehlo.constant dense<0.5> : tensor<4xf32>
  %r = stablehlo.compare LT, %c, %x, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: compare_constant_to_rhs applies
// CHECK-LABEL: func.func @compare_ge_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant
// CHECK-NEXT:    %[[R:.*]] = stablehlo.compare LE, %arg0, %[[C]], UNSIGNED
// CHECK-NEXT:    return %[[R]]
func.func @compare_ge_constant_left(%x: tensor<4xui32>) -> tensor<4xi1> {
  %c = stablehlo.constant dense<7> : tensor<4xui32>
  %r = stablehlo.compare GE, %c, %x, UNSIGNED : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: compare_constant_to_rhs applies
// CHECK-LABEL: func.func @compare_ne_constant_left
// CHECK:         %[[C:.*]] = stablehlo.constant
// CHECK-NEXT:    %[[R:.*]] = stablehlo.compare NE, %arg0, %[[C]]
// CHECK-NEXT:    return %[[R]]
func.func @compare_ne_constant_left(%x: tensor<4xi32>) -> tensor<4xi1> {
  %c = stablehlo.constant dense<3> : tensor<4xi32>
  %r = stablehlo.compare NE, %c, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: compare_constant_to_rhs keeps
// CHECK-LABEL: func.func @compare_constant_right
// CHECK:         stablehlo.compare LT, %arg0, %{{.*}}, FLOAT
func.func @compare_constant_right(%x: tensor<4xf32>) -> tensor<4xi1> {
  %c = stablehlo.constant dense<0.5> : tensor<4xf32>
  %r = stablehlo.compare LT, %x, %c, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// rule: compare_constant_to_rhs keeps
// CHECK-LABEL: func.func @compare_two_constants
// CHECK-DAG:     %[[A:.*]] = stablehlo.constant dense<1>
// CHECK-DAG:     %[[B:.*]] = stablehlo.constant dense<2>
// CHECK:         stablehlo.compare LT, %[[A]], %[[B]]
func.func @compare_two_constants() -> tensor<4xi1> {
  %a = stablehlo.constant dense<1> : tensor<4xi32>
  %b = stablehlo.constant dense<2> : tensor<4xi32>
  %r = stablehlo.compare LT, %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}
