// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-fft)' | FileCheck %s

// RFFT of a length IREE rejects (5) in f64: the real input times constant
// cos and -sin matrices [3, 5] (N/2+1 outputs), joined into complex.
// CHECK-LABEL: func.func @rfft
// CHECK:         %[[COS:.*]] = stablehlo.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [1.000000e+00, 0.3090169943749474, -0.80901699437494745, -0.80901699437494745, 0.3090169943749474], {{.*}}]]> : tensor<3x5xf64>
// CHECK:         %[[RE:.*]] = stablehlo.dot_general %arg0, %[[COS]], contracting_dims = [1] x [1] : (tensor<3x5xf64>, tensor<3x5xf64>) -> tensor<3x3xf64>
// CHECK:         %[[SIN:.*]] = stablehlo.constant {{.*}} : tensor<3x5xf64>
// CHECK:         %[[IM:.*]] = stablehlo.dot_general %arg0, %[[SIN]], contracting_dims = [1] x [1]
// CHECK:         %[[OUT:.*]] = stablehlo.complex %[[RE]], %[[IM]] : tensor<3x3xcomplex<f64>>
// CHECK:         return %[[OUT]]
func.func @rfft(%arg0: tensor<3x5xf64>) -> tensor<3x3xcomplex<f64>> {
  %0 = stablehlo.fft %arg0, type = RFFT, length = [5] : (tensor<3x5xf64>) -> tensor<3x3xcomplex<f64>>
  return %0 : tensor<3x3xcomplex<f64>>
}

// -----

// A two-dimensional IFFT: one complex DFT per dim, scaled by 1/N (1/2 here,
// then 1/3); the DFT along dim 0 puts its output dim last, and a transpose
// moves it back; sin(pi) is an exact zero.
// CHECK-LABEL: func.func @ifft2
// CHECK:         %[[RE:.*]] = stablehlo.real %arg0
// CHECK:         %[[IM:.*]] = stablehlo.imag %arg0
// CHECK:         %[[C:.*]] = stablehlo.constant dense<{{\[\[}}5.000000e-01, 5.000000e-01], [5.000000e-01, -5.000000e-01]]> : tensor<2x2xf32>
// CHECK:         %[[S:.*]] = stablehlo.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00], [0.000000e+00, -0.000000e+00]]> : tensor<2x2xf32>
// CHECK:         %[[D:.*]] = stablehlo.dot_general %[[RE]], %[[C]], contracting_dims = [0] x [1] : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// CHECK:         stablehlo.transpose %[[D]], dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
// CHECK:         stablehlo.constant dense<{{\[\[}}0.333333343, 0.333333343, 0.333333343], [0.333333343, -0.166666672, -0.166666672], {{.*}}]]> : tensor<3x3xf32>
// CHECK:         stablehlo.dot_general {{.*}}, contracting_dims = [1] x [1] : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[OUT:.*]] = stablehlo.complex {{.*}} : tensor<2x3xcomplex<f32>>
// CHECK:         return %[[OUT]]
func.func @ifft2(%arg0: tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>> {
  %0 = stablehlo.fft %arg0, type = IFFT, length = [2, 3] : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>
  return %0 : tensor<2x3xcomplex<f32>>
}

// -----

// IRFFT of length 6 from its 4 leading terms: DC and Nyquist weigh 1/6, the
// others 2/6 (their conjugates are implied).
// CHECK-LABEL: func.func @irfft
// CHECK:         %[[RE:.*]] = stablehlo.real %arg0
// CHECK:         %[[IM:.*]] = stablehlo.imag %arg0
// CHECK:         %[[C:.*]] = stablehlo.constant dense<{{\[\[}}0.166666672, 0.333333343, 0.333333343, 0.166666672], {{.*}} : tensor<6x4xf32>
// CHECK:         %[[A:.*]] = stablehlo.dot_general %[[RE]], %[[C]], contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<6x4xf32>) -> tensor<2x6xf32>
// CHECK:         %[[B:.*]] = stablehlo.dot_general %[[IM]], %{{.*}}, contracting_dims = [1] x [1]
// CHECK:         %[[OUT:.*]] = stablehlo.add %[[A]], %[[B]] : tensor<2x6xf32>
// CHECK:         return %[[OUT]]
func.func @irfft(%arg0: tensor<2x4xcomplex<f32>>) -> tensor<2x6xf32> {
  %0 = stablehlo.fft %arg0, type = IRFFT, length = [6] : (tensor<2x4xcomplex<f32>>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// One f32 dim of power-of-two length: IREE lowers it, left alone.
// CHECK-LABEL: func.func @power_of_two
// CHECK-NEXT:    stablehlo.fft %arg0, type = FFT, length = [8]
// CHECK-NEXT:    stablehlo.fft %{{.*}}, type = IFFT, length = [8]
// CHECK-NOT:     dot_general
func.func @power_of_two(%arg0: tensor<3x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>> {
  %0 = stablehlo.fft %arg0, type = FFT, length = [8] : (tensor<3x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>>
  %1 = stablehlo.fft %0, type = IFFT, length = [8] : (tensor<3x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>>
  return %1 : tensor<3x8xcomplex<f32>>
}
