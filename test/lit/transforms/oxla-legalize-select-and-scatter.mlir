// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-select-and-scatter)' | FileCheck %s

// Padded, strided windows (the last column is in no window): operand and flat
// indices are padded (indices with the sentinel 35, one past the operand) and
// cut to the extent the windows cover; a reduce_window over (value, index)
// applies the select region to (earlier, later); the source is scatter-added
// at the chosen flat indices into init_value, with one spare element.
// CHECK-LABEL: func.func @strided_padded
// CHECK-DAG:     %[[INIT:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[END:.*]] = stablehlo.constant dense<35> : tensor<i32>
// CHECK:         %[[PV:.*]] = stablehlo.pad %arg0, %[[INIT]], low = [1, 1], high = [0, 0], interior = [0, 0] : (tensor<5x7xf32>, tensor<f32>) -> tensor<6x8xf32>
// CHECK:         %[[V:.*]] = stablehlo.slice %[[PV]] [0:6, 0:7]
// CHECK:         %[[IOTA:.*]] = stablehlo.iota dim = 0 : tensor<35xi32>
// CHECK:         %[[IDX:.*]] = stablehlo.reshape %[[IOTA]] : (tensor<35xi32>) -> tensor<5x7xi32>
// CHECK:         %[[PI:.*]] = stablehlo.pad %[[IDX]], %[[END]], low = [1, 1], high = [0, 0]
// CHECK:         %[[I:.*]] = stablehlo.slice %[[PI]] [0:6, 0:7]
// CHECK:         %[[W:.*]]:2 = "stablehlo.reduce_window"(%[[V]], %[[I]], %[[INIT]], %[[END]]) <{window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>}>
// CHECK-NEXT:    ^bb0(%[[V0:.*]]: tensor<f32>, %[[I0:.*]]: tensor<i32>, %[[V1:.*]]: tensor<f32>, %[[I1:.*]]: tensor<i32>):
// CHECK-NEXT:      %[[FIRST:.*]] = stablehlo.compare LT, %[[I0]], %[[I1]]
// CHECK-NEXT:      %[[EV:.*]] = stablehlo.select %[[FIRST]], %[[V0]], %[[V1]]
// CHECK-NEXT:      %[[EI:.*]] = stablehlo.select %[[FIRST]], %[[I0]], %[[I1]]
// CHECK-NEXT:      %[[LV:.*]] = stablehlo.select %[[FIRST]], %[[V1]], %[[V0]]
// CHECK-NEXT:      %[[LI:.*]] = stablehlo.select %[[FIRST]], %[[I1]], %[[I0]]
// CHECK-NEXT:      %[[SEL:.*]] = stablehlo.compare GE, %[[EV]], %[[LV]], FLOAT
// CHECK-NEXT:      %[[PAD:.*]] = stablehlo.compare EQ, %[[LI]], %[[END]]
// CHECK-NEXT:      %[[KEEP:.*]] = stablehlo.or %[[SEL]], %[[PAD]]
// CHECK-NEXT:      %[[RV:.*]] = stablehlo.select %[[KEEP]], %[[EV]], %[[LV]]
// CHECK-NEXT:      %[[RI:.*]] = stablehlo.select %[[KEEP]], %[[EI]], %[[LI]]
// CHECK-NEXT:      stablehlo.return %[[RV]], %[[RI]]
// CHECK:         }) : (tensor<6x7xf32>, tensor<6x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<3x3xf32>, tensor<3x3xi32>)
// CHECK:         %[[BASE:.*]] = stablehlo.broadcast_in_dim %[[INIT]], dims = [] : (tensor<f32>) -> tensor<36xf32>
// CHECK:         %[[AT:.*]] = stablehlo.reshape %[[W]]#1 : (tensor<3x3xi32>) -> tensor<9x1xi32>
// CHECK:         %[[UPD:.*]] = stablehlo.reshape %arg1 : (tensor<3x3xf32>) -> tensor<9xf32>
// CHECK:         %[[S:.*]] = "stablehlo.scatter"(%[[BASE]], %[[AT]], %[[UPD]])
// CHECK-SAME:      inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1
// CHECK:           stablehlo.add
// CHECK:         %[[FLAT:.*]] = stablehlo.slice %[[S]] [0:35]
// CHECK:         %[[R:.*]] = stablehlo.reshape %[[FLAT]] : (tensor<35xf32>) -> tensor<5x7xf32>
// CHECK:         return %[[R]]
// CHECK-NOT:     select_and_scatter
func.func @strided_padded(%arg0: tensor<5x7xf32>, %arg1: tensor<3x3xf32>) -> tensor<5x7xf32> {
  %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %c) <{window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>, padding = dense<[[1, 0], [1, 0]]> : tensor<2x2xi64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5x7xf32>, tensor<3x3xf32>, tensor<f32>) -> tensor<5x7xf32>
  return %0 : tensor<5x7xf32>
}

// -----

// Windows that tile the operand exactly (the default strides of 1): no pad,
// no slice of the inputs.
// CHECK-LABEL: func.func @exact
// CHECK-NOT:     stablehlo.pad
// CHECK:         "stablehlo.reduce_window"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>}>
// CHECK:         "stablehlo.scatter"
func.func @exact(%arg0: tensor<2x3xi32>, %arg1: tensor<1x2xi32>) -> tensor<2x3xi32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %c) <{window_dimensions = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %p = stablehlo.compare GE, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<2x3xi32>, tensor<1x2xi32>, tensor<i32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Other ops, reduce_window and scatter included, are not touched.
// CHECK-LABEL: func.func @no_select_and_scatter
// CHECK-NOT:     stablehlo.iota
// CHECK:         "stablehlo.reduce_window"(%arg0, %{{.*}}) <{window_dimensions = array<i64: 2>}>
// CHECK-NOT:     stablehlo.iota
func.func @no_select_and_scatter(%arg0: tensor<4xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%arg0, %c) <{window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
