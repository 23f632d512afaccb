// A column sum (innermost dimension kept) gets a register-wide strip per workgroup; a row sum stays IREE's.
// RUN: oxla-compile %s --compile-to=global-optimization --target=llvm-cpu:x86-64-v4 | oxla-opt --pass-pipeline='builtin.module(oxla-llvmcpu-outer-reduction-tiles)' | FileCheck %s
// AVX2 has 16 registers of 32 bytes: 64-wide f32 steps (half of them), 16 rows at a time, 512-wide strips.
// RUN: oxla-compile %s --compile-to=global-optimization --target=llvm-cpu:x86-64-v3 | oxla-opt --pass-pipeline='builtin.module(oxla-llvmcpu-outer-reduction-tiles)' | FileCheck %s --check-prefix=AVX2

// CHECK: #iree_cpu.lowering_config<distribution = [512, 0], vector_common_parallel = [512, 0], vector_reduction = [0, 1]>
// CHECK-LABEL: util.func public @column_sum
// CHECK: linalg.generic {{.*}} attrs = {compilation_info = #{{.*}}}
// CHECK-LABEL: util.func public @row_sum
// CHECK: linalg.generic
// CHECK-NOT: compilation_info
// CHECK: util.return
// AVX2: #iree_cpu.lowering_config<cache_reduction = [0, 16], distribution = [512, 0], vector_common_parallel = [64, 0], vector_reduction = [0, 1]>
func.func @column_sum(%x: tensor<256x1024xf32>) -> tensor<1024xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<256x1024xf32>, tensor<f32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
func.func @row_sum(%x: tensor<256x1024xf32>) -> tensor<256xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>
  return %r : tensor<256xf32>
}
