// Public functions record which arguments some command may write: a dispatch that writes the
// argument's resource (also under another name, after an await), a fill, a copy into it, or a use
// the pass does not follow. Reads (a read-only dispatch, the source of a copy) and exports do not
// count; a function without such writes records an empty list.
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-argument-writes)' | FileCheck %s

// CHECK-LABEL: util.func public @main
// CHECK-SAME: oxla.written_arguments = "1,3,4,5"
// CHECK-LABEL: util.func public @reads_only
// CHECK-SAME: iree.reflection = {oxla.written_arguments = ""}
// CHECK-LABEL: util.func private @hidden
// CHECK-NOT: oxla.written_arguments
module {
  stream.executable private @ex {
    stream.executable.export public @dispatch workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @dispatch(%arg0: !stream.binding, %arg1: !stream.binding) {
        return
      }
    }
  }
  util.func public @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view, %arg3: !hal.buffer_view, %arg4: !hal.buffer_view, %arg5: !hal.buffer_view) -> !hal.buffer_view attributes {iree.reflection = {iree.abi.declaration = "sync func @main(...)"}} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0 : i32
    %0 = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
    %1 = stream.tensor.import %arg1 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
    %2 = stream.tensor.import %arg2 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
    %3 = stream.tensor.import %arg3 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
    %4 = stream.tensor.import %arg4 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
    // Argument 0 is read, argument 1 written by the same dispatch.
    %t0 = stream.cmd.execute with(%0 as %a: !stream.resource<external>{%c16}, %1 as %b: !stream.resource<external>{%c16}) {
      stream.cmd.dispatch @ex::@dispatch {
        ro %a[%c0 for %c16] : !stream.resource<external>{%c16},
        rw %b[%c0 for %c16] : !stream.resource<external>{%c16}
      }
    } => !stream.timepoint
    // Argument 2 is copied into argument 3.
    %t1 = stream.cmd.execute with(%2 as %c: !stream.resource<external>{%c16}, %3 as %d: !stream.resource<external>{%c16}) {
      stream.cmd.copy %c[%c0], %d[%c0], %c16 : !stream.resource<external>{%c16} -> !stream.resource<external>{%c16}
    } => !stream.timepoint
    // Argument 4 is filled once an await has renamed it.
    %5 = stream.timepoint.await %t1 => %4 : !stream.resource<external>{%c16}
    %t2 = stream.cmd.execute with(%5 as %e: !stream.resource<external>{%c16}) {
      stream.cmd.fill %zero, %e[%c0 for %c16] : i32 -> !stream.resource<external>{%c16}
    } => !stream.timepoint
    // Argument 5 goes to an op the pass does not follow.
    %6 = util.optimization_barrier %arg5 : !hal.buffer_view
    %7 = stream.tensor.export %0 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
    util.return %7 : !hal.buffer_view
  }
  util.func public @reads_only(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0 : i32
    hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("input0") shape([%c16]) type(%z) encoding(%z)
    %0 = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
    %1, %ready = stream.resource.alloca uninitialized : !stream.resource<external>{%c16} => !stream.timepoint
    %t = stream.cmd.execute with(%0 as %a: !stream.resource<external>{%c16}, %1 as %b: !stream.resource<external>{%c16}) {
      stream.cmd.dispatch @ex::@dispatch {
        ro %a[%c0 for %c16] : !stream.resource<external>{%c16},
        wo %b[%c0 for %c16] : !stream.resource<external>{%c16}
      }
    } => !stream.timepoint
    %2 = stream.timepoint.await %t => %1 : !stream.resource<external>{%c16}
    %3 = stream.tensor.export %2 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
    util.return %3 : !hal.buffer_view
  }
  util.func private @hidden(%arg0: !hal.buffer_view) {
    util.return
  }
}
