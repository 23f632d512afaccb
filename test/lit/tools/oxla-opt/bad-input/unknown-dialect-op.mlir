// Ops, types and attributes that no registered dialect knows are errors at
// their location (without --allow-unregistered-dialect); exit status 1.
// RUN: not oxla-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: %expect-exit 1 oxla-opt %s --split-input-file -o /dev/null

// CHECK-NOT:  Traceback
// An unknown dialect, generic form.
// CHECK:      unknown-dialect-op.mlir:[[# @LINE + 14]]:26: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
// CHECK-NEXT:   %0 = "nosuchdialect.op"(%x) : (i32) -> i32
// CHECK-NEXT: {{^ +\^$}}
// An unknown dialect, custom form.
// CHECK:      unknown-dialect-op.mlir:[[# @LINE + 17]]:8: error: Dialect `nosuchdialect' not found for custom op 'nosuchdialect.op'
// An unknown op of a known dialect.
// CHECK:      unknown-dialect-op.mlir:[[# @LINE + 22]]:8: error: custom op 'arith.frobnicate' is unknown
// An unknown type and an unknown attribute.
// CHECK:      unknown-dialect-op.mlir:[[# @LINE + 26]]:44: error: `!"nosuchdialect"<"type">` type created with unregistered dialect
// CHECK:      unknown-dialect-op.mlir:[[# @LINE + 31]]:63: error: #"nosuchdialect"<"attr"> : 'none' attribute created with unregistered dialect
// CHECK-NOT:  error:
// CHECK-NOT:  Traceback

func.func @generic(%x: i32) -> i32 {
  %0 = "nosuchdialect.op"(%x) : (i32) -> i32
  return %0 : i32
}

// -----

func.func @custom(%x: i32) -> i32 {
  %0 = nosuchdialect.op %x : i32
  return %0 : i32
}

// -----

func.func @unknown_op(%x: i32) -> i32 {
  %0 = arith.frobnicate %x : i32
  return %0 : i32
}

// -----

func.func @unknown_type(%x: !nosuchdialect.type) {
  return
}

// -----

func.func @unknown_attribute() attributes {a = #nosuchdialect.attr} {
  return
}
