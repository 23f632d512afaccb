// Dispatch bindings assume `alignment`-byte boundaries instead of 64 (never more than they did),
// and public functions record that next to their other reflection entries; private functions
// and arguments that are not bindings are left alone.
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-binding-alignment)' | FileCheck %s
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-binding-alignment{alignment=32})' | FileCheck %s --check-prefix=WIDE
// RUN: not oxla-opt %s --pass-pipeline='builtin.module(oxla-binding-alignment{alignment=24})' 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: stream.executable private @ex
// CHECK: func.func @dispatch(%arg0: !stream.binding {stream.alignment = 16 : index}, %arg1: !stream.binding {stream.alignment = 8 : index}, %arg2: index)
// CHECK: util.func public @main({{.*}} attributes {iree.reflection = {iree.abi.declaration = "sync func @main(%input0: tensor<4xf32>) -> (%output0: tensor<4xf32>)", oxla.binding_alignment = "16"}}
// CHECK: func.func @bare() attributes {iree.reflection = {oxla.binding_alignment = "16"}}
// CHECK: util.func private @hidden() {

// WIDE: func.func @dispatch(%arg0: !stream.binding {stream.alignment = 32 : index}, %arg1: !stream.binding {stream.alignment = 8 : index}, %arg2: index)
// WIDE: oxla.binding_alignment = "32"

// BAD: error: pass 'oxla-binding-alignment' raised ValueError: oxla-binding-alignment: alignment must be a power of two, got 24
module {
  stream.executable private @ex {
    stream.executable.export public @dispatch workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @dispatch(%arg0: !stream.binding {stream.alignment = 64 : index}, %arg1: !stream.binding {stream.alignment = 8 : index}, %arg2: index) {
        return
      }
    }
  }
  util.func public @main(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.reflection = {iree.abi.declaration = "sync func @main(%input0: tensor<4xf32>) -> (%output0: tensor<4xf32>)"}} {
    util.return %arg0 : !hal.buffer_view
  }
  func.func @bare() {
    return
  }
  util.func private @hidden() {
    util.return
  }
}
