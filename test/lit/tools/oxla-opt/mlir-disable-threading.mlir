// Single-threaded runs dump per-function IR in program order, every time.
// RUN: oxla-opt %s --mlir-disable-threading --mlir-print-ir-after-all -p 'builtin.module(func.func(cse))' -o /dev/null 2>&1 | FileCheck %s

// CHECK:      IR Dump After CSEPass
// CHECK-NEXT: func.func @first
// CHECK:      IR Dump After CSEPass
// CHECK-NEXT: func.func @second
// CHECK:      IR Dump After CSEPass
// CHECK-NEXT: func.func @third
func.func @first(%x: i32) -> i32 {
  return %x : i32
}
func.func @second(%x: i32) -> i32 {
  return %x : i32
}
func.func @third(%x: i32) -> i32 {
  return %x : i32
}
