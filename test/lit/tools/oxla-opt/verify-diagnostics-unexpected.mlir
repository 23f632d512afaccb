// Diagnostics that no expected-* comment announces are errors at their own
// location, with the source line; exit status 1.
// RUN: not oxla-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s
// RUN: %expect-exit 1 oxla-opt %s --split-input-file --verify-diagnostics -o /dev/null
// A warning from a pass, on the chunk that is otherwise clean:
// RUN: not oxla-opt %s --split-input-file --verify-diagnostics --iree-convert-to-llvm 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,WARN
// A diagnostic without a file location:
// RUN: not oxla-opt %s --split-input-file --verify-diagnostics --affine-loop-unroll 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,UNKNOWN

// CHECK-NOT:  Traceback
// An error nobody expected.
// CHECK:      verify-diagnostics-unexpected.mlir:[[# @LINE + 12]]:8: error: unexpected error: 'stablehlo.add' op requires the same shape for all operands and results
// CHECK-NEXT:   %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
// CHECK-NEXT:        ^
// The error is expected, the note attached to it is not.
// CHECK:      verify-diagnostics-unexpected.mlir:[[# @LINE + 15]]:3: error: unexpected note: previously defined here
// CHECK-NOT:  unexpected error: redefinition
// WARN:       verify-diagnostics-unexpected.mlir:[[# @LINE + 21]]:1: error: unexpected warning: public functions on executables must be () -> ()
// UNKNOWN:    <unknown>: error: unexpected error: unable to schedule pass 'AffineLoopUnroll' on a PassManager intended to run on 'builtin.module'!
// CHECK-NOT:  unexpected
// CHECK-NOT:  Traceback

func.func @unexpected_error(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %arg0 : tensor<4xf32>
}

// -----

func.func @unexpected_note(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  // expected-error @+1 {{redefinition of SSA value '%0'}}
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}

// -----

func.func @clean(%x: i32) -> i32 {
  return %x : i32
}
