// Bad input to oxla-compile: one clear error each, exit status 1, no traceback.
// RUN: %expect-exit 1 oxla-compile %s --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: %expect-exit 1 oxla-compile %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %expect-exit 1 oxla-compile %s -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: %expect-exit 1 oxla-compile %s --iree-no-such-flag -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=FLAG

// TARGET: oxla-compile: error: unknown target 'tpu'; targets are: llvm-cpu, vulkan-spirv, cuda, rocm
// MISSING: oxla-compile: error: could not open input file '{{.*}}missing.mlir': No such file or directory
// LOWER: compilation failed in phase 'input':
// LOWER-NEXT: {{.*}}bad-input.mlir:15:8: error: failed to legalize operation 'stablehlo.triangular_solve'
// LOWER-NOT: see current operation
// FLAG: oxla-compile: error: invalid compiler flag
// CHECK-NOT: Traceback
func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
