// The input is a path, `-` for stdin, or stdin when no path is given; the
// name locations carry follows it.
// RUN: oxla-opt %s | FileCheck %s
// RUN: oxla-opt - < %s | FileCheck %s
// RUN: oxla-opt < %s | FileCheck %s
// RUN: cat %s | oxla-opt - | FileCheck %s
// RUN: oxla-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=PATH
// RUN: oxla-opt - --mlir-print-debuginfo < %s | FileCheck %s --check-prefix=STDIN
// Only one input: a second path is a usage error.
// RUN: not oxla-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO

// CHECK:      module {
// CHECK-NEXT:   func.func @identity(%arg0: i32) -> i32 {
// CHECK-NEXT:     return %arg0 : i32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// PATH:  loc("{{.*}}input.mlir":[[# @LINE + 4]]:3)
// STDIN: loc("<stdin>":[[# @LINE + 3]]:3)
// TWO:   oxla-opt: error: unrecognized arguments: {{.*}}input.mlir
func.func @identity(%x: i32) -> i32 {
  return %x : i32
}
