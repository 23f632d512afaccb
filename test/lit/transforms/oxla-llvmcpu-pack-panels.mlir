// A stand-alone pack of a matmul operand has each workgroup read whole rows of its source: the
// left operand one panel of 16 rows (a row of outer tiles), the right operand (outer dimensions
// swapped, 16x2 tiles) every column tile of 8 outer rows. Packs of other layouts, packs fused with
// other configured ops, and packs that would get fewer than min-workgroups workgroups keep IREE's
// configuration.
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-llvmcpu-pack-panels)' | FileCheck %s
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-llvmcpu-pack-panels{min-workgroups=128})' | FileCheck %s --check-prefix=FEW

// CHECK-DAG: #[[PANELS:.*]] = #iree_cpu.lowering_config<distribution = [1, 512], vector_common_parallel = [1, 1]>
// CHECK-DAG: #[[ROWS:.*]] = #iree_cpu.lowering_config<distribution = [64, 8], vector_common_parallel = [1, 1]>
// CHECK-DAG: #[[IREE:.*]] = #iree_cpu.lowering_config<distribution = [32, 64], vector_common_parallel = [1, 1]>
// CHECK-LABEL: func.func @lhs
// CHECK: linalg.pack {{.*}} {lowering_config = #[[PANELS]]}
// CHECK-LABEL: func.func @rhs
// CHECK: linalg.pack {{.*}} {lowering_config = #[[ROWS]]}
// CHECK-LABEL: func.func @columns_first
// CHECK: linalg.pack {{.*}} {lowering_config = #[[IREE]]}
// CHECK-LABEL: func.func @fused
// CHECK: linalg.pack {{.*}} {lowering_config = #[[IREE]]}

// FEW-NOT: distribution = [1, 512]
// FEW-NOT: distribution = [64, 8]
// FEW: #[[KEPT:.*]] = #iree_cpu.lowering_config<distribution = [32, 64], vector_common_parallel = [1, 1]>
// FEW-NOT: distribution = [1, 512]
// FEW-LABEL: func.func @lhs
// FEW: linalg.pack {{.*}} {lowering_config = #[[KEPT]]}
hal.executable private @ex {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {native_vector_size = 64 : i64}>) {
    builtin.module {
      func.func @lhs(%a: tensor<1024x1024xbf16>) -> tensor<64x512x16x2xbf16> {
        %e = tensor.empty() : tensor<64x512x16x2xbf16>
        %p = linalg.pack %a outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [16, 2] into %e {lowering_config = #iree_cpu.lowering_config<distribution = [32, 64], vector_common_parallel = [1, 1]>} : tensor<1024x1024xbf16> -> tensor<64x512x16x2xbf16>
        return %p : tensor<64x512x16x2xbf16>
      }
      func.func @rhs(%b: tensor<1024x1024xbf16>) -> tensor<64x512x16x2xbf16> {
        %e = tensor.empty() : tensor<64x512x16x2xbf16>
        %p = linalg.pack %b outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [16, 2] into %e {lowering_config = #iree_cpu.lowering_config<distribution = [32, 64], vector_common_parallel = [1, 1]>} : tensor<1024x1024xbf16> -> tensor<64x512x16x2xbf16>
        return %p : tensor<64x512x16x2xbf16>
      }
      func.func @columns_first(%b: tensor<1024x1024xbf16>) -> tensor<512x64x16x2xbf16> {
        %e = tensor.empty() : tensor<512x64x16x2xbf16>
        %p = linalg.pack %b inner_dims_pos = [1, 0] inner_tiles = [16, 2] into %e {lowering_config = #iree_cpu.lowering_config<distribution = [32, 64], vector_common_parallel = [1, 1]>} : tensor<1024x1024xbf16> -> tensor<512x64x16x2xbf16>
        return %p : tensor<512x64x16x2xbf16>
      }
      func.func @fused(%a: tensor<1024x1024xbf16>) -> tensor<64x512x16x2xbf16> {
        %e0 = tensor.empty() : tensor<1024x1024xbf16>
        %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<1024x1024xbf16>) outs(%e0 : tensor<1024x1024xbf16>) attrs = {lowering_config = #iree_cpu.lowering_config<distribution = [32, 64], vector_common_parallel = [1, 1]>} {
        ^bb0(%in: bf16, %out: bf16):
          %s = arith.mulf %in, %in : bf16
          linalg.yield %s : bf16
        } -> tensor<1024x1024xbf16>
        %e = tensor.empty() : tensor<64x512x16x2xbf16>
        %p = linalg.pack %g outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [16, 2] into %e {lowering_config = #iree_cpu.lowering_config<distribution = [32, 64], vector_common_parallel = [1, 1]>} : tensor<1024x1024xbf16> -> tensor<64x512x16x2xbf16>
        return %p : tensor<64x512x16x2xbf16>
      }
    }
  }
}
