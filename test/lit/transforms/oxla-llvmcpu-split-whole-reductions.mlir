// RUN: oxla-opt %s --split-input-file --pass-pipeline='builtin.module(oxla-llvmcpu-split-whole-reductions)' | FileCheck %s

// x.sum(): the first dimension split into 64 rows, each reduced over the rest, then the 64 sums.
// CHECK-LABEL: func.func @total_sum
// CHECK:         %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<4096x1024xf32>) -> tensor<64x64x1024xf32>
// CHECK:         %[[P:.*]] = stablehlo.reduce(%[[R]] init: %[[Z:.*]]) applies stablehlo.add across dimensions = [1, 2] : (tensor<64x64x1024xf32>, tensor<f32>) -> tensor<64xf32>
// CHECK:         %[[S:.*]] = stablehlo.reduce(%[[P]] init: %[[Z]]) applies stablehlo.add across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
// CHECK:         return %[[S]]
func.func @total_sum(%x: tensor<4096x1024xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<4096x1024xf32>, tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The maximum of a product: the first dimension, 520, splits into 8 rows; the multiply is left before the reshape.
// CHECK-LABEL: func.func @max_of_products
// CHECK:         %[[M:.*]] = stablehlo.multiply
// CHECK:         stablehlo.reshape %[[M]] : (tensor<520x1024xf32>) -> tensor<8x65x1024xf32>
// CHECK:         applies stablehlo.maximum across dimensions = [1, 2]
// CHECK:         applies stablehlo.maximum across dimensions = [0]
func.func @max_of_products(%x: tensor<520x1024xf32>, %y: tensor<520x1024xf32>) -> tensor<f32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %p = stablehlo.multiply %x, %y : tensor<520x1024xf32>
  %m = stablehlo.reduce(%p init: %ninf) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<520x1024xf32>, tensor<f32>) -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// Left alone: too few elements, a reduction that keeps a dimension, a first dimension no row count
// divides, a body that is more than one combiner, and a reduction of two operands.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     stablehlo.reshape
func.func @left_alone(%small: tensor<64x1024xf32>, %x: tensor<4096x1024xf32>, %odd: tensor<1023x1024xf32>,
                      %i: tensor<4096x1024xi32>) -> (tensor<f32>, tensor<1024xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %izero = stablehlo.constant dense<0> : tensor<i32>
  %a = stablehlo.reduce(%small init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<f32>
  %b = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4096x1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %c = stablehlo.reduce(%odd init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<1023x1024xf32>, tensor<f32>) -> tensor<f32>
  %d = stablehlo.reduce(%x init: %zero) across dimensions = [0, 1] : (tensor<4096x1024xf32>, tensor<f32>) -> tensor<f32>
    reducer(%p: tensor<f32>, %q: tensor<f32>) {
      %t = stablehlo.add %p, %q : tensor<f32>
      %u = stablehlo.multiply %t, %t : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }
  %e:2 = stablehlo.reduce(%x init: %zero), (%i init: %izero) across dimensions = [0, 1] : (tensor<4096x1024xf32>, tensor<4096x1024xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%p: tensor<f32>, %r: tensor<f32>) (%q: tensor<i32>, %s: tensor<i32>) {
      %t = stablehlo.add %p, %r : tensor<f32>
      %v = stablehlo.add %q, %s : tensor<i32>
      stablehlo.return %t, %v : tensor<f32>, tensor<i32>
    }
  return %a, %b, %c, %d, %e#0, %e#1 : tensor<f32>, tensor<1024xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>
}
