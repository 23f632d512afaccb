// A data-tiled f32 matmul dispatch whose packed right operand is 8 MiB or more gives each workgroup
// every row tile its result block holds (128 native vectors: 8x8 tiles on AVX2 take 8 rows of 2 column
// tiles; 32 vectors with element-wise consumers: 2 rows), so the operand streams from memory once per
// block of rows. Smaller right operands, and executables using IREE's microkernels, keep IREE's.
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-llvmcpu-mmt4d-row-blocks)' | FileCheck %s

// CHECK-DAG: #[[ROWS:.*]] = #iree_cpu.lowering_config<distribution = [8, 2, 0, 0, 0, 0], vector_common_parallel = [1, 2, 0, 4, 8, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
// CHECK-DAG: #[[FUSED:.*]] = #iree_cpu.lowering_config<distribution = [2, 2, 0, 0, 0, 0], vector_common_parallel = [1, 2, 0, 4, 8, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
// CHECK-DAG: #[[KEPT:.*]] = #iree_cpu.lowering_config<distribution = [1, 2, 0, 0, 0, 0], vector_common_parallel = [1, 2, 0, 4, 8, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
// CHECK-LABEL: func.func @large
// CHECK: linalg.mmt4d {lowering_config = #[[ROWS]]}
// CHECK-LABEL: func.func @fused
// CHECK: linalg.mmt4d {lowering_config = #[[FUSED]]}
// CHECK-LABEL: func.func @small
// CHECK: linalg.mmt4d {lowering_config = #[[KEPT]]}
// CHECK-LABEL: func.func @ukernel
// CHECK: linalg.mmt4d {lowering_config = #[[KEPT]]}
#mmt4d = #iree_cpu.lowering_config<distribution = [1, 2, 0, 0, 0, 0], vector_common_parallel = [1, 2, 0, 4, 8, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
#fill = #iree_cpu.lowering_config<vector_common_parallel = [1, 1, 8, 8]>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
hal.executable private @avx2 {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {native_vector_size = 32 : i64, ukernels = "none"}>) {
    builtin.module {
      func.func @large(%a: tensor<8x4096x8x1xf32>, %b: tensor<512x4096x8x1xf32>) -> tensor<8x512x8x8xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<8x512x8x8xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<8x512x8x8xf32>) -> tensor<8x512x8x8xf32>
        %m = linalg.mmt4d {lowering_config = #mmt4d} ins(%a, %b : tensor<8x4096x8x1xf32>, tensor<512x4096x8x1xf32>) outs(%f : tensor<8x512x8x8xf32>) -> tensor<8x512x8x8xf32>
        return %m : tensor<8x512x8x8xf32>
      }
      func.func @fused(%a: tensor<8x4096x8x1xf32>, %b: tensor<512x4096x8x1xf32>) -> tensor<8x512x8x8xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<8x512x8x8xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<8x512x8x8xf32>) -> tensor<8x512x8x8xf32>
        %m = linalg.mmt4d {lowering_config = #mmt4d} ins(%a, %b : tensor<8x4096x8x1xf32>, tensor<512x4096x8x1xf32>) outs(%f : tensor<8x512x8x8xf32>) -> tensor<8x512x8x8xf32>
        %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m : tensor<8x512x8x8xf32>) outs(%e : tensor<8x512x8x8xf32>) attrs = {lowering_config = #fill} {
        ^bb0(%in: f32, %out: f32):
          %x = math.exp %in : f32
          linalg.yield %x : f32
        } -> tensor<8x512x8x8xf32>
        return %g : tensor<8x512x8x8xf32>
      }
      func.func @small(%a: tensor<8x1024x8x1xf32>, %b: tensor<128x1024x8x1xf32>) -> tensor<8x128x8x8xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<8x128x8x8xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<8x128x8x8xf32>) -> tensor<8x128x8x8xf32>
        %m = linalg.mmt4d {lowering_config = #mmt4d} ins(%a, %b : tensor<8x1024x8x1xf32>, tensor<128x1024x8x1xf32>) outs(%f : tensor<8x128x8x8xf32>) -> tensor<8x128x8x8xf32>
        return %m : tensor<8x128x8x8xf32>
      }
    }
  }
}
hal.executable private @microkernels {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {native_vector_size = 32 : i64, ukernels = "all"}>) {
    builtin.module {
      func.func @ukernel(%a: tensor<8x4096x8x1xf32>, %b: tensor<512x4096x8x1xf32>) -> tensor<8x512x8x8xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<8x512x8x8xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<8x512x8x8xf32>) -> tensor<8x512x8x8xf32>
        %m = linalg.mmt4d {lowering_config = #mmt4d} ins(%a, %b : tensor<8x4096x8x1xf32>, tensor<512x4096x8x1xf32>) outs(%f : tensor<8x512x8x8xf32>) -> tensor<8x512x8x8xf32>
        return %m : tensor<8x512x8x8xf32>
      }
    }
  }
}
