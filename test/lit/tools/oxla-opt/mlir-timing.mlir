// --mlir-timing prints MLIR's execution time report to stderr; Python passes
// appear by class name beside the native ones, in pipeline order.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-timing -o /dev/null \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse,oxla-print-op-stats{output=%t.stats}),canonicalize,oxla-strip-locations)' 2>&1 \
// RUN:   | FileCheck %s
// With pass flags, and the IR still on stdout.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --mlir-timing --oxla-dce --cse 2>%t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=FLAGS --input-file %t.err
// Without the flag, no report.
// RUN: oxla-opt %S/Inputs/print-ir.mlir --oxla-dce --cse 2>&1 | FileCheck %s --check-prefix=NOREPORT

// CHECK:      ... Execution time report ...
// CHECK:      Total Execution Time: {{[0-9.]+}} seconds
// CHECK:      ----Wall Time----  ----Name----
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  DeadCodeElimination
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  'func.func' Pipeline
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    CSEPass
// CHECK:      {{[0-9.]+}} ({{ *[0-9.]+}}%)  PrintOpStats
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Canonicalizer
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  StripLocations
// CHECK:      {{[0-9.]+}} (100.0%)  Total

// OUT: func.func @f
// FLAGS:      DeadCodeElimination
// FLAGS-NEXT: CSEPass
// NOREPORT-NOT: Execution time report
