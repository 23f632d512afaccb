// --mlir-print-ir-after-all dumps the IR to stderr after every pass, Python
// passes (by class and pass name) and native ones alike, in pipeline order;
// a func.func pass dumps the function. The result still goes to stdout.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after-all \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse),oxla-strip-locations)' 2>%t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file %t.err
// The same with one flag per pass (cse then runs on the module).
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after-all --oxla-dce --cse --oxla-strip-locations \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGS
// Without passes there is nothing to dump.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=NONE --allow-empty

// CHECK:      // -----// IR Dump After DeadCodeElimination: oxla-dce //----- //
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT:     %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:     %1 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:     %2 = arith.muli %0, %1 : i32
// CHECK-NEXT:     return %2 : i32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      // -----// IR Dump After CSEPass: cse //----- //
// CHECK-NEXT: func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT:   %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT:   %1 = arith.muli %0, %0 : i32
// CHECK-NEXT:   return %1 : i32
// CHECK-NEXT: }
// CHECK:      // -----// IR Dump After StripLocations: oxla-strip-locations //----- //
// CHECK-NEXT: module {
// CHECK-NOT:  IR Dump

// FLAGS:      // -----// IR Dump After DeadCodeElimination: oxla-dce //----- //
// FLAGS:      // -----// IR Dump After CSEPass: cse //----- //
// FLAGS-NEXT: module {
// FLAGS:      // -----// IR Dump After StripLocations: oxla-strip-locations //----- //
// FLAGS-NOT:  IR Dump

// OUT:      module {
// OUT-NEXT:   func.func @f
// OUT-NOT:  IR Dump

// NONE-NOT: {{.}}
