// --pass-pipeline=, its space-separated form, and -p all take MLIR's textual
// pipeline syntax; the outer builtin.module(...) anchor may be left out.
// RUN: oxla-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,cse))' | FileCheck %s
// RUN: oxla-opt %s --pass-pipeline 'builtin.module(func.func(canonicalize,cse))' | FileCheck %s
// RUN: oxla-opt %s -p 'builtin.module(func.func(canonicalize,cse))' | FileCheck %s
// RUN: oxla-opt %s -p 'func.func(canonicalize),cse' | FileCheck %s
// Whitespace around names and commas is fine.
// RUN: oxla-opt %s -p ' builtin.module( func.func( canonicalize , cse ) ) ' | FileCheck %s
// Native pass options go through verbatim.
// RUN: oxla-opt %s -p 'builtin.module(canonicalize{max-iterations=1 region-simplify=disabled},cse)' | FileCheck %s
// An empty pipeline changes nothing.
// RUN: oxla-opt %s -p 'builtin.module()' | FileCheck %s --check-prefix=NOOP
// RUN: oxla-opt %s -p '' | FileCheck %s --check-prefix=NOOP
// A pipeline and a pass flag do not mix.
// RUN: not oxla-opt %s -p 'builtin.module(cse)' --canonicalize 2>&1 | FileCheck %s --check-prefix=MIXED
// A pipeline anchored on another op than the module is refused.
// RUN: not oxla-opt %s -p 'func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %[[M:.*]] = arith.muli %arg0, %arg0
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[M]], %[[M]]
// CHECK-NEXT:    return %[[S]]
// CHECK-NEXT:  }
// NOOP-LABEL: func.func @f
// NOOP-NEXT:    arith.constant 0
// NOOP-NEXT:    arith.muli
// NOOP-NEXT:    arith.muli
// NOOP-NEXT:    arith.addi
// NOOP-NEXT:    arith.addi
// MIXED: oxla-opt: error: --pass-pipeline cannot be combined with individual pass flags
// ANCHOR: oxla-opt: error: the pipeline is anchored on 'func.func' but will be given a 'builtin.module' op
func.func @f(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.muli %x, %x : i32
  %1 = arith.muli %x, %x : i32
  %2 = arith.addi %0, %1 : i32
  %3 = arith.addi %2, %c0 : i32
  return %3 : i32
}
