// oxla-compile writes a .vmfb that oxla-run executes, per phase timing on request.
// RUN: oxla-compile %s --target=llvm-cpu -o %t.vmfb --timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: oxla-run %t.vmfb --function=add --input=4xf32=1,2,3,4 --input="4xf32=[10 20 30 40]" | FileCheck %s --check-prefix=EXEC
// RUN: oxla-compile %s --compile-to=flow | FileCheck %s --check-prefix=FLOW
// RUN: rm -rf %t.phases && oxla-compile %s --dump-phases=%t.phases -o %t.vmfb && ls %t.phases | FileCheck %s --check-prefix=DUMP
// RUN: oxla-compile %s --target=cuda:sm_89 -o %t.cuda.vmfb && oxla-compile %s --target=rocm:gfx90a -o %t.rocm.vmfb
// RUN: oxla-compile --list-targets | FileCheck %s --check-prefix=TARGETS
// RUN: oxla-compile %s --compile-to=stream | FileCheck %s --check-prefix=ALIGNED16
// RUN: oxla-compile %s --compile-to=stream --disable-passes=oxla-binding-alignment | FileCheck %s --check-prefix=ALIGNED64
// RUN: not oxla-compile %s -o %t.vmfb --disable-passes=oxla-binding-alignment,oxla-no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// TIMING:      phase
// TIMING:      input
// TIMING:      hal
// TIMING:      total

// EXEC-LABEL: EXEC @add
// EXEC-NEXT: result[0]: hal.buffer_view
// EXEC-NEXT: 4xf32=[11 22 33 44]

// FLOW:      flow.executable
// FLOW-NOT:  stablehlo.add

// DUMP:      00-start.mlir
// DUMP:      06-flow.mlir
// DUMP:      12-vm.mlir

// TARGETS: llvm-cpu
// TARGETS: codegen passes: {{.*}}oxla-binding-alignment
// TARGETS: vulkan-spirv
// TARGETS: cuda
// TARGETS: sm_89
// TARGETS: rocm

// ALIGNED16-NOT: stream.alignment = 64
// ALIGNED16: stream.alignment = 16
// ALIGNED16-NOT: stream.alignment = 64
// ALIGNED64: stream.alignment = 64
// UNKNOWN: oxla-compile: error: target llvm-cpu runs no codegen pass named oxla-no-such-pass (its codegen passes: oxla-materialize-shared-elementwise,
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
