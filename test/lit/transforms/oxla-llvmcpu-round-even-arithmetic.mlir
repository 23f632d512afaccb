// f32 and f64 round_nearest_even becomes |x| + 2^p - 2^p where |x| < 2^p (else |x|), with x's sign bit
// put back (2^23 is 0x4B000000, 2^52 0x4330000000000000); f16 and bf16 stay.
// RUN: oxla-opt %s -p 'builtin.module(oxla-llvmcpu-round-even-arithmetic)' | FileCheck %s

// CHECK-LABEL: func.func @f32
// CHECK:         %[[A:.*]] = stablehlo.abs %arg0 : tensor<4x8xf32>
// CHECK:         %[[P:.*]] = stablehlo.constant dense<0x4B000000> : tensor<4x8xf32>
// CHECK:         %[[S:.*]] = stablehlo.add %[[A]], %[[P]]
// CHECK:         %[[W:.*]] = stablehlo.subtract %[[S]], %[[P]]
// CHECK:         %[[SMALL:.*]] = stablehlo.compare LT, %[[A]], %[[P]], FLOAT
// CHECK:         %[[R:.*]] = stablehlo.select %[[SMALL]], %[[W]], %[[A]]
// CHECK:         %[[X:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<4x8xf32>) -> tensor<4x8xi32>
// CHECK:         %[[M:.*]] = stablehlo.constant dense<-2147483648> : tensor<4x8xi32>
// CHECK:         %[[SIGN:.*]] = stablehlo.and %[[X]], %[[M]]
// CHECK:         %[[RB:.*]] = stablehlo.bitcast_convert %[[R]] : (tensor<4x8xf32>) -> tensor<4x8xi32>
// CHECK:         %[[B:.*]] = stablehlo.or %[[RB]], %[[SIGN]]
// CHECK:         %[[F:.*]] = stablehlo.bitcast_convert %[[B]] : (tensor<4x8xi32>) -> tensor<4x8xf32>
// CHECK:         return %[[F]]
func.func @f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = stablehlo.round_nearest_even %x : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @f64
// CHECK:         stablehlo.constant dense<0x4330000000000000> : tensor<16xf64>
// CHECK:         stablehlo.constant dense<-9223372036854775808> : tensor<16xi64>
// CHECK-NOT:     stablehlo.round_nearest_even
func.func @f64(%x: tensor<16xf64>) -> tensor<16xf64> {
  %r = stablehlo.round_nearest_even %x : tensor<16xf64>
  return %r : tensor<16xf64>
}

// CHECK-LABEL: func.func @half
// CHECK:         stablehlo.round_nearest_even %arg0 : tensor<16xf16>
func.func @half(%x: tensor<16xf16>) -> tensor<16xf16> {
  %r = stablehlo.round_nearest_even %x : tensor<16xf16>
  return %r : tensor<16xf16>
}
