// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-staged-fft)' | FileCheck %s

// An FFT of 64 along the last axis: split as 8 x 8 (the four-step method).
// The complex input's bytes are read as pairs of f32 and transposed into
// planes: runs of 8 (n2) elements, their real parts then their imaginary
// ones, as [2, 8 (n1), 2 (parts), 8 (n2)]. The columns' first stage, radix
// 4, takes each block's parts; its butterfly for block 0's real part is all
// ones, (1, 0) into each output's real and imaginary part, block 1's real
// part goes in as 1, -i, -1, i. A radix-2 stage finishes the columns, then
// twiddle factors and a transpose, the rows' stages, and the planes' parts
// joined into i64 words (the real part's bits low, the imaginary part's
// high), read as complex.
// CHECK-LABEL: func.func @fft
// CHECK-NOT:     stablehlo.fft
// CHECK:         %[[PAIRS:.*]] = flow.tensor.bitcast %arg0 : tensor<2x64xcomplex<f32>> -> tensor<2x64x2xf32>
// CHECK:         %[[SPLIT:.*]] = stablehlo.reshape %[[PAIRS]] : (tensor<2x64x2xf32>) -> tensor<16x8x2xf32>
// CHECK:         %[[RUNS:.*]] = stablehlo.transpose %[[SPLIT]], dims = [0, 2, 1] : (tensor<16x8x2xf32>) -> tensor<16x2x8xf32>
// CHECK:         %[[PLANES:.*]] = stablehlo.reshape %[[RUNS]] : (tensor<16x2x8xf32>) -> tensor<2x8x2x8xf32>
// CHECK:         %[[BLOCKS:.*]] = stablehlo.reshape %[[PLANES]] : (tensor<2x8x2x8xf32>) -> tensor<2x4x2x1x2x8xf32>
// CHECK:         %[[B0:.*]] = stablehlo.slice %[[BLOCKS]] [0:2, 0:1, 0:2, 0:1, 0:1, 0:8]
// CHECK:         %[[RE0:.*]] = stablehlo.reshape %[[B0]] : (tensor<2x1x2x1x1x8xf32>) -> tensor<2x2x1x8xf32>
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
// CHECK:         %[[DONE:.*]] = stablehlo.reshape {{.*}} : (tensor<2x8x2x8xf32>) -> tensor<16x2x8xf32>
// CHECK:         %[[RE:.*]] = stablehlo.slice %[[DONE]] [0:16, 0:1, 0:8]
// CHECK:         %[[RE_BITS:.*]] = stablehlo.bitcast_convert {{.*}} : (tensor<16x8xf32>) -> tensor<16x8xi32>
// CHECK:         %[[RE_WORDS:.*]] = stablehlo.convert %[[RE_BITS]] : (tensor<16x8xi32>) -> tensor<16x8xi64>
// CHECK:         %[[IM:.*]] = stablehlo.slice %[[DONE]] [0:16, 1:2, 0:8]
// CHECK:         %[[IM_BITS:.*]] = stablehlo.bitcast_convert {{.*}} : (tensor<16x8xf32>) -> tensor<16x8xi32>
// CHECK:         %[[IM_WORDS:.*]] = stablehlo.convert %[[IM_BITS]] : (tensor<16x8xi32>) -> tensor<16x8xi64>
// CHECK:         %[[MASK:.*]] = stablehlo.constant dense<4294967295> : tensor<16x8xi64>
// CHECK:         %[[LOW:.*]] = stablehlo.and %[[RE_WORDS]], %[[MASK]] : tensor<16x8xi64>
// CHECK:         %[[BY:.*]] = stablehlo.constant dense<32> : tensor<16x8xi64>
// CHECK:         %[[HIGH:.*]] = stablehlo.shift_left %[[IM_WORDS]], %[[BY]] : tensor<16x8xi64>
// CHECK:         %[[WORDS:.*]] = stablehlo.or %[[LOW]], %[[HIGH]] : tensor<16x8xi64>
// CHECK:         %[[OUT:.*]] = flow.tensor.bitcast %[[WORDS]] : tensor<16x8xi64> -> tensor<2x64xcomplex<f32>>
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
// block), and the result keeps the first 64 / 2 + 1 terms: the planes
// regrouped into runs of whole rows, sliced, and their parts joined into
// words.
// CHECK-LABEL: func.func @rfft
// CHECK-NOT:     stablehlo.real
// CHECK-NOT:     stablehlo.imag
// CHECK:         stablehlo.reshape %arg0 : (tensor<3x64xf32>) -> tensor<3x8x8xf32>
// CHECK:         %[[ROWS:.*]] = stablehlo.transpose {{.*}}, dims = [0, 2, 1, 3] : (tensor<3x8x2x8xf32>) -> tensor<3x2x8x8xf32>
// CHECK:         %[[RUNS:.*]] = stablehlo.reshape %[[ROWS]] : (tensor<3x2x8x8xf32>) -> tensor<3x2x64xf32>
// CHECK:         stablehlo.slice %[[RUNS]] [0:3, 0:2, 0:33] : (tensor<3x2x64xf32>) -> tensor<3x2x33xf32>
// CHECK:         %[[OUT:.*]] = flow.tensor.bitcast {{.*}} : tensor<3x33xi64> -> tensor<3x33xcomplex<f32>>
// CHECK-NEXT:    return %[[OUT]]
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
// CHECK:         %[[FULL:.*]] = stablehlo.concatenate %arg0, %[[CONJ]], dim = 1 : (tensor<3x33xcomplex<f32>>, tensor<3x31xcomplex<f32>>) -> tensor<3x64xcomplex<f32>>
// CHECK:         flow.tensor.bitcast %[[FULL]] : tensor<3x64xcomplex<f32>> -> tensor<3x64x2xf32>
// CHECK:         stablehlo.constant dense<{{\[\[\[}}1.562500e-02, 0.000000e+00], {{.*}}> : tensor<2x4x2xf32>
// CHECK-NOT:     flow.tensor.bitcast
// CHECK:         return {{.*}} : tensor<3x64xf32>
func.func @irfft(%arg0: tensor<3x33xcomplex<f32>>) -> tensor<3x64xf32> {
  %0 = stablehlo.fft %arg0, type = IRFFT, length = [64] : (tensor<3x33xcomplex<f32>>) -> tensor<3x64xf32>
  return %0 : tensor<3x64xf32>
}

// -----

// An RFFT of an even length whose half stages apply: the 128 reals are 64
// complex values (even elements real, odd ones imaginary) transformed, Z;
// then X[k] = A[k] Z[k] + B[k] conj(Z[64 - k]) for k <= 64, with Z[64] read
// as Z[0] (the concatenation) and Z[64 - k] as Z's parts reversed.
// CHECK-LABEL: func.func @rfft_half
// CHECK:         %[[PAIRS:.*]] = stablehlo.reshape %arg0 : (tensor<3x128xf32>) -> tensor<24x8x2xf32>
// CHECK:         stablehlo.transpose %[[PAIRS]], dims = [0, 2, 1] : (tensor<24x8x2xf32>) -> tensor<24x2x8xf32>
// CHECK:         %[[BACK:.*]] = stablehlo.transpose {{.*}}, dims = [0, 2, 1] : (tensor<24x2x8xf32>) -> tensor<24x8x2xf32>
// CHECK:         %[[Z:.*]] = stablehlo.reshape %[[BACK]] : (tensor<24x8x2xf32>) -> tensor<3x64x2xf32>
// CHECK:         %[[Z0:.*]] = stablehlo.slice %[[Z]] [0:3, 0:1, 0:2]
// CHECK:         %[[WRAPPED:.*]] = stablehlo.concatenate %[[Z]], %[[Z0]], dim = 1 : (tensor<3x64x2xf32>, tensor<3x1x2xf32>) -> tensor<3x65x2xf32>
// CHECK:         %[[RE:.*]] = stablehlo.slice %[[WRAPPED]] [0:3, 0:65, 0:1]
// CHECK:         %[[IM:.*]] = stablehlo.slice %[[WRAPPED]] [0:3, 0:65, 1:2]
// CHECK:         stablehlo.reverse {{.*}}, dims = [1] : tensor<3x65xf32>
// CHECK:         stablehlo.reverse {{.*}}, dims = [1] : tensor<3x65xf32>
// CHECK:         %[[OUT:.*]] = flow.tensor.bitcast {{.*}} : tensor<3x65x2xf32> -> tensor<3x65xcomplex<f32>>
// CHECK-NEXT:    return %[[OUT]]
func.func @rfft_half(%arg0: tensor<3x128xf32>) -> tensor<3x65xcomplex<f32>> {
  %0 = stablehlo.fft %arg0, type = RFFT, length = [128] : (tensor<3x128xf32>) -> tensor<3x65xcomplex<f32>>
  return %0 : tensor<3x65xcomplex<f32>>
}

// -----

// Its inverse: Z[k] from X[k] and conj(X[64 - k]) for k <= 64 (the whole
// argument and its parts reversed; Z[64] is left out after), the imaginary
// parts of X[0] and X[64] left out (X[0]'s imaginary part has the table
// (0, 0) at k = 0, after (1/2, 1/2) for its real part: hex constants),
// inverse stages of 64 scaled by 1/64, and the result's parts joined into
// i64 words read as the 128 reals.
// CHECK-LABEL: func.func @irfft_half
// CHECK:         %[[PAIRS:.*]] = flow.tensor.bitcast %arg0 : tensor<3x65xcomplex<f32>> -> tensor<3x65x2xf32>
// CHECK:         %[[RE:.*]] = stablehlo.slice %[[PAIRS]] [0:3, 0:65, 0:1]
// CHECK:         %[[IM:.*]] = stablehlo.slice %[[PAIRS]] [0:3, 0:65, 1:2]
// CHECK:         stablehlo.reverse {{.*}}, dims = [1] : tensor<3x65xf32>
// CHECK:         stablehlo.reverse {{.*}}, dims = [1] : tensor<3x65xf32>
// CHECK:         stablehlo.constant dense<"0x0000003F0000003F{{.*}}"> : tensor<65x2xf32>
// CHECK:         stablehlo.constant dense<"0x0000000000000000{{.*}}"> : tensor<65x2xf32>
// CHECK:         %[[Z:.*]] = stablehlo.slice {{.*}} [0:3, 0:64, 0:2] : (tensor<3x65x2xf32>) -> tensor<3x64x2xf32>
// CHECK:         stablehlo.constant dense<{{.*}}1.562500e-02{{.*}}> : tensor<2x4x2xf32>
// CHECK:         %[[OUT:.*]] = flow.tensor.bitcast {{.*}} : tensor<24x8xi64> -> tensor<3x128xf32>
// CHECK-NEXT:    return %[[OUT]]
func.func @irfft_half(%arg0: tensor<3x65xcomplex<f32>>) -> tensor<3x128xf32> {
  %0 = stablehlo.fft %arg0, type = IRFFT, length = [128] : (tensor<3x65xcomplex<f32>>) -> tensor<3x128xf32>
  return %0 : tensor<3x128xf32>
}

// -----

// An FFT along axis 0 as JAX writes it: a transpose moving the axis last, a
// call of a function holding the fft, the transpose back. The call is
// inlined and the stages read the transpose's operand, along its rows of
// 64 (IREE moves complex elements one at a time); the result is transposed
// as the fft's was, so that the two transposes back to back cancel.
// CHECK-LABEL: func.func @columns
// CHECK-NOT:     call
// CHECK:         flow.tensor.bitcast %arg0 : tensor<1024x64xcomplex<f32>> -> tensor<1024x64x2xf32>
// CHECK:         %[[OUT:.*]] = flow.tensor.bitcast {{.*}} : tensor<1024x64xi64> -> tensor<1024x64xcomplex<f32>>
// CHECK:         %[[MOVED:.*]] = stablehlo.transpose %[[OUT]], dims = [1, 0] : (tensor<1024x64xcomplex<f32>>) -> tensor<64x1024xcomplex<f32>>
// CHECK:         %[[BACK:.*]] = stablehlo.transpose %[[MOVED]], dims = [1, 0] : (tensor<64x1024xcomplex<f32>>) -> tensor<1024x64xcomplex<f32>>
// CHECK:         return %[[BACK]]
func.func @columns(%arg0: tensor<1024x64xcomplex<f32>>) -> tensor<1024x64xcomplex<f32>> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<1024x64xcomplex<f32>>) -> tensor<64x1024xcomplex<f32>>
  %1 = call @fft(%0) : (tensor<64x1024xcomplex<f32>>) -> tensor<64x1024xcomplex<f32>>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<64x1024xcomplex<f32>>) -> tensor<1024x64xcomplex<f32>>
  return %2 : tensor<1024x64xcomplex<f32>>
}
func.func private @fft(%arg0: tensor<64x1024xcomplex<f32>>) -> tensor<64x1024xcomplex<f32>> {
  %0 = stablehlo.fft %arg0, type = FFT, length = [1024] : (tensor<64x1024xcomplex<f32>>) -> tensor<64x1024xcomplex<f32>>
  return %0 : tensor<64x1024xcomplex<f32>>
}
