// A value a while loop carries but never reads is computed once after the loop, from the starts of the
// last trip; where those are unknown, or the condition reads the value, the body reads it instead: it
// hands back select(the condition on the trip's inputs, what it made, the value carried in).
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-unread-carried-values)' | FileCheck %s

// A counted loop (6 trips from 0; its bound a constant from outside, as oxla-hlo-opt leaves it): the last
// trip starts at 5, so the update runs once, at 5.
// CHECK-LABEL: func.func @counted
// CHECK:         %[[L:.*]] = stablehlo.while(%[[I:.*]] = %{{.*}}) : tensor<i32>
// CHECK-NOT:     dynamic_update_slice
// CHECK:         stablehlo.return %{{.*}} : tensor<i32>
// CHECK:         %[[LAST:.*]] = stablehlo.constant dense<5> : tensor<i32>
// CHECK:         %[[V:.*]] = stablehlo.reshape %[[LAST]]
// CHECK:         %[[R:.*]] = stablehlo.dynamic_update_slice %arg0, %[[V]], %[[LAST]]
// CHECK:         return %[[R]]
func.func @counted(%x: tensor<6xi32>) -> tensor<6xi32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.constant dense<6> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i32>, tensor<6xi32>
  cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %v = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %a2 = stablehlo.dynamic_update_slice %x, %v, %i : (tensor<6xi32>, tensor<1xi32>, tensor<i32>) -> tensor<6xi32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %a2 : tensor<i32>, tensor<6xi32>
  }
  return %r#1 : tensor<6xi32>
}

// -----

// A loop of no trips hands back the start.
// CHECK-LABEL: func.func @no_trips
// CHECK-NOT:     multiply
// CHECK:         return %arg0
func.func @no_trips(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %lt = stablehlo.compare LT, %i, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %a2 = stablehlo.multiply %x, %x : tensor<4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %a2 : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// Not counted: the value is made from one the loop hands back unchanged (%y), so it is the same on every
// trip; it is the loop's result where the condition held on the loop's inputs.
// CHECK-LABEL: func.func @uncounted
// CHECK:         %[[L:.*]]:2 = stablehlo.while
// CHECK-NOT:     stablehlo.multiply
// CHECK:         %[[RAN:.*]] = stablehlo.compare LT, %arg1, %arg2
// CHECK:         %[[M:.*]] = stablehlo.multiply %arg0, %arg0
// CHECK:         %[[R:.*]] = stablehlo.select %[[RAN]], %[[M]], %arg0
// CHECK:         return %[[R]], %[[L]]#0
func.func @uncounted(%x: tensor<4xf32>, %start: tensor<i32>, %end: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %r:3 = stablehlo.while(%i = %start, %a = %x, %y = %x) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  cond {
    %lt = stablehlo.compare LT, %i, %end, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %a2 = stablehlo.multiply %y, %y : tensor<4xf32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %i2 = stablehlo.add %i, %two : tensor<i32>
    stablehlo.return %i2, %a2, %y : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#1, %r#0 : tensor<4xf32>, tensor<i32>
}

// -----

// Counting by two, the value read from the counter: its last start is unknown, so the loop keeps it and
// reads it.
// CHECK-LABEL: func.func @by_two
// CHECK:         stablehlo.while(%[[I:.*]] = %{{.*}}, %[[A:.*]] = %arg0)
// CHECK:         do {
// CHECK:         %[[U:.*]] = stablehlo.dynamic_update_slice %arg0
// CHECK:         %[[C:.*]] = stablehlo.compare LT, %[[I]], %{{.*}}, SIGNED
// CHECK:         %[[S:.*]] = stablehlo.select %[[C]], %[[U]], %[[A]]
// CHECK:         stablehlo.return %{{.*}}, %[[S]]
func.func @by_two(%x: tensor<6xi32>) -> tensor<6xi32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i32>, tensor<6xi32>
  cond {
    %n = stablehlo.constant dense<6> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %v = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %a2 = stablehlo.dynamic_update_slice %x, %v, %i : (tensor<6xi32>, tensor<1xi32>, tensor<i32>) -> tensor<6xi32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %i2 = stablehlo.add %i, %two : tensor<i32>
    stablehlo.return %i2, %a2 : tensor<i32>, tensor<6xi32>
  }
  return %r#1 : tensor<6xi32>
}

// -----

// Loops that read every value they carry stay as they are.
// CHECK-LABEL: func.func @read
// CHECK:         stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %arg0)
// CHECK-NOT:     optimization_barrier
func.func @read(%x: tensor<6xi32>) -> tensor<6xi32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i32>, tensor<6xi32>
  cond {
    %n = stablehlo.constant dense<6> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %v = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %a2 = stablehlo.dynamic_update_slice %a, %v, %i : (tensor<6xi32>, tensor<1xi32>, tensor<i32>) -> tensor<6xi32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %a2 : tensor<i32>, tensor<6xi32>
  }
  return %r#1 : tensor<6xi32>
}

// -----

// The condition reads a value the body does not: the body reads it too.
// CHECK-LABEL: func.func @tested
// CHECK:         stablehlo.while(%[[I:.*]] = %{{.*}}, %[[E:.*]] = %{{.*}})
// CHECK:         do {
// CHECK:         %[[D:.*]] = stablehlo.divide %arg0
// CHECK:         %[[GT:.*]] = stablehlo.compare GT, %[[E]]
// CHECK:         %[[LT:.*]] = stablehlo.compare LT, %[[I]], %arg1
// CHECK:         %[[GO:.*]] = stablehlo.and %[[GT]], %[[LT]]
// CHECK:         %[[S:.*]] = stablehlo.select %[[GO]], %[[D]], %[[E]]
// CHECK:         stablehlo.return %{{.*}}, %[[S]]
func.func @tested(%x: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %big = stablehlo.constant dense<100.0> : tensor<f32>
  %r:2 = stablehlo.while(%i = %zero, %e = %big) : tensor<i32>, tensor<f32>
  cond {
    %lim = stablehlo.constant dense<1.0> : tensor<f32>
    %gt = stablehlo.compare GT, %e, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %go = stablehlo.and %gt, %lt : tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %f = stablehlo.convert %i2 : (tensor<i32>) -> tensor<f32>
    %e2 = stablehlo.divide %x, %f : tensor<f32>
    stablehlo.return %i2, %e2 : tensor<i32>, tensor<f32>
  }
  return %r#1, %r#0 : tensor<f32>, tensor<i32>
}

// -----

// A condition with a side effect is not run again: the value passes through a barrier with the one
// carried in.
// CHECK-LABEL: func.func @effect_in_condition
// CHECK:         stablehlo.while(%[[I:.*]] = %{{.*}}, %[[E:.*]] = %{{.*}})
// CHECK:         do {
// CHECK:         %[[D:.*]] = stablehlo.divide %arg0
// CHECK:         %[[B:.*]]:2 = stablehlo.optimization_barrier %[[E]], %[[D]]
// CHECK:         stablehlo.return %{{.*}}, %[[B]]#1
func.func @effect_in_condition(%x: tensor<f32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %big = stablehlo.constant dense<100.0> : tensor<f32>
  %r:2 = stablehlo.while(%i = %zero, %e = %big) : tensor<i32>, tensor<f32>
  cond {
    %lim = stablehlo.custom_call @limit() {has_side_effect = true} : () -> tensor<f32>
    %gt = stablehlo.compare GT, %e, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %f = stablehlo.convert %i2 : (tensor<i32>) -> tensor<f32>
    %e2 = stablehlo.divide %x, %f : tensor<f32>
    stablehlo.return %i2, %e2 : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}

// -----

// A previous norm: each trip sets %prev to the start of %off, and only the condition reads it.
// CHECK-LABEL: func.func @previous_norm
// CHECK:         stablehlo.while(%{{.*}} = %arg0, %[[OFF:.*]] = %{{.*}}, %[[PREV:.*]] = %{{.*}})
// CHECK:         do {
// CHECK:         %[[C:.*]] = stablehlo.compare LT, %[[OFF]], %[[PREV]]
// CHECK:         %[[S:.*]] = stablehlo.select %[[C]], %[[OFF]], %[[PREV]]
// CHECK:         stablehlo.return %{{.*}}, %{{.*}}, %[[S]]
func.func @previous_norm(%x: tensor<f32>) -> tensor<f32> {
  %big = stablehlo.constant dense<100.0> : tensor<f32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %r:3 = stablehlo.while(%v = %x, %off = %big, %prev = %inf) : tensor<f32>, tensor<f32>, tensor<f32>
  cond {
    %lt = stablehlo.compare LT, %off, %prev, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %half = stablehlo.constant dense<0.5> : tensor<f32>
    %v2 = stablehlo.multiply %v, %half : tensor<f32>
    %off2 = stablehlo.abs %v2 : tensor<f32>
    stablehlo.return %v2, %off2, %off : tensor<f32>, tensor<f32>, tensor<f32>
  }
  return %r#0 : tensor<f32>
}
