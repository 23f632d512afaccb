// Ops of dialects that are not registered are an error, unless
// --allow-unregistered-dialect is given; then they parse, print, and go
// through passes (which leave them alone).
// RUN: oxla-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: oxla-opt %s --allow-unregistered-dialect --oxla-dce --cse --canonicalize | FileCheck %s --check-prefix=PASSES
// RUN: oxla-opt %s --allow-unregistered-dialect --emit-bytecode | oxla-opt --allow-unregistered-dialect \
// RUN:   | FileCheck %s
// RUN: not oxla-opt %s 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: %expect-exit 1 oxla-opt %s
// The flag applies to reading bytecode too.
// RUN: oxla-opt %s --allow-unregistered-dialect --emit-bytecode | not oxla-opt 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REFUSED-BYTECODE

// CHECK:      func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT:   %0 = "mydialect.op"(%arg0) {attr = #mydialect.thing<"x">} : (i32) -> i32
// CHECK-NEXT:   %1 = "mydialect.op"(%arg0) {attr = #mydialect.thing<"x">} : (i32) -> i32
// CHECK-NEXT:   "mydialect.effect"() : () -> ()
// CHECK-NEXT:   return %0 : i32

// PASSES:      func.func @f(%arg0: i32) -> i32 {
// PASSES-NEXT:   %0 = "mydialect.op"(%arg0)
// PASSES-NEXT:   %1 = "mydialect.op"(%arg0)
// PASSES-NEXT:   "mydialect.effect"() : () -> ()

// REFUSED-NOT: Traceback
// REFUSED:     allow-unregistered-dialect.mlir:[[# @LINE + 7]]:22: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
// REFUSED-NOT: Traceback

// REFUSED-BYTECODE: <stdin>:0:0: error: dialect 'mydialect' is unknown
// REFUSED-BYTECODE-NOT: Traceback

func.func @f(%x: i32) -> i32 {
  %0 = "mydialect.op"(%x) {attr = #mydialect.thing<"x">} : (i32) -> i32
  %1 = "mydialect.op"(%x) {attr = #mydialect.thing<"x">} : (i32) -> i32
  "mydialect.effect"() : () -> ()
  return %0 : i32
}
