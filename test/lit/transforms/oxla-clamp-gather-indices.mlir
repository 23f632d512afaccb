// Gather start indices are clamped into [0, dimension - slice size] before the gather, as StableHLO
// specifies (IREE's lowering reads at the index as given): one scalar bound when every entry of the
// index vector has the same, else a constant of bounds broadcast along the index vector.
// RUN: oxla-opt %s -p 'builtin.module(oxla-clamp-gather-indices)' | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK-DAG:     %[[LO:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK-DAG:     %[[HI:.*]] = stablehlo.constant dense<999> : tensor<i32>
// CHECK:         %[[C:.*]] = stablehlo.clamp %[[LO]], %arg1, %[[HI]] : (tensor<i32>, tensor<64x1xi32>, tensor<i32>) -> tensor<64x1xi32>
// CHECK:         "stablehlo.gather"(%arg0, %[[C]])
func.func @rows(%t: tensor<1000x32xf32>, %ids: tensor<64x1xi32>) -> tensor<64x32xf32> {
  %0 = "stablehlo.gather"(%t, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 32>}> : (tensor<1000x32xf32>, tensor<64x1xi32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// CHECK-LABEL: func.func @patches
// CHECK:         %[[B:.*]] = stablehlo.constant dense<[8, 9]> : tensor<2xi64>
// CHECK:         %[[HI:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1] : (tensor<2xi64>) -> tensor<5x2xi64>
// CHECK:         %[[C:.*]] = stablehlo.clamp %{{.*}}, %arg1, %[[HI]] : tensor<5x2xi64>
// CHECK:         "stablehlo.gather"(%arg0, %[[C]])
func.func @patches(%x: tensor<10x12xf32>, %s: tensor<5x2xi64>) -> tensor<5x2x3xf32> {
  %0 = "stablehlo.gather"(%x, %s) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 2, 3>}> : (tensor<10x12xf32>, tensor<5x2xi64>) -> tensor<5x2x3xf32>
  return %0 : tensor<5x2x3xf32>
}
