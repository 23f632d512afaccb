// Constant rules of oxla-simplify-stablehlo. Each case names its rule: `applies` cases must be rewritten,
// `keeps` cases must stay; test/python/test_simplify_rules.py also evaluates every case
// before and after the pass on random and special inputs.
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo=strict=true | FileCheck %s
// RUN: oxla-opt %s --split-input-file --oxla-simplify-stablehlo="strict=true fast-math=true" | FileCheck %s --check-prefix=FAST

// rule: iota_constant applies
// CHECK-LABEL: func.func @iota_int
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<{{\[\[}}0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>
// CHECK-NEXT:    return %[[C]]
// FAST-LABEL:  func.func @iota_int
// FAST-NEXT:     %[[C:.*]] = stablehlo.constant dense<{{\[\[}}0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>
func.func @iota_int() -> tensor<2x3xi32> {
  %r = stablehlo.iota dim = 1 : tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}

// -----

// rule: iota_constant applies
// CHECK-LABEL: func.func @iota_float
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00]]> : tensor<3x2xbf16>
// CHECK-NEXT:    return %[[C]]
func.func @iota_float() -> tensor<3x2xbf16> {
  %r = stablehlo.iota dim = 0 : tensor<3x2xbf16>
  return %r : tensor<3x2xbf16>
}

// -----

// rule: iota_constant applies
// CHECK-LABEL: func.func @iota_complex
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<[(0.000000e+00,0.000000e+00), (1.000000e+00,0.000000e+00), (2.000000e+00,0.000000e+00)]> : tensor<3xcomplex<f32>>
// CHECK-NEXT:    return %[[C]]
func.func @iota_complex() -> tensor<3xcomplex<f32>> {
  %r = stablehlo.iota dim = 0 : tensor<3xcomplex<f32>>
  return %r : tensor<3xcomplex<f32>>
}

// -----

// 1,600 elements: the iota is cheaper than its constant.
// rule: iota_constant keeps
// CHECK-LABEL: func.func @iota_large
// CHECK-NEXT:    stablehlo.iota
func.func @iota_large() -> tensor<40x40xi32> {
  %r = stablehlo.iota dim = 0 : tensor<40x40xi32>
  return %r : tensor<40x40xi32>
}

// -----

// bf16 cannot hold 257: the iota rounds it, and the rule leaves that to the iota.
// rule: iota_constant keeps
// CHECK-LABEL: func.func @iota_inexact
// CHECK-NEXT:    stablehlo.iota
func.func @iota_inexact() -> tensor<300xbf16> {
  %r = stablehlo.iota dim = 0 : tensor<300xbf16>
  return %r : tensor<300xbf16>
}

// -----

// i8 cannot hold 128 and up.
// rule: iota_constant keeps
// CHECK-LABEL: func.func @iota_wraps
// CHECK-NEXT:    stablehlo.iota
func.func @iota_wraps() -> tensor<200xi8> {
  %r = stablehlo.iota dim = 0 : tensor<200xi8>
  return %r : tensor<200xi8>
}

// -----

// rule: broadcast_in_dim_splat applies
// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @broadcast_splat() -> tensor<2x3xf32> {
  %c = stablehlo.constant dense<1.5> : tensor<3xf32>
  %r = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// A 0-d constant is a splat; the result stays one value however large it is (and keeps -0.0).
// rule: broadcast_in_dim_splat applies
// CHECK-LABEL: func.func @broadcast_scalar
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<-0.000000e+00> : tensor<1000x100x100xf32>
// CHECK-NEXT:    return %[[C]]
func.func @broadcast_scalar() -> tensor<1000x100x100xf32> {
  %c = stablehlo.constant dense<-0.0> : tensor<f32>
  %r = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<1000x100x100xf32>
  return %r : tensor<1000x100x100xf32>
}

// -----

// rule: broadcast_in_dim_splat applies
// CHECK-LABEL: func.func @broadcast_complex_splat
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<(1.000000e+00,-2.000000e+00)> : tensor<4x2xcomplex<f64>>
// CHECK-NEXT:    return %[[C]]
func.func @broadcast_complex_splat() -> tensor<4x2xcomplex<f64>> {
  %c = stablehlo.constant dense<(1.0, -2.0)> : tensor<complex<f64>>
  %r = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<complex<f64>>) -> tensor<4x2xcomplex<f64>>
  return %r : tensor<4x2xcomplex<f64>>
}

// -----

// rule: broadcast_in_dim_splat keeps
// CHECK-LABEL: func.func @broadcast_dense
// CHECK:         stablehlo.broadcast_in_dim
func.func @broadcast_dense() -> tensor<2x3xi32> {
  %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %r = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}

// -----

// rule: broadcast_in_dim_splat keeps
// CHECK-LABEL: func.func @broadcast_argument
// CHECK:         stablehlo.broadcast_in_dim %arg0
func.func @broadcast_argument(%x: tensor<f32>) -> tensor<2x3xf32> {
  %r = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rule: reshape_splat applies
// CHECK-LABEL: func.func @reshape_splat
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<true> : tensor<3x2xi1>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_splat() -> tensor<3x2xi1> {
  %c = stablehlo.constant dense<true> : tensor<6xi1>
  %r = stablehlo.reshape %c : (tensor<6xi1>) -> tensor<3x2xi1>
  return %r : tensor<3x2xi1>
}

// -----

// rule: reshape_splat keeps
// CHECK-LABEL: func.func @reshape_dense
// CHECK:         stablehlo.reshape
func.func @reshape_dense() -> tensor<2x2xi32> {
  %c = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %r = stablehlo.reshape %c : (tensor<4xi32>) -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}

// -----

// rule: transpose_splat applies
// CHECK-LABEL: func.func @transpose_splat
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<-7> : tensor<4x2xi16>
// CHECK-NEXT:    return %[[C]]
func.func @transpose_splat() -> tensor<4x2xi16> {
  %c = stablehlo.constant dense<-7> : tensor<2x4xi16>
  %r = stablehlo.transpose %c, dims = [1, 0] : (tensor<2x4xi16>) -> tensor<4x2xi16>
  return %r : tensor<4x2xi16>
}

// -----

// rule: transpose_splat keeps
// CHECK-LABEL: func.func @transpose_dense
// CHECK:         stablehlo.transpose
func.func @transpose_dense() -> tensor<2x2xi32> {
  %c = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %r = stablehlo.transpose %c, dims = [1, 0] : (tensor<2x2xi32>) -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}

// -----

// Integers wrap around: 300 is 44 in i8.
// rule: convert_splat applies
// CHECK-LABEL: func.func @convert_wraps
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<44> : tensor<3xi8>
// CHECK-NEXT:    return %[[C]]
func.func @convert_wraps() -> tensor<3xi8> {
  %c = stablehlo.constant dense<300> : tensor<3xi32>
  %r = stablehlo.convert %c : (tensor<3xi32>) -> tensor<3xi8>
  return %r : tensor<3xi8>
}

// -----

// rule: convert_splat applies
// CHECK-LABEL: func.func @convert_unsigned
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<65535> : tensor<2xui16>
// CHECK-NEXT:    return %[[C]]
func.func @convert_unsigned() -> tensor<2xui16> {
  %c = stablehlo.constant dense<-1> : tensor<2xi8>
  %r = stablehlo.convert %c : (tensor<2xi8>) -> tensor<2xui16>
  return %r : tensor<2xui16>
}

// -----

// 0.1 rounds to the nearest bf16, 0.10009765625.
// rule: convert_splat applies
// CHECK-LABEL: func.func @convert_rounds
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<1.000980e-01> : tensor<2xbf16>
// CHECK-NEXT:    return %[[C]]
func.func @convert_rounds() -> tensor<2xbf16> {
  %c = stablehlo.constant dense<0.1> : tensor<2xf32>
  %r = stablehlo.convert %c : (tensor<2xf32>) -> tensor<2xbf16>
  return %r : tensor<2xbf16>
}

// -----

// rule: convert_splat applies
// CHECK-LABEL: func.func @convert_int_to_float
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<-1.600000e+01> : tensor<2xf16>
// CHECK-NEXT:    return %[[C]]
func.func @convert_int_to_float() -> tensor<2xf16> {
  %c = stablehlo.constant dense<-16> : tensor<2xi64>
  %r = stablehlo.convert %c : (tensor<2xi64>) -> tensor<2xf16>
  return %r : tensor<2xf16>
}

// -----

// -0.0 is zero, so false; infinity is not.
// rule: convert_splat applies
// CHECK-LABEL: func.func @convert_to_bool
// CHECK-NEXT:    %[[F:.*]] = stablehlo.constant dense<false> : tensor<2xi1>
// CHECK-NEXT:    %[[T:.*]] = stablehlo.constant dense<true> : tensor<2xi1>
// CHECK-NEXT:    return %[[F]], %[[T]]
func.func @convert_to_bool() -> (tensor<2xi1>, tensor<2xi1>) {
  %z = stablehlo.constant dense<-0.0> : tensor<2xf32>
  %i = stablehlo.constant dense<0x7F800000> : tensor<2xf32>
  %a = stablehlo.convert %z : (tensor<2xf32>) -> tensor<2xi1>
  %b = stablehlo.convert %i : (tensor<2xf32>) -> tensor<2xi1>
  return %a, %b : tensor<2xi1>, tensor<2xi1>
}

// -----

// rule: convert_splat applies
// CHECK-LABEL: func.func @convert_complex
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<(1.000000e-01,-0.000000e+00)> : tensor<2xcomplex<f32>>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.constant dense<(2.500000e+00,0.000000e+00)> : tensor<2xcomplex<f32>>
// CHECK-NEXT:    return %[[C]], %[[D]]
func.func @convert_complex() -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) {
  %c = stablehlo.constant dense<(0.1, -0.0)> : tensor<2xcomplex<f64>>
  %f = stablehlo.constant dense<2.5> : tensor<2xf32>
  %a = stablehlo.convert %c : (tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f32>>
  %b = stablehlo.convert %f : (tensor<2xf32>) -> tensor<2xcomplex<f32>>
  return %a, %b : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
}

// -----

// Float to integer conversion is left to the op.
// rule: convert_splat keeps
// CHECK-LABEL: func.func @convert_float_to_int
// CHECK:         stablehlo.convert
func.func @convert_float_to_int() -> tensor<2xi32> {
  %c = stablehlo.constant dense<2.5> : tensor<2xf32>
  %r = stablehlo.convert %c : (tensor<2xf32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}

// -----

// f16 tops out at 65504: the overflow is left to the op.
// rule: convert_splat keeps
// CHECK-LABEL: func.func @convert_overflow
// CHECK:         stablehlo.convert
func.func @convert_overflow() -> tensor<2xf16> {
  %c = stablehlo.constant dense<1.0e+06> : tensor<2xf32>
  %r = stablehlo.convert %c : (tensor<2xf32>) -> tensor<2xf16>
  return %r : tensor<2xf16>
}

// -----

// rule: convert_splat keeps
// CHECK-LABEL: func.func @convert_nan
// CHECK:         stablehlo.convert
func.func @convert_nan() -> tensor<2xf64> {
  %c = stablehlo.constant dense<0x7FC00000> : tensor<2xf32>
  %r = stablehlo.convert %c : (tensor<2xf32>) -> tensor<2xf64>
  return %r : tensor<2xf64>
}

// -----

// numpy would round f64 to bf16 twice (through f32).
// rule: convert_splat keeps
// CHECK-LABEL: func.func @convert_double_rounding
// CHECK:         stablehlo.convert
func.func @convert_double_rounding() -> tensor<2xbf16> {
  %c = stablehlo.constant dense<0.1> : tensor<2xf64>
  %r = stablehlo.convert %c : (tensor<2xf64>) -> tensor<2xbf16>
  return %r : tensor<2xbf16>
}

// -----

// rule: convert_splat keeps
// CHECK-LABEL: func.func @convert_argument
// CHECK:         stablehlo.convert %arg0
func.func @convert_argument(%x: tensor<2xi32>) -> tensor<2xf32> {
  %r = stablehlo.convert %x : (tensor<2xi32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
