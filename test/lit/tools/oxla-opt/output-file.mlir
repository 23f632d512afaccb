// -o writes the result to a file (and nothing to stdout); `-o -` is stdout.
// RUN: rm -f %t.out.mlir
// RUN: oxla-opt %s -o %t.out.mlir | FileCheck %s --check-prefix=EMPTY --allow-empty
// RUN: FileCheck %s --input-file %t.out.mlir
// RUN: oxla-opt %s -o - | FileCheck %s
// An existing file is overwritten, not appended to.
// RUN: oxla-opt %s --cse -o %t.out.mlir
// RUN: FileCheck %s --check-prefix=ONCE --input-file %t.out.mlir
// A path that cannot be written is an error with status 1, not a traceback.
// RUN: not oxla-opt %s -o %t.missing-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// RUN: %expect-exit 1 oxla-opt %s -o %t.missing-dir/out.mlir

// EMPTY-NOT: {{.}}
// CHECK:      func.func @f() -> i32 {
// CHECK-NEXT:   %[[C:.*]] = arith.constant 7 : i32
// CHECK-NEXT:   return %[[C]] : i32
// ONCE-COUNT-1: func.func @f
// ONCE-NOT:     func.func @f
// UNWRITABLE-NOT: Traceback
// UNWRITABLE: oxla-opt: error: could not open output file '{{.*}}missing-dir/out.mlir': No such file or directory
// UNWRITABLE-NOT: Traceback
func.func @f() -> i32 {
  %c = arith.constant 7 : i32
  return %c : i32
}
