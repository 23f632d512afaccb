// argmax and argmin reductions become the extremum, then the first (last) position holding it, a NaN
// where there is one; reductions whose body does more than compare and pick stay as they are.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-split-arg-reductions)' | FileCheck %s

// CHECK-LABEL: func.func @argmax
// CHECK:         %[[AT:.*]] = stablehlo.iota dim = 1 : tensor<2x5xi32>
// CHECK:         %[[MAX:.*]] = stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.maximum across dimensions = [1]
// CHECK:         %[[B:.*]] = stablehlo.broadcast_in_dim %[[MAX]], dims = [0]
// CHECK:         %[[EQ:.*]] = stablehlo.compare EQ, %arg0, %[[B]], FLOAT
// CHECK:         %[[NAN_ROW:.*]] = stablehlo.compare NE, %[[B]], %[[B]], FLOAT
// CHECK:         %[[NAN:.*]] = stablehlo.compare NE, %arg0, %arg0, FLOAT
// CHECK:         %[[NANS:.*]] = stablehlo.and %[[NAN_ROW]], %[[NAN]]
// CHECK:         %[[HIT:.*]] = stablehlo.or %[[EQ]], %[[NANS]]
// CHECK:         %[[PAST:.*]] = stablehlo.constant dense<2147483647> : tensor<2x5xi32>
// CHECK:         %[[AT_HIT:.*]] = stablehlo.select %[[HIT]], %[[AT]], %[[PAST]]
// CHECK:         %[[FIRST:.*]] = stablehlo.reduce(%[[AT_HIT]] init: %{{.*}}) applies stablehlo.minimum across dimensions = [1]
// CHECK:         return %[[FIRST]]
func.func @argmax(%x: tensor<2x5xf32>) -> (tensor<2xi32>) {
  %p = stablehlo.iota dim = 1 : tensor<2x5xi32>
  %v0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %p0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %v0), (%p init: %p0) across dimensions = [1] : (tensor<2x5xf32>, tensor<2x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>) {
      %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %1 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %2 = stablehlo.or %0, %1 : tensor<i1>
      %3 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.compare LT, %i, %j, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %5 = stablehlo.and %3, %4 : tensor<i1>
      %6 = stablehlo.or %2, %5 : tensor<i1>
      %7 = stablehlo.select %2, %a, %b : tensor<i1>, tensor<f32>
      %8 = stablehlo.select %6, %i, %j : tensor<i1>, tensor<i32>
      stablehlo.return %7, %8 : tensor<f32>, tensor<i32>
    }
  return %r#1 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @argmin_last_with_values
// CHECK:         %[[AT:.*]] = stablehlo.iota dim = 0 : tensor<4x3xi32>
// CHECK:         %[[MIN:.*]] = stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.minimum across dimensions = [0]
// CHECK:         %[[PAST:.*]] = stablehlo.constant dense<-2147483648> : tensor<4x3xi32>
// CHECK:         %[[LAST:.*]] = stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.maximum across dimensions = [0]
// CHECK:         %[[AT_LAST:.*]] = stablehlo.reshape %[[LAST]] : (tensor<3xi32>) -> tensor<1x3xi32>
// CHECK:         %[[V:.*]] = "stablehlo.gather"(%arg0, %{{.*}})
// CHECK:         %[[VALUES:.*]] = stablehlo.reshape %[[V]] : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK:         return %[[VALUES]], %[[LAST]]
func.func @argmin_last_with_values(%x: tensor<4x3xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %p = stablehlo.iota dim = 0 : tensor<4x3xi32>
  %v0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %p0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %v0), (%p init: %p0) across dimensions = [0] : (tensor<4x3xf32>, tensor<4x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>) {
      %0 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %1 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %2 = stablehlo.or %0, %1 : tensor<i1>
      %3 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.compare GT, %i, %j, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %5 = stablehlo.and %3, %4 : tensor<i1>
      %6 = stablehlo.or %2, %5 : tensor<i1>
      %7 = stablehlo.select %6, %a, %b : tensor<i1>, tensor<f32>
      %8 = stablehlo.select %6, %i, %j : tensor<i1>, tensor<i32>
      stablehlo.return %7, %8 : tensor<f32>, tensor<i32>
    }
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xi32>
}

// -----

// A body that compares with a constant may do anything.
// CHECK-LABEL: func.func @other
// CHECK:         stablehlo.reduce(%arg0 init: %{{.*}}), (%{{.*}} init: %{{.*}})
func.func @other(%x: tensor<2x5xf32>) -> (tensor<2xi32>) {
  %p = stablehlo.iota dim = 1 : tensor<2x5xi32>
  %v0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %p0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %v0), (%p init: %p0) across dimensions = [1] : (tensor<2x5xf32>, tensor<2x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>) {
      %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %1 = stablehlo.compare NE, %a, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %2 = stablehlo.or %0, %1 : tensor<i1>
      %3 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.compare LT, %i, %j, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %5 = stablehlo.and %3, %4 : tensor<i1>
      %6 = stablehlo.or %2, %5 : tensor<i1>
      %7 = stablehlo.select %2, %a, %b : tensor<i1>, tensor<f32>
      %8 = stablehlo.select %6, %i, %j : tensor<i1>, tensor<i32>
      stablehlo.return %7, %8 : tensor<f32>, tensor<i32>
    }
  return %r#1 : tensor<2xi32>
}

