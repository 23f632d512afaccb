// SPIR-V compiled by oxla-compile runs on the Vulkan device (Mesa's software driver in CI).
// REQUIRES: vulkan
// RUN: oxla-compile %s --target=vulkan-spirv -o %t.spv.vmfb
// RUN: oxla-run %t.spv.vmfb --device=vulkan --function=add --input=4xf32=1 --input=4xf32=2 | FileCheck %s
// RUN: oxla-run %s --device=vulkan --function=add --input="4xf32=[1 2 3 4]" --input=4xf32=0.5 | FileCheck %s --check-prefix=JIT

// CHECK: 4xf32=[3 3 3 3]
// JIT: 4xf32=[1.5 2.5 3.5 4.5]
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
