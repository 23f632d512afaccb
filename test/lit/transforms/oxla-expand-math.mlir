// RUN: oxla-opt %s --split-input-file --oxla-expand-math | FileCheck %s
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-expand-math{ops=stablehlo.sine})' \
// RUN:   | FileCheck %s --check-prefix=ONLY-SINE
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-expand-math{decompose-chlo=false})' \
// RUN:   | FileCheck %s --check-prefix=KEEP-CHLO
// RUN: not oxla-opt %s -p 'builtin.module(oxla-expand-math{ops=stablehlo.add})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: error: oxla-expand-math cannot expand stablehlo.add; it knows stablehlo.cosine,

// An f64 cosine becomes one stablehlo.map whose scalar body is f64 arithmetic:
// no cosine (libm's cos) is left, the reduction rounds x*2/pi, and the result
// comes straight out of the body.
// CHECK-LABEL: func.func @cos_f64
// CHECK-NEXT:    %[[MAP:.*]] = "stablehlo.map"(%arg0) <{dimensions = array<i64: 0>}> ({
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<f64>):
// CHECK-NOT:       stablehlo.cosine
// CHECK:           stablehlo.round_nearest_even
// CHECK-NOT:       stablehlo.cosine
// CHECK:           stablehlo.return %{{.*}} : tensor<f64>
// CHECK-NEXT:    }) : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT:    return %[[MAP]]
// ONLY-SINE-LABEL: func.func @cos_f64
// ONLY-SINE-NEXT:    stablehlo.cosine
func.func @cos_f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = stablehlo.cosine %x : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// f32 computes in f64: widened first, rounded once at the end.
// CHECK-LABEL: func.func @sin_f32
// CHECK:         "stablehlo.map"(%arg0)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<f32>):
// CHECK-NEXT:      stablehlo.convert %[[X]] : (tensor<f32>) -> tensor<f64>
// CHECK-NOT:       stablehlo.sine
// CHECK:           %[[R:.*]] = stablehlo.convert %{{.*}} : (tensor<f64>) -> tensor<f32>
// CHECK-NEXT:      stablehlo.return %[[R]] : tensor<f32>
// CHECK-NEXT:    }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// ONLY-SINE-LABEL: func.func @sin_f32
// ONLY-SINE:         stablehlo.map
// ONLY-SINE-NOT:     stablehlo.sine
func.func @sin_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.sine %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// bf16 goes through an f32 rounded to odd, so that rounding twice is exact.
// CHECK-LABEL: func.func @cosine_bf16
// CHECK:         ^bb0(%{{.*}}: tensor<bf16>):
// CHECK:           stablehlo.bitcast_convert %{{.*}} : (tensor<f32>) -> tensor<i32>
// CHECK:           %[[ODD:.*]] = stablehlo.bitcast_convert %{{.*}} : (tensor<i32>) -> tensor<f32>
// CHECK-NEXT:      %[[R:.*]] = stablehlo.convert %[[ODD]] : (tensor<f32>) -> tensor<bf16>
// CHECK-NEXT:      stablehlo.return %[[R]]
func.func @cosine_bf16(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = stablehlo.cosine %x : tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

// Real f32 tanh computes in f32 (no f64 anywhere); bf16 tanh widens to f32 and rounds once.
// CHECK-LABEL: func.func @tanh_f32_and_bf16
// CHECK:         "stablehlo.map"
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<f32>):
// CHECK-NOT:       f64
// CHECK:           stablehlo.return %{{.*}} : tensor<f32>
// CHECK:         "stablehlo.map"
// CHECK-NEXT:    ^bb0(%[[B:.*]]: tensor<bf16>):
// CHECK-NEXT:      stablehlo.convert %[[B]] : (tensor<bf16>) -> tensor<f32>
// CHECK-NOT:       f64
// CHECK:           %[[R:.*]] = stablehlo.convert %{{.*}} : (tensor<f32>) -> tensor<bf16>
// CHECK-NEXT:      stablehlo.return %[[R]]
func.func @tanh_f32_and_bf16(%x: tensor<8xf32>, %y: tensor<8xbf16>) -> (tensor<8xf32>, tensor<8xbf16>) {
  %0 = stablehlo.tanh %x : tensor<8xf32>
  %1 = stablehlo.tanh %y : tensor<8xbf16>
  return %0, %1 : tensor<8xf32>, tensor<8xbf16>
}

// -----

// So does f32 log1p; f16 log1p widens to f32 and rounds once.
// CHECK-LABEL: func.func @log1p_f32_and_f16
// CHECK:         "stablehlo.map"
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<f32>):
// CHECK-NOT:       f64
// CHECK:           stablehlo.bitcast_convert %{{.*}} : (tensor<f32>) -> tensor<i32>
// CHECK-NOT:       f64
// CHECK:           stablehlo.return %{{.*}} : tensor<f32>
// CHECK:         "stablehlo.map"
// CHECK-NEXT:    ^bb0(%[[H:.*]]: tensor<f16>):
// CHECK-NEXT:      stablehlo.convert %[[H]] : (tensor<f16>) -> tensor<f32>
// CHECK-NOT:       f64
// CHECK:           %[[R:.*]] = stablehlo.convert %{{.*}} : (tensor<f32>) -> tensor<f16>
// CHECK-NEXT:      stablehlo.return %[[R]]
func.func @log1p_f32_and_f16(%x: tensor<8xf32>, %y: tensor<8xf16>) -> (tensor<8xf32>, tensor<8xf16>) {
  %0 = stablehlo.log_plus_one %x : tensor<8xf32>
  %1 = stablehlo.log_plus_one %y : tensor<8xf16>
  return %0, %1 : tensor<8xf32>, tensor<8xf16>
}

// -----

// And f32 expm1.
// CHECK-LABEL: func.func @expm1_f32
// CHECK:         "stablehlo.map"
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<f32>):
// CHECK-NOT:       f64
// CHECK:           stablehlo.shift_left %{{.*}} : tensor<i32>
// CHECK-NOT:       f64
// CHECK:           stablehlo.return %{{.*}} : tensor<f32>
func.func @expm1_f32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.exponential_minus_one %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Two operands map together; dynamic shapes need nothing special.
// CHECK-LABEL: func.func @atan2_and_pow_dynamic
// CHECK:         "stablehlo.map"(%arg0, %arg1) <{dimensions = array<i64: 0, 1>}>
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<f64>, %{{.*}}: tensor<f64>):
// CHECK:         }) : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
// CHECK:         "stablehlo.map"(%arg0, %arg1)
// CHECK:         }) : (tensor<?x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
// CHECK-NOT:     stablehlo.atan2
// CHECK-NOT:     stablehlo.power
func.func @atan2_and_pow_dynamic(%y: tensor<?x3xf64>, %x: tensor<?x3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>) {
  %0 = stablehlo.atan2 %y, %x : tensor<?x3xf64>
  %1 = stablehlo.power %y, %x : tensor<?x3xf64>
  return %0, %1 : tensor<?x3xf64>, tensor<?x3xf64>
}

// -----

// Complex ops use the real kernels on the parts and put the result back together.
// CHECK-LABEL: func.func @exp_complex64
// CHECK:         ^bb0(%[[Z:.*]]: tensor<complex<f32>>):
// CHECK-NEXT:      %[[RE:.*]] = stablehlo.real %[[Z]] : (tensor<complex<f32>>) -> tensor<f32>
// CHECK-NEXT:      stablehlo.convert %[[RE]] : (tensor<f32>) -> tensor<f64>
// CHECK-NEXT:      %[[IM:.*]] = stablehlo.imag %[[Z]] : (tensor<complex<f32>>) -> tensor<f32>
// CHECK-NEXT:      stablehlo.convert %[[IM]] : (tensor<f32>) -> tensor<f64>
// CHECK-NOT:       stablehlo.exponential
// CHECK:           %[[C:.*]] = stablehlo.complex %{{.*}}, %{{.*}} : tensor<complex<f32>>
// CHECK-NEXT:      stablehlo.return %[[C]]
func.func @exp_complex64(%z: tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>> {
  %0 = stablehlo.exponential %z : tensor<5xcomplex<f32>>
  return %0 : tensor<5xcomplex<f32>>
}

// -----

// Ops that IREE compiles accurately (or that are not transcendental) are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT:    stablehlo.exponential %arg0 : tensor<4xf32>
// CHECK-NEXT:    stablehlo.log %arg1 : tensor<4xf64>
// CHECK-NEXT:    stablehlo.logistic %arg0 : tensor<4xf32>
// CHECK-NEXT:    stablehlo.sqrt %arg1 : tensor<4xf64>
// CHECK-NEXT:    stablehlo.power %arg2, %arg2 : tensor<4xi32>
// CHECK-NEXT:    stablehlo.add %arg0, %arg0 : tensor<4xf32>
// CHECK-NOT:     stablehlo.map
func.func @left_alone(%a: tensor<4xf32>, %b: tensor<4xf64>, %i: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xf64>, tensor<4xf32>, tensor<4xf64>, tensor<4xi32>, tensor<4xf32>) {
  %0 = stablehlo.exponential %a : tensor<4xf32>
  %1 = stablehlo.log %b : tensor<4xf64>
  %2 = stablehlo.logistic %a : tensor<4xf32>
  %3 = stablehlo.sqrt %b : tensor<4xf64>
  %4 = stablehlo.power %i, %i : tensor<4xi32>
  %5 = stablehlo.add %a, %a : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf64>, tensor<4xf32>, tensor<4xf64>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Elementwise CHLO is decomposed first (chlo.atan becomes atan2(x, 1)), so its
// transcendental parts are expanded too; decompose-chlo=false keeps CHLO.
// CHECK-LABEL: func.func @chlo_atan
// CHECK-NOT:     chlo.atan
// CHECK:         "stablehlo.map"
// CHECK-NOT:     stablehlo.atan2
// KEEP-CHLO-LABEL: func.func @chlo_atan
// KEEP-CHLO-NEXT:    chlo.atan %arg0
func.func @chlo_atan(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = chlo.atan %x : tensor<4xf64> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// A function with a CHLO op that is not elementwise (top_k) keeps all its CHLO
// for IREE to lower its own way; its plain StableHLO ops are still expanded,
// and other functions still have their CHLO decomposed.
// CHECK-LABEL: func.func @chlo_top_k
// CHECK:         chlo.top_k
// CHECK:         chlo.tan
// CHECK:         "stablehlo.map"
// CHECK-NOT:     stablehlo.cosine
// CHECK-LABEL: func.func @chlo_tan
// CHECK-NOT:     chlo.tan
// CHECK:         "stablehlo.map"
func.func @chlo_top_k(%x: tensor<4xf64>) -> (tensor<2xf64>, tensor<2xi32>, tensor<4xf64>, tensor<4xf64>) {
  %v, %i = chlo.top_k(%x, k = 2) : tensor<4xf64> -> (tensor<2xf64>, tensor<2xi32>)
  %t = chlo.tan %x : tensor<4xf64> -> tensor<4xf64>
  %c = stablehlo.cosine %x : tensor<4xf64>
  return %v, %i, %t, %c : tensor<2xf64>, tensor<2xi32>, tensor<4xf64>, tensor<4xf64>
}
func.func @chlo_tan(%x: tensor<4xf64>) -> tensor<4xf64> {
  %t = chlo.tan %x : tensor<4xf64> -> tensor<4xf64>
  return %t : tensor<4xf64>
}

// -----

// Modules compiled for another backend (here Vulkan) are left alone: the pass
// is for llvm-cpu, whose executables have no libm.
// CHECK-LABEL: func.func @vulkan_module
// CHECK-NEXT:    stablehlo.cosine
module attributes {hal.device.targets = [#hal.device.target<"vulkan", [#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">]> : !hal.device]} {
  func.func @vulkan_module(%x: tensor<4xf64>) -> tensor<4xf64> {
    %0 = stablehlo.cosine %x : tensor<4xf64>
    return %0 : tensor<4xf64>
  }
}

// -----

// CHECK-LABEL: func.func @cpu_module
// CHECK-NEXT:    "stablehlo.map"
module attributes {hal.device.targets = [#hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">]> : !hal.device]} {
  func.func @cpu_module(%x: tensor<4xf64>) -> tensor<4xf64> {
    %0 = stablehlo.cosine %x : tensor<4xf64>
    return %0 : tensor<4xf64>
  }
}

// -----

// 0-d ops (here in a reduce body, which IREE turns into scalar code) get the
// kernel's ops in place, without a nested map.
// CHECK-LABEL: func.func @in_reduce_body
// CHECK:         stablehlo.reduce
// CHECK-NOT:       stablehlo.map
// CHECK-NOT:       stablehlo.log_plus_one
// CHECK:           stablehlo.add %{{.*}} : tensor<f64>
// CHECK:           stablehlo.return
func.func @in_reduce_body(%x: tensor<8xf64>) -> tensor<f64> {
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %0 = stablehlo.reduce(%x init: %zero) across dimensions = [0] : (tensor<8xf64>, tensor<f64>) -> tensor<f64>
    reducer(%a: tensor<f64>, %b: tensor<f64>) {
      %s = stablehlo.add %a, %b : tensor<f64>
      %l = stablehlo.log_plus_one %s : tensor<f64>
      stablehlo.return %l : tensor<f64>
    }
  return %0 : tensor<f64>
}
