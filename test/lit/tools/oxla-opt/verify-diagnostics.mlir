// Every expected-* comment is met, and nothing else is reported: exit status
// 0 and no message, even though chunks hold errors. Chunks without errors
// are still printed.
// RUN: oxla-opt %s --split-input-file --verify-diagnostics 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=QUIET --allow-empty --input-file %t.err
// RUN: %expect-exit 0 oxla-opt %s --split-input-file --verify-diagnostics -o /dev/null

// QUIET-NOT: {{.}}
// CHECK-LABEL: func.func @clean
// CHECK-NOT:   func.func

// `@+N`: N lines below the comment.
// expected-error @+2 {{'stablehlo.add' op requires the same shape for all operands and results}}
func.func @plus(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %arg0 : tensor<4xf32>
}

// -----

// `@below`: the next line without an expected-* comment.
func.func @below(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{requires the same shape}}
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %arg0 : tensor<4xf32>
}

// -----

// `@below` skips lines that hold expected-* comments: both aim at the two
// ops written on one line (the error at the second, its note at the first).
func.func @below_skips(%x: i32) -> i32 {
  // expected-note @below {{previously defined here}}
  // expected-error @below {{redefinition of SSA value '%0'}}
  %0 = arith.addi %x, %x : i32  %0 = arith.muli %x, %x : i32
  return %0 : i32
}

// -----

// No designator: the comment's own line.
func.func @same_line(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32> // expected-error {{requires the same shape}}
  return %arg0 : tensor<4xf32>
}

// -----

// `@above`: the previous line without an expected-* comment.
func.func @above(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  // expected-error @above {{requires the same shape}}
  return %arg0 : tensor<4xf32>
}

// -----

// `@above` skips lines that hold expected-* comments too.
func.func @above_skips(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32  %0 = arith.muli %x, %x : i32
  // expected-error @above {{redefinition of SSA value '%0'}}
  // expected-note @above {{previously defined here}}
  return %0 : i32
}

// -----

// `@-N`: N lines above the comment.
func.func @minus(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %arg0 : tensor<4xf32>
  // expected-error @-2 {{requires the same shape}}
}

// -----

// `-re`: the parts in a second pair of braces are regular expressions.
func.func @regex(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error-re @+1 {{'stablehlo.{{[a-z]+}}' op requires the {{(same|equal)}} shape}}
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %arg0 : tensor<4xf32>
}

// -----

// Notes are diagnostics of their own, at their own location.
func.func @note(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32 // expected-note {{previously defined here}}
  // expected-error @+1 {{redefinition of SSA value '%0'}}
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}

// -----

func.func @clean() {
  return
}
