// Python and native passes share one pipeline and run in the stated order.
// Here the order changes the result: canonicalize folds the scf.if on a
// constant condition, which drops the only call of @only_if_false; oxla-dce
// removes that function only when it runs afterwards.
// RUN: oxla-opt %s -p 'builtin.module(canonicalize,oxla-dce)' | FileCheck %s --check-prefix=NATIVE-FIRST
// RUN: oxla-opt %s -p 'builtin.module(oxla-dce,canonicalize)' | FileCheck %s --check-prefix=PYTHON-FIRST
// The same with one flag per pass.
// RUN: oxla-opt %s --canonicalize --oxla-dce | FileCheck %s --check-prefix=NATIVE-FIRST
// RUN: oxla-opt %s --oxla-dce --canonicalize | FileCheck %s --check-prefix=PYTHON-FIRST
// A Python pass sees exactly what the native passes before it produced:
// op counts before cse, after cse, after canonicalize.
// RUN: oxla-opt %s -o /dev/null \
// RUN:   -p 'builtin.module(oxla-print-op-stats,func.func(cse),oxla-print-op-stats,canonicalize,oxla-print-op-stats)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATS
// The timing report lists them in that order too.
// RUN: oxla-opt %s -o /dev/null --mlir-timing -p 'builtin.module(canonicalize,oxla-dce,cse)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TIMING

// NATIVE-FIRST-LABEL: func.func @main
// NATIVE-FIRST-NEXT:    arith.addi %arg0, %arg0
// NATIVE-FIRST-NEXT:    return
// NATIVE-FIRST-NOT:   @only_if_false

// PYTHON-FIRST-LABEL: func.func @main
// PYTHON-FIRST-NEXT:    arith.addi %arg0, %arg0
// PYTHON-FIRST-NEXT:    return
// PYTHON-FIRST:       func.func private @only_if_false

// STATS:      Operations encountered:
// STATS:        arith.addi{{ +}}, 2
// STATS:        total{{ +}}, 11
// STATS:      Operations encountered:
// STATS:        arith.addi{{ +}}, 1
// STATS:        total{{ +}}, 10
// STATS:      Operations encountered:
// STATS-NOT:    scf
// STATS:        func.func{{ +}}, 2
// STATS:        total{{ +}}, 5
// STATS-NOT:  Operations encountered

// TIMING:     Execution time report
// TIMING:      CanonicalizerPass
// TIMING-NEXT: DeadCodeElimination
// TIMING-NEXT: CSEPass

func.func @main(%x: i32) -> i32 {
  %true = arith.constant true
  %0 = scf.if %true -> i32 {
    scf.yield %x : i32
  } else {
    %1 = func.call @only_if_false(%x) : (i32) -> i32
    scf.yield %1 : i32
  }
  %2 = arith.addi %0, %0 : i32
  %3 = arith.addi %0, %0 : i32
  return %2 : i32
}
func.func private @only_if_false(%x: i32) -> i32 {
  return %x : i32
}
