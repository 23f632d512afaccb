// Every run allows unregistered ops: the last case shows they are never erased.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-dce | FileCheck %s
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect \
// RUN:   -p 'builtin.module(oxla-dce{functions=false})' | FileCheck %s --check-prefix=NOFUNC
// The flag spelling of the option means the same.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-dce='functions=false' \
// RUN:   | FileCheck %s --check-prefix=NOFUNC
// functions=true is the default.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-dce='functions=true' | FileCheck %s
// results=false keeps multi-result ops whole.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-dce='results=false' \
// RUN:   | FileCheck %s --check-prefix=RESULTS

// Unused pure ops go; used ones, and side-effecting custom_calls, stay.
// CHECK-LABEL: func.func @pure_ops
// CHECK-NEXT:    %[[ADD:.*]] = stablehlo.add %arg0, %arg0
// CHECK-NEXT:    stablehlo.custom_call @side_effect(%arg0)
// CHECK-NEXT:    return %[[ADD]]
// CHECK-NEXT:  }
// functions=false only spares functions: dead ops still go.
// NOFUNC-LABEL: func.func @pure_ops
// NOFUNC-NEXT:    stablehlo.add
// NOFUNC-NEXT:    stablehlo.custom_call @side_effect
// NOFUNC-NEXT:    return
func.func @pure_ops(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  %1 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
  %2 = stablehlo.custom_call @side_effect(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A chain of dead ops goes entirely, in each of the pure dialects.
// CHECK-LABEL: func.func @dead_chain
// CHECK-NEXT:    return %arg0
// CHECK-NEXT:  }
func.func @dead_chain(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %arg0 : tensor<4xf32>
  %1 = stablehlo.negate %0 : tensor<4xf32>
  %2 = chlo.tan %1 : tensor<4xf32> -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c = arith.constant 1.0 : f32
  %3 = arith.addf %c, %c : f32
  %4 = math.sqrt %3 : f32
  %5 = tensor.empty() : tensor<8xf32>
  %6 = tensor.insert %4 into %5[%c0] : tensor<8xf32>
  return %arg0 : tensor<4xf32>
}

// -----

// Ops with side effects, or that reach other functions, stay even when
// their results are unused; their pure operands stay with them.
// CHECK-LABEL: func.func @effects
// CHECK-NEXT:    stablehlo.constant
// CHECK-NEXT:    stablehlo.rng
// CHECK-NEXT:    stablehlo.optimization_barrier
// CHECK-NEXT:    call @callee
// CHECK-NEXT:    stablehlo.composite "my.op"
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @callee
// CHECK-LABEL: func.func private @decomposition
func.func @effects(%arg0: tensor<f32>) -> tensor<f32> {
  %shape = stablehlo.constant dense<4> : tensor<1xi64>
  %0 = stablehlo.rng %arg0, %arg0, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  %1 = stablehlo.optimization_barrier %arg0 : tensor<f32>
  %2 = call @callee(%arg0) : (tensor<f32>) -> tensor<f32>
  %3 = stablehlo.composite "my.op" %arg0 {decomposition = @decomposition} : (tensor<f32>) -> tensor<f32>
  return %arg0 : tensor<f32>
}
func.func private @callee(%arg0: tensor<f32>) -> tensor<f32> {
  return %arg0 : tensor<f32>
}
func.func private @decomposition(%arg0: tensor<f32>) -> tensor<f32> {
  return %arg0 : tensor<f32>
}

// -----

// Region ops: a pure while with unused results goes; one whose body has a
// side effect stays. Dead ops inside kept regions go.
// CHECK-LABEL: func.func @regions
// CHECK-NEXT:    %[[W:.*]]:2 = stablehlo.while(%[[I:.*]] = %arg0, %[[X:.*]] = %arg1)
// CHECK-NEXT:      cond {
// CHECK-NEXT:        %[[C:.*]] = stablehlo.compare
// CHECK-NEXT:        stablehlo.return %[[C]]
// CHECK-NEXT:      } do {
// CHECK-NEXT:        stablehlo.custom_call @print(%[[X]])
// CHECK-NEXT:        stablehlo.return %[[I]], %[[X]]
// CHECK-NEXT:      }
// CHECK-NEXT:    return %arg1
// CHECK-NEXT:  }
func.func @regions(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = stablehlo.while(%i = %arg0, %x = %arg1) : tensor<i32>, tensor<4xf32>
    cond {
      %c = stablehlo.compare LT, %i, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %dead = stablehlo.add %x, %x : tensor<4xf32>
      %p = stablehlo.custom_call @print(%x) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %i, %x : tensor<i32>, tensor<4xf32>
    }
  %1:2 = stablehlo.while(%i = %arg0, %x = %arg1) : tensor<i32>, tensor<4xf32>
    cond {
      %c = stablehlo.compare LT, %i, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %y = stablehlo.add %x, %x : tensor<4xf32>
      stablehlo.return %i, %y : tensor<i32>, tensor<4xf32>
    }
  return %arg1 : tensor<4xf32>
}

// -----

// Public functions stay; private ones stay while something refers to them
// (a call, or a symbol in an attribute); unreferenced private functions go,
// a dead private caller together with its private callees.
// CHECK-LABEL: func.func @public_unused
// CHECK-LABEL: func.func @entry
// CHECK-LABEL: func.func private @called
// CHECK-LABEL: func.func private @in_attribute
// CHECK-LABEL: func.func private @in_nested_array
// CHECK-NOT:   func.func private @dead
// NOFUNC-LABEL: func.func @public_unused
// NOFUNC-LABEL: func.func @entry
// NOFUNC-LABEL: func.func private @called
// NOFUNC-LABEL: func.func private @in_attribute
// NOFUNC-LABEL: func.func private @in_nested_array
// NOFUNC-LABEL: func.func private @dead_caller
// NOFUNC-LABEL: func.func private @dead_callee
// NOFUNC-LABEL: func.func private @dead_declaration
// NOFUNC-LABEL: func.func private @target
func.func @public_unused() {
  return
}
func.func @entry(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = call @called(%arg0) : (tensor<f32>) -> tensor<f32>
  %1 = stablehlo.custom_call @target(%0) {called_computations = [@in_attribute], test.refs = {nested = [[@in_nested_array]]}} : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @called(%arg0: tensor<f32>) -> tensor<f32> {
  return %arg0 : tensor<f32>
}
func.func private @in_attribute(%arg0: tensor<f32>) -> tensor<f32> {
  return %arg0 : tensor<f32>
}
func.func private @in_nested_array() {
  return
}
func.func private @dead_caller() {
  call @dead_callee() : () -> ()
  return
}
func.func private @dead_callee() {
  return
}
func.func private @dead_declaration()
// A custom_call target is a name, not a symbol use: @target is not kept alive.
// CHECK-NOT:   @target
func.func private @target(%arg0: tensor<f32>) -> tensor<f32> {
  return %arg0 : tensor<f32>
}

// -----

// Ops of unknown dialects may have effects: they stay, unlike the dead abs.
// CHECK-LABEL: func.func @unregistered
// CHECK-NEXT:    "test.opaque"(%arg0) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    return %arg0
func.func @unregistered(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = "test.opaque"(%arg0) : (tensor<f32>) -> tensor<f32>
  %1 = stablehlo.abs %arg0 : tensor<f32>
  return %arg0 : tensor<f32>
}

// -----

// Unused results of multi-result ops. A variadic reduce whose body computes
// each result from its own arguments loses the unused input, init and result.
// CHECK-LABEL: func.func @reduce_independent
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<0.000000e+00>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reduce(%arg0 init: %[[C]]) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    return %[[R]]
// NOFUNC-LABEL: func.func @reduce_independent
// NOFUNC:         stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
func.func @reduce_independent(%x: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<f32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %ci = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %c), (%i init: %ci) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {
      %s = stablehlo.add %a, %b : tensor<f32>
      %t = stablehlo.add %ai, %bi : tensor<i32>
      stablehlo.return %s, %t : tensor<f32>, tensor<i32>
    }
  return %r#0 : tensor<f32>
}

// -----

// An argmax: the maximum does not read the indices, so an unused index
// result goes (the selects that make it with it); the index result reads
// the values, so when only the maximum is unused nothing goes.
// CHECK-LABEL: func.func @argmax_value_only
// CHECK:         %[[R:.*]] = stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    return %[[R]]
func.func @argmax_value_only(%x: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<f32> {
  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %ci = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %c), (%i init: %ci) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {
      %m = stablehlo.maximum %a, %b : tensor<f32>
      %ge = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %idx = stablehlo.select %ge, %ai, %bi : tensor<i1>, tensor<i32>
      stablehlo.return %m, %idx : tensor<f32>, tensor<i32>
    }
  return %r#0 : tensor<f32>
}

// CHECK-LABEL: func.func @argmax_index_only
// CHECK:         %[[R:.*]]:2 = stablehlo.reduce
// CHECK:         return %[[R]]#1
func.func @argmax_index_only(%x: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<i32> {
  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %ci = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %c), (%i init: %ci) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {
      %m = stablehlo.maximum %a, %b : tensor<f32>
      %ge = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %idx = stablehlo.select %ge, %ai, %bi : tensor<i1>, tensor<i32>
      stablehlo.return %m, %idx : tensor<f32>, tensor<i32>
    }
  return %r#1 : tensor<i32>
}

// -----

// reduce_window: the same, with the window attributes kept.
// CHECK-LABEL: func.func @reduce_window_independent
// CHECK:         %[[R:.*]] = "stablehlo.reduce_window"(%arg1, %{{.*}}) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}>
// CHECK:           stablehlo.multiply
// CHECK-NOT:       stablehlo.add
// CHECK:         }) : (tensor<4xi32>, tensor<i32>) -> tensor<2xi32>
// CHECK-NEXT:    return %[[R]]
func.func @reduce_window_independent(%x: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<2xi32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %ci = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = "stablehlo.reduce_window"(%x, %i, %c, %ci) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
    ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      %t = stablehlo.multiply %ai, %bi : tensor<i32>
      stablehlo.return %s, %t : tensor<f32>, tensor<i32>
    }) : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
  return %r#1 : tensor<2xi32>
}

// -----

// sort: an unused operand that the comparator does not read goes; an unused
// key that the comparator reads stays.
// CHECK-LABEL: func.func @sort_unused_payload
// CHECK:         %[[S:.*]] = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[P:.*]] = stablehlo.compare GT, %[[A]], %[[B]]
// CHECK-NEXT:      stablehlo.return %[[P]]
// CHECK-NEXT:    }) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[S]]
func.func @sort_unused_payload(%x: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  %s:2 = "stablehlo.sort"(%x, %i) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      %p = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }) : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  return %s#0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @sort_unused_key
// CHECK:         %[[S:.*]]:2 = "stablehlo.sort"(%arg0, %arg1)
// CHECK:         return %[[S]]#1
func.func @sort_unused_key(%x: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xi32> {
  %s:2 = "stablehlo.sort"(%x, %i) <{dimension = 0 : i64}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      %p = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }) : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  return %s#1 : tensor<4xi32>
}

// -----

// while: %y is unused after the loop and feeds nothing else: it goes; %z is
// unused after the loop but feeds %x: it stays; %u and %w only feed each
// other: both go; the counter stays because the condition reads it.
// CHECK-LABEL: func.func @while_carried
// CHECK:         %[[W:.*]]:3 = stablehlo.while(%[[I:.*]] = %arg0, %[[X:.*]] = %arg1, %[[Z:.*]] = %arg1) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:      cond {
// CHECK-NEXT:        stablehlo.constant dense<10>
// CHECK-NEXT:        %[[C:.*]] = stablehlo.compare LT, %[[I]], %{{.*}}
// CHECK-NEXT:        stablehlo.return %[[C]]
// CHECK-NEXT:      } do {
// CHECK-NEXT:        %[[ONE:.*]] = stablehlo.constant dense<1>
// CHECK-NEXT:        %[[I1:.*]] = stablehlo.add %[[I]], %[[ONE]]
// CHECK-NEXT:        %[[X1:.*]] = stablehlo.add %[[X]], %[[Z]]
// CHECK-NEXT:        %[[Z1:.*]] = stablehlo.multiply %[[Z]], %[[Z]]
// CHECK-NEXT:        stablehlo.return %[[I1]], %[[X1]], %[[Z1]]
// CHECK-NEXT:      }
// CHECK-NEXT:    return %[[W]]#1
func.func @while_carried(%n: tensor<i32>, %x0: tensor<4xf32>) -> tensor<4xf32> {
  %w:6 = stablehlo.while(%i = %n, %x = %x0, %y = %x0, %z = %x0, %u = %x0, %v = %x0) : tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    cond {
      %ten = stablehlo.constant dense<10> : tensor<i32>
      %c = stablehlo.compare LT, %i, %ten : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %x1 = stablehlo.add %x, %z : tensor<4xf32>
      %y1 = stablehlo.add %y, %x : tensor<4xf32>
      %z1 = stablehlo.multiply %z, %z : tensor<4xf32>
      %u1 = stablehlo.add %v, %x : tensor<4xf32>
      %v1 = stablehlo.add %u, %u : tensor<4xf32>
      stablehlo.return %i1, %x1, %y1, %z1, %u1, %v1 : tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    }
  return %w#1 : tensor<4xf32>
}

// -----

// Kept carried values that the condition and the body return as they are.
// CHECK-LABEL: func.func @while_returns_arguments
// CHECK:         %[[W:.*]]:2 = stablehlo.while(%[[P:.*]] = %arg0, %[[X:.*]] = %arg1) : tensor<i1>, tensor<4xf32>
// CHECK-NEXT:      cond {
// CHECK-NEXT:        stablehlo.return %[[P]] : tensor<i1>
// CHECK-NEXT:      } do {
// CHECK-NEXT:        %[[N:.*]] = stablehlo.not %[[P]]
// CHECK-NEXT:        stablehlo.return %[[N]], %[[X]] : tensor<i1>, tensor<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    return %[[W]]#1
func.func @while_returns_arguments(%p0: tensor<i1>, %x0: tensor<4xf32>) -> tensor<4xf32> {
  %w:3 = stablehlo.while(%p = %p0, %x = %x0, %y = %x0) : tensor<i1>, tensor<4xf32>, tensor<4xf32>
    cond {
      stablehlo.return %p : tensor<i1>
    } do {
      %n = stablehlo.not %p : tensor<i1>
      %y1 = stablehlo.add %y, %x : tensor<4xf32>
      stablehlo.return %n, %x, %y1 : tensor<i1>, tensor<4xf32>, tensor<4xf32>
    }
  return %w#1 : tensor<4xf32>
}

// -----

// A carried value that a nested region reads from above stays with the op
// holding that region.
// CHECK-LABEL: func.func @while_nested_capture
// CHECK:         stablehlo.while(%{{.*}} = %arg0, %{{.*}} = %arg1, %{{.*}} = %arg2) : tensor<i32>, tensor<f32>, tensor<4xf32>
func.func @while_nested_capture(%n: tensor<i32>, %s0: tensor<f32>, %x0: tensor<4xf32>) -> tensor<f32> {
  %w:3 = stablehlo.while(%i = %n, %s = %s0, %x = %x0) : tensor<i32>, tensor<f32>, tensor<4xf32>
    cond {
      %c = stablehlo.compare LT, %i, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %r = stablehlo.reduce(%b init: %s) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
        reducer(%a: tensor<f32>, %bb: tensor<f32>) {
          %t = stablehlo.add %a, %bb : tensor<f32>
          %v = stablehlo.reduce(%x init: %t) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
          stablehlo.return %v : tensor<f32>
        }
      stablehlo.return %i, %r, %x : tensor<i32>, tensor<f32>, tensor<4xf32>
    }
  return %w#1 : tensor<f32>
}

// -----

// if and case lose unused results, and the branch ops that made them.
// CHECK-LABEL: func.func @if_unused
// CHECK-NEXT:    %[[R:.*]] = "stablehlo.if"(%arg0) ({
// CHECK-NEXT:      %[[A:.*]] = stablehlo.add %arg1, %arg1
// CHECK-NEXT:      stablehlo.return %[[A]] : tensor<f32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      stablehlo.return %arg1 : tensor<f32>
// CHECK-NEXT:    }) : (tensor<i1>) -> tensor<f32>
// CHECK-NEXT:    return %[[R]]
func.func @if_unused(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r:2 = "stablehlo.if"(%p) ({
    %a = stablehlo.add %x, %x : tensor<f32>
    %m = stablehlo.multiply %x, %x : tensor<f32>
    stablehlo.return %a, %m : tensor<f32>, tensor<f32>
  }, {
    %n = stablehlo.negate %x : tensor<f32>
    stablehlo.return %x, %n : tensor<f32>, tensor<f32>
  }) : (tensor<i1>) -> (tensor<f32>, tensor<f32>)
  return %r#0 : tensor<f32>
}

// CHECK-LABEL: func.func @case_unused
// CHECK-NEXT:    %[[R:.*]] = "stablehlo.case"(%arg0) ({
// CHECK-NEXT:      %[[N:.*]] = stablehlo.negate %arg1
// CHECK-NEXT:      stablehlo.return %[[N]] : tensor<f32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      stablehlo.return %arg1 : tensor<f32>
// CHECK-NEXT:    }) : (tensor<i32>) -> tensor<f32>
// CHECK-NEXT:    return %[[R]]
func.func @case_unused(%k: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %r:2 = "stablehlo.case"(%k) ({
    %n = stablehlo.negate %x : tensor<f32>
    stablehlo.return %x, %n : tensor<f32>, tensor<f32>
  }, {
    %a = stablehlo.add %x, %x : tensor<f32>
    stablehlo.return %a, %x : tensor<f32>, tensor<f32>
  }) : (tensor<i32>) -> (tensor<f32>, tensor<f32>)
  return %r#1 : tensor<f32>
}

// -----

// Kept whole: an optimization_barrier (a barrier, whatever is used), a
// reduce whose body has a side effect, and every op under results=false.
// CHECK-LABEL: func.func @kept_whole
// CHECK:         %[[B:.*]]:2 = stablehlo.optimization_barrier %arg0, %arg1
// CHECK:         stablehlo.reduce(%arg0 init: %{{.*}}), (%arg1 init: %{{.*}})
// CHECK:         stablehlo.custom_call @log
// RESULTS-LABEL: func.func @kept_whole
// RESULTS:         stablehlo.optimization_barrier %arg0, %arg1
// RESULTS:         stablehlo.reduce(%arg0 init: %{{.*}}), (%arg1 init: %{{.*}})
// RESULTS:         stablehlo.reduce(%arg0 init: %{{.*}}), (%arg1 init: %{{.*}})
func.func @kept_whole(%x: tensor<4xf32>, %i: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>, tensor<f32>) {
  %b:2 = stablehlo.optimization_barrier %x, %i : tensor<4xf32>, tensor<4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %r:2 = stablehlo.reduce(%x init: %c), (%i init: %c) across dimensions = [0] : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
    reducer(%a: tensor<f32>, %bb: tensor<f32>) (%ai: tensor<f32>, %bi: tensor<f32>) {
      %s = stablehlo.add %a, %bb : tensor<f32>
      %log = stablehlo.custom_call @log(%ai) {has_side_effect = true} : (tensor<f32>) -> tensor<f32>
      stablehlo.return %s, %log : tensor<f32>, tensor<f32>
    }
  %q:2 = stablehlo.reduce(%x init: %c), (%i init: %c) across dimensions = [0] : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
    reducer(%a: tensor<f32>, %bb: tensor<f32>) (%ai: tensor<f32>, %bi: tensor<f32>) {
      %s = stablehlo.add %a, %bb : tensor<f32>
      %t = stablehlo.add %ai, %bi : tensor<f32>
      stablehlo.return %s, %t : tensor<f32>, tensor<f32>
    }
  return %b#0, %r#0, %q#0 : tensor<4xf32>, tensor<f32>, tensor<f32>
}

// -----

// Attributes the bindings cannot read (complex dense elements) are no
// symbol references: they neither stop the pass nor keep anything alive.
// CHECK-LABEL: func.func @complex_constant
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<[(1.500000e+00,-1.000000e+00), (2.500000e+00,0.000000e+00)]> : tensor<2xcomplex<f64>>
// CHECK-NEXT:    return %[[C]]
func.func @complex_constant() -> tensor<2xcomplex<f64>> {
  %0 = stablehlo.constant dense<[(1.5, -1.0), (2.5, 0.0)]> : tensor<2xcomplex<f64>>
  %1 = stablehlo.constant dense<(1.0, 1.0)> : tensor<2xcomplex<f64>>
  return %0 : tensor<2xcomplex<f64>>
}
