// Warnings and remarks that native passes emit are checked like errors; the
// run succeeds, the output is printed and the diagnostics are not.
// RUN: oxla-opt %s --verify-diagnostics \
// RUN:   -p 'builtin.module(iree-hal-dump-executable-benchmarks,iree-convert-to-llvm)' 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=QUIET --allow-empty --input-file %t.err
// Without --verify-diagnostics the same diagnostics are printed, and are no error.
// RUN: oxla-opt %s -p 'builtin.module(iree-hal-dump-executable-benchmarks,iree-convert-to-llvm)' 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=PRINTED

// CHECK: llvm.func @with_io(%arg0: i32) -> i32
// QUIET-NOT: {{.}}
// PRINTED-DAG: verify-diagnostics-severities.mlir:[[# @LINE + 4]]:1: remark: Executable benchmarks were requested
// PRINTED-DAG: verify-diagnostics-severities.mlir:[[# @LINE + 5]]:3: warning: public functions on executables must be () -> ()

// expected-remark @below {{Executable benchmarks were requested but no devices were declared in the module.}}
module {
  // expected-warning @+1 {{public functions on executables must be () -> ()}}
  func.func @with_io(%x: i32) -> i32 {
    return %x : i32
  }
}
