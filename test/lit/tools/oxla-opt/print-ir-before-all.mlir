// --mlir-print-ir-before-all dumps the IR each pass is about to see.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-before-all \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse),oxla-strip-locations)' -o /dev/null 2>&1 | FileCheck %s
// Before and after together interleave.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-before-all --mlir-print-ir-after-all \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOTH

// The first dump is the input: the dead op and the unused function are there.
// CHECK:      // -----// IR Dump Before DeadCodeElimination: oxla-dce //----- //
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT:     %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:     %1 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:     %2 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT:     %3 = arith.muli %0, %1 : i32
// CHECK-NEXT:     return %3 : i32
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @unused() {
// CHECK:      // -----// IR Dump Before CSEPass: cse //----- //
// CHECK-NEXT: func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT:   %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:   %1 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:   %2 = arith.muli %0, %1 : i32
// CHECK:      // -----// IR Dump Before StripLocations: oxla-strip-locations //----- //
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT:     %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:     %1 = arith.muli %0, %0 : i32
// CHECK-NOT:  IR Dump

// BOTH:     IR Dump Before DeadCodeElimination: oxla-dce
// BOTH:     IR Dump After DeadCodeElimination: oxla-dce
// BOTH:     IR Dump Before CSEPass: cse
// BOTH:     IR Dump After CSEPass: cse
// BOTH-NOT: IR Dump
