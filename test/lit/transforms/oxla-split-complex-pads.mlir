// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-split-complex-pads)' | FileCheck %s

// jnp.pad of complex128: its padding value is a converted integer zero. The parts are padded as f64,
// the real part with the converted value, the imaginary one with zero, and joined.
// CHECK-LABEL: func.func @converted_zero
// CHECK-DAG:     %[[XR:.*]] = stablehlo.real %arg0 : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xf64>
// CHECK-DAG:     %[[XI:.*]] = stablehlo.imag %arg0 : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xf64>
// CHECK-DAG:     %[[VR:.*]] = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<f64>
// CHECK-DAG:     %[[VI:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f64>
// CHECK:         %[[R:.*]] = stablehlo.pad %[[XR]], %[[VR]], low = [1, 0], high = [2, 3], interior = [0, 1]
// CHECK:         %[[I:.*]] = stablehlo.pad %[[XI]], %[[VI]], low = [1, 0], high = [2, 3], interior = [0, 1]
// CHECK:         %[[C:.*]] = stablehlo.complex %[[R]], %[[I]] : tensor<7x14xcomplex<f64>>
// CHECK:         return %[[C]]
func.func @converted_zero(%x: tensor<4x6xcomplex<f64>>, %zero: tensor<i64>) -> tensor<7x14xcomplex<f64>> {
  %v = stablehlo.convert %zero : (tensor<i64>) -> tensor<complex<f64>>
  %p = stablehlo.pad %x, %v, low = [1, 0], high = [2, 3], interior = [0, 1] : (tensor<4x6xcomplex<f64>>, tensor<complex<f64>>) -> tensor<7x14xcomplex<f64>>
  return %p : tensor<7x14xcomplex<f64>>
}

// -----

// A complex padding value: its real and imaginary parts.
// CHECK-LABEL: func.func @complex_value
// CHECK-DAG:     stablehlo.real %arg1 : (tensor<complex<f64>>) -> tensor<f64>
// CHECK-DAG:     stablehlo.imag %arg1 : (tensor<complex<f64>>) -> tensor<f64>
// CHECK:         stablehlo.complex
func.func @complex_value(%x: tensor<4x6xcomplex<f64>>, %v: tensor<complex<f64>>) -> tensor<5x6xcomplex<f64>> {
  %p = stablehlo.pad %x, %v, low = [1, 0], high = [0, 0], interior = [0, 0] : (tensor<4x6xcomplex<f64>>, tensor<complex<f64>>) -> tensor<5x6xcomplex<f64>>
  return %p : tensor<5x6xcomplex<f64>>
}

// -----

// complex<f32> pads too (IREE's compiler crashed filling one it did not fuse), as f32 parts; real pads
// are left alone.
// CHECK-LABEL: func.func @complex_f32
// CHECK-DAG:     stablehlo.real %arg1 : (tensor<complex<f32>>) -> tensor<f32>
// CHECK-DAG:     stablehlo.pad {{.*}} : (tensor<4x6xf32>, tensor<f32>) -> tensor<5x6xf32>
// CHECK:         stablehlo.complex {{.*}} : tensor<5x6xcomplex<f32>>
// CHECK:         stablehlo.pad %arg2, %arg3
func.func @complex_f32(%x: tensor<4x6xcomplex<f32>>, %v: tensor<complex<f32>>, %r: tensor<4x6xf32>, %w: tensor<f32>) -> (tensor<5x6xcomplex<f32>>, tensor<5x6xf32>) {
  %p = stablehlo.pad %x, %v, low = [1, 0], high = [0, 0], interior = [0, 0] : (tensor<4x6xcomplex<f32>>, tensor<complex<f32>>) -> tensor<5x6xcomplex<f32>>
  %q = stablehlo.pad %r, %w, low = [1, 0], high = [0, 0], interior = [0, 0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<5x6xf32>
  return %p, %q : tensor<5x6xcomplex<f32>>, tensor<5x6xf32>
}
