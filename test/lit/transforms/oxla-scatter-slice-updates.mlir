// A scatter of one window into one operand, in any layout, becomes a slice update: the window read at the
// index, the update (or the scatter's body mapped over that window) where the whole window fits, else the old
// window, written back with dynamic_update_slice. Scatters of several updates are left to the others.
// RUN: oxla-opt %s -p 'builtin.module(oxla-scatter-slice-updates)' | FileCheck %s

// CHECK-LABEL: func.func @row
// CHECK:         %[[I:.*]] = stablehlo.reshape %arg1 : (tensor<1x1xi32>) -> tensor<1xi32>
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK:         %[[AT:.*]] = stablehlo.reshape %[[I]] : (tensor<1xi32>) -> tensor<i32>
// CHECK:         %[[FITS:.*]] = stablehlo.reduce
// CHECK:         %[[OLD:.*]] = stablehlo.dynamic_slice %arg0, %[[AT]], %[[Z]], sizes = [1, 4]
// CHECK:         %[[K:.*]] = stablehlo.reshape %[[FITS]] : (tensor<1xi1>) -> tensor<i1>
// CHECK:         %[[W:.*]] = stablehlo.select %[[K]], %arg2, %[[OLD]] : tensor<i1>, tensor<1x4xf32>
// CHECK:         %[[R:.*]] = stablehlo.dynamic_update_slice %arg0, %[[W]], %[[AT]], %[[Z]]
// CHECK-NOT:     stablehlo.scatter
// CHECK:         return %[[R]] : tensor<10x4xf32>
func.func @row(%x: tensor<10x4xf32>, %i: tensor<1x1xi32>, %u: tensor<1x4xf32>) -> tensor<10x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<10x4xf32>, tensor<1x1xi32>, tensor<1x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// A decoding step's `cache.at[:, t].set(k)`: the indexed dimension in the middle, no transposes.
// CHECK-LABEL: func.func @cache_column
// CHECK-NOT:     stablehlo.transpose
// CHECK:         %[[OLD:.*]] = stablehlo.dynamic_slice %arg0, %{{.*}}, %{{.*}}, %{{.*}}, sizes = [4, 1, 8]
// CHECK:         %[[NEW:.*]] = stablehlo.reshape %arg2 : (tensor<4x8xf32>) -> tensor<4x1x8xf32>
// CHECK:         %[[W:.*]] = stablehlo.select %{{.*}}, %[[NEW]], %[[OLD]]
// CHECK:         stablehlo.dynamic_update_slice %arg0, %[[W]]
func.func @cache_column(%c: tensor<4x16x8xf32>, %t: tensor<i32>, %k: tensor<4x8xf32>) -> tensor<4x16x8xf32> {
  %i = stablehlo.reshape %t : (tensor<i32>) -> tensor<1xi32>
  %0 = "stablehlo.scatter"(%c, %i, %k) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<4x16x8xf32>, tensor<1xi32>, tensor<4x8xf32>) -> tensor<4x16x8xf32>
  return %0 : tensor<4x16x8xf32>
}

// An add keeps its body, mapped over the window and the update.
// CHECK-LABEL: func.func @add
// CHECK:         %[[OLD:.*]] = stablehlo.dynamic_slice %arg0
// CHECK:         %[[SUM:.*]] = "stablehlo.map"(%[[OLD]], %arg2)
// CHECK:           stablehlo.add
// CHECK:         stablehlo.select %{{.*}}, %[[SUM]], %[[OLD]]
// CHECK:         stablehlo.dynamic_update_slice %arg0
func.func @add(%x: tensor<10x4xf32>, %i: tensor<1x1xi32>, %u: tensor<1x4xf32>) -> tensor<10x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<10x4xf32>, tensor<1x1xi32>, tensor<1x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// CHECK-LABEL: func.func @three_rows
// CHECK:         "stablehlo.scatter"(%arg0, %arg1, %arg2)
// CHECK-NOT:     dynamic_update_slice
func.func @three_rows(%x: tensor<10x4xf32>, %i: tensor<3x1xi32>, %u: tensor<3x4xf32>) -> tensor<10x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<10x4xf32>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}
