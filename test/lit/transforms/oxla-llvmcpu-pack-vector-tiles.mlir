// In a function that data-tiles, inner vector steps stay within native vectors: a 16x16 pack steps
// one tile at a time (common level), a 16x1 pack sixteen tiles, an element-wise producer 16 lanes.
// Functions without packs keep IREE's configuration.
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-llvmcpu-pack-vector-tiles)' | FileCheck %s

// CHECK-DAG: #[[PRODUCER:.*]] = #iree_cpu.lowering_config<vector_common_parallel = [16, 0], vector_inner_parallel = [0, 16]>
// CHECK-DAG: #[[TILE:.*]] = #iree_cpu.lowering_config<vector_common_parallel = [1, 1]>
// CHECK-DAG: #[[STRIP:.*]] = #iree_cpu.lowering_config<vector_common_parallel = [1, 0], vector_inner_parallel = [0, 16]>
// CHECK-DAG: #[[UNTOUCHED:.*]] = #iree_cpu.lowering_config<vector_common_parallel = [16, 0], vector_inner_parallel = [0, 256]>
// CHECK-LABEL: func.func @packs
// CHECK: linalg.generic {{.*}} attrs = {lowering_config = #[[PRODUCER]]}
// CHECK: linalg.pack {{.*}} inner_tiles = [16, 16] {{.*}} {lowering_config = #[[TILE]]}
// CHECK: linalg.pack {{.*}} inner_tiles = [16, 1] {{.*}} {lowering_config = #[[STRIP]]}
// CHECK-LABEL: func.func @no_pack
// CHECK: linalg.generic {{.*}} attrs = {lowering_config = #[[UNTOUCHED]]}
hal.executable private @ex {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {native_vector_size = 64 : i64}>) {
    builtin.module {
      func.func @packs(%a: tensor<128x256xf32>) -> (tensor<8x16x16x16xf32>, tensor<8x256x16x1xf32>) {
        %e = tensor.empty() : tensor<128x256xf32>
        %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) attrs = {lowering_config = #iree_cpu.lowering_config<vector_common_parallel = [16, 0], vector_inner_parallel = [0, 256]>} {
        ^bb0(%in: f32, %out: f32):
          %s = arith.mulf %in, %in : f32
          linalg.yield %s : f32
        } -> tensor<128x256xf32>
        %e1 = tensor.empty() : tensor<8x16x16x16xf32>
        %p1 = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [16, 16] into %e1 {lowering_config = #iree_cpu.lowering_config<vector_common_parallel = [1, 0], vector_inner_parallel = [0, 16]>} : tensor<128x256xf32> -> tensor<8x16x16x16xf32>
        %e2 = tensor.empty() : tensor<8x256x16x1xf32>
        %p2 = linalg.pack %g inner_dims_pos = [0, 1] inner_tiles = [16, 1] into %e2 {lowering_config = #iree_cpu.lowering_config<vector_common_parallel = [1, 0], vector_inner_parallel = [0, 256]>} : tensor<128x256xf32> -> tensor<8x256x16x1xf32>
        return %p1, %p2 : tensor<8x16x16x16xf32>, tensor<8x256x16x1xf32>
      }
      func.func @no_pack(%a: tensor<128x256xf32>) -> tensor<128x256xf32> {
        %e = tensor.empty() : tensor<128x256xf32>
        %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) attrs = {lowering_config = #iree_cpu.lowering_config<vector_common_parallel = [16, 0], vector_inner_parallel = [0, 256]>} {
        ^bb0(%in: f32, %out: f32):
          %s = arith.mulf %in, %in : f32
          linalg.yield %s : f32
        } -> tensor<128x256xf32>
        return %g : tensor<128x256xf32>
      }
    }
  }
}
