// Scatter updates whose index falls outside the operand are kept from being written: a scatter that adds
// into an operand larger than its updates gets them as zeros at index 0; any other scatters into its
// operand padded by one row, the updates sent to that row, and the result cut back.
// RUN: oxla-opt %s -p 'builtin.module(oxla-guard-scatter-indices)' | FileCheck %s

// CHECK-LABEL: func.func @add
// CHECK:         %[[B:.*]] = stablehlo.constant dense<9> : tensor<1xi32>
// CHECK:         %[[FITS:.*]] = stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.and across dimensions = [1]
// CHECK:         %[[I:.*]] = stablehlo.select %{{.*}}, %arg1, %{{.*}} : tensor<3x1xi1>, tensor<3x1xi32>
// CHECK:         %[[U:.*]] = stablehlo.select %{{.*}}, %arg2, %{{.*}} : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK:         %[[S:.*]] = "stablehlo.scatter"(%arg0, %[[I]], %[[U]])
// CHECK:         return %[[S]] : tensor<10x4xf32>
func.func @add(%x: tensor<10x4xf32>, %i: tensor<3x1xi32>, %u: tensor<3x4xf32>) -> tensor<10x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<10x4xf32>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// CHECK-LABEL: func.func @set
// CHECK:         %[[T:.*]] = stablehlo.constant dense<10> : tensor<1xi32>
// CHECK:         %[[I:.*]] = stablehlo.select %{{.*}}, %arg1, %{{.*}} : tensor<3x1xi1>, tensor<3x1xi32>
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0, 0], high = [1, 0], interior = [0, 0] : (tensor<10x4xf32>, tensor<f32>) -> tensor<11x4xf32>
// CHECK:         %[[S:.*]] = "stablehlo.scatter"(%[[P]], %[[I]], %arg2) {{.*}}unique_indices = false
// CHECK:         %[[R:.*]] = stablehlo.slice %[[S]] [0:10, 0:4]
// CHECK:         return %[[R]] : tensor<10x4xf32>
func.func @set(%x: tensor<10x4xf32>, %i: tensor<3x1xi32>, %u: tensor<3x4xf32>) -> tensor<10x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<10x4xf32>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}
