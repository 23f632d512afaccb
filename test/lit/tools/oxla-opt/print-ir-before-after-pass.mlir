// --mlir-print-ir-before=<pass> and --mlir-print-ir-after=<pass> dump around
// the named passes only, Python or native; the flags repeat, or take a
// comma-separated list. A nested pass dumps the ops it runs on.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-before=cse -o /dev/null \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse),oxla-strip-locations)' 2>&1 | FileCheck %s --check-prefix=BEFORE-CSE
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after=oxla-dce -o /dev/null \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse),oxla-strip-locations)' 2>&1 | FileCheck %s --check-prefix=AFTER-DCE
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-before=oxla-dce --mlir-print-ir-after=cse -o /dev/null \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse),oxla-strip-locations)' 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after=oxla-dce,oxla-strip-locations -o /dev/null \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse),oxla-strip-locations)' 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after=oxla-dce --mlir-print-ir-after=oxla-strip-locations \
// RUN:   -o /dev/null -p 'builtin.module(oxla-dce,func.func(cse),oxla-strip-locations)' 2>&1 | FileCheck %s --check-prefix=LIST
// A name that is not in the pipeline dumps nothing.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after=canonicalize -o /dev/null --cse 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE --allow-empty

// BEFORE-CSE:      // -----// IR Dump Before cse //----- //
// BEFORE-CSE-NEXT: func.func @f(%arg0: i32) -> i32 {
// BEFORE-CSE-NEXT:   %0 = arith.addi %arg0, %arg0 : i32
// BEFORE-CSE-NEXT:   %1 = arith.addi %arg0, %arg0 : i32
// BEFORE-CSE-NEXT:   %2 = arith.muli %0, %1 : i32
// BEFORE-CSE-NEXT:   return %2 : i32
// BEFORE-CSE-NEXT: }
// BEFORE-CSE-NOT:  IR Dump

// AFTER-DCE:      // -----// IR Dump After oxla-dce //----- //
// AFTER-DCE-NEXT: module {
// AFTER-DCE-NEXT:   func.func @f(%arg0: i32) -> i32 {
// AFTER-DCE-NOT:      arith.muli %arg0, %arg0
// AFTER-DCE-NOT:    @unused
// AFTER-DCE-NOT:  IR Dump

// MIXED:      // -----// IR Dump Before oxla-dce //----- //
// MIXED:        func.func private @unused
// MIXED:      // -----// IR Dump After cse //----- //
// MIXED-NEXT: func.func @f(%arg0: i32) -> i32 {
// MIXED-NEXT:   %0 = arith.addi %arg0, %arg0 : i32
// MIXED-NEXT:   %1 = arith.muli %0, %0 : i32
// MIXED-NOT:  IR Dump

// LIST:     // -----// IR Dump After oxla-dce //----- //
// LIST:     // -----// IR Dump After oxla-strip-locations //----- //
// LIST-NOT: IR Dump

// NONE-NOT: {{.}}
