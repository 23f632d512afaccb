// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-canonicalize-scatter)' | FileCheck %s

// No batch dim, indexed dims 0 and 2 (not leading), both inserted: the
// operand is transposed so they lead, indices and updates get a batch dim,
// and the result is transposed back.
// CHECK-LABEL: func.func @no_batch_dim
// CHECK:         %[[IDX:.*]] = stablehlo.reshape %{{.*}} : (tensor<2xi64>) -> tensor<1x2xi64>
// CHECK:         %[[OPND:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<4x2x3xf32>) -> tensor<4x3x2xf32>
// CHECK:         %[[UPD:.*]] = stablehlo.reshape %arg1 : (tensor<2xf32>) -> tensor<1x2xf32>
// CHECK:         %[[S:.*]] = "stablehlo.scatter"(%[[OPND]], %[[IDX]], %[[UPD]])
// CHECK-SAME:      update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1
// CHECK:         stablehlo.transpose %[[S]], dims = [0, 2, 1] : (tensor<4x3x2xf32>) -> tensor<4x2x3xf32>
func.func @no_batch_dim(%arg0: tensor<4x2x3xf32>, %arg1: tensor<2xf32>) -> tensor<4x2x3xf32> {
  %c = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
  %0 = "stablehlo.scatter"(%arg0, %c, %arg1) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0, 2], scatter_dims_to_operand_dims = [0, 2]>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<4x2x3xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// Already in IREE's form: left alone.
// CHECK-LABEL: func.func @canonical
// CHECK-NOT:     stablehlo.transpose
// CHECK-NOT:     stablehlo.reshape
// CHECK:         "stablehlo.scatter"(%arg0, %arg1, %arg2)
// CHECK-SAME:      update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1
func.func @canonical(%arg0: tensor<5x3xf32>, %arg1: tensor<2x1xi32>, %arg2: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// Two batch dims and the index vector first: indices become [4, 1], updates [4, 3].
// CHECK-LABEL: func.func @two_batch_dims
// CHECK:         stablehlo.transpose %arg1, dims = [1, 2, 0] : (tensor<1x2x2xi32>) -> tensor<2x2x1xi32>
// CHECK:         stablehlo.reshape %{{.*}} : (tensor<2x2x1xi32>) -> tensor<4x1xi32>
// CHECK:         stablehlo.reshape %arg2 : (tensor<2x2x3xf32>) -> tensor<4x3xf32>
// CHECK:         "stablehlo.scatter"
// CHECK-SAME:      update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1
func.func @two_batch_dims(%arg0: tensor<5x3xf32>, %arg1: tensor<1x2x2xi32>, %arg2: tensor<2x2x3xf32>) -> tensor<5x3xf32> {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5x3xf32>, tensor<1x2x2xi32>, tensor<2x2x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// Other ops are not touched.
// CHECK-LABEL: func.func @no_scatter
// CHECK-NEXT:    stablehlo.add
// CHECK-NEXT:    return
func.func @no_scatter(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
