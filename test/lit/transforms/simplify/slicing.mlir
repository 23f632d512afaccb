// Slicing rules of oxla-simplify-stablehlo. Each case names its rule: `applies` cases must be rewritten,
// `keeps` cases must stay; test/python/test_simplify_rules.py also evaluates every case
// before and after the pass on random and special inputs.
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo=strict=true | FileCheck %s
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo="strict=true fast-math=true" | FileCheck %s --check-prefix=FAST

// rule: slice_full applies
// CHECK-LABEL: func.func @slice_full
// CHECK-NEXT:    return %arg0
// FAST-LABEL:  func.func @slice_full
// FAST-NEXT:     return %arg0
func.func @slice_full(%x: tensor<3x4xi32>) -> tensor<3x4xi32> {
  %r = stablehlo.slice %x [0:3, 0:4] : (tensor<3x4xi32>) -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}

// -----

// A stride of 2 skips elements even from 0 to the end.
// rule: slice_full keeps
// CHECK-LABEL: func.func @slice_strided
// CHECK:         stablehlo.slice %arg0 [0:3, 0:4:2]
func.func @slice_strided(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %r = stablehlo.slice %x [0:3, 0:4:2] : (tensor<3x4xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// rule: slice_of_slice applies
// CHECK-LABEL: func.func @slice_of_slice
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %arg0 [3:4, 3:8:4] : (tensor<5x12xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:    return %[[S]]
func.func @slice_of_slice(%x: tensor<5x12xf32>) -> tensor<1x2xf32> {
  %a = stablehlo.slice %x [1:5, 1:12:2] : (tensor<5x12xf32>) -> tensor<4x6xf32>
  %b = stablehlo.slice %a [2:3, 1:5:2] : (tensor<4x6xf32>) -> tensor<1x2xf32>
  return %b : tensor<1x2xf32>
}

// -----

// A slice whose inner slice reads nothing along a dimension stays a (smaller) slice of the original.
// rule: slice_of_slice applies
// CHECK-LABEL: func.func @slice_of_slice_empty
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %arg0 [1:1, 0:4] : (tensor<3x4xf32>) -> tensor<0x4xf32>
// CHECK-NEXT:    return %[[S]]
func.func @slice_of_slice_empty(%x: tensor<3x4xf32>) -> tensor<0x4xf32> {
  %a = stablehlo.slice %x [1:3, 0:4] : (tensor<3x4xf32>) -> tensor<2x4xf32>
  %b = stablehlo.slice %a [0:0, 0:4] : (tensor<2x4xf32>) -> tensor<0x4xf32>
  return %b : tensor<0x4xf32>
}

// -----

// rule: slice_of_slice keeps
// CHECK-LABEL: func.func @slice_of_argument
// CHECK:         stablehlo.slice %arg0 [1:3]
func.func @slice_of_argument(%x: tensor<4xf32>) -> tensor<2xf32> {
  %r = stablehlo.slice %x [1:3] : (tensor<4xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// rule: slice_of_concatenate applies
// CHECK-LABEL: func.func @slice_of_concatenate_one
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %arg1 [0:2, 1:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    return %[[S]]
func.func @slice_of_concatenate_one(%x: tensor<2x2xf32>, %y: tensor<2x3xf32>, %z: tensor<2x4xf32>) -> tensor<2x1xf32> {
  %c = stablehlo.concatenate %x, %y, %z, dim = 1 : (tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x9xf32>
  %r = stablehlo.slice %c [0:2, 3:5:2] : (tensor<2x9xf32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// -----

// rule: slice_of_concatenate applies
// CHECK-LABEL: func.func @slice_of_concatenate_two
// CHECK-NEXT:    %[[C:.*]] = stablehlo.concatenate %arg1, %arg2, dim = 0 : (tensor<3xi8>, tensor<4xi8>) -> tensor<7xi8>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %[[C]] [1:6:2] : (tensor<7xi8>) -> tensor<3xi8>
// CHECK-NEXT:    return %[[S]]
func.func @slice_of_concatenate_two(%x: tensor<2xi8>, %y: tensor<3xi8>, %z: tensor<4xi8>, %w: tensor<1xi8>) -> tensor<3xi8> {
  %c = stablehlo.concatenate %x, %y, %z, %w, dim = 0 : (tensor<2xi8>, tensor<3xi8>, tensor<4xi8>, tensor<1xi8>) -> tensor<10xi8>
  %r = stablehlo.slice %c [3:8:2] : (tensor<10xi8>) -> tensor<3xi8>
  return %r : tensor<3xi8>
}

// -----

// The slice reads from every operand: nothing to drop.
// rule: slice_of_concatenate keeps
// CHECK-LABEL: func.func @slice_of_concatenate_all
// CHECK:         stablehlo.concatenate
// CHECK:         stablehlo.slice
func.func @slice_of_concatenate_all(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %c = stablehlo.concatenate %x, %y, dim = 0 : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  %r = stablehlo.slice %c [1:4] : (tensor<5xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// rule: concatenate_single applies
// CHECK-LABEL: func.func @concatenate_single
// CHECK-NEXT:    return %arg0
func.func @concatenate_single(%x: tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>> {
  %r = stablehlo.concatenate %x, dim = 1 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>
  return %r : tensor<2x3xcomplex<f32>>
}

// -----

// rule: concatenate_single keeps
// rule: concatenate_drop_empty keeps
// CHECK-LABEL: func.func @concatenate_two
// CHECK:         stablehlo.concatenate %arg0, %arg1
func.func @concatenate_two(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<5xf32> {
  %r = stablehlo.concatenate %x, %y, dim = 0 : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// rule: concatenate_of_concatenate applies
// CHECK-LABEL: func.func @concatenate_of_concatenate
// CHECK-NEXT:    %[[C:.*]] = stablehlo.concatenate %arg0, %arg1, %arg2, dim = 1 : (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    return %[[C]]
func.func @concatenate_of_concatenate(%x: tensor<2x1xf32>, %y: tensor<2x2xf32>, %z: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %a = stablehlo.concatenate %x, %y, dim = 1 : (tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  %r = stablehlo.concatenate %a, %z, dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// -----

// rule: concatenate_of_concatenate keeps
// CHECK-LABEL: func.func @concatenate_of_concatenate_read_twice
// CHECK-NEXT:    %[[A:.*]] = stablehlo.concatenate %arg0, %arg1, dim = 0
// CHECK-NEXT:    %[[R:.*]] = stablehlo.concatenate %[[A]], %arg1, dim = 0
// CHECK-NEXT:    %[[S:.*]] = stablehlo.concatenate %arg1, %[[A]], dim = 0
// CHECK-NEXT:    return %[[R]], %[[S]], %[[A]]
func.func @concatenate_of_concatenate_read_twice(%x: tensor<1x2xi8>, %y: tensor<2x2xi8>) -> (tensor<5x2xi8>, tensor<5x2xi8>, tensor<3x2xi8>) {
  %a = stablehlo.concatenate %x, %y, dim = 0 : (tensor<1x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi8>
  %r = stablehlo.concatenate %a, %y, dim = 0 : (tensor<3x2xi8>, tensor<2x2xi8>) -> tensor<5x2xi8>
  %s = stablehlo.concatenate %y, %a, dim = 0 : (tensor<2x2xi8>, tensor<3x2xi8>) -> tensor<5x2xi8>
  return %r, %s, %a : tensor<5x2xi8>, tensor<5x2xi8>, tensor<3x2xi8>
}

// -----

// rule: concatenate_drop_empty applies
// CHECK-LABEL: func.func @concatenate_drop_empty
// CHECK-NEXT:    %[[C:.*]] = stablehlo.concatenate %arg0, %arg2, dim = 1 : (tensor<2x1xi1>, tensor<2x2xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    return %[[C]]
func.func @concatenate_drop_empty(%x: tensor<2x1xi1>, %e: tensor<2x0xi1>, %y: tensor<2x2xi1>) -> tensor<2x3xi1> {
  %r = stablehlo.concatenate %x, %e, %y, dim = 1 : (tensor<2x1xi1>, tensor<2x0xi1>, tensor<2x2xi1>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// rule: concatenate_drop_empty applies
// CHECK-LABEL: func.func @concatenate_one_left
// CHECK-NEXT:    return %arg1
func.func @concatenate_one_left(%e: tensor<0x3xf16>, %x: tensor<4x3xf16>) -> tensor<4x3xf16> {
  %r = stablehlo.concatenate %e, %x, dim = 0 : (tensor<0x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
  return %r : tensor<4x3xf16>
}

// -----

// rule: pad_zero applies
// CHECK-LABEL: func.func @pad_zero
// CHECK-NEXT:    return %arg0
func.func @pad_zero(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<2x3xf32> {
  %r = stablehlo.pad %x, %p, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: pad_zero keeps
// CHECK-LABEL: func.func @pad_interior
// CHECK:         stablehlo.pad
func.func @pad_interior(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<2x5xf32> {
  %r = stablehlo.pad %x, %p, low = [0, 0], high = [0, 0], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// Indices clamp into [0, size - slice size]: 7 -> 3 and -2 -> 0.
// rule: dynamic_slice_constant applies
// CHECK-LABEL: func.func @dynamic_slice_constant
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %arg0 [3:5, 0:3, 1:3] : (tensor<5x6x4xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    return %[[S]]
func.func @dynamic_slice_constant(%x: tensor<5x6x4xf32>) -> tensor<2x3x2xf32> {
  %i = stablehlo.constant dense<7> : tensor<i32>
  %j = stablehlo.constant dense<-2> : tensor<i32>
  %k = stablehlo.constant dense<1> : tensor<i32>
  %r = stablehlo.dynamic_slice %x, %i, %j, %k, sizes = [2, 3, 2] : (tensor<5x6x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x2xf32>
  return %r : tensor<2x3x2xf32>
}

// -----

// Unsigned indices past the signed range still clamp to the largest start.
// rule: dynamic_slice_constant applies
// CHECK-LABEL: func.func @dynamic_slice_unsigned
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %arg0 [6:8] : (tensor<8xi16>) -> tensor<2xi16>
// CHECK-NEXT:    return %[[S]]
func.func @dynamic_slice_unsigned(%x: tensor<8xi16>) -> tensor<2xi16> {
  %i = stablehlo.constant dense<200> : tensor<ui8>
  %r = stablehlo.dynamic_slice %x, %i, sizes = [2] : (tensor<8xi16>, tensor<ui8>) -> tensor<2xi16>
  return %r : tensor<2xi16>
}

// -----

// rule: dynamic_slice_constant keeps
// CHECK-LABEL: func.func @dynamic_slice_variable
// CHECK:         stablehlo.dynamic_slice
func.func @dynamic_slice_variable(%x: tensor<5x6xf32>, %i: tensor<i32>) -> tensor<2x3xf32> {
  %k = stablehlo.constant dense<1> : tensor<i32>
  %r = stablehlo.dynamic_slice %x, %i, %k, sizes = [2, 3] : (tensor<5x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: dynamic_update_slice_full applies
// CHECK-LABEL: func.func @dynamic_update_slice_full
// CHECK-NEXT:    return %arg1
func.func @dynamic_update_slice_full(%x: tensor<2x3xf32>, %u: tensor<2x3xf32>, %i: tensor<i64>, %j: tensor<i64>) -> tensor<2x3xf32> {
  %r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: dynamic_update_slice_full keeps
// CHECK-LABEL: func.func @dynamic_update_slice_part
// CHECK:         stablehlo.dynamic_update_slice
func.func @dynamic_update_slice_part(%x: tensor<2x3xf32>, %u: tensor<2x2xf32>, %i: tensor<i64>, %j: tensor<i64>) -> tensor<2x3xf32> {
  %r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<i64>, tensor<i64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: reverse_of_reverse applies
// CHECK-LABEL: func.func @reverse_of_reverse
// CHECK-NEXT:    return %arg0
func.func @reverse_of_reverse(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = stablehlo.reverse %x, dims = [0, 1] : tensor<2x3xf32>
  %b = stablehlo.reverse %a, dims = [1, 0] : tensor<2x3xf32>
  return %b : tensor<2x3xf32>
}

// -----

// Dimension 0 is reversed twice, dimension 1 once.
// rule: reverse_of_reverse applies
// CHECK-LABEL: func.func @reverse_of_reverse_partly
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reverse %arg0, dims = [1] : tensor<2x3xi32>
// CHECK-NEXT:    return %[[R]]
func.func @reverse_of_reverse_partly(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %a = stablehlo.reverse %x, dims = [0] : tensor<2x3xi32>
  %b = stablehlo.reverse %a, dims = [0, 1] : tensor<2x3xi32>
  return %b : tensor<2x3xi32>
}

// -----

// rule: reverse_of_reverse keeps
// rule: reverse_unit_dims keeps
// CHECK-LABEL: func.func @reverse_once
// CHECK:         stablehlo.reverse %arg0, dims = [0]
func.func @reverse_once(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = stablehlo.reverse %x, dims = [0] : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: reverse_unit_dims applies
// CHECK-LABEL: func.func @reverse_unit_dims
// CHECK-NEXT:    return %arg0
func.func @reverse_unit_dims(%x: tensor<1x4x1xf32>) -> tensor<1x4x1xf32> {
  %r = stablehlo.reverse %x, dims = [0, 2] : tensor<1x4x1xf32>
  return %r : tensor<1x4x1xf32>
}

// -----

// rule: reverse_unit_dims applies
// CHECK-LABEL: func.func @reverse_some_unit_dims
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reverse %arg0, dims = [1] : tensor<1x4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reverse_some_unit_dims(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %r = stablehlo.reverse %x, dims = [0, 1] : tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}
