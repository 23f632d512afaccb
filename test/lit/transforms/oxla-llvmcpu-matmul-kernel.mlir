// Large bf16 x bf16 -> f32 matmuls on an x86-64 target with AVX-512 BF16, and f32 ones of at least 512
// rows on one with AVX-512, become calls of a private function that packs the right operand (either
// layout) into 32-column panels of K pairs (bf16) or values (f32) and dispatches oxla's kernel: one
// stream.executable per type and shape, stepping 8 rows of 32 columns with vdpbf16ps or FMAs. A constant
// right operand is packed by the pass itself (any number of rows then pays); a left operand with several
// dimensions before K is read as their product of rows. Matmuls too small, misaligned, batched, with
// other types or an algorithm stay dot_general. An NHWC convolution with a constant HWIO kernel (any
// stride and window dilation) is the same kernel as an implicit matmul: its input padded, rows read from
// the input per window tap, the kernel packed like a constant right operand; one with a dilated input (a
// transposed convolution) stays a convolution.
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-llvmcpu-matmul-kernel)' | FileCheck %s
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-llvmcpu-matmul-kernel{min-multiply-adds=1})' | FileCheck %s --check-prefix=ALL
// RUN: sed 's/+avx512bf16/-avx512bf16/' %s | oxla-opt --pass-pipeline='builtin.module(oxla-llvmcpu-matmul-kernel)' | FileCheck %s --check-prefix=NOBF16
// RUN: sed 's/+avx512f,+avx512bf16/+avx2/' %s | oxla-opt --pass-pipeline='builtin.module(oxla-llvmcpu-matmul-kernel)' | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @gemm
// CHECK-NEXT: %[[OUT:.*]] = call @oxla_bf16_matmul_256x512x128_kn(%arg0, %arg1)
// CHECK-NEXT: return %[[OUT]]
// CHECK-LABEL: func.func @gemm_nk
// CHECK-NEXT: call @oxla_bf16_matmul_256x512x128_nk(%arg0, %arg1)
// CHECK-LABEL: func.func @twice
// CHECK: call @oxla_bf16_matmul_256x512x128_kn
// CHECK: call @oxla_bf16_matmul_256x512x128_kn
// CHECK-LABEL: func.func @weights
// CHECK-NEXT: %[[W:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<8x1024x32xf32>
// CHECK-NEXT: call @oxla_f32_matmul_64x256x1024_packed(%arg0, %[[W]])
// CHECK-LABEL: func.func @lead
// CHECK-NEXT: call @oxla_bf16_matmul_256x512x128_kn_2x128(%arg0, %arg1) : (tensor<2x128x128xbf16>, tensor<128x512xbf16>) -> tensor<2x128x512xf32>
// CHECK-LABEL: func.func @small
// CHECK: stablehlo.dot_general
// CHECK-LABEL: func.func @ragged
// CHECK: stablehlo.dot_general
// CHECK-LABEL: func.func @batched
// CHECK: stablehlo.dot_general
// CHECK-LABEL: func.func @f32
// CHECK-NEXT: call @oxla_f32_matmul_512x512x32_kn(%arg0, %arg1)
// CHECK-LABEL: func.func @f32_nk
// CHECK-NEXT: call @oxla_f32_matmul_512x512x32_nk(%arg0, %arg1)
// CHECK-LABEL: func.func @f32_few_rows
// CHECK: stablehlo.dot_general
// CHECK-LABEL: func.func @algorithm
// CHECK: stablehlo.dot_general
// CHECK-LABEL: func.func @conv
// CHECK-NEXT: %[[CW:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<2x576x32xf32>
// CHECK-NEXT: call @oxla_f32_conv_1x18x34x64_3x3x64_pad1_1_1_1(%arg0, %[[CW]])
// CHECK-LABEL: func.func @strided_conv
// CHECK: call @oxla_f32_conv_1x34x66x64_3x3x64_s2x2_pad1_1_1_1(%arg0, %{{.*}}) : (tensor<1x32x64x64xf32>, tensor<2x576x32xf32>) -> tensor<1x16x32x64xf32>
// CHECK-LABEL: func.func @transposed_conv
// CHECK: stablehlo.convolution
// CHECK: stream.executable private @oxla_bf16_matmul_256x512x128 {
// CHECK: stream.executable.export public @oxla_bf16_matmul_256x512x128 workgroups() -> (index, index, index) {
// CHECK-DAG: arith.constant 1 : index
// CHECK-DAG: arith.constant 4 : index
// CHECK: stream.return
// CHECK: func.func @oxla_bf16_matmul_256x512x128(%{{.*}}: !stream.binding, %{{.*}}: !stream.binding, %{{.*}}: !stream.binding)
// CHECK: stream.binding.subspan {{.*}} -> memref<256x64xi32>
// CHECK: stream.binding.subspan {{.*}} -> memref<16x64x32xi32>
// CHECK: stream.binding.subspan {{.*}} -> memref<256x512xf32>
// CHECK-COUNT-16: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// CHECK-COUNT-16: vector.store
// CHECK: func.func private @oxla_bf16_matmul_256x512x128_kn(%[[A:.*]]: tensor<256x128xbf16>, %[[B:.*]]: tensor<128x512xbf16>) -> tensor<256x512xf32>
// CHECK: %[[PAIRS:.*]] = flow.tensor.bitcast %[[A]] : tensor<256x128xbf16> -> tensor<256x64xi32>
// CHECK: %[[SPLIT:.*]] = stablehlo.reshape %[[B]] : (tensor<128x512xbf16>) -> tensor<64x2x16x32xbf16>
// CHECK: %[[PACKED:.*]] = stablehlo.transpose %[[SPLIT]], dims = [2, 0, 3, 1]
// CHECK: %[[PANELS:.*]] = flow.tensor.bitcast %[[PACKED]] : tensor<16x64x32x2xbf16> -> tensor<16x64x32xi32>
// CHECK: flow.dispatch @oxla_bf16_matmul_256x512x128::@oxla_bf16_matmul_256x512x128(%[[PAIRS]], %[[PANELS]])
// CHECK: func.func private @oxla_bf16_matmul_256x512x128_nk(%{{.*}}: tensor<256x128xbf16>, %[[BT:.*]]: tensor<512x128xbf16>)
// CHECK: %[[BPAIRS:.*]] = flow.tensor.bitcast %[[BT]] : tensor<512x128xbf16> -> tensor<512x64xi32>
// CHECK: stablehlo.reshape %[[BPAIRS]] : (tensor<512x64xi32>) -> tensor<16x32x64xi32>
// CHECK: stablehlo.transpose %{{.*}}, dims = [0, 2, 1] : (tensor<16x32x64xi32>) -> tensor<16x64x32xi32>
// CHECK: stream.executable private @oxla_f32_matmul_64x256x1024
// CHECK: func.func private @oxla_f32_matmul_64x256x1024_packed(%[[PA:.*]]: tensor<64x1024xf32>, %[[PW:.*]]: tensor<8x1024x32xf32>) -> tensor<64x256xf32>
// CHECK-NEXT: flow.dispatch @oxla_f32_matmul_64x256x1024::@oxla_f32_matmul_64x256x1024(%[[PA]], %[[PW]])
// CHECK: func.func private @oxla_bf16_matmul_256x512x128_kn_2x128(%[[LA:.*]]: tensor<2x128x128xbf16>, %{{.*}}: tensor<128x512xbf16>) -> tensor<2x128x512xf32>
// CHECK-NEXT: flow.tensor.bitcast %[[LA]] : tensor<2x128x128xbf16> -> tensor<256x64xi32>
// CHECK: %[[FLAT:.*]] = flow.dispatch @oxla_bf16_matmul_256x512x128::@oxla_bf16_matmul_256x512x128
// CHECK-NEXT: %[[BACK:.*]] = stablehlo.reshape %[[FLAT]] : (tensor<256x512xf32>) -> tensor<2x128x512xf32>
// CHECK-NEXT: return %[[BACK]]
// CHECK: stream.executable private @oxla_f32_matmul_512x512x32 {
// CHECK: stream.binding.subspan {{.*}} -> memref<512x32xf32>
// CHECK: stream.binding.subspan {{.*}} -> memref<16x32x32xf32>
// CHECK: stream.binding.subspan {{.*}} -> memref<512x512xf32>
// CHECK-COUNT-16: vector.fma
// CHECK: func.func private @oxla_f32_matmul_512x512x32_kn(%[[FA:.*]]: tensor<512x32xf32>, %[[FB:.*]]: tensor<32x512xf32>)
// CHECK: %[[FSPLIT:.*]] = stablehlo.reshape %[[FB]] : (tensor<32x512xf32>) -> tensor<32x1x16x32xf32>
// CHECK: %[[FPACKED:.*]] = stablehlo.transpose %[[FSPLIT]], dims = [2, 0, 3, 1]
// CHECK: %[[FPANELS:.*]] = stablehlo.reshape %[[FPACKED]] : (tensor<16x32x32x1xf32>) -> tensor<16x32x32xf32>
// CHECK: flow.dispatch @oxla_f32_matmul_512x512x32::@oxla_f32_matmul_512x512x32(%[[FA]], %[[FPANELS]])
// CHECK: func.func private @oxla_f32_matmul_512x512x32_nk
// CHECK: stream.executable private @oxla_f32_conv_1x18x34x64_3x3x64 {
// CHECK: stream.binding.subspan {{.*}} -> memref<1x18x34x64xf32>
// CHECK: stream.binding.subspan {{.*}} -> memref<2x576x32xf32>
// CHECK: stream.binding.subspan {{.*}} -> memref<512x64xf32>
// CHECK-COUNT-16: vector.fma
// CHECK-COUNT-16: vector.store
// CHECK: func.func private @oxla_f32_conv_1x18x34x64_3x3x64_pad1_1_1_1(%[[X:.*]]: tensor<1x16x32x64xf32>, %[[W:.*]]: tensor<2x576x32xf32>) -> tensor<1x16x32x64xf32>
// CHECK: %[[PADDED:.*]] = stablehlo.pad %[[X]], %{{.*}}, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0]
// CHECK-NEXT: %[[ROWS:.*]] = flow.dispatch @oxla_f32_conv_1x18x34x64_3x3x64::@oxla_f32_conv_1x18x34x64_3x3x64(%[[PADDED]], %[[W]]) : {{.*}} -> tensor<512x64xf32>
// CHECK-NEXT: stablehlo.reshape %[[ROWS]] : (tensor<512x64xf32>) -> tensor<1x16x32x64xf32>
// CHECK: stream.executable private @oxla_f32_conv_1x34x66x64_3x3x64_s2x2 {
// CHECK: stream.binding.subspan {{.*}} -> memref<1x34x66x64xf32>
// CHECK: stream.binding.subspan {{.*}} -> memref<512x64xf32>
// CHECK: func.func private @oxla_f32_conv_1x34x66x64_3x3x64_s2x2_pad1_1_1_1
// CHECK-NOT: stream.executable private

// ALL-LABEL: func.func @small
// ALL: call @oxla_bf16_matmul_8x32x2_kn
// ALL-LABEL: func.func @ragged
// ALL: stablehlo.dot_general

// NOBF16-LABEL: func.func @gemm
// NOBF16: stablehlo.dot_general
// NOBF16-LABEL: func.func @f32
// NOBF16: call @oxla_f32_matmul_512x512x32_kn
// NOBF16-NOT: oxla_bf16_matmul

// NONE-NOT: stream.executable
// NONE-NOT: call @

module attributes {hal.device.targets = [#hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "znver5", cpu_features = "+avx512f,+avx512bf16", native_vector_size = 64 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device]} {
  func.func @gemm(%a: tensor<256x128xbf16>, %b: tensor<128x512xbf16>) -> tensor<256x512xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x128xbf16>, tensor<128x512xbf16>) -> tensor<256x512xf32>
    return %0 : tensor<256x512xf32>
  }
  func.func @gemm_nk(%a: tensor<256x128xbf16>, %b: tensor<512x128xbf16>) -> tensor<256x512xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] : (tensor<256x128xbf16>, tensor<512x128xbf16>) -> tensor<256x512xf32>
    return %0 : tensor<256x512xf32>
  }
  func.func @twice(%a: tensor<256x128xbf16>, %b: tensor<128x512xbf16>) -> tensor<256x512xf32> {
    %0 = stablehlo.dot %a, %b : (tensor<256x128xbf16>, tensor<128x512xbf16>) -> tensor<256x512xf32>
    %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x128xbf16>, tensor<128x512xbf16>) -> tensor<256x512xf32>
    %2 = stablehlo.add %0, %1 : tensor<256x512xf32>
    return %2 : tensor<256x512xf32>
  }
  func.func @weights(%a: tensor<64x1024xf32>) -> tensor<64x256xf32> {
    %w = stablehlo.constant dense<5.000000e-01> : tensor<1024x256xf32>
    %0 = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<64x1024xf32>, tensor<1024x256xf32>) -> tensor<64x256xf32>
    return %0 : tensor<64x256xf32>
  }
  func.func @lead(%a: tensor<2x128x128xbf16>, %b: tensor<128x512xbf16>) -> tensor<2x128x512xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<2x128x128xbf16>, tensor<128x512xbf16>) -> tensor<2x128x512xf32>
    return %0 : tensor<2x128x512xf32>
  }
  func.func @small(%a: tensor<8x2xbf16>, %b: tensor<2x32xbf16>) -> tensor<8x32xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x2xbf16>, tensor<2x32xbf16>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
  func.func @ragged(%a: tensor<256x128xbf16>, %b: tensor<128x500xbf16>) -> tensor<256x500xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x128xbf16>, tensor<128x500xbf16>) -> tensor<256x500xf32>
    return %0 : tensor<256x500xf32>
  }
  func.func @batched(%a: tensor<2x256x128xbf16>, %b: tensor<2x128x512xbf16>) -> tensor<2x256x512xf32> {
    %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x256x128xbf16>, tensor<2x128x512xbf16>) -> tensor<2x256x512xf32>
    return %0 : tensor<2x256x512xf32>
  }
  func.func @f32(%a: tensor<512x32xf32>, %b: tensor<32x512xf32>) -> tensor<512x512xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<512x32xf32>, tensor<32x512xf32>) -> tensor<512x512xf32>
    return %0 : tensor<512x512xf32>
  }
  func.func @f32_nk(%a: tensor<512x32xf32>, %b: tensor<512x32xf32>) -> tensor<512x512xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] : (tensor<512x32xf32>, tensor<512x32xf32>) -> tensor<512x512xf32>
    return %0 : tensor<512x512xf32>
  }
  func.func @f32_few_rows(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>) -> tensor<256x512xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x128xf32>, tensor<128x512xf32>) -> tensor<256x512xf32>
    return %0 : tensor<256x512xf32>
  }
  func.func @algorithm(%a: tensor<256x128xbf16>, %b: tensor<128x512xbf16>) -> tensor<256x512xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<256x128xbf16>, tensor<128x512xbf16>) -> tensor<256x512xf32>
    return %0 : tensor<256x512xf32>
  }
  func.func @conv(%x: tensor<1x16x32x64xf32>) -> tensor<1x16x32x64xf32> {
    %w = stablehlo.constant dense<5.000000e-01> : tensor<3x3x64x64xf32>
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x32x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x16x32x64xf32>
    return %0 : tensor<1x16x32x64xf32>
  }
  func.func @strided_conv(%x: tensor<1x32x64x64xf32>) -> tensor<1x16x32x64xf32> {
    %w = stablehlo.constant dense<5.000000e-01> : tensor<3x3x64x64xf32>
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x32x64x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x16x32x64xf32>
    return %0 : tensor<1x16x32x64xf32>
  }
  func.func @transposed_conv(%x: tensor<1x16x32x64xf32>) -> tensor<1x31x63x64xf32> {
    %w = stablehlo.constant dense<5.000000e-01> : tensor<3x3x64x64xf32>
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x32x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x31x63x64xf32>
    return %0 : tensor<1x31x63x64xf32>
  }
}
