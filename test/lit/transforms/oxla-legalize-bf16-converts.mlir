// RUN: oxla-opt %s -p 'builtin.module(oxla-legalize-bf16-converts)' | FileCheck %s

// An i32 to bf16: to f32, then the f32's bits rounded to their upper half (plus 0x7FFF and the kept
// part's lowest bit), kept as i16 and read as bf16.
// CHECK-LABEL: func.func @ints
// CHECK:         %[[F:.*]] = stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xf32>
// CHECK:         %[[B:.*]] = stablehlo.bitcast_convert %[[F]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK:         stablehlo.shift_right_logical %[[B]]
// CHECK:         %[[H:.*]] = stablehlo.convert %{{.*}} : (tensor<4xi32>) -> tensor<4xi16>
// CHECK:         %[[R:.*]] = stablehlo.bitcast_convert %[[H]] : (tensor<4xi16>) -> tensor<4xbf16>
// Booleans too; floats are left to IREE.
// CHECK:         stablehlo.convert %arg1 : (tensor<4xi1>) -> tensor<4xf32>
// CHECK:         %[[D:.*]] = stablehlo.convert %arg2 : (tensor<4xf64>) -> tensor<4xbf16>
// CHECK:         return %[[R]], %{{.*}}, %[[D]]
func.func @ints(%x: tensor<4xi32>, %b: tensor<4xi1>, %d: tensor<4xf64>) -> (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) {
  %0 = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xbf16>
  %1 = stablehlo.convert %b : (tensor<4xi1>) -> tensor<4xbf16>
  %2 = stablehlo.convert %d : (tensor<4xf64>) -> tensor<4xbf16>
  return %0, %1, %2 : tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>
}
