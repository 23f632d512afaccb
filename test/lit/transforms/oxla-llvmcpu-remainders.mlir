// RUN: oxla-opt %s -p 'builtin.module(oxla-llvmcpu-remainders)' | FileCheck %s

// An executable's f32 and f64 frems, scalar and vector, call oxla's fmod of their type (a vector one lane
// by lane); each helper is defined once per module, and an f16 frem stays.
// CHECK-LABEL: llvm.func @dispatch
// CHECK:         llvm.call @__oxla_fmod_f64(%arg0, %arg1) : (f64, f64) -> f64
// CHECK:         llvm.call @__oxla_fmod_v4f64(%arg2, %arg3) : (vector<4xf64>, vector<4xf64>) -> vector<4xf64>
// CHECK:         llvm.call @__oxla_fmod_v4f64(%arg3, %arg2)
// CHECK:         llvm.call @__oxla_fmod_v8f32(%arg4, %arg5) : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK:         llvm.frem %arg6, %arg6 : f16
// The fmod: NaN for an infinite or NaN x and a zero or NaN y, x where |x| < |y|, else the significands'
// remainder by long division, 11 quotient bits a step for f64, renormalized.
// CHECK:       llvm.func internal @__oxla_fmod_f64(%{{.*}}: f64, %{{.*}}: f64) -> f64
// CHECK:         llvm.cond_br
// CHECK:         llvm.mlir.constant(9221120237041090560 : i64)
// CHECK:         llvm.urem
// CHECK:       ^bb{{[0-9]+}}(%{{.*}}: i64, %{{.*}}: i64):
// CHECK:         llvm.urem
// CHECK:         llvm.intr.ctlz
// CHECK:       llvm.func internal @__oxla_fmod_v4f64(
// CHECK-COUNT-4: llvm.call @__oxla_fmod_f64
// f32 works on the same i64 bits, 40 quotient bits a step, and narrows at the end.
// CHECK:       llvm.func internal @__oxla_fmod_f32(%{{.*}}: f32, %{{.*}}: f32) -> f32
// CHECK:         llvm.mlir.constant(40 : i64)
// CHECK:         llvm.zext %{{.*}} : i32 to i64
// CHECK:         llvm.trunc %{{.*}} : i64 to i32
// CHECK:       llvm.func internal @__oxla_fmod_v8f32(
// CHECK-COUNT-8: llvm.call @__oxla_fmod_f32
// CHECK-NOT:   llvm.func
module {
  llvm.func @dispatch(%a: f64, %b: f64, %u: vector<4xf64>, %v: vector<4xf64>, %p: vector<8xf32>, %q: vector<8xf32>, %h: f16) -> f64 {
    %0 = llvm.frem %a, %b : f64
    %1 = llvm.frem %u, %v : vector<4xf64>
    %2 = llvm.frem %v, %u : vector<4xf64>
    %3 = llvm.frem %p, %q : vector<8xf32>
    %4 = llvm.frem %h, %h : f16
    llvm.return %0 : f64
  }
}
