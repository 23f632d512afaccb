// One flag per pass, Python or native, run in command-line order; options
// follow `=` (quoted or not).
// RUN: oxla-opt %s --canonicalize | FileCheck %s --check-prefix=CANON
// RUN: oxla-opt %s --cse | FileCheck %s --check-prefix=CSE
// RUN: oxla-opt %s --canonicalize --cse | FileCheck %s --check-prefix=BOTH
// RUN: oxla-opt %s --oxla-dce | FileCheck %s --check-prefix=DCE
// RUN: oxla-opt %s --oxla-dce='functions=false' | FileCheck %s --check-prefix=KEEPFN
// RUN: oxla-opt %s --oxla-dce=functions=false | FileCheck %s --check-prefix=KEEPFN
// RUN: oxla-opt %s --oxla-dce='functions=0' | FileCheck %s --check-prefix=KEEPFN
// Native options through a flag.
// RUN: oxla-opt %s --canonicalize='max-iterations=1' --cse | FileCheck %s --check-prefix=BOTH
// A native pass restricted to func.func is nested implicitly, as mlir-opt does.
// RUN: oxla-opt %s --chlo-legalize-to-stablehlo | FileCheck %s --check-prefix=NESTED
// RUN: oxla-opt %s --chlo-legalize-to-stablehlo --mlir-print-ir-after-all -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED-DUMP

// CANON-LABEL: func.func @f
// CANON-NOT:     arith.constant 0
// CANON:         arith.muli
// CANON-NEXT:    arith.muli
// CANON-NEXT:    arith.addi
// CANON-NEXT:    chlo.tan
// CANON-NEXT:    return
// CSE-LABEL: func.func @f
// CSE-NEXT:    arith.constant 0
// CSE-NEXT:    %[[M:.*]] = arith.muli
// CSE-NEXT:    arith.addi %[[M]], %[[M]]
// CSE-NEXT:    arith.addi
// BOTH-LABEL: func.func @f
// BOTH-NEXT:    %[[M:.*]] = arith.muli %arg0, %arg0
// BOTH-NEXT:    %[[S:.*]] = arith.addi %[[M]], %[[M]]
// BOTH-NEXT:    %[[T:.*]] = chlo.tan %arg1
// BOTH-NEXT:    return %[[S]], %[[T]]
// DCE-LABEL: func.func @f
// DCE-NOT:   @unused
// KEEPFN-LABEL: func.func @f
// KEEPFN:       func.func private @unused
// NESTED-LABEL: func.func @f
// NESTED:         stablehlo.tan %arg1
// NESTED-NOT:     chlo.tan
// Each function is dumped on its own (in either order: functions run in parallel).
// NESTED-DUMP:      // -----// IR Dump After ChloLegalizeToStablehloPass: chlo-legalize-to-stablehlo //----- //
// NESTED-DUMP-NEXT: func.func {{@f|private @unused}}
// NESTED-DUMP:      // -----// IR Dump After ChloLegalizeToStablehloPass: chlo-legalize-to-stablehlo //----- //
// NESTED-DUMP-NEXT: func.func {{@f|private @unused}}
// NESTED-DUMP-NOT:  IR Dump
func.func @f(%x: i32, %t: tensor<4xf32>) -> (i32, tensor<4xf32>) {
  %c0 = arith.constant 0 : i32
  %0 = arith.muli %x, %x : i32
  %1 = arith.muli %x, %x : i32
  %2 = arith.addi %0, %1 : i32
  %3 = arith.addi %2, %c0 : i32
  %4 = chlo.tan %t : tensor<4xf32> -> tensor<4xf32>
  return %3, %4 : i32, tensor<4xf32>
}
func.func private @unused() {
  return
}
