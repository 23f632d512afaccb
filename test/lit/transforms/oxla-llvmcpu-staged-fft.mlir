// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-staged-fft)' | FileCheck %s

// An FFT of 64 along the last axis: split as 8 x 8 (the four-step method).
// The columns' first stage, radix 4, reads the complex input's blocks and
// takes their parts itself; its butterfly for block 0 is all ones, (1, 0)
// into each output's real part and (0, 1) into its imaginary part; block 1's
// real part goes in as 1, -i, -1, i. A radix-2 stage finishes the columns,
// then twiddle factors and a transpose, the rows' stages, and the parts
// joined.
// CHECK-LABEL: func.func @fft
// CHECK-NOT:     stablehlo.fft
// CHECK:         %[[SPLIT:.*]] = stablehlo.reshape %arg0 : (tensor<2x64xcomplex<f32>>) -> tensor<2x8x8xcomplex<f32>>
// CHECK:         %[[BLOCKS:.*]] = stablehlo.reshape %[[SPLIT]] : (tensor<2x8x8xcomplex<f32>>) -> tensor<2x4x2x1x1x8xcomplex<f32>>
// CHECK:         %[[B0:.*]] = stablehlo.slice %[[BLOCKS]] [0:2, 0:1, 0:2, 0:1, 0:1, 0:8]
// CHECK:         %[[P0:.*]] = stablehlo.reshape %[[B0]] : (tensor<2x1x2x1x1x8xcomplex<f32>>) -> tensor<2x2x1x8xcomplex<f32>>
// CHECK:         %[[RE0:.*]] = stablehlo.real %[[P0]]
// CHECK:         %[[X:.*]] = stablehlo.broadcast_in_dim %[[RE0]], dims = [0, 1, 3, 5] : (tensor<2x2x1x8xf32>) -> tensor<2x2x4x1x2x8xf32>
// CHECK:         %[[ONE_RE:.*]] = stablehlo.constant dense<{{\[\[\[}}1.000000e+00, -0.000000e+00]], {{\[\[}}1.000000e+00, -0.000000e+00]], {{\[\[}}1.000000e+00, -0.000000e+00]], {{\[\[}}1.000000e+00, -0.000000e+00]]]> : tensor<4x1x2xf32>
// CHECK:         %[[W:.*]] = stablehlo.broadcast_in_dim %[[ONE_RE]], dims = [2, 3, 4] : (tensor<4x1x2xf32>) -> tensor<2x2x4x1x2x8xf32>
// CHECK:         stablehlo.multiply %[[X]], %[[W]] : tensor<2x2x4x1x2x8xf32>
// CHECK:         stablehlo.constant dense<{{\[\[\[}}1.000000e+00, -0.000000e+00]], {{\[\[}}-0.000000e+00, -1.000000e+00]], {{\[\[}}-1.000000e+00, 0.000000e+00]], {{\[\[}}0.000000e+00, 1.000000e+00]]]> : tensor<4x1x2xf32>
// CHECK:         stablehlo.reshape {{.*}} : (tensor<2x2x4x1x2x8xf32>) -> tensor<2x8x2x8xf32>
// CHECK:         stablehlo.multiply {{.*}} : tensor<2x1x2x4x2x8xf32>
// CHECK:         stablehlo.transpose {{.*}}, dims = [0, 3, 2, 1] : (tensor<2x8x2x8xf32>) -> tensor<2x8x2x8xf32>
// CHECK:         stablehlo.multiply {{.*}} : tensor<2x2x4x1x2x8xf32>
// CHECK:         stablehlo.multiply {{.*}} : tensor<2x1x2x4x2x8xf32>
// CHECK:         %[[RE:.*]] = stablehlo.reshape {{.*}} : (tensor<2x8x1x8xf32>) -> tensor<2x64xf32>
// CHECK:         %[[IM:.*]] = stablehlo.reshape {{.*}} : (tensor<2x8x1x8xf32>) -> tensor<2x64xf32>
// CHECK:         %[[OUT:.*]] = stablehlo.complex %[[RE]], %[[IM]] : tensor<2x64xcomplex<f32>>
// CHECK:         return %[[OUT]]
func.func @fft(%arg0: tensor<2x64xcomplex<f32>>) -> tensor<2x64xcomplex<f32>> {
  %0 = stablehlo.fft %arg0, type = FFT, length = [64] : (tensor<2x64xcomplex<f32>>) -> tensor<2x64xcomplex<f32>>
  return %0 : tensor<2x64xcomplex<f32>>
}

// -----

// Shorter transforms are IREE's.
// CHECK-LABEL: func.func @short
// CHECK:         stablehlo.fft %arg0, type = FFT, length = [32]
func.func @short(%arg0: tensor<2x32xcomplex<f32>>) -> tensor<2x32xcomplex<f32>> {
  %0 = stablehlo.fft %arg0, type = FFT, length = [32] : (tensor<2x32xcomplex<f32>>) -> tensor<2x32xcomplex<f32>>
  return %0 : tensor<2x32xcomplex<f32>>
}

// -----

// An RFFT: the real input is the first stage's only part (one table per
// block), and the result keeps the first 64 / 2 + 1 terms.
// CHECK-LABEL: func.func @rfft
// CHECK-NOT:     stablehlo.real
// CHECK-NOT:     stablehlo.imag
// CHECK:         stablehlo.reshape %arg0 : (tensor<3x64xf32>) -> tensor<3x8x8xf32>
// CHECK:         stablehlo.slice {{.*}} [0:3, 0:33] : (tensor<3x64xcomplex<f32>>) -> tensor<3x33xcomplex<f32>>
// CHECK-NEXT:    return
func.func @rfft(%arg0: tensor<3x64xf32>) -> tensor<3x33xcomplex<f32>> {
  %0 = stablehlo.fft %arg0, type = RFFT, length = [64] : (tensor<3x64xf32>) -> tensor<3x33xcomplex<f32>>
  return %0 : tensor<3x33xcomplex<f32>>
}

// -----

// An IRFFT: the conjugates of terms 1..31, reversed, complete the spectrum;
// the inverse's last stage carries the 1/64 and only the real parts are kept.
// CHECK-LABEL: func.func @irfft
// CHECK:         %[[MID:.*]] = stablehlo.slice %arg0 [0:3, 1:32] : (tensor<3x33xcomplex<f32>>) -> tensor<3x31xcomplex<f32>>
// CHECK:         %[[REV:.*]] = stablehlo.reverse %[[MID]], dims = [1]
// CHECK:         %[[NEG:.*]] = stablehlo.negate
// CHECK:         %[[CONJ:.*]] = stablehlo.complex {{.*}}, %[[NEG]] : tensor<3x31xcomplex<f32>>
// CHECK:         stablehlo.concatenate %arg0, %[[CONJ]], dim = 1 : (tensor<3x33xcomplex<f32>>, tensor<3x31xcomplex<f32>>) -> tensor<3x64xcomplex<f32>>
// CHECK:         stablehlo.constant dense<{{\[\[\[}}1.562500e-02, 0.000000e+00], {{.*}}> : tensor<2x4x2xf32>
// CHECK-NOT:     stablehlo.complex
// CHECK:         return {{.*}} : tensor<3x64xf32>
func.func @irfft(%arg0: tensor<3x33xcomplex<f32>>) -> tensor<3x64xf32> {
  %0 = stablehlo.fft %arg0, type = IRFFT, length = [64] : (tensor<3x33xcomplex<f32>>) -> tensor<3x64xf32>
  return %0 : tensor<3x64xf32>
}
