// With output=<file>, every run of the pass (here one per function) lands in the file.
// RUN: rm -f %t.txt
// RUN: oxla-opt %s -p 'builtin.module(func.func(oxla-print-op-stats{output=%t.txt}))' -o /dev/null
// RUN: FileCheck %s --input-file %t.txt

// CHECK:      Operations encountered:
// CHECK:        arith.addi{{ +}}, 1
// CHECK:        total{{ +}}, 2
// CHECK:      Operations encountered:
// CHECK:        arith.muli{{ +}}, 1
// CHECK:        total{{ +}}, 2
func.func @first(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}
func.func @second(%x: i32) -> i32 {
  %0 = arith.muli %x, %x : i32
  return %0 : i32
}
