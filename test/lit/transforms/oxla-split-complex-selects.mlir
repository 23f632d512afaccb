// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-split-complex-selects)' | FileCheck %s

// A complex select chooses the real and the imaginary parts apart with the same mask, and joins them.
// CHECK-LABEL: func.func @complex_select
// CHECK-DAG:     %[[AR:.*]] = stablehlo.real %arg1 : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
// CHECK-DAG:     %[[AI:.*]] = stablehlo.imag %arg1 : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
// CHECK-DAG:     %[[BR:.*]] = stablehlo.real %arg2 : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
// CHECK-DAG:     %[[BI:.*]] = stablehlo.imag %arg2 : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
// CHECK-DAG:     %[[R:.*]] = stablehlo.select %arg0, %[[AR]], %[[BR]] : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK-DAG:     %[[I:.*]] = stablehlo.select %arg0, %[[AI]], %[[BI]] : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK:         %[[C:.*]] = stablehlo.complex %[[R]], %[[I]] : tensor<4x3xcomplex<f32>>
// CHECK:         return %[[C]]
func.func @complex_select(%p: tensor<4x3xi1>, %a: tensor<4x3xcomplex<f32>>, %b: tensor<4x3xcomplex<f32>>) -> tensor<4x3xcomplex<f32>> {
  %r = stablehlo.select %p, %a, %b : tensor<4x3xi1>, tensor<4x3xcomplex<f32>>
  return %r : tensor<4x3xcomplex<f32>>
}

// -----

// A scalar mask over complex<f64> tensors; real selects stay.
// CHECK-LABEL: func.func @scalar_mask
// CHECK:         stablehlo.select %arg0, %{{.*}}, %{{.*}} : tensor<i1>, tensor<2xf64>
// CHECK:         stablehlo.select %arg0, %{{.*}}, %{{.*}} : tensor<i1>, tensor<2xf64>
// CHECK:         stablehlo.complex
// CHECK:         stablehlo.select %arg0, %arg3, %arg3 : tensor<i1>, tensor<2xf32>
func.func @scalar_mask(%p: tensor<i1>, %a: tensor<2xcomplex<f64>>, %b: tensor<2xcomplex<f64>>, %x: tensor<2xf32>) -> (tensor<2xcomplex<f64>>, tensor<2xf32>) {
  %r = stablehlo.select %p, %a, %b : tensor<i1>, tensor<2xcomplex<f64>>
  %s = stablehlo.select %p, %x, %x : tensor<i1>, tensor<2xf32>
  return %r, %s : tensor<2xcomplex<f64>>, tensor<2xf32>
}
