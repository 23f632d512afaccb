// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-pad-complex-windows)' | FileCheck %s

// A complex sum pool with 'SAME' padding: the input padded with the initial value first, the window
// without padding.
// CHECK-LABEL: func.func @complex_sum_pool
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %[[Z:.*]], low = [0, 1], high = [1, 1], interior = [0, 0] : (tensor<7x13xcomplex<f32>>, tensor<complex<f32>>) -> tensor<8x15xcomplex<f32>>
// CHECK:         "stablehlo.reduce_window"(%[[P]], %[[Z]])
// CHECK-NOT:     padding
// CHECK-SAME:    window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>
func.func @complex_sum_pool(%x: tensor<7x13xcomplex<f32>>) -> tensor<7x7xcomplex<f32>> {
  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %0 = "stablehlo.reduce_window"(%x, %z) <{padding = dense<[[0, 1], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
    %s = stablehlo.add %a, %b : tensor<complex<f32>>
    stablehlo.return %s : tensor<complex<f32>>
  }) : (tensor<7x13xcomplex<f32>>, tensor<complex<f32>>) -> tensor<7x7xcomplex<f32>>
  return %0 : tensor<7x7xcomplex<f32>>
}

// -----

// Base dilation pads between elements too.
// CHECK-LABEL: func.func @dilated
// CHECK:         stablehlo.pad %arg0, %{{.*}}, low = [0], high = [0], interior = [1] : (tensor<5xcomplex<f64>>, tensor<complex<f64>>) -> tensor<9xcomplex<f64>>
func.func @dilated(%x: tensor<5xcomplex<f64>>) -> tensor<8xcomplex<f64>> {
  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f64>>
  %0 = "stablehlo.reduce_window"(%x, %z) <{base_dilations = array<i64: 2>, window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<complex<f64>>, %b: tensor<complex<f64>>):
    %s = stablehlo.add %a, %b : tensor<complex<f64>>
    stablehlo.return %s : tensor<complex<f64>>
  }) : (tensor<5xcomplex<f64>>, tensor<complex<f64>>) -> tensor<8xcomplex<f64>>
  return %0 : tensor<8xcomplex<f64>>
}

// -----

// Real windows, and complex ones without padding, are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     stablehlo.pad
func.func @left_alone(%x: tensor<7x13xf32>, %c: tensor<7x13xcomplex<f32>>) -> (tensor<7x7xf32>, tensor<6x6xcomplex<f32>>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zc = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %0 = "stablehlo.reduce_window"(%x, %z) <{padding = dense<[[0, 1], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<7x13xf32>, tensor<f32>) -> tensor<7x7xf32>
  %1 = "stablehlo.reduce_window"(%c, %zc) <{window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
    %s = stablehlo.add %a, %b : tensor<complex<f32>>
    stablehlo.return %s : tensor<complex<f32>>
  }) : (tensor<7x13xcomplex<f32>>, tensor<complex<f32>>) -> tensor<6x6xcomplex<f32>>
  return %0, %1 : tensor<7x7xf32>, tensor<6x6xcomplex<f32>>
}

// -----

// Cumulative windows (jnp.cumsum, cumprod, forward or reverse) stay: IREE runs them as a scan, which
// neither fills nor crashes, in O(n). A window one short of its dimension, or strided, is no scan.
// CHECK-LABEL: func.func @cumulative
// CHECK:         %[[F:.*]] = "stablehlo.reduce_window"(%arg0, %{{.*}}) <{padding = dense<{{\[\[}}7, 0], [0, 0]]>
// CHECK:         %[[R:.*]] = "stablehlo.reduce_window"(%arg0, %{{.*}}) <{padding = dense<{{\[\[}}0, 0], [0, 8]]>
// CHECK:         stablehlo.pad %arg0
// CHECK:         stablehlo.pad %arg0
// CHECK:         return %[[F]], %[[R]]
func.func @cumulative(%x: tensor<8x9xcomplex<f32>>) -> (tensor<8x9xcomplex<f32>>, tensor<8x9xcomplex<f32>>, tensor<8x9xcomplex<f32>>, tensor<4x9xcomplex<f32>>) {
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  %0 = "stablehlo.reduce_window"(%x, %one) <{padding = dense<[[7, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 8, 1>}> ({
  ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
    %s = stablehlo.multiply %a, %b : tensor<complex<f32>>
    stablehlo.return %s : tensor<complex<f32>>
  }) : (tensor<8x9xcomplex<f32>>, tensor<complex<f32>>) -> tensor<8x9xcomplex<f32>>
  %1 = "stablehlo.reduce_window"(%x, %one) <{padding = dense<[[0, 0], [0, 8]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 9>, window_strides = array<i64: 1, 1>}> ({
  ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
    %s = stablehlo.add %a, %b : tensor<complex<f32>>
    stablehlo.return %s : tensor<complex<f32>>
  }) : (tensor<8x9xcomplex<f32>>, tensor<complex<f32>>) -> tensor<8x9xcomplex<f32>>
  %2 = "stablehlo.reduce_window"(%x, %one) <{padding = dense<[[6, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 7, 1>}> ({
  ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
    %s = stablehlo.add %a, %b : tensor<complex<f32>>
    stablehlo.return %s : tensor<complex<f32>>
  }) : (tensor<8x9xcomplex<f32>>, tensor<complex<f32>>) -> tensor<8x9xcomplex<f32>>
  %3 = "stablehlo.reduce_window"(%x, %one) <{padding = dense<[[7, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 8, 1>, window_strides = array<i64: 2, 1>}> ({
  ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
    %s = stablehlo.add %a, %b : tensor<complex<f32>>
    stablehlo.return %s : tensor<complex<f32>>
  }) : (tensor<8x9xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4x9xcomplex<f32>>
  return %0, %1, %2, %3 : tensor<8x9xcomplex<f32>>, tensor<8x9xcomplex<f32>>, tensor<8x9xcomplex<f32>>, tensor<4x9xcomplex<f32>>
}
