// Chains of oxla-simplify-stablehlo: conversions and data movement that undo each other or combine.
// Each case names its rule: `applies` cases must be rewritten, `keeps` cases must stay;
// test/python/test_simplify_rules.py also evaluates every case before and after the pass.
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo=strict=true | FileCheck %s
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo="strict=true fast-math=true" | FileCheck %s --check-prefix=FAST

// rule: convert_same_type applies
// CHECK-LABEL: func.func @convert_same_type
// CHECK-NEXT:    return %arg0
func.func @convert_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rule: convert_same_type keeps
// CHECK-LABEL: func.func @convert_widen
// CHECK:         stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf64>
func.func @convert_widen(%x: tensor<4xf32>) -> tensor<4xf64> {
  %r = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----

// rule: convert_convert applies
// CHECK-LABEL: func.func @convert_int_widen_twice
// CHECK-NEXT:    %[[R:.*]] = stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xi64>
// CHECK-NEXT:    return %[[R]]
func.func @convert_int_widen_twice(%x: tensor<4xi8>) -> tensor<4xi64> {
  %m = stablehlo.convert %x : (tensor<4xi8>) -> tensor<4xi32>
  %r = stablehlo.convert %m : (tensor<4xi32>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// rule: convert_convert applies
// CHECK-LABEL: func.func @convert_float_widen_twice
// CHECK-NEXT:    %[[R:.*]] = stablehlo.convert %arg0 : (tensor<4xf16>) -> tensor<4xf64>
// CHECK-NEXT:    return %[[R]]
func.func @convert_float_widen_twice(%x: tensor<4xf16>) -> tensor<4xf64> {
  %m = stablehlo.convert %x : (tensor<4xf16>) -> tensor<4xf32>
  %r = stablehlo.convert %m : (tensor<4xf32>) -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----

// Widening and narrowing back gives x itself.
// rule: convert_convert applies
// CHECK-LABEL: func.func @convert_int_round_trip
// CHECK-NEXT:    return %arg0
func.func @convert_int_round_trip(%x: tensor<4xi8>) -> tensor<4xi8> {
  %m = stablehlo.convert %x : (tensor<4xi8>) -> tensor<4xi16>
  %r = stablehlo.convert %m : (tensor<4xi16>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// bf16 holds every ui8 exactly, and i32 holds it too: the float detour changes nothing.
// rule: convert_convert applies
// CHECK-LABEL: func.func @convert_uint_through_bf16
// CHECK-NEXT:    %[[R:.*]] = stablehlo.convert %arg0 : (tensor<4xui8>) -> tensor<4xi32>
// CHECK-NEXT:    return %[[R]]
func.func @convert_uint_through_bf16(%x: tensor<4xui8>) -> tensor<4xi32> {
  %m = stablehlo.convert %x : (tensor<4xui8>) -> tensor<4xbf16>
  %r = stablehlo.convert %m : (tensor<4xbf16>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// The narrowing is a single rounding either way (f16 holds every f8E4M3FN value).
// rule: convert_convert applies
// CHECK-LABEL: func.func @convert_f8_through_f16
// CHECK-NEXT:    %[[R:.*]] = stablehlo.convert %arg0 : (tensor<4xf8E4M3FN>) -> tensor<4xbf16>
// CHECK-NEXT:    return %[[R]]
func.func @convert_f8_through_f16(%x: tensor<4xf8E4M3FN>) -> tensor<4xbf16> {
  %m = stablehlo.convert %x : (tensor<4xf8E4M3FN>) -> tensor<4xf16>
  %r = stablehlo.convert %m : (tensor<4xf16>) -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

// f16 rounds most f32 values (fast-math does not allow dropping that rounding either).
// rule: convert_convert keeps
// CHECK-LABEL: func.func @convert_float_narrow_and_back
// CHECK:         stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf16>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xf16>) -> tensor<4xf32>
// FAST-LABEL:  func.func @convert_float_narrow_and_back
// FAST:          stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf16>
// FAST:          stablehlo.convert %{{.*}} : (tensor<4xf16>) -> tensor<4xf32>
func.func @convert_float_narrow_and_back(%x: tensor<4xf32>) -> tensor<4xf32> {
  %m = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf16>
  %r = stablehlo.convert %m : (tensor<4xf16>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// f32 has 24 significand bits: large i32 values round.
// rule: convert_convert keeps
// CHECK-LABEL: func.func @convert_int_through_f32
// CHECK:         stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xf32>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi32>
func.func @convert_int_through_f32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %m = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xf32>
  %r = stablehlo.convert %m : (tensor<4xf32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// f32 holds every i16, but f32 -> i8 saturates where i16 -> i8 wraps around.
// rule: convert_convert keeps
// CHECK-LABEL: func.func @convert_int_through_float_to_narrower
// CHECK:         stablehlo.convert %arg0 : (tensor<4xi16>) -> tensor<4xf32>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi8>
func.func @convert_int_through_float_to_narrower(%x: tensor<4xi16>) -> tensor<4xi8> {
  %m = stablehlo.convert %x : (tensor<4xi16>) -> tensor<4xf32>
  %r = stablehlo.convert %m : (tensor<4xf32>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// i8 -> ui8 changes negative values.
// rule: convert_convert keeps
// CHECK-LABEL: func.func @convert_signed_through_unsigned
// CHECK:         stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xui8>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xui8>) -> tensor<4xi32>
func.func @convert_signed_through_unsigned(%x: tensor<4xi8>) -> tensor<4xi32> {
  %m = stablehlo.convert %x : (tensor<4xi8>) -> tensor<4xui8>
  %r = stablehlo.convert %m : (tensor<4xui8>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// rule: reshape_same_shape applies
// CHECK-LABEL: func.func @reshape_same_shape
// CHECK-NEXT:    return %arg0
func.func @reshape_same_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: reshape_same_shape keeps
// rule: reshape_reshape keeps
// CHECK-LABEL: func.func @reshape_once
// CHECK:         stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
func.func @reshape_once(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// rule: reshape_reshape applies
// CHECK-LABEL: func.func @reshape_reshape
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<2x3xi32>) -> tensor<3x2xi32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_reshape(%x: tensor<2x3xi32>) -> tensor<3x2xi32> {
  %m = stablehlo.reshape %x : (tensor<2x3xi32>) -> tensor<6xi32>
  %r = stablehlo.reshape %m : (tensor<6xi32>) -> tensor<3x2xi32>
  return %r : tensor<3x2xi32>
}

// -----

// rule: reshape_reshape applies
// CHECK-LABEL: func.func @reshape_flatten_and_back
// CHECK-NEXT:    return %arg0
func.func @reshape_flatten_and_back(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %m = stablehlo.reshape %x : (tensor<2x3xi32>) -> tensor<6xi32>
  %r = stablehlo.reshape %m : (tensor<6xi32>) -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}

// -----

// rule: transpose_identity applies
// CHECK-LABEL: func.func @transpose_identity
// CHECK-NEXT:    return %arg0
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %r = stablehlo.transpose %x, dims = [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

// A transpose of a square matrix keeps the type but moves elements.
// rule: transpose_identity keeps
// rule: transpose_transpose keeps
// CHECK-LABEL: func.func @transpose_square
// CHECK:         stablehlo.transpose %arg0, dims = [1, 0]
func.func @transpose_square(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %r = stablehlo.transpose %x, dims = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// -----

// rule: transpose_transpose applies
// CHECK-LABEL: func.func @transpose_transpose
// CHECK-NEXT:    %[[R:.*]] = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %m = stablehlo.transpose %x, dims = [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %r = stablehlo.transpose %m, dims = [1, 2, 0] : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  return %r : tensor<4x2x3xf32>
}

// -----

// rule: transpose_transpose applies
// CHECK-LABEL: func.func @transpose_undone
// CHECK-NEXT:    return %arg0
func.func @transpose_undone(%x: tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>> {
  %m = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %r = stablehlo.transpose %m, dims = [1, 0] : (tensor<3x2xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>
  return %r : tensor<2x3xcomplex<f32>>
}

// -----

// rule: broadcast_in_dim_identity applies
// CHECK-LABEL: func.func @broadcast_in_dim_identity
// CHECK-NEXT:    return %arg0
func.func @broadcast_in_dim_identity(%x: tensor<2x3xi1>) -> tensor<2x3xi1> {
  %r = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x3xi1>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// Same type, but the dimensions swap: a transpose.
// rule: broadcast_in_dim_identity keeps
// CHECK-LABEL: func.func @broadcast_in_dim_swapping
// CHECK:         stablehlo.broadcast_in_dim %arg0, dims = [1, 0]
func.func @broadcast_in_dim_swapping(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %r = stablehlo.broadcast_in_dim %x, dims = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// -----

// rule: broadcast_in_dim_identity keeps
// rule: broadcast_in_dim_broadcast_in_dim keeps
// CHECK-LABEL: func.func @broadcast_in_dim_expanding
// CHECK:         stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>
func.func @broadcast_in_dim_expanding(%x: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %r = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: broadcast_in_dim_broadcast_in_dim applies
// CHECK-LABEL: func.func @broadcast_in_dim_twice
// CHECK-NEXT:    %[[R:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @broadcast_in_dim_twice(%x: tensor<3xf32>) -> tensor<4x2x3xf32> {
  %m = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %r = stablehlo.broadcast_in_dim %m, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  return %r : tensor<4x2x3xf32>
}

// -----

// A size-1 dimension broadcast first to 1, then to 5.
// rule: broadcast_in_dim_broadcast_in_dim applies
// CHECK-LABEL: func.func @broadcast_in_dim_twice_transposing
// CHECK-NEXT:    %[[R:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [2, 0] : (tensor<1x3xi32>) -> tensor<3x4x5xi32>
// CHECK-NEXT:    return %[[R]]
func.func @broadcast_in_dim_twice_transposing(%x: tensor<1x3xi32>) -> tensor<3x4x5xi32> {
  %m = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<1x3xi32>
  %r = stablehlo.broadcast_in_dim %m, dims = [2, 0] : (tensor<1x3xi32>) -> tensor<3x4x5xi32>
  return %r : tensor<3x4x5xi32>
}

// -----

// rule: reshape_broadcast_in_dim applies
// CHECK-LABEL: func.func @reshape_broadcast_adding_one
// CHECK-NEXT:    %[[R:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<3xf32>) -> tensor<2x1x3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_broadcast_adding_one(%x: tensor<3xf32>) -> tensor<2x1x3xf32> {
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %r = stablehlo.reshape %b : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  return %r : tensor<2x1x3xf32>
}

// -----

// The operand's size-1 dimension lands on the removed one and moves to a free result dimension.
// rule: reshape_broadcast_in_dim applies
// CHECK-LABEL: func.func @reshape_broadcast_removing_one
// CHECK-NEXT:    %[[R:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [1, 0] : (tensor<3x1xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_broadcast_removing_one(%x: tensor<3x1xf32>) -> tensor<4x3xf32> {
  %b = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<3x1xf32>) -> tensor<4x3x1xf32>
  %r = stablehlo.reshape %b : (tensor<4x3x1xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// Merging two dimensions is not a broadcast.
// rule: reshape_broadcast_in_dim keeps
// CHECK-LABEL: func.func @reshape_broadcast_merging
// CHECK:         stablehlo.broadcast_in_dim
// CHECK:         stablehlo.reshape
func.func @reshape_broadcast_merging(%x: tensor<3xf32>) -> tensor<6xf32> {
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %r = stablehlo.reshape %b : (tensor<2x3xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// Two operand dimensions cannot fit a rank-1 result.
// rule: reshape_broadcast_in_dim keeps
// CHECK-LABEL: func.func @reshape_broadcast_no_room
// CHECK:         stablehlo.broadcast_in_dim
// CHECK:         stablehlo.reshape
func.func @reshape_broadcast_no_room(%x: tensor<1x1xf32>) -> tensor<5xf32> {
  %b = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<1x1xf32>) -> tensor<5x1x1xf32>
  %r = stablehlo.reshape %b : (tensor<5x1x1xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}
