// oxla-compile --tune: times the candidate flag sets here, keeps the fastest, and serves the next compile from its cache.
// RUN: rm -rf %t.cache
// RUN: oxla-compile %s --tune --tune-cache=%t.cache --timing -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=TUNE
// RUN: oxla-run %t.vmfb --function=main --input=4xf32=1,2,3,4 --input="4xf32=[10 20 30 40]" | FileCheck %s --check-prefix=EXEC
// RUN: ls %t.cache | FileCheck %s --check-prefix=CACHE
// RUN: oxla-compile %s --tune --tune-cache=%t.cache --timing -o %t.cached.vmfb 2>&1 | FileCheck %s --check-prefix=CACHED
// RUN: cmp %t.vmfb %t.cached.vmfb
// RUN: %expect-exit 1 oxla-compile %s --tune --tune-cache=%t.cache --compile-to=flow 2>&1 | FileCheck %s --check-prefix=PHASE
// RUN: %expect-exit 1 oxla-compile %s --tune --tune-cache=%t.cache --target=cuda -o %t.cuda.vmfb 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: %expect-exit 1 oxla-compile %s --retune -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=ALONE

// TUNE:      phase
// TUNE:      total
// TUNE:      tuning (measured, key {{[0-9a-f]+}})
// TUNE-DAG:  o3-data-tiling {{ +}}{{[0-9.]+}} ms
// TUNE-DAG:  data-tiling {{ +}}{{[0-9.]+}} ms
// TUNE-DAG:  o3 {{ +}}{{[0-9.]+}} ms
// TUNE:      chosen: {{[a-z0-9-]+}}

// EXEC-LABEL: EXEC @main
// EXEC-NEXT: result[0]: hal.buffer_view
// EXEC-NEXT: 4xf32=[11 22 33 44]

// CACHE: {{[0-9a-f]+}}.vmfb
// CACHE: index.json

// CACHED-NOT: phase
// CACHED:     tuning (from cache, key {{[0-9a-f]+}})
// CACHED:     chosen:

// PHASE: oxla-compile: error: --tune compiles and times whole programs; it cannot be combined with --compile-to
// GPU: oxla-compile: error: tuning times candidates on this machine's CPU, so it supports target llvm-cpu only, not cuda
// ALONE: oxla-compile: error: --tune-cache and --retune need --tune
// CHECK-NOT: Traceback
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
