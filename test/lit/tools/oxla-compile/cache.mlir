// oxla-compile --cache: the second compile of the same program reads the artifact back.
// RUN: rm -rf %t.cache
// RUN: oxla-compile %s --cache=%t.cache --timing -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: oxla-compile %s --cache=%t.cache --timing -o %t.cached.vmfb 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: cmp %t.vmfb %t.cached.vmfb
// RUN: oxla-run %t.cached.vmfb --function=main --input=4xf32=1,2,3,4 --input="4xf32=[10 20 30 40]" | FileCheck %s --check-prefix=EXEC
// RUN: ls %t.cache | FileCheck %s --check-prefix=FILES
// RUN: env OXLA_COMPILE_CACHE=%t.cache oxla-compile %s --timing -o %t.env.vmfb 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: env OXLA_COMPILE_CACHE=%t.cache oxla-compile %s --no-cache --timing -o %t.env.vmfb 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: %expect-exit 1 oxla-compile %s --cache=%t.cache --compile-to=flow 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: %expect-exit 1 oxla-compile %s --cache=%t.cache --no-cache -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=BOTH

// FIRST:      phase
// FIRST:      hal
// FIRST:      total

// SECOND-NOT: phase
// SECOND:     served from the cache: nothing compiled

// EXEC-LABEL: EXEC @main
// EXEC-NEXT: result[0]: hal.buffer_view
// EXEC-NEXT: 4xf32=[11 22 33 44]

// FILES: {{[0-9a-f]+}}.json
// FILES: {{[0-9a-f]+}}.vmfb

// PARTIAL: oxla-compile: error: --cache keeps whole compiles; it cannot be combined with --compile-to
// BOTH: oxla-compile: error: --cache and --no-cache contradict each other
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
