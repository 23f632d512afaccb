// Reduction rules of oxla-simplify-stablehlo. Each case names its rule: `applies` cases must be rewritten,
// `keeps` cases must stay; test/python/test_simplify_rules.py also evaluates every case
// before and after the pass on random and special inputs.
// A reduction combines the init value with the reduced elements, so over one element it is body(init, x):
// x itself only when init is the body's identity (add -0.0, multiply 1, max -inf, ...).
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo=strict=true | FileCheck %s
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo="strict=true fast-math=true" | FileCheck %s --check-prefix=FAST

// rule: reduce_no_dimensions applies
// CHECK-LABEL: func.func @reduce_no_dimensions_identity
// CHECK-NEXT:    return %arg0
// FAST-LABEL:  func.func @reduce_no_dimensions_identity
// FAST-NEXT:     return %arg0
func.func @reduce_no_dimensions_identity(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// +0.0 is not the identity of float add (-0.0 + 0.0 is +0.0): the init value stays, added element-wise.
// rule: reduce_no_dimensions applies
// CHECK-LABEL: func.func @reduce_no_dimensions_positive_zero
// CHECK:         stablehlo.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add {{.*}}%arg0{{.*}} : tensor<4x3xf32>
// CHECK-NEXT:    return %[[S]]
// FAST-LABEL:  func.func @reduce_no_dimensions_positive_zero
// FAST-NEXT:     return %arg0
func.func @reduce_no_dimensions_positive_zero(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// An init value that is not a constant: max(init, x) element-wise, in the body's operand order.
// rule: reduce_no_dimensions applies
// CHECK-LABEL: func.func @reduce_no_dimensions_max
// CHECK-NEXT:    %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i8>) -> tensor<5xi8>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.maximum %arg0, %[[B]] : tensor<5xi8>
// CHECK-NEXT:    return %[[M]]
func.func @reduce_no_dimensions_max(%x: tensor<5xi8>, %init: tensor<i8>) -> tensor<5xi8> {
  %r = stablehlo.reduce(%x init: %init) across dimensions = [] : (tensor<5xi8>, tensor<i8>) -> tensor<5xi8>
    reducer(%acc: tensor<i8>, %e: tensor<i8>) {
      %m = stablehlo.maximum %e, %acc : tensor<i8>
      stablehlo.return %m : tensor<i8>
    }
  return %r : tensor<5xi8>
}

// -----

// rule: reduce_no_dimensions applies
// CHECK-LABEL: func.func @reduce_no_dimensions_complex
// CHECK:         stablehlo.constant dense<(1.000000e+00,-2.000000e+00)> : tensor<3xcomplex<f32>>
// CHECK-NEXT:    stablehlo.add
// CHECK-NOT:     stablehlo.reduce
func.func @reduce_no_dimensions_complex(%x: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %init = stablehlo.constant dense<(1.0, -2.0)> : tensor<complex<f32>>
  %r = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [] : (tensor<3xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>
  return %r : tensor<3xcomplex<f32>>
}

// -----

// A float sum over no dimensions is init + x, -0.0 included: an init of -0.0 (the identity) leaves x,
// an unknown init is added.
// rule: reduce_no_dimensions applies
// CHECK-LABEL: func.func @reduce_no_dimensions_negative_zero
// CHECK-NOT:     stablehlo.reduce
// CHECK:         stablehlo.add
// CHECK-NOT:     stablehlo.reduce
func.func @reduce_no_dimensions_negative_zero(%x: tensor<4xf32>, %init: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = stablehlo.constant dense<-0.0> : tensor<f32>
  %a = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// A body of two ops is not a plain combiner.
// rule: reduce_no_dimensions keeps
// CHECK-LABEL: func.func @reduce_no_dimensions_compound_body
// CHECK:         stablehlo.reduce
func.func @reduce_no_dimensions_compound_body(%x: tensor<3xf32>, %init: tensor<f32>) -> tensor<3xf32> {
  %r = stablehlo.reduce(%x init: %init) across dimensions = [] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    reducer(%acc: tensor<f32>, %e: tensor<f32>) {
      %s = stablehlo.add %acc, %e : tensor<f32>
      %t = stablehlo.multiply %s, %s : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }
  return %r : tensor<3xf32>
}

// -----

// rule: reduce_no_dimensions keeps
// rule: reduce_unit_extent keeps
// rule: reduce_empty keeps
// rule: reduce_broadcast_scalar keeps
// CHECK-LABEL: func.func @reduce_sum
// CHECK:         stablehlo.reduce
func.func @reduce_sum(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: reduce_unit_extent applies
// CHECK-LABEL: func.func @reduce_unit_extent_identity
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<4x1x3xi32>) -> tensor<4x3xi32>
// CHECK-NEXT:    return %[[R]]
func.func @reduce_unit_extent_identity(%x: tensor<4x1x3xi32>) -> tensor<4x3xi32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<4x1x3xi32>, tensor<i32>) -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}

// -----

// rule: reduce_unit_extent applies
// CHECK-LABEL: func.func @reduce_unit_extent_min
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<1x2x1xf16>) -> tensor<2xf16>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f16>) -> tensor<2xf16>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.minimum %[[B]], %[[R]] : tensor<2xf16>
// CHECK-NEXT:    return %[[M]]
func.func @reduce_unit_extent_min(%x: tensor<1x2x1xf16>, %init: tensor<f16>) -> tensor<2xf16> {
  %r = stablehlo.reduce(%x init: %init) applies stablehlo.minimum across dimensions = [0, 2] : (tensor<1x2x1xf16>, tensor<f16>) -> tensor<2xf16>
  return %r : tensor<2xf16>
}

// -----

// rule: reduce_unit_extent applies
// CHECK-LABEL: func.func @reduce_unit_extent_bool
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<3x1xi1>) -> tensor<3xi1>
// CHECK-NEXT:    return %[[R]]
func.func @reduce_unit_extent_bool(%x: tensor<3x1xi1>) -> tensor<3xi1> {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %r = stablehlo.reduce(%x init: %t) applies stablehlo.and across dimensions = [1] : (tensor<3x1xi1>, tensor<i1>) -> tensor<3xi1>
  return %r : tensor<3xi1>
}

// -----

// rule: reduce_empty applies
// CHECK-LABEL: func.func @reduce_empty
// CHECK-NEXT:    %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[B]]
func.func @reduce_empty(%x: tensor<4x0xf32>, %init: tensor<f32>) -> tensor<4xf32> {
  %r = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [1] : (tensor<4x0xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Several inputs, any body: each result is its init value.
// rule: reduce_empty applies
// CHECK-LABEL: func.func @reduce_empty_pair
// CHECK-DAG:     %[[A:.*]] = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<2xf32>
// CHECK-DAG:     %[[B:.*]] = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<i32>) -> tensor<2xi32>
// CHECK:         return %[[A]], %[[B]]
func.func @reduce_empty_pair(%x: tensor<0x2xf32>, %i: tensor<0x2xi32>, %a: tensor<f32>, %b: tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %r:2 = stablehlo.reduce(%x init: %a), (%i init: %b) across dimensions = [0] : (tensor<0x2xf32>, tensor<0x2xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
    reducer(%p: tensor<f32>, %q: tensor<f32>) (%s: tensor<i32>, %t: tensor<i32>) {
      %m = stablehlo.maximum %p, %q : tensor<f32>
      %n = stablehlo.add %s, %t : tensor<i32>
      stablehlo.return %m, %n : tensor<f32>, tensor<i32>
    }
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi32>
}

// -----

// max over copies of y is y, then combined with the init value.
// rule: reduce_broadcast_scalar applies
// CHECK-LABEL: func.func @reduce_broadcast_max
// CHECK-DAG:     %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<3xf32>
// CHECK-DAG:     %[[Y:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<3xf32>
// CHECK:         %[[M:.*]] = stablehlo.maximum %[[B]], %[[Y]] : tensor<3xf32>
// CHECK-NEXT:    return %[[M]]
func.func @reduce_broadcast_max(%y: tensor<f32>, %init: tensor<f32>) -> tensor<3xf32> {
  %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
  %r = stablehlo.reduce(%b init: %init) applies stablehlo.maximum across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// y varies along a kept dimension; its size-1 dimension is spread over the reduced one.
// rule: reduce_broadcast_scalar applies
// CHECK-LABEL: func.func @reduce_broadcast_min
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<4x1xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reduce_broadcast_min(%y: tensor<4x1xf32>) -> tensor<4xf32> {
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %y, dims = [1, 2] : (tensor<4x1xf32>) -> tensor<2x4x6xf32>
  %r = stablehlo.reduce(%b init: %inf) applies stablehlo.minimum across dimensions = [0, 2] : (tensor<2x4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Integer add over 100 copies is 100 * y, which wraps in i8 exactly as 100 additions do.
// rule: reduce_broadcast_scalar applies
// CHECK-LABEL: func.func @reduce_broadcast_add_int
// CHECK-NEXT:    %[[N:.*]] = stablehlo.constant dense<100> : tensor<2xi8>
// CHECK-NEXT:    %[[P:.*]] = stablehlo.multiply %arg0, %[[N]] : tensor<2xi8>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i8>) -> tensor<2xi8>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add %[[B]], %[[P]] : tensor<2xi8>
// CHECK-NEXT:    return %[[S]]
func.func @reduce_broadcast_add_int(%y: tensor<2xi8>, %init: tensor<i8>) -> tensor<2xi8> {
  %b = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<2xi8>) -> tensor<100x2xi8>
  %r = stablehlo.reduce(%b init: %init) applies stablehlo.add across dimensions = [0] : (tensor<100x2xi8>, tensor<i8>) -> tensor<2xi8>
  return %r : tensor<2xi8>
}

// -----

// 300 copies of a ui8: 300 wraps to 44.
// rule: reduce_broadcast_scalar applies
// CHECK-LABEL: func.func @reduce_broadcast_add_unsigned
// CHECK:         stablehlo.constant dense<44> : tensor<ui8>
// CHECK:         stablehlo.multiply
// CHECK-NOT:     stablehlo.reduce
func.func @reduce_broadcast_add_unsigned(%y: tensor<ui8>) -> tensor<ui8> {
  %z = stablehlo.constant dense<0> : tensor<ui8>
  %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<ui8>) -> tensor<300xui8>
  %r = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0] : (tensor<300xui8>, tensor<ui8>) -> tensor<ui8>
  return %r : tensor<ui8>
}

// -----

// Float sums of copies round differently from n * y.
// rule: reduce_broadcast_scalar keeps
// CHECK-LABEL: func.func @reduce_broadcast_add_float
// CHECK:         stablehlo.reduce
func.func @reduce_broadcast_add_float(%y: tensor<f32>, %init: tensor<f32>) -> tensor<f32> {
  %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<7xf32>
  %r = stablehlo.reduce(%b init: %init) applies stablehlo.add across dimensions = [0] : (tensor<7xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// y varies along the reduced dimension.
// rule: reduce_broadcast_scalar keeps
// CHECK-LABEL: func.func @reduce_broadcast_varying
// CHECK:         stablehlo.reduce
func.func @reduce_broadcast_varying(%y: tensor<3xf32>, %init: tensor<f32>) -> tensor<2xf32> {
  %b = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %r = stablehlo.reduce(%b init: %init) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// rule: reduce_window_unit applies
// CHECK-LABEL: func.func @reduce_window_unit_identity
// CHECK-NEXT:    return %arg0
func.func @reduce_window_unit_identity(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1>, window_strides = array<i64: 1, 1>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// rule: reduce_window_unit applies
// CHECK-LABEL: func.func @reduce_window_unit_add
// CHECK-NEXT:    %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add %[[B]], %arg0 : tensor<3x4xi32>
// CHECK-NEXT:    return %[[S]]
func.func @reduce_window_unit_add(%x: tensor<3x4xi32>, %init: tensor<i32>) -> tensor<3x4xi32> {
  %r = "stablehlo.reduce_window"(%x, %init) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {window_dimensions = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, window_dilations = array<i64: 2, 3>} : (tensor<3x4xi32>, tensor<i32>) -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}

// -----

// Padding adds windows holding only the init value.
// rule: reduce_window_unit keeps
// CHECK-LABEL: func.func @reduce_window_padded
// CHECK:         stablehlo.reduce_window
func.func @reduce_window_padded(%x: tensor<3x4xf32>, %init: tensor<f32>) -> tensor<3x5xf32> {
  %r = "stablehlo.reduce_window"(%x, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1>, padding = dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// rule: reduce_window_unit keeps
// CHECK-LABEL: func.func @reduce_window_pairs
// CHECK:         stablehlo.reduce_window
func.func @reduce_window_pairs(%x: tensor<3x4xf32>, %init: tensor<f32>) -> tensor<3x3xf32> {
  %r = "stablehlo.reduce_window"(%x, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 2>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}
