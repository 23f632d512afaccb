// dot_general rules of oxla-simplify-stablehlo. Each case names its rule: `applies` cases must be rewritten,
// `keeps` cases must stay; test/python/test_simplify_rules.py also evaluates every case
// before and after the pass on random and special inputs.
// A dot sums its products from 0, so a dot of one product is 0 + lhs * rhs (+0.0 for floats: -0.0 products
// become +0.0).
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo=strict=true | FileCheck %s
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo="strict=true fast-math=true" | FileCheck %s --check-prefix=FAST

// rule: dot_transpose_operands applies
// CHECK-LABEL: func.func @dot_transposed_lhs
// CHECK-NEXT:    %[[D:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    return %[[D]]
// FAST-LABEL:  func.func @dot_transposed_lhs
// FAST-NEXT:     stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0]
func.func @dot_transposed_lhs(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %r = stablehlo.dot_general %t, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// Both operands, with a batching dimension and the precision kept.
// rule: dot_transpose_operands applies
// CHECK-LABEL: func.func @dot_transposed_both
// CHECK-NEXT:    %[[D:.*]] = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [2], contracting_dims = [1] x [1], precision = [HIGHEST, HIGHEST] : (tensor<2x4x3xi32>, tensor<5x4x2xi32>) -> tensor<2x3x5xi32>
// CHECK-NEXT:    return %[[D]]
func.func @dot_transposed_both(%a: tensor<2x4x3xi32>, %b: tensor<5x4x2xi32>) -> tensor<2x3x5xi32> {
  %ta = stablehlo.transpose %a, dims = [0, 2, 1] : (tensor<2x4x3xi32>) -> tensor<2x3x4xi32>
  %tb = stablehlo.transpose %b, dims = [2, 1, 0] : (tensor<5x4x2xi32>) -> tensor<2x4x5xi32>
  %r = stablehlo.dot_general %ta, %tb, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, HIGHEST] : (tensor<2x3x4xi32>, tensor<2x4x5xi32>) -> tensor<2x3x5xi32>
  return %r : tensor<2x3x5xi32>
}

// -----

// The transpose swaps the two free dimensions of lhs, which the result keeps in order: it stays.
// rule: dot_transpose_operands keeps
// CHECK-LABEL: func.func @dot_transposed_free
// CHECK:         stablehlo.transpose
// CHECK:         stablehlo.dot_general
func.func @dot_transposed_free(%a: tensor<3x2x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %t = stablehlo.transpose %a, dims = [1, 0, 2] : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %r = stablehlo.dot_general %t, %b, contracting_dims = [2] x [0] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// -----

// rule: dot_transpose_operands keeps
// rule: dot_unit_contracting keeps
// rule: dot_empty_contracting keeps
// rule: dot_unit_contracting_fast keeps fast-math
// CHECK-LABEL: func.func @dot_plain
// CHECK:         stablehlo.dot_general %arg0, %arg1
// FAST-LABEL:  func.func @dot_plain
// FAST:          stablehlo.dot_general %arg0, %arg1
func.func @dot_plain(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// An outer product: one product per element, summed from +0.0.
// rule: dot_unit_contracting applies
// CHECK-LABEL: func.func @dot_outer_float
// CHECK-DAG:     %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK-DAG:     %[[A:.*]] = stablehlo.reshape %arg0 : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK-DAG:     %[[BA:.*]] = stablehlo.broadcast_in_dim %[[A]], dims = [0] : (tensor<3xf32>) -> tensor<3x4xf32>
// CHECK-DAG:     %[[B:.*]] = stablehlo.reshape %arg1 : (tensor<1x4xf32>) -> tensor<4xf32>
// CHECK-DAG:     %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
// CHECK:         %[[P:.*]] = stablehlo.multiply %[[BA]], %[[BB]] : tensor<3x4xf32>
// CHECK:         %[[S:.*]] = stablehlo.add %[[P]], %[[Z]] : tensor<3x4xf32>
// CHECK:         return %[[S]]
// FAST-LABEL:  func.func @dot_outer_float
// FAST:          %[[P:.*]] = stablehlo.multiply
// FAST-NEXT:     return %[[P]]
func.func @dot_outer_float(%a: tensor<3x1xf32>, %b: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x1xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// Integers need no zero; batching dimensions pair up.
// rule: dot_unit_contracting applies
// CHECK-LABEL: func.func @dot_batched_int
// CHECK-DAG:     %[[A:.*]] = stablehlo.reshape %arg0 : (tensor<2x1x3xi32>) -> tensor<2x3xi32>
// CHECK-DAG:     %[[BA:.*]] = stablehlo.broadcast_in_dim %[[A]], dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x4xi32>
// CHECK-DAG:     %[[B:.*]] = stablehlo.reshape %arg1 : (tensor<4x2x1xi32>) -> tensor<4x2xi32>
// CHECK-DAG:     %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [2, 0] : (tensor<4x2xi32>) -> tensor<2x3x4xi32>
// CHECK:         %[[P:.*]] = stablehlo.multiply %[[BA]], %[[BB]] : tensor<2x3x4xi32>
// CHECK-NEXT:    return %[[P]]
func.func @dot_batched_int(%a: tensor<2x1x3xi32>, %b: tensor<4x2x1xi32>) -> tensor<2x3x4xi32> {
  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [1], contracting_dims = [1] x [2] : (tensor<2x1x3xi32>, tensor<4x2x1xi32>) -> tensor<2x3x4xi32>
  return %r : tensor<2x3x4xi32>
}

// -----

// A dot of two vectors of one element.
// rule: dot_unit_contracting applies
// CHECK-LABEL: func.func @dot_scalar_complex
// CHECK:         stablehlo.multiply
// CHECK:         stablehlo.add
// CHECK-NOT:     stablehlo.dot_general
func.func @dot_scalar_complex(%a: tensor<1xcomplex<f32>>, %b: tensor<1xcomplex<f32>>) -> tensor<complex<f32>> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<1xcomplex<f32>>, tensor<1xcomplex<f32>>) -> tensor<complex<f32>>
  return %r : tensor<complex<f32>>
}

// -----

// bf16 products are summed in f32 and rounded once: the zero's sign depends on the unrounded product, so the
// rewrite needs fast-math.
// rule: dot_unit_contracting keeps
// rule: dot_unit_contracting_fast applies fast-math
// CHECK-LABEL: func.func @dot_outer_bf16
// CHECK:         stablehlo.dot_general
// FAST-LABEL:  func.func @dot_outer_bf16
// FAST-NOT:      stablehlo.dot_general
// FAST:          stablehlo.multiply
func.func @dot_outer_bf16(%a: tensor<3x1xbf16>, %b: tensor<1x4xbf16>) -> tensor<3x4xbf16> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x1xbf16>, tensor<1x4xbf16>) -> tensor<3x4xbf16>
  return %r : tensor<3x4xbf16>
}

// -----

// rule: dot_unit_contracting keeps
// rule: dot_unit_contracting_fast keeps fast-math
// CHECK-LABEL: func.func @dot_outer_precision
// CHECK:         stablehlo.dot_general
// FAST-LABEL:  func.func @dot_outer_precision
// FAST:          stablehlo.dot_general
func.func @dot_outer_precision(%a: tensor<3x1xf32>, %b: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<3x1xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// i8 operands with an i32 result: the products would have to widen first.
// rule: dot_unit_contracting keeps
// CHECK-LABEL: func.func @dot_outer_widening
// CHECK:         stablehlo.dot_general
func.func @dot_outer_widening(%a: tensor<3x1xi8>, %b: tensor<1x4xi8>) -> tensor<3x4xi32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x1xi8>, tensor<1x4xi8>) -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}

// -----

// rule: dot_empty_contracting applies
// CHECK-LABEL: func.func @dot_empty
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK-NEXT:    return %[[Z]]
func.func @dot_empty(%a: tensor<3x0xf32>, %b: tensor<0x4xf32>) -> tensor<3x4xf32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x0xf32>, tensor<0x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// The zeros take the result's element type.
// rule: dot_empty_contracting applies
// CHECK-LABEL: func.func @dot_empty_widening
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0> : tensor<2x5xi32>
// CHECK-NEXT:    return %[[Z]]
func.func @dot_empty_widening(%a: tensor<2x0x5xi8>, %b: tensor<2x0xi8>) -> tensor<2x5xi32> {
  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x0x5xi8>, tensor<2x0xi8>) -> tensor<2x5xi32>
  return %r : tensor<2x5xi32>
}

// -----

// Two leading batch dimensions (attention's batch and heads) become one, the contracting dimensions shifted.
// rule: dot_merge_batch_dims applies
// CHECK-LABEL: func.func @dot_two_batch_dims
// CHECK-NEXT:    %[[A:.*]] = stablehlo.reshape %arg0 : (tensor<2x3x1x4xf32>) -> tensor<6x1x4xf32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.reshape %arg1 : (tensor<2x3x5x4xf32>) -> tensor<6x5x4xf32>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.dot_general %[[A]], %[[B]], batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<6x1x4xf32>, tensor<6x5x4xf32>) -> tensor<6x1x5xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %[[D]] : (tensor<6x1x5xf32>) -> tensor<2x3x1x5xf32>
// CHECK-NEXT:    return %[[R]]
func.func @dot_two_batch_dims(%a: tensor<2x3x1x4xf32>, %b: tensor<2x3x5x4xf32>) -> tensor<2x3x1x5xf32> {
  %r = stablehlo.dot_general %a, %b, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x3x1x4xf32>, tensor<2x3x5x4xf32>) -> tensor<2x3x1x5xf32>
  return %r : tensor<2x3x1x5xf32>
}

// -----

// Three, with integers widened and the precision kept.
// rule: dot_merge_batch_dims applies
// CHECK-LABEL: func.func @dot_three_batch_dims
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}}, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [HIGHEST, HIGHEST] : (tensor<24x5xi8>, tensor<24x3x5xi8>) -> tensor<24x3xi32>
// CHECK-NEXT:    stablehlo.reshape %{{.*}} : (tensor<24x3xi32>) -> tensor<2x3x4x3xi32>
func.func @dot_three_batch_dims(%a: tensor<2x3x4x5xi8>, %b: tensor<2x3x4x3x5xi8>) -> tensor<2x3x4x3xi32> {
  %r = stablehlo.dot_general %a, %b, batching_dims = [0, 1, 2] x [0, 1, 2], contracting_dims = [3] x [4], precision = [HIGHEST, HIGHEST] : (tensor<2x3x4x5xi8>, tensor<2x3x4x3x5xi8>) -> tensor<2x3x4x3xi32>
  return %r : tensor<2x3x4x3xi32>
}

// -----

// Batch dimensions that do not lead both operands would need a transpose: left as they are.
// rule: dot_merge_batch_dims keeps
// CHECK-LABEL: func.func @dot_batch_dims_not_leading
// CHECK-NEXT:    stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 2] x [0, 1]
func.func @dot_batch_dims_not_leading(%a: tensor<2x4x3xf32>, %b: tensor<2x3x4x5xf32>) -> tensor<2x3x5xf32> {
  %r = stablehlo.dot_general %a, %b, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [2] : (tensor<2x4x3xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// -----

// One batch dimension is the form already.
// rule: dot_merge_batch_dims keeps
// CHECK-LABEL: func.func @dot_one_batch_dim
// CHECK-NEXT:    stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1]
func.func @dot_one_batch_dim(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}
