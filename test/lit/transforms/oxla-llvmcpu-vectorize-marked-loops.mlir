// RUN: oxla-opt %s -p 'builtin.module(oxla-llvmcpu-vectorize-marked-loops)' | FileCheck %s

// A marked function's one-block (innermost) loop asks LLVM to vectorize it and the mark goes; its
// outer loop and an unmarked function's loops stay as they are.
// CHECK-DAG:   #[[VEC:.*]] = #llvm.loop_vectorize<disable = false>
// CHECK-DAG:   #[[ANN:.*]] = #llvm.loop_annotation<vectorize = #[[VEC]]>
// CHECK:       llvm.func @marked(%{{[^)]*}}) {
// CHECK:         llvm.br ^bb3(%{{.*}} : i64) loop_annotation = #[[ANN]]
// CHECK:         llvm.br ^bb1(%{{.*}} : i64){{$}}
// CHECK-LABEL: llvm.func @unmarked
// CHECK-NOT:     loop_annotation
llvm.func @marked(%n: i64) attributes {oxla.vectorize_loops_in_llvm} {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  llvm.br ^bb1(%c0 : i64)
^bb1(%i: i64):
  %outer = llvm.icmp "slt" %i, %n : i64
  llvm.cond_br %outer, ^bb2, ^bb5
^bb2:
  llvm.br ^bb3(%c0 : i64)
^bb3(%j: i64):
  %inner = llvm.icmp "slt" %j, %n : i64
  llvm.cond_br %inner, ^bb4, ^bb6
^bb4:
  %j1 = llvm.add %j, %c1 : i64
  llvm.br ^bb3(%j1 : i64)
^bb6:
  %i1 = llvm.add %i, %c1 : i64
  llvm.br ^bb1(%i1 : i64)
^bb5:
  llvm.return
}

llvm.func @unmarked(%n: i64) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  llvm.br ^bb1(%c0 : i64)
^bb1(%i: i64):
  %lt = llvm.icmp "slt" %i, %n : i64
  llvm.cond_br %lt, ^bb2, ^bb3
^bb2:
  %i1 = llvm.add %i, %c1 : i64
  llvm.br ^bb1(%i1 : i64)
^bb3:
  llvm.return
}
