// Bad input to oxla-compile: one clear error each, exit status 1, no traceback.
// RUN: %expect-exit 1 oxla-compile %s --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: %expect-exit 1 oxla-compile %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %expect-exit 1 oxla-compile %s -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: %expect-exit 1 oxla-compile %s --iree-no-such-flag -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=FLAG

// TARGET: oxla-compile: error: unknown target 'tpu'; targets are: llvm-cpu, vulkan-spirv, cuda, rocm
// MISSING: oxla-compile: error: could not open input file '{{.*}}missing.mlir': No such file or directory
// LOWER: compilation failed in phase 'input':
// LOWER-NEXT: {{.*}}bad-input.mlir:15:10: error: failed to legalize operation 'stablehlo.infeed'
// LOWER-NOT: see current operation
// FLAG: oxla-compile: error: invalid compiler flag
// CHECK-NOT: Traceback
func.func @f(%t: !stablehlo.token) -> tensor<4xf32> {
  %0:2 = "stablehlo.infeed"(%t) {infeed_config = "", layout = [[0]]} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  return %0#0 : tensor<4xf32>
}
