// RUN: oxla-opt %s --split-input-file --pass-pipeline='builtin.module(oxla-hoist-step-contractions)' | FileCheck %s

// h = tanh(x[t] W + h U) over the 16 rows of x: x W is computed before the loop, and each trip reads
// its row t; h U (h changes) stays in the loop.
// CHECK-LABEL: func.func @rnn
// CHECK:         %[[XW:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, HIGHEST] : (tensor<16x8x64xf32>, tensor<64x64xf32>) -> tensor<16x8x64xf32>
// CHECK:         stablehlo.while(%[[I:[^ ]*]] =
// CHECK:         do {
// CHECK:           %[[ROW:.*]] = stablehlo.dynamic_slice %[[XW]], %[[I]], %[[Z:.*]], %[[Z]], sizes = [1, 8, 64]
// CHECK:           %[[A:.*]] = stablehlo.reshape %[[ROW]] : (tensor<1x8x64xf32>) -> tensor<8x64xf32>
// CHECK:           %[[B:.*]] = stablehlo.dot_general %{{.*}}, %arg2, contracting_dims = [1] x [0]
// CHECK:           stablehlo.add %[[A]], %[[B]]
func.func @rnn(%x: tensor<16x8x64xf32>, %w: tensor<64x64xf32>, %u: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<16> : tensor<i32>
  %h0 = stablehlo.constant dense<0.0> : tensor<8x64xf32>
  %r:4 = stablehlo.while(%i = %zero, %h = %h0, %xs = %x, %wc = %w) : tensor<i32>, tensor<8x64xf32>, tensor<16x8x64xf32>, tensor<64x64xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %row = stablehlo.dynamic_slice %xs, %i, %zero, %zero, sizes = [1, 8, 64] : (tensor<16x8x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x64xf32>
      %xt = stablehlo.reshape %row : (tensor<1x8x64xf32>) -> tensor<8x64xf32>
      %a = stablehlo.dot_general %xt, %wc, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
      %b = stablehlo.dot_general %h, %u, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
      %s = stablehlo.add %a, %b : tensor<8x64xf32>
      %h2 = stablehlo.tanh %s : tensor<8x64xf32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %xs, %wc : tensor<i32>, tensor<8x64xf32>, tensor<16x8x64xf32>, tensor<64x64xf32>
    }
  return %r#1 : tensor<8x64xf32>
}

// -----

// The row kept as [1, 8, 64] and the step in a function the loop calls (as JAX exports a scan): the
// call is inlined, and the row of the product is read with the row's dimension.
// CHECK-LABEL: func.func @called_step
// CHECK:         %[[XW:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0] : (tensor<16x8x64xf32>, tensor<64x32xf32>) -> tensor<16x8x32xf32>
// CHECK:         stablehlo.while
// CHECK-NOT:     func.call
// CHECK:           stablehlo.dynamic_slice %[[XW]], %{{.*}}, sizes = [1, 8, 32]
// CHECK-NOT:       stablehlo.dot_general
// CHECK:           stablehlo.return
// CHECK-NOT:     func.func private @step
func.func @called_step(%x: tensor<16x8x64xf32>, %w: tensor<64x32xf32>) -> tensor<1x8x32xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<16> : tensor<i32>
  %s0 = stablehlo.constant dense<0.0> : tensor<1x8x32xf32>
  %r:4 = stablehlo.while(%i = %zero, %s = %s0, %xs = %x, %wc = %w) : tensor<i32>, tensor<1x8x32xf32>, tensor<16x8x64xf32>, tensor<64x32xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %s2 = func.call @step(%xs, %wc, %i, %s) : (tensor<16x8x64xf32>, tensor<64x32xf32>, tensor<i32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %s2, %xs, %wc : tensor<i32>, tensor<1x8x32xf32>, tensor<16x8x64xf32>, tensor<64x32xf32>
    }
  return %r#1 : tensor<1x8x32xf32>
}
func.func private @step(%xs: tensor<16x8x64xf32>, %w: tensor<64x32xf32>, %i: tensor<i32>, %s: tensor<1x8x32xf32>) -> tensor<1x8x32xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %row = stablehlo.dynamic_slice %xs, %i, %zero, %zero, sizes = [1, 8, 64] : (tensor<16x8x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x64xf32>
  %p = stablehlo.dot_general %row, %w, contracting_dims = [2] x [0] : (tensor<1x8x64xf32>, tensor<64x32xf32>) -> tensor<1x8x32xf32>
  %s2 = stablehlo.add %s, %p : tensor<1x8x32xf32>
  return %s2 : tensor<1x8x32xf32>
}

// -----

// Left alone: a row that is the same every trip, a matrix that changes from trip to trip, and a
// batched product.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     stablehlo.dynamic_slice %{{[0-9]+}},
// CHECK:         stablehlo.while
// CHECK-COUNT-4: stablehlo.dot_general %{{[0-9]+}}
func.func @left_alone(%x: tensor<16x8x64xf32>, %w: tensor<64x64xf32>, %b: tensor<8x64x64xf32>) -> tensor<8x64xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %n = stablehlo.constant dense<16> : tensor<i32>
  %h0 = stablehlo.constant dense<0.0> : tensor<8x64xf32>
  %r:4 = stablehlo.while(%i = %zero, %h = %h0, %xs = %x, %wc = %w) : tensor<i32>, tensor<8x64xf32>, tensor<16x8x64xf32>, tensor<64x64xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %row = stablehlo.dynamic_slice %xs, %i, %zero, %zero, sizes = [1, 8, 64] : (tensor<16x8x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x64xf32>
      %xt = stablehlo.reshape %row : (tensor<1x8x64xf32>) -> tensor<8x64xf32>
      %fixed = stablehlo.dynamic_slice %xs, %three, %zero, %zero, sizes = [1, 8, 64] : (tensor<16x8x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x64xf32>
      %ft = stablehlo.reshape %fixed : (tensor<1x8x64xf32>) -> tensor<8x64xf32>
      %c = stablehlo.dot_general %ft, %wc, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
      %d = stablehlo.dot_general %xt, %h, contracting_dims = [1] x [1] : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x8xf32>
      %e = stablehlo.dot_general %xt, %b, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<8x64xf32>, tensor<8x64x64xf32>) -> tensor<8x64xf32>
      %s = stablehlo.add %c, %e : tensor<8x64xf32>
      %dd = stablehlo.dot_general %d, %s, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
      %h2 = stablehlo.tanh %dd : tensor<8x64xf32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %xs, %wc : tensor<i32>, tensor<8x64xf32>, tensor<16x8x64xf32>, tensor<64x64xf32>
    }
  return %r#1 : tensor<8x64xf32>
}

// -----

// Left alone: a loop of fewer trips than x has rows (the product would compute rows no trip reads).
// CHECK-LABEL: func.func @few_trips
// CHECK-NOT:     stablehlo.dynamic_slice %{{[0-9]+}},
// CHECK:         stablehlo.while
// CHECK:         stablehlo.dot_general %{{[0-9]+}}, %iterArg
func.func @few_trips(%x: tensor<16x8x64xf32>, %w: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<8> : tensor<i32>
  %h0 = stablehlo.constant dense<0.0> : tensor<8x64xf32>
  %r:4 = stablehlo.while(%i = %zero, %h = %h0, %xs = %x, %wc = %w) : tensor<i32>, tensor<8x64xf32>, tensor<16x8x64xf32>, tensor<64x64xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %row = stablehlo.dynamic_slice %xs, %i, %zero, %zero, sizes = [1, 8, 64] : (tensor<16x8x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x64xf32>
      %xt = stablehlo.reshape %row : (tensor<1x8x64xf32>) -> tensor<8x64xf32>
      %a = stablehlo.dot_general %xt, %wc, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
      %h2 = stablehlo.add %h, %a : tensor<8x64xf32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %xs, %wc : tensor<i32>, tensor<8x64xf32>, tensor<16x8x64xf32>, tensor<64x64xf32>
    }
  return %r#1 : tensor<8x64xf32>
}

// -----

// Left alone: inputs of a size known only at run time (the loop may run fewer trips than they have rows).
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-NOT:     stablehlo.dynamic_slice %{{[0-9]+}},
// CHECK:         stablehlo.while
// CHECK:         stablehlo.dot_general %{{[0-9]+}}, %iterArg
func.func @dynamic_rows(%x: tensor<?x8x64xf32>, %w: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<16> : tensor<i32>
  %h0 = stablehlo.constant dense<0.0> : tensor<8x64xf32>
  %r:4 = stablehlo.while(%i = %zero, %h = %h0, %xs = %x, %wc = %w) : tensor<i32>, tensor<8x64xf32>, tensor<?x8x64xf32>, tensor<64x64xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %row = stablehlo.dynamic_slice %xs, %i, %zero, %zero, sizes = [1, 8, 64] : (tensor<?x8x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x64xf32>
      %xt = stablehlo.reshape %row : (tensor<1x8x64xf32>) -> tensor<8x64xf32>
      %a = stablehlo.dot_general %xt, %wc, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
      %h2 = stablehlo.add %h, %a : tensor<8x64xf32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %xs, %wc : tensor<i32>, tensor<8x64xf32>, tensor<?x8x64xf32>, tensor<64x64xf32>
    }
  return %r#1 : tensor<8x64xf32>
}
