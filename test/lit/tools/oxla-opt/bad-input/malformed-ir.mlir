// Malformed IR is a parse error at its file:line:col, with the source line
// and a caret; exit status 1; the other chunks still go through.
// RUN: not oxla-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: %expect-exit 1 oxla-opt %s --split-input-file -o /dev/null
// The caret stands under the offending column.
// RUN: not oxla-opt %s --split-input-file 2>&1 | FileCheck %s --strict-whitespace --check-prefix=CARET
// Without splitting, the first error (forward references are only resolved at
// the end of a region) stops the whole file, and nothing is printed.
// RUN: not oxla-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE

// CHECK-NOT:  Traceback
// CHECK:      malformed-ir.mlir:[[# @LINE + 21]]:23: error: use of undeclared SSA value name
// CHECK-NEXT:   %0 = arith.addi %x, %undefined : i32
// CHECK:      malformed-ir.mlir:[[# @LINE + 25]]:32: error: expected non-function type
// CHECK:      malformed-ir.mlir:[[# @LINE + 31]]:19: error: use of value '%x' expects different type than prior uses: 'i64' vs 'i32'
// CHECK:      malformed-ir.mlir:[[# @LINE + 37]]:18: error: expected operation name in quotes
// CHECK:      malformed-ir.mlir:[[# @LINE + 40]]:54: error: unbalanced '<' character in pretty dialect name
// The valid chunk at the end is printed.
// CHECK:      func.func @valid
// CHECK-NOT:  Traceback

// CARET:      error: use of undeclared SSA value name
// CARET-NEXT: {{^}}  %0 = arith.addi %x, %undefined : i32{{$}}
// CARET-NEXT: {{^}}                      ^{{$}}

// WHOLE-NOT: Traceback
// WHOLE:     malformed-ir.mlir:[[# @LINE + 12]]:32: error: expected non-function type
// WHOLE-NOT: error:
// WHOLE-NOT: module
// WHOLE-NOT: Traceback

func.func @undefined_value(%x: i32) -> i32 {
  %0 = arith.addi %x, %undefined : i32
  return %0 : i32
}

// -----

func.func @bad_type(%x: i32) -> @i32 {
  return %x : i32
}

// -----

func.func @type_mismatch(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i64
  return %0 : i32
}

// -----

func.func @missing_brace(%x: i32) -> i32 {
  return %x : i32

// -----

func.func @bad_attribute() attributes {a = #stablehlo<)>} {
  return
}

// -----

func.func @valid() {
  return
}
