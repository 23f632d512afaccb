// Expectations that nothing meets are errors at the expected-* comment:
// exit status 1, one message per unmet expectation.
// RUN: not oxla-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s
// RUN: %expect-exit 1 oxla-opt %s --split-input-file --verify-diagnostics

// CHECK-NOT: Traceback
// Valid IR: the expected error never comes.
// CHECK: verify-diagnostics-missing.mlir:[[# @LINE + 16]]:4: error: expected error "never reported" was not produced
// Right line, wrong text: the real error is unexpected and the expectation unmet.
// CHECK: verify-diagnostics-missing.mlir:[[# @LINE + 23]]:8: error: unexpected error: 'stablehlo.add' op requires the same shape for all operands and results
// CHECK: verify-diagnostics-missing.mlir:[[# @LINE + 21]]:6: error: expected error "requires a different shape" was not produced
// Right text, wrong line.
// CHECK: verify-diagnostics-missing.mlir:[[# @LINE + 28]]:8: error: unexpected error: 'stablehlo.add' op requires the same shape
// CHECK: verify-diagnostics-missing.mlir:[[# @LINE + 26]]:6: error: expected error "requires the same shape" was not produced
// Right line and text, wrong severity.
// CHECK: verify-diagnostics-missing.mlir:[[# @LINE + 33]]:8: error: unexpected error: 'stablehlo.add' op requires the same shape
// CHECK: verify-diagnostics-missing.mlir:[[# @LINE + 31]]:6: error: expected warning "requires the same shape" was not produced
// Without -re, braces are literal text.
// CHECK: verify-diagnostics-missing.mlir:[[# @LINE + 38]]:8: error: unexpected error: 'stablehlo.add' op requires the same shape
// CHECK: verify-diagnostics-missing.mlir:[[# @LINE + 36]]:6: error: expected error "requires the {{.}}{{.}}[a-z]+{{.}}{{.}} shape" was not produced
// CHECK-NOT: error:
// CHECK-NOT: Traceback

// expected-error @+1 {{never reported}}
func.func @valid() {
  return
}

// -----

func.func @wrong_text(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires a different shape}}
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %arg0 : tensor<4xf32>
}

// -----

func.func @wrong_line(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{requires the same shape}}
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %arg0 : tensor<4xf32>
}

// -----

func.func @wrong_severity(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{requires the same shape}}
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %arg0 : tensor<4xf32>
}

// -----

func.func @not_a_regex(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires the {{[a-z]+}} shape}}
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %arg0 : tensor<4xf32>
}
