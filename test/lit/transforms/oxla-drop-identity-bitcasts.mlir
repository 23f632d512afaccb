// RUN: oxla-opt %s -p 'builtin.module(oxla-drop-identity-bitcasts)' | FileCheck %s

// CHECK-LABEL: func.func @identity
// CHECK-NEXT:    return %arg0 : tensor<2x3xcomplex<f32>>
func.func @identity(%arg0: tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>> {
  %0 = stablehlo.bitcast_convert %arg0 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>
  return %0 : tensor<2x3xcomplex<f32>>
}

// A bitcast that changes the type stays.
// CHECK-LABEL: func.func @real_bitcast
// CHECK-NEXT:    stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
func.func @real_bitcast(%arg0: tensor<4xf32>) -> tensor<4xi32> {
  %0 = stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
