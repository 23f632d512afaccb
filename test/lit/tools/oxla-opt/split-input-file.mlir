// Each `// -----` chunk is parsed and transformed on its own; the outputs are
// joined with the same marker, and error locations keep the file's own lines.
// RUN: not oxla-opt %s --split-input-file --cse 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR --input-file %t.err
// The failing chunk makes the exit status 1, after the other chunks are done.
// RUN: %expect-exit 1 oxla-opt %s --split-input-file -o /dev/null
// From stdin alike.
// RUN: not oxla-opt --split-input-file - < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// Without the flag the marker is a comment: the whole file is one module, and
// the bad op makes all of it fail, so nothing is printed.
// RUN: not oxla-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE

// CHECK:      module {
// CHECK-NEXT:   func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT:     %[[A:.*]] = arith.addi %arg0, %arg0
// CHECK-NEXT:     arith.muli %[[A]], %[[A]]
// CHECK-NEXT:     return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @f() {
// CHECK-NEXT:     return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  // -----
// CHECK-NOT:  module

// ERR:      split-input-file.mlir:[[# @LINE + 17]]:8: error: custom op 'arith.bogus' is unknown
// ERR-NEXT:   %0 = arith.bogus %x : i32
// ERR-NEXT:        ^
// STDIN:      <stdin>:[[# @LINE + 14]]:8: error: custom op 'arith.bogus' is unknown
// STDIN-NOT:  error
// WHOLE:      split-input-file.mlir:[[# @LINE + 12]]:8: error: custom op 'arith.bogus' is unknown
// WHOLE-NOT:  module
func.func @f(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  %1 = arith.addi %x, %x : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}

// -----

func.func @g(%x: i32) -> i32 {
  %0 = arith.bogus %x : i32
  return %0 : i32
}

// -----

func.func @f() {
  return
}
