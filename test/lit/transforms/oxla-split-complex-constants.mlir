// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-split-complex-constants)' | FileCheck %s

// CHECK-LABEL: func.func @complex_f64
// CHECK-DAG:     %[[RE:.*]] = stablehlo.constant dense<[1.500000e+00, 0x7FF0000000000000]> : tensor<2xf64>
// CHECK-DAG:     %[[IM:.*]] = stablehlo.constant dense<[2.000000e+00, -0.000000e+00]> : tensor<2xf64>
// CHECK:         %[[C:.*]] = stablehlo.complex %[[RE]], %[[IM]] : tensor<2xcomplex<f64>>
// CHECK:         return %[[C]]
func.func @complex_f64() -> tensor<2xcomplex<f64>> {
  %0 = stablehlo.constant dense<[(1.5, 2.0), (0x7FF0000000000000, -0.0)]> : tensor<2xcomplex<f64>>
  return %0 : tensor<2xcomplex<f64>>
}

// -----

// complex<f32> constants compile fine in IREE: left alone.
// CHECK-LABEL: func.func @complex_f32
// CHECK-NEXT:    stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<3xcomplex<f32>>
// CHECK-NOT:     stablehlo.complex
func.func @complex_f32() -> tensor<3xcomplex<f32>> {
  %0 = stablehlo.constant dense<(1.0, 2.0)> : tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}
