// Every run allows unregistered ops: the last case shows they are never erased.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-dce | FileCheck %s
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect \
// RUN:   -p 'builtin.module(oxla-dce{functions=false})' | FileCheck %s --check-prefix=NOFUNC
// The flag spelling of the option means the same.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-dce='functions=false' \
// RUN:   | FileCheck %s --check-prefix=NOFUNC
// functions=true is the default.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-dce='functions=true' | FileCheck %s

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
