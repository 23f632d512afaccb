// A slice taking every s-th element of whole innermost rows, s elements making a 16-, 32- or 64-bit word,
// is read as those words: reshaped into groups, bitcast to one word per group, shifted right to the
// picked element, truncated and bitcast back. Slices of parts of rows, and of element-wise values IREE
// would compute in the slice's dispatch, stay.
// RUN: oxla-opt %s -p 'builtin.module(oxla-llvmcpu-strided-slice-bitcasts)' --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @odd_lanes
// CHECK:         %[[G:.*]] = stablehlo.reshape %arg0 : (tensor<4x64xf32>) -> tensor<4x32x2xf32>
// CHECK:         %[[W:.*]] = stablehlo.bitcast_convert %[[G]] : (tensor<4x32x2xf32>) -> tensor<4x32xi64>
// CHECK:         %[[S:.*]] = stablehlo.constant dense<32> : tensor<4x32xi64>
// CHECK:         %[[H:.*]] = stablehlo.shift_right_logical %[[W]], %[[S]] : tensor<4x32xi64>
// CHECK:         %[[L:.*]] = stablehlo.convert %[[H]] : (tensor<4x32xi64>) -> tensor<4x32xi32>
// CHECK:         %[[F:.*]] = stablehlo.bitcast_convert %[[L]] : (tensor<4x32xi32>) -> tensor<4x32xf32>
// CHECK:         return %[[F]]
func.func @odd_lanes(%x: tensor<4x64xf32>) -> tensor<4x32xf32> {
  %s = stablehlo.slice %x [0:4, 1:64:2] : (tensor<4x64xf32>) -> tensor<4x32xf32>
  return %s : tensor<4x32xf32>
}

// -----

// CHECK-LABEL: func.func @even_bytes
// CHECK:         stablehlo.bitcast_convert %{{.*}} : (tensor<4x16x4xi8>) -> tensor<4x16xi32>
// CHECK-NOT:     stablehlo.shift_right_logical
// CHECK:         %[[L:.*]] = stablehlo.convert %{{.*}} : (tensor<4x16xi32>) -> tensor<4x16xi8>
// CHECK:         return %[[L]]
func.func @even_bytes(%x: tensor<4x64xi8>) -> tensor<4x16xi8> {
  %s = stablehlo.slice %x [0:4, 0:64:4] : (tensor<4x64xi8>) -> tensor<4x16xi8>
  return %s : tensor<4x16xi8>
}

// -----

// CHECK-LABEL: func.func @part_of_rows
// CHECK:         stablehlo.slice
// CHECK-NOT:     stablehlo.bitcast_convert
func.func @part_of_rows(%x: tensor<4x64xf32>) -> tensor<4x30xf32> {
  %s = stablehlo.slice %x [0:4, 2:62:2] : (tensor<4x64xf32>) -> tensor<4x30xf32>
  return %s : tensor<4x30xf32>
}

// -----

// CHECK-LABEL: func.func @fused_producer
// CHECK:         stablehlo.slice
// CHECK-NOT:     stablehlo.bitcast_convert
func.func @fused_producer(%x: tensor<4x64xf32>) -> tensor<4x32xf32> {
  %e = stablehlo.exponential %x : tensor<4x64xf32>
  %s = stablehlo.slice %e [0:4, 0:64:2] : (tensor<4x64xf32>) -> tensor<4x32xf32>
  return %s : tensor<4x32xf32>
}
