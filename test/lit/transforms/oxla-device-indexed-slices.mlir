// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-device-indexed-slices)' | FileCheck %s

// A permutation's entries swapped at indices read from a tensor (JAX's
// lu_pivots_to_permutation): the slice at the pivot becomes a gather and
// the update there a scatter of one element, both at the index clamped
// into the tensor; the slice and the update at the loop's own counter stay.
// CHECK-LABEL: func.func @swaps
// CHECK:         stablehlo.while
// CHECK:         } do {
// CHECK:           %[[AT_I:.*]] = stablehlo.dynamic_slice %{{.*}}, %[[I:[^,]*]], sizes = [1]
// CHECK:           %[[PIVOT:.*]] = stablehlo.reshape %[[AT_I]] : (tensor<1xi32>) -> tensor<i32>
// CHECK:           %[[CLAMPED:.*]] = stablehlo.clamp %{{.*}}, %[[PIVOT]], %{{.*}} : tensor<i32>
// CHECK:           %[[INDEX:.*]] = stablehlo.reshape %{{.*}} : (tensor<1x1xi32>) -> tensor<1xi32>
// CHECK:           %[[THERE:.*]] = "stablehlo.gather"(%{{.*}}, %[[INDEX]]) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], start_index_map = [0]>, indices_are_sorted = true, slice_sizes = array<i64: 1>}>
// CHECK:           %[[HERE:.*]] = stablehlo.dynamic_slice %{{.*}}, %[[I]], sizes = [1]
// CHECK:           %[[SET:.*]] = stablehlo.dynamic_update_slice %{{.*}}, %[[THERE]], %[[I]]
// CHECK:           %[[PLACED:.*]] = stablehlo.clamp %{{.*}}, %[[PIVOT]], %{{.*}} : tensor<i32>
// CHECK:           "stablehlo.scatter"(%[[SET]], %{{.*}}, %{{.*}}) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}>
// CHECK:             stablehlo.return %{{.*}} : tensor<i32>
// CHECK-NOT:     stablehlo.dynamic_update_slice
func.func @swaps(%pivots: tensor<8xi32>) -> tensor<8xi32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %eight = stablehlo.constant dense<8> : tensor<i32>
  %iota = stablehlo.iota dim = 0 : tensor<8xi32>
  %r:2 = stablehlo.while(%i = %zero, %perm = %iota) : tensor<i32>, tensor<8xi32>
  cond {
    %more = stablehlo.compare LT, %i, %eight, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    %at_i = stablehlo.dynamic_slice %pivots, %i, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
    %p = stablehlo.reshape %at_i : (tensor<1xi32>) -> tensor<i32>
    %there = stablehlo.dynamic_slice %perm, %p, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
    %here = stablehlo.dynamic_slice %perm, %i, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
    %set = stablehlo.dynamic_update_slice %perm, %there, %i : (tensor<8xi32>, tensor<1xi32>, tensor<i32>) -> tensor<8xi32>
    %swapped = stablehlo.dynamic_update_slice %set, %here, %p : (tensor<8xi32>, tensor<1xi32>, tensor<i32>) -> tensor<8xi32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %swapped : tensor<i32>, tensor<8xi32>
  }
  return %r#1 : tensor<8xi32>
}

// -----

// A row kept or replaced by a flag computed from the tensor: the scalar
// predicate is broadcast to the rows' shape. The same select by a flag
// computed from the counter alone stays.
// CHECK-LABEL: func.func @flags
// CHECK:         } do {
// CHECK:           %[[FLAG:.*]] = stablehlo.compare GT, %{{.*}}, %{{.*}}, FLOAT
// CHECK:           %[[WIDE:.*]] = stablehlo.broadcast_in_dim %[[FLAG]], dims = [] : (tensor<i1>) -> tensor<4xi1>
// CHECK:           %[[KEPT:.*]] = stablehlo.select %[[WIDE]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
// CHECK:           %[[EVEN:.*]] = stablehlo.compare EQ, %{{.*}}, %{{.*}}, SIGNED
// CHECK:           stablehlo.select %[[EVEN]], %{{.*}}, %[[KEPT]] : tensor<i1>, tensor<4xf32>
func.func @flags(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %more = stablehlo.compare LT, %i, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    %first = stablehlo.slice %v [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %f = stablehlo.reshape %first : (tensor<1xf32>) -> tensor<f32>
    %fz = stablehlo.constant dense<0.0> : tensor<f32>
    %positive = stablehlo.compare GT, %f, %fz, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %negated = stablehlo.negate %v : tensor<4xf32>
    %kept = stablehlo.select %positive, %negated, %v : tensor<i1>, tensor<4xf32>
    %parity = stablehlo.and %i, %one : tensor<i32>
    %even = stablehlo.compare EQ, %parity, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %out = stablehlo.select %even, %v, %kept : tensor<i1>, tensor<4xf32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %out : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// Outside loops nothing changes.
// CHECK-LABEL: func.func @straight
// CHECK:         stablehlo.dynamic_slice
// CHECK-NOT:     stablehlo.gather
func.func @straight(%x: tensor<8xi32>, %i: tensor<8xi32>) -> tensor<1xi32> {
  %s = stablehlo.slice %i [0:1] : (tensor<8xi32>) -> tensor<1xi32>
  %p = stablehlo.reshape %s : (tensor<1xi32>) -> tensor<i32>
  %r = stablehlo.dynamic_slice %x, %p, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
  return %r : tensor<1xi32>
}
