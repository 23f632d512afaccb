// A batched dot_general with a short contraction becomes its terms: for each k, the lhs's column k
// broadcast along the result's columns times the rhs's row k broadcast along its rows, added in order
// of k. Longer contractions into larger matrices, and unbatched ones, stay.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-unroll-tiny-batch-matmuls)' | FileCheck %s

// CHECK-LABEL: func.func @three_terms
// CHECK:         %[[A0:.*]] = stablehlo.slice %arg0 [0:16, 0:4, 0:1]
// CHECK:         %[[C0:.*]] = stablehlo.reshape %[[A0]] : (tensor<16x4x1xf32>) -> tensor<16x4xf32>
// CHECK:         %[[L0:.*]] = stablehlo.broadcast_in_dim %[[C0]], dims = [0, 1] : (tensor<16x4xf32>) -> tensor<16x4x5xf32>
// CHECK:         %[[B0:.*]] = stablehlo.slice %arg1 [0:16, 0:1, 0:5]
// CHECK:         %[[R0:.*]] = stablehlo.reshape %[[B0]] : (tensor<16x1x5xf32>) -> tensor<16x5xf32>
// CHECK:         %[[M0:.*]] = stablehlo.broadcast_in_dim %[[R0]], dims = [0, 2] : (tensor<16x5xf32>) -> tensor<16x4x5xf32>
// CHECK:         %[[T0:.*]] = stablehlo.multiply %[[L0]], %[[M0]] : tensor<16x4x5xf32>
// CHECK:         stablehlo.slice %arg0 [0:16, 0:4, 1:2]
// CHECK:         %[[T1:.*]] = stablehlo.multiply
// CHECK:         %[[S1:.*]] = stablehlo.add %[[T0]], %[[T1]] : tensor<16x4x5xf32>
// CHECK:         stablehlo.slice %arg0 [0:16, 0:4, 2:3]
// CHECK:         %[[T2:.*]] = stablehlo.multiply
// CHECK:         %[[S2:.*]] = stablehlo.add %[[S1]], %[[T2]] : tensor<16x4x5xf32>
// CHECK-NOT:     stablehlo.dot_general
// CHECK:         return %[[S2]]
func.func @three_terms(%a: tensor<16x4x3xf32>, %b: tensor<16x3x5xf32>) -> tensor<16x4x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<16x4x3xf32>, tensor<16x3x5xf32>) -> tensor<16x4x5xf32>
  return %0 : tensor<16x4x5xf32>
}

// -----

// bf16 operands: converted to f32 first, the sum rounded once.
// CHECK-LABEL: func.func @bf16
// CHECK:         stablehlo.convert %arg0 : (tensor<8x2x2xbf16>) -> tensor<8x2x2xf32>
// CHECK:         stablehlo.convert %arg1 : (tensor<8x2x2xbf16>) -> tensor<8x2x2xf32>
// CHECK:         %[[S:.*]] = stablehlo.add {{.*}} : tensor<8x2x2xf32>
// CHECK:         stablehlo.convert %[[S]] : (tensor<8x2x2xf32>) -> tensor<8x2x2xbf16>
func.func @bf16(%a: tensor<8x2x2xbf16>, %b: tensor<8x2x2xbf16>) -> tensor<8x2x2xbf16> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<8x2x2xbf16>, tensor<8x2x2xbf16>) -> tensor<8x2x2xbf16>
  return %0 : tensor<8x2x2xbf16>
}

// -----

// CHECK-LABEL: func.func @attention_sized
// CHECK:         stablehlo.dot_general
func.func @attention_sized(%a: tensor<4x128x64xf32>, %b: tensor<4x64x128xf32>) -> tensor<4x128x128xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x128x64xf32>, tensor<4x64x128xf32>) -> tensor<4x128x128xf32>
  return %0 : tensor<4x128x128xf32>
}

// -----

// CHECK-LABEL: func.func @unbatched
// CHECK:         stablehlo.dot_general
func.func @unbatched(%a: tensor<64x4xf32>, %b: tensor<4x4xf32>) -> tensor<64x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<64x4xf32>, tensor<4x4xf32>) -> tensor<64x4xf32>
  return %0 : tensor<64x4xf32>
}
