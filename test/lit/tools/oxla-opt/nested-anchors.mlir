// Op anchors nest native and Python passes alike.
// Native passes under func.func:
// RUN: oxla-opt %s -p 'builtin.module(func.func(cse))' | FileCheck %s --check-prefix=CSE
// A Python pass under func.func runs once per function (in order) and sees that function only.
// RUN: oxla-opt %s -o /dev/null -p 'builtin.module(func.func(oxla-print-op-stats))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PER-FUNC
// Between native passes of the same anchor it sees the IR between them.
// RUN: oxla-opt %s -o /dev/null -p 'builtin.module(func.func(cse,oxla-print-op-stats{json=true},canonicalize))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BETWEEN
// RUN: oxla-opt %s -p 'builtin.module(func.func(cse,oxla-print-op-stats{json=true},canonicalize))' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=AFTER
// Deeper anchors reach only the ops they name: here the nested module's function.
// RUN: oxla-opt %s -o /dev/null -p 'builtin.module(builtin.module(func.func(oxla-print-op-stats{json=true})))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEEP
// A module pass under func.func is refused, naming the right anchor.
// RUN: not oxla-opt %s -p 'builtin.module(func.func(oxla-dce))' 2>&1 | FileCheck %s --check-prefix=WRONG
// A func.func-only native pass at module level is refused too.
// RUN: not oxla-opt %s -p 'builtin.module(chlo-legalize-to-stablehlo)' 2>&1 | FileCheck %s --check-prefix=WRONG-NATIVE

// CSE-LABEL: func.func @first
// CSE-NEXT:    %[[A:.*]] = arith.addi %arg0, %arg0
// CSE-NEXT:    arith.muli %[[A]], %[[A]]
// CSE-LABEL: func.func @second
// CSE-NEXT:    arith.constant 0
// CSE-NEXT:    arith.addi
// CSE-NEXT:    return

// PER-FUNC:      Operations encountered:
// PER-FUNC-NEXT: -----------------------
// PER-FUNC-NEXT:   arith{{ +}}, 3
// PER-FUNC-NEXT:     arith.addi{{ +}}, 2
// PER-FUNC-NEXT:     arith.muli{{ +}}, 1
// PER-FUNC-NEXT:   func{{ +}}, 1
// PER-FUNC-NEXT:     func.return{{ +}}, 1
// PER-FUNC-NEXT:   total{{ +}}, 4
// PER-FUNC-NEXT: Operations encountered:
// PER-FUNC-NEXT: -----------------------
// PER-FUNC-NEXT:   arith{{ +}}, 2
// PER-FUNC-NEXT:     arith.addi{{ +}}, 1
// PER-FUNC-NEXT:     arith.constant{{ +}}, 1
// PER-FUNC-NEXT:   func{{ +}}, 1
// PER-FUNC-NEXT:     func.return{{ +}}, 1
// PER-FUNC-NEXT:   total{{ +}}, 3
// PER-FUNC-NOT:  Operations encountered

// BETWEEN:      {
// BETWEEN-NEXT:   "arith.addi": 1,
// BETWEEN-NEXT:   "arith.muli": 1,
// BETWEEN-NEXT:   "func.return": 1
// BETWEEN-NEXT: }
// BETWEEN-NEXT: {
// BETWEEN-NEXT:   "arith.addi": 1,
// BETWEEN-NEXT:   "arith.constant": 1,
// BETWEEN-NEXT:   "func.return": 1
// BETWEEN-NEXT: }
// BETWEEN-NOT:  {
// The canonicalize after it did fold that add away:
// AFTER-LABEL: func.func @second
// AFTER-NEXT:    return %arg0

// DEEP:      {
// DEEP-NEXT:   "arith.subi": 1,
// DEEP-NEXT:   "func.return": 1
// DEEP-NEXT: }
// DEEP-NOT:  {

// WRONG: oxla-opt: error: pass 'oxla-dce' runs on 'builtin.module' ops but is scheduled on 'func.func' ops; place it inside 'builtin.module(...)'
// WRONG-NATIVE: oxla-opt: error: invalid pass pipeline 'chlo-legalize-to-stablehlo': Can't add pass 'ChloLegalizeToStablehloPass' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

module {
  func.func @first(%x: i32) -> i32 {
    %0 = arith.addi %x, %x : i32
    %1 = arith.addi %x, %x : i32
    %2 = arith.muli %0, %1 : i32
    return %2 : i32
  }
  func.func @second(%x: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %0 = arith.addi %x, %c0 : i32
    return %0 : i32
  }
  module @inner {
    func.func @deep(%x: i32) -> i32 {
      %0 = arith.subi %x, %x : i32
      return %0 : i32
    }
  }
}
