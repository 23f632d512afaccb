// A data-tiled f32 matmul dispatch (fill, mmt4d, unpack, element-wise consumers) built without
// microkernels steps 8 rows of two 16-wide column tiles instead of one 16x16 tile; a workgroup with an
// odd number of column tiles gets twice as many. Dispatches with a fused reduction, workgroups that
// would hold more than 8 tiles (2 with element-wise consumers), matmuls under 2^23 multiply-adds and
// executables that use IREE's microkernels keep IREE's steps.
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-llvmcpu-mmt4d-register-tiles)' | FileCheck %s

// CHECK-DAG: #[[TWO:.*]] = #iree_cpu.lowering_config<distribution = [2, 4, 0, 0, 0, 0], vector_common_parallel = [1, 2, 0, 8, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
// CHECK-DAG: #[[PAIR:.*]] = #iree_cpu.lowering_config<distribution = [1, 2, 0, 0, 0, 0], vector_common_parallel = [1, 2, 0, 8, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
// CHECK-DAG: #[[KEPT:.*]] = #iree_cpu.lowering_config<distribution = [2, 4, 0, 0, 0, 0], vector_common_parallel = [1, 1, 0, 16, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
// CHECK-DAG: #[[ODD:.*]] = #iree_cpu.lowering_config<distribution = [1, 6, 0, 0, 0, 0], vector_common_parallel = [1, 2, 0, 8, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
// CHECK-DAG: #[[WIDE:.*]] = #iree_cpu.lowering_config<distribution = [4, 5, 0, 0, 0, 0], vector_common_parallel = [1, 1, 0, 16, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
// CHECK-DAG: #[[SMALL:.*]] = #iree_cpu.lowering_config<distribution = [1, 2, 0, 0, 0, 0], vector_common_parallel = [1, 1, 0, 16, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
// CHECK-LABEL: func.func @gemm
// CHECK: linalg.mmt4d {lowering_config = #[[TWO]]}
// CHECK-LABEL: func.func @fused
// CHECK: linalg.mmt4d {lowering_config = #[[PAIR]]}
// CHECK-LABEL: func.func @fused_wide
// CHECK: linalg.mmt4d {lowering_config = #[[KEPT]]}
// CHECK-LABEL: func.func @reduced
// CHECK: linalg.mmt4d {lowering_config = #[[KEPT]]}
// CHECK-LABEL: func.func @odd
// CHECK: linalg.mmt4d {lowering_config = #[[ODD]]}
// CHECK-LABEL: func.func @wide
// CHECK: linalg.mmt4d {lowering_config = #[[WIDE]]}
// CHECK-LABEL: func.func @small
// CHECK: linalg.mmt4d {lowering_config = #[[SMALL]]}
// CHECK-LABEL: func.func @ukernel
// CHECK: linalg.mmt4d {lowering_config = #[[KEPT]]}
#mmt4d = #iree_cpu.lowering_config<distribution = [2, 4, 0, 0, 0, 0], vector_common_parallel = [1, 1, 0, 16, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
#odd = #iree_cpu.lowering_config<distribution = [1, 3, 0, 0, 0, 0], vector_common_parallel = [1, 1, 0, 16, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
#wide = #iree_cpu.lowering_config<distribution = [4, 5, 0, 0, 0, 0], vector_common_parallel = [1, 1, 0, 16, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
#small = #iree_cpu.lowering_config<distribution = [1, 2, 0, 0, 0, 0], vector_common_parallel = [1, 1, 0, 16, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]>
#fill = #iree_cpu.lowering_config<vector_common_parallel = [1, 1, 16, 16]>
#unpack = #iree_cpu.lowering_config<vector_common_parallel = [16, 16]>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
hal.executable private @codegen {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {native_vector_size = 64 : i64, ukernels = "none"}>) {
    builtin.module {
      func.func @gemm(%a: tensor<16x512x16x1xf32>, %b: tensor<4x512x16x1xf32>) -> tensor<256x64xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<16x4x16x16xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %m = linalg.mmt4d {lowering_config = #mmt4d} ins(%a, %b : tensor<16x512x16x1xf32>, tensor<4x512x16x1xf32>) outs(%f : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %r = tensor.empty() : tensor<256x64xf32>
        %u = linalg.unpack %m outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [16, 16] into %r {lowering_config = #unpack} : tensor<16x4x16x16xf32> -> tensor<256x64xf32>
        return %u : tensor<256x64xf32>
      }
      func.func @fused(%a: tensor<16x512x16x1xf32>, %b: tensor<4x512x16x1xf32>) -> tensor<16x4x16x16xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<16x4x16x16xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %m = linalg.mmt4d {lowering_config = #small} ins(%a, %b : tensor<16x512x16x1xf32>, tensor<4x512x16x1xf32>) outs(%f : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m : tensor<16x4x16x16xf32>) outs(%e : tensor<16x4x16x16xf32>) attrs = {lowering_config = #fill} {
        ^bb0(%in: f32, %out: f32):
          %x = math.exp %in : f32
          linalg.yield %x : f32
        } -> tensor<16x4x16x16xf32>
        return %g : tensor<16x4x16x16xf32>
      }
      func.func @fused_wide(%a: tensor<16x512x16x1xf32>, %b: tensor<4x512x16x1xf32>) -> tensor<16x4x16x16xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<16x4x16x16xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %m = linalg.mmt4d {lowering_config = #mmt4d} ins(%a, %b : tensor<16x512x16x1xf32>, tensor<4x512x16x1xf32>) outs(%f : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m : tensor<16x4x16x16xf32>) outs(%e : tensor<16x4x16x16xf32>) attrs = {lowering_config = #fill} {
        ^bb0(%in: f32, %out: f32):
          %x = math.exp %in : f32
          linalg.yield %x : f32
        } -> tensor<16x4x16x16xf32>
        return %g : tensor<16x4x16x16xf32>
      }
      func.func @reduced(%a: tensor<16x512x16x1xf32>, %b: tensor<4x512x16x1xf32>) -> tensor<16x4x16xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<16x4x16x16xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %m = linalg.mmt4d {lowering_config = #mmt4d} ins(%a, %b : tensor<16x512x16x1xf32>, tensor<4x512x16x1xf32>) outs(%f : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %re = tensor.empty() : tensor<16x4x16xf32>
        %r = linalg.generic {indexing_maps = [#map, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%m : tensor<16x4x16x16xf32>) outs(%re : tensor<16x4x16xf32>) attrs = {lowering_config = #fill} {
        ^bb0(%in: f32, %out: f32):
          %x = arith.addf %in, %out : f32
          linalg.yield %x : f32
        } -> tensor<16x4x16xf32>
        return %r : tensor<16x4x16xf32>
      }
      func.func @odd(%a: tensor<16x512x16x1xf32>, %b: tensor<6x512x16x1xf32>) -> tensor<16x6x16x16xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<16x6x16x16xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<16x6x16x16xf32>) -> tensor<16x6x16x16xf32>
        %m = linalg.mmt4d {lowering_config = #odd} ins(%a, %b : tensor<16x512x16x1xf32>, tensor<6x512x16x1xf32>) outs(%f : tensor<16x6x16x16xf32>) -> tensor<16x6x16x16xf32>
        return %m : tensor<16x6x16x16xf32>
      }
      func.func @wide(%a: tensor<16x512x16x1xf32>, %b: tensor<10x512x16x1xf32>) -> tensor<16x10x16x16xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<16x10x16x16xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<16x10x16x16xf32>) -> tensor<16x10x16x16xf32>
        %m = linalg.mmt4d {lowering_config = #wide} ins(%a, %b : tensor<16x512x16x1xf32>, tensor<10x512x16x1xf32>) outs(%f : tensor<16x10x16x16xf32>) -> tensor<16x10x16x16xf32>
        return %m : tensor<16x10x16x16xf32>
      }
      func.func @small(%a: tensor<16x128x16x1xf32>, %b: tensor<4x128x16x1xf32>) -> tensor<16x4x16x16xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<16x4x16x16xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %m = linalg.mmt4d {lowering_config = #small} ins(%a, %b : tensor<16x128x16x1xf32>, tensor<4x128x16x1xf32>) outs(%f : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        return %m : tensor<16x4x16x16xf32>
      }
    }
  }
}
hal.executable private @microkernels {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {native_vector_size = 64 : i64}>) {
    builtin.module {
      func.func @ukernel(%a: tensor<16x512x16x1xf32>, %b: tensor<4x512x16x1xf32>) -> tensor<16x4x16x16xf32> {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<16x4x16x16xf32>
        %f = linalg.fill {lowering_config = #fill} ins(%zero : f32) outs(%e : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        %m = linalg.mmt4d {lowering_config = #mmt4d} ins(%a, %b : tensor<16x512x16x1xf32>, tensor<4x512x16x1xf32>) outs(%f : tensor<16x4x16x16xf32>) -> tensor<16x4x16x16xf32>
        return %m : tensor<16x4x16x16xf32>
      }
    }
  }
}
