// A pass that fails with an error and a note: both expected, so the run
// passes (exit status 0) although the pipeline failed; nothing is printed.
// RUN: oxla-opt %s --verify-diagnostics --iree-stablehlo-verify-compiler-input-legality 2>&1 \
// RUN:   | FileCheck %s --allow-empty
// RUN: %expect-exit 0 oxla-opt %s --verify-diagnostics --iree-stablehlo-verify-compiler-input-legality
// Without the flag it is an ordinary failure.
// RUN: not oxla-opt %s --iree-stablehlo-verify-compiler-input-legality 2>&1 | FileCheck %s --check-prefix=PLAIN

// CHECK-NOT: {{.}}
// PLAIN:      verify-diagnostics-pass-failure.mlir:[[# @LINE + 4]]:1: error: one or more illegal operations were found in the compiler input
// PLAIN:      verify-diagnostics-pass-failure.mlir:[[# @LINE + 6]]:10: note: failed to legalize operation 'stablehlo.add' that was explicitly marked illegal

// expected-error @below {{one or more illegal operations were found in the compiler input}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-note @below {{failed to legalize operation 'stablehlo.add' that was explicitly marked illegal}}
    %0 = stablehlo.add %x, %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
