// `@unknown` matches a diagnostic that has no file location: here MLIR's
// refusal to schedule a FunctionOpInterface pass on the module.
// RUN: oxla-opt %s --verify-diagnostics --affine-loop-unroll 2>&1 | FileCheck %s --allow-empty
// RUN: not oxla-opt %s --affine-loop-unroll 2>&1 | FileCheck %s --check-prefix=PLAIN

// CHECK-NOT: {{.}}
// PLAIN: <unknown>: error: unable to schedule pass 'AffineLoopUnroll' on a PassManager intended to run on 'builtin.module'!

// expected-error @unknown {{unable to schedule pass 'AffineLoopUnroll'}}
func.func @f() {
  return
}
