// Host loops of a one-device module: a carried tensor that starts as a constant is moved to the module's
// device first, and one that starts as an argument has its import consumed (and moved), so that IREE's
// stream phase updates them in place instead of copying them every trip. Starts already moved to the
// device, and modules without a default device, are left alone.
// RUN: oxla-opt %s -p 'builtin.module(oxla-host-loop-inits)' --split-input-file | FileCheck %s

// CHECK-LABEL: util.func public @scan
// CHECK:         %[[CST:.*]] = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK:         %[[IN:.*]] = hal.tensor.import consume %arg0 "input0"
// CHECK:         %[[D:.*]] = flow.tensor.transfer %[[CST]] : tensor<4x8xf32> to #hal.device.affinity<@__device_0>
// CHECK:         %[[ZEROS:.*]] = flow.tensor.transfer %[[CST]] : tensor<4x8xf32> to #hal.device.affinity<@__device_0>
// CHECK:         %[[X:.*]] = flow.tensor.transfer %[[IN]] : tensor<4x8xf32> to #hal.device.affinity<@__device_0>
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}} = %[[ZEROS]], %{{.*}} = %[[X]], %{{.*}} = %[[D]])
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.func public @scan(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %c1 = arith.constant 1 : i32
    %zeros = arith.constant dense<0.0> : tensor<4x8xf32>
    %in = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4x8xf32>
    %d = flow.tensor.transfer %zeros : tensor<4x8xf32> to #hal.device.affinity<@__device_0>
    %r:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zeros, %b = %in, %e = %d) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) : i32 {
      scf.yield %b, %a, %e : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    }
    %out = hal.tensor.export %r#0 "output0" : tensor<4x8xf32> -> !hal.buffer_view
    util.return %out : !hal.buffer_view
  }
}

// -----

// CHECK-LABEL: util.func public @no_default_device
// CHECK-NOT:     flow.tensor.transfer
// CHECK-NOT:     consume
module {
  util.func public @no_default_device(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %c1 = arith.constant 1 : i32
    %zeros = arith.constant dense<0.0> : tensor<4x8xf32>
    %in = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4x8xf32>
    %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zeros, %b = %in) -> (tensor<4x8xf32>, tensor<4x8xf32>) : i32 {
      scf.yield %b, %a : tensor<4x8xf32>, tensor<4x8xf32>
    }
    %out = hal.tensor.export %r#0 "output0" : tensor<4x8xf32> -> !hal.buffer_view
    util.return %out : !hal.buffer_view
  }
}

// -----

// An argument something else reads too is not consumed (IREE would update it under that reader).
// CHECK-LABEL: util.func public @read_twice
// CHECK:         hal.tensor.import %arg0 "input0"
// CHECK-NOT:     consume
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.func public @read_twice(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %c1 = arith.constant 1 : i32
    %in = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4x8xf32>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %in) -> (tensor<4x8xf32>) : i32 {
      scf.yield %a : tensor<4x8xf32>
    }
    %out = hal.tensor.export %r "output0" : tensor<4x8xf32> -> !hal.buffer_view
    %again = hal.tensor.export %in "output1" : tensor<4x8xf32> -> !hal.buffer_view
    util.return %out, %again : !hal.buffer_view, !hal.buffer_view
  }
}

// -----

// Two carried values that start from one splat constant: the second starts from a splat of the element
// behind an optimization barrier (a value IREE cannot fold into the first), and both are moved.
// CHECK-LABEL: util.func public @shared_start
// CHECK:         %[[CST:.*]] = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[KEPT:.*]] = util.optimization_barrier %[[ZERO]] : f32
// CHECK:         %[[FRESH:.*]] = flow.tensor.splat %[[KEPT]] : tensor<4x8xf32>
// CHECK:         %[[A:.*]] = flow.tensor.transfer %[[CST]]
// CHECK:         %[[B:.*]] = flow.tensor.transfer %[[FRESH]]
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}} = %[[A]], %{{.*}} = %[[B]])
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.func public @shared_start() -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %c1 = arith.constant 1 : i32
    %zeros = arith.constant dense<0.0> : tensor<4x8xf32>
    %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zeros, %b = %zeros) -> (tensor<4x8xf32>, tensor<4x8xf32>) : i32 {
      scf.yield %b, %a : tensor<4x8xf32>, tensor<4x8xf32>
    }
    util.return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
  }
}

// -----

// Two carried values that start from one constant that is no splat: the loop is left as it is.
// CHECK-LABEL: util.func public @shared_table
// CHECK-NOT:     flow.tensor.transfer
// CHECK-NOT:     util.optimization_barrier
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.func public @shared_table() -> (tensor<2xf32>, tensor<2xf32>) {
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %c1 = arith.constant 1 : i32
    %table = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %table, %b = %table) -> (tensor<2xf32>, tensor<2xf32>) : i32 {
      scf.yield %b, %a : tensor<2xf32>, tensor<2xf32>
    }
    util.return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>
  }
}
