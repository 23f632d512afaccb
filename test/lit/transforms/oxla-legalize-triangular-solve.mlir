// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-triangular-solve)' | FileCheck %s

// Right side, upper: X a = b is a^T X^T = b^T with a^T lower triangular;
// a while loop solves rows first to last (batched over dim 0), dividing by
// the diagonal; the other triangle and the diagonal are masked off for the
// product with the rows solved so far.
// CHECK-LABEL: func.func @right_upper
// CHECK:         %[[A:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK:         %[[B:.*]] = stablehlo.transpose %arg1, dims = [0, 2, 1] : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK:         %[[ROWS:.*]] = stablehlo.iota dim = 1 : tensor<2x4x4xi32>
// CHECK:         %[[COLS:.*]] = stablehlo.iota dim = 2 : tensor<2x4x4xi32>
// CHECK:         %[[BELOW:.*]] = stablehlo.compare GT, %[[ROWS]], %[[COLS]]
// CHECK:         %[[STRICT:.*]] = stablehlo.select %[[BELOW]], %[[A]], %{{.*}}
// CHECK:         %[[LOOP:.*]]:5 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[X:.*]] = %{{.*}}, %[[L:.*]] = %[[STRICT]], %[[D:.*]] = %[[A]], %[[R:.*]] = %[[B]])
// CHECK:         cond {
// CHECK:           stablehlo.constant dense<4> : tensor<i32>
// CHECK:         } do {
// CHECK:           %[[ROW:.*]] = stablehlo.dynamic_slice %[[L]], %{{.*}}, %[[I]], %{{.*}}, sizes = [2, 1, 4]
// CHECK:           %[[KNOWN:.*]] = stablehlo.dot_general %[[ROW]], %[[X]], batching_dims = [0] x [0], contracting_dims = [2] x [1]
// CHECK:           %[[RHS:.*]] = stablehlo.dynamic_slice %[[R]], %{{.*}}, %[[I]], %{{.*}}, sizes = [2, 1, 3]
// CHECK:           %[[REST:.*]] = stablehlo.subtract %[[RHS]], %[[KNOWN]]
// CHECK:           %[[PIVOT:.*]] = stablehlo.dynamic_slice %[[D]], %{{.*}}, %[[I]], %[[I]], sizes = [2, 1, 1]
// CHECK:           %[[SPREAD:.*]] = stablehlo.broadcast_in_dim %[[PIVOT]], dims = [0, 1, 2]
// CHECK:           %[[NEW:.*]] = stablehlo.divide %[[REST]], %[[SPREAD]]
// CHECK:           stablehlo.dynamic_update_slice %[[X]], %[[NEW]], %{{.*}}, %[[I]], %{{.*}}
// CHECK:         }
// CHECK:         stablehlo.transpose %[[LOOP]]#1, dims = [0, 2, 1] : (tensor<2x4x3xf32>) -> tensor<2x3x4xf32>
func.func @right_upper(%a: tensor<2x4x4xf32>, %b: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = false, lower = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x4x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Left side, upper, unit diagonal: rows last to first (row 3 - i), no division.
// CHECK-LABEL: func.func @left_upper_unit
// CHECK-NOT:     stablehlo.transpose
// CHECK:         stablehlo.compare LT, %{{.*}}, %{{.*}} : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
// CHECK:         stablehlo.while
// CHECK:         } do {
// CHECK:           %[[LAST:.*]] = stablehlo.constant dense<3> : tensor<i32>
// CHECK:           %[[ROW:.*]] = stablehlo.subtract %[[LAST]], %{{.*}} : tensor<i32>
// CHECK:           stablehlo.dynamic_slice %{{.*}}, %[[ROW]], %{{.*}}, sizes = [1, 4]
// CHECK-NOT:       stablehlo.divide
// CHECK:           stablehlo.dynamic_update_slice %{{.*}}, %{{.*}}, %[[ROW]], %{{.*}}
func.func @left_upper_unit(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// ADJOINT conjugates and transposes a (lower becomes upper); complex zeros
// are built from real ones (IREE rejects complex<f64> constants).
// CHECK-LABEL: func.func @adjoint
// CHECK:         %[[RE:.*]] = stablehlo.real %arg0
// CHECK:         %[[IM:.*]] = stablehlo.imag %arg0
// CHECK:         %[[NEG:.*]] = stablehlo.negate %[[IM]]
// CHECK:         %[[CONJ:.*]] = stablehlo.complex %[[RE]], %[[NEG]]
// CHECK:         stablehlo.transpose %[[CONJ]], dims = [1, 0]
// CHECK:         %[[ZRE:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<3x2xf64>
// CHECK:         %[[ZIM:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<3x2xf64>
// CHECK:         stablehlo.complex %[[ZRE]], %[[ZIM]] : tensor<3x2xcomplex<f64>>
// CHECK-NOT:     stablehlo.constant dense<(
// CHECK:         stablehlo.compare LT
// CHECK:         stablehlo.while
func.func @adjoint(%a: tensor<3x3xcomplex<f64>>, %b: tensor<3x2xcomplex<f64>>) -> tensor<3x2xcomplex<f64>> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = false}> : (tensor<3x3xcomplex<f64>>, tensor<3x2xcomplex<f64>>) -> tensor<3x2xcomplex<f64>>
  return %0 : tensor<3x2xcomplex<f64>>
}

// -----

// Other ops are not touched.
// CHECK-LABEL: func.func @no_triangular_solve
// CHECK-NEXT:    stablehlo.dot_general %arg0, %arg0
// CHECK-NOT:     stablehlo.while
func.func @no_triangular_solve(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
