// RUN: oxla-opt %s -p 'builtin.module(oxla-isolate-narrowed-matmul-operands)' | FileCheck %s

// An f64 operand sliced and converted to f32 reaches the matmul through a barrier.
// CHECK-LABEL: func.func @sliced_f64
// CHECK:         %[[NARROW:.*]] = stablehlo.convert %{{.*}} : (tensor<2x12x12xf64>) -> tensor<2x12x12xf32>
// CHECK-NEXT:    %[[HELD:.*]] = stablehlo.optimization_barrier %[[NARROW]] : tensor<2x12x12xf32>
// CHECK-NEXT:    stablehlo.dot_general %[[HELD]], %arg1,
func.func @sliced_f64(%arg0: tensor<2x12x16xf64>, %arg1: tensor<2x24x12xf32>) -> tensor<2x12x24xf32> {
  %0 = stablehlo.slice %arg0 [0:2, 0:12, 0:12] : (tensor<2x12x16xf64>) -> tensor<2x12x12xf64>
  %1 = stablehlo.convert %0 : (tensor<2x12x12xf64>) -> tensor<2x12x12xf32>
  %2 = stablehlo.dot_general %1, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x12x12xf32>, tensor<2x24x12xf32>) -> tensor<2x12x24xf32>
  return %2 : tensor<2x12x24xf32>
}

// The narrowing is found through a transpose after it.
// CHECK-LABEL: func.func @transposed_after
// CHECK:         stablehlo.transpose
// CHECK-NEXT:    stablehlo.optimization_barrier
// CHECK-NEXT:    stablehlo.dot_general
func.func @transposed_after(%arg0: tensor<8x4xf64>, %arg1: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %0 = stablehlo.convert %arg0 : (tensor<8x4xf64>) -> tensor<8x4xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %2 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %2 : tensor<4x3xf32>
}

// f32 operands, and narrowings from f16 or through arithmetic, stay as they are.
// CHECK-LABEL: func.func @others
// CHECK-NOT:     stablehlo.optimization_barrier
// CHECK:         return
func.func @others(%arg0: tensor<4x8xf32>, %arg1: tensor<8x3xf16>, %arg2: tensor<4x8xf64>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = stablehlo.convert %arg1 : (tensor<8x3xf16>) -> tensor<8x3xf32>
  %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %2 = stablehlo.negate %arg2 : tensor<4x8xf64>
  %3 = stablehlo.exponential %2 : tensor<4x8xf64>
  %4 = stablehlo.convert %3 : (tensor<4x8xf64>) -> tensor<4x8xf32>
  %5 = stablehlo.add %4, %arg0 : tensor<4x8xf32>
  %6 = stablehlo.dot_general %5, %0, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %1, %6 : tensor<4x3xf32>, tensor<4x3xf32>
}
