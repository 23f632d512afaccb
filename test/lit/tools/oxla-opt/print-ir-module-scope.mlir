// --mlir-print-ir-module-scope makes the dumps of nested passes show the
// whole module. (MLIR aborts the process when this meets a multithreaded
// context: such a pipeline runs single-threaded, so this is an ordinary run.)
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after-all --mlir-print-ir-module-scope \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse))' -o /dev/null 2>&1 | FileCheck %s
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-before-all --mlir-print-ir-module-scope \
// RUN:   -p 'builtin.module(func.func(cse))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after=cse --mlir-print-ir-module-scope \
// RUN:   -p 'builtin.module(func.func(cse))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after-failure --mlir-print-ir-module-scope \
// RUN:   -p 'builtin.module(func.func(cse))' 2>&1 | FileCheck %s --check-prefix=QUIET
// Without it, the nested dump is the function alone.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after=cse \
// RUN:   -p 'builtin.module(func.func(cse))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOCAL

// CHECK:      // -----// IR Dump After DeadCodeElimination: oxla-dce ('builtin.module' operation) //----- //
// CHECK-NEXT: module {
// CHECK:      // -----// IR Dump After CSEPass: cse ('func.func' operation: @f) //----- //
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT:     %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:     %1 = arith.muli %0, %0 : i32

// Both functions are there: the dump is not limited to the function cse runs on.
// BEFORE:      // -----// IR Dump Before CSEPass: cse ('func.func' operation: @{{f|unused}}) //----- //
// BEFORE-NEXT: module {
// BEFORE-NEXT:   func.func @f
// BEFORE:        func.func private @unused

// NAMED:      // -----// IR Dump After cse //----- //
// NAMED-NEXT: module {
// NAMED-NEXT:   func.func @f
// NAMED:        func.func private @unused

// QUIET-NOT:  IR Dump
// QUIET:      module {
// QUIET-NOT:  IR Dump

// LOCAL:      // -----// IR Dump After cse //----- //
// LOCAL-NEXT: func.func @f
// LOCAL-NOT:  module
