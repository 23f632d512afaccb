// The statistics go to stderr, one report per chunk; the IR passes through
// unchanged on stdout.
// RUN: oxla-opt %s --split-input-file --oxla-print-op-stats 2>&1 >/dev/null | FileCheck %s
// RUN: oxla-opt %s --split-input-file --oxla-print-op-stats 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: oxla-opt %s --split-input-file --oxla-print-op-stats='json=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=JSON
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-print-op-stats{json=1})' 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=JSON
// json=false is the default.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-print-op-stats{json=false})' 2>&1 >/dev/null \
// RUN:   | FileCheck %s
// output=<file> writes there (the last chunk's report), and nothing to stderr.
// RUN: rm -f %t.json
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-print-op-stats{json=true output=%t.json})' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: FileCheck %s --check-prefix=LAST --input-file %t.json
// Under func.func it runs once per function and counts that function's body only.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(func.func(oxla-print-op-stats))' 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=FUNC

// IR-LABEL: func.func @main
// IR-NEXT:    stablehlo.add
// IR-NEXT:    "stablehlo.case"
// IR-LABEL: func.func private @helper
// IR-LABEL: func.func @dialects
// IR-NEXT:    tensor.empty
// IR-NEXT:    chlo.tan
// IR:       // -----
// IR-NEXT:  module {
// IR-NEXT:  }

// The module's ops, not the module itself; nested regions included.
// CHECK:      Operations encountered:
// CHECK-NEXT: -----------------------
// CHECK-NEXT:   func{{ +}}, 4
// CHECK-NEXT:     func.call{{ +}}, 1
// CHECK-NEXT:     func.func{{ +}}, 2
// CHECK-NEXT:     func.return{{ +}}, 1
// CHECK-NEXT:   stablehlo{{ +}}, 5
// CHECK-NEXT:     stablehlo.add{{ +}}, 2
// CHECK-NEXT:     stablehlo.case{{ +}}, 1
// CHECK-NEXT:     stablehlo.return{{ +}}, 2
// CHECK-NEXT:   total{{ +}}, 9
// CHECK-NOT:  builtin.module
// CHECK-NOT:  func.func @main

// JSON:      {
// JSON-NEXT:   "func.call": 1,
// JSON-NEXT:   "func.func": 2,
// JSON-NEXT:   "func.return": 1,
// JSON-NEXT:   "stablehlo.add": 2,
// JSON-NEXT:   "stablehlo.case": 1,
// JSON-NEXT:   "stablehlo.return": 2
// JSON-NEXT: }

// QUIET-NOT: {{.}}

// FUNC:      Operations encountered:
// FUNC-NEXT: -----------------------
// FUNC-NEXT:   func{{ +}}, 2
// FUNC-NEXT:     func.call{{ +}}, 1
// FUNC-NEXT:     func.return{{ +}}, 1
// FUNC-NEXT:   stablehlo{{ +}}, 5
// FUNC-NEXT:     stablehlo.add{{ +}}, 2
// FUNC-NEXT:     stablehlo.case{{ +}}, 1
// FUNC-NEXT:     stablehlo.return{{ +}}, 2
// FUNC-NEXT:   total{{ +}}, 7
// The body of an external function is empty.
// FUNC-NEXT: Operations encountered:
// FUNC-NEXT: -----------------------
// FUNC-NEXT:   total{{ +}}, 0

func.func @main(%arg0: tensor<4xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  %1 = "stablehlo.case"(%i) ({
    %2 = stablehlo.add %0, %0 : tensor<4xf32>
    stablehlo.return %2 : tensor<4xf32>
  }, {
    stablehlo.return %0 : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  call @helper() : () -> ()
  return %1 : tensor<4xf32>
}
func.func private @helper()

// -----

// Dialects come in name order, each followed by its ops in name order.
// CHECK:      Operations encountered:
// CHECK-NEXT: -----------------------
// CHECK-NEXT:   chlo{{ +}}, 1
// CHECK-NEXT:     chlo.tan{{ +}}, 1
// CHECK-NEXT:   func{{ +}}, 2
// CHECK-NEXT:     func.func{{ +}}, 1
// CHECK-NEXT:     func.return{{ +}}, 1
// CHECK-NEXT:   tensor{{ +}}, 1
// CHECK-NEXT:     tensor.empty{{ +}}, 1
// CHECK-NEXT:   total{{ +}}, 4
// FUNC:      Operations encountered:
// FUNC-NEXT: -----------------------
// FUNC-NEXT:   chlo{{ +}}, 1
// FUNC:        total{{ +}}, 3
func.func @dialects() -> tensor<4xf32> {
  %0 = tensor.empty() : tensor<4xf32>
  %1 = chlo.tan %0 : tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// An empty module: no ops, total 0; under func.func, no report at all.
// CHECK:      Operations encountered:
// CHECK-NEXT: -----------------------
// CHECK-NEXT:   total{{ +}}, 0
// CHECK-NOT:  Operations encountered
// JSON:      {}
// JSON-NOT:  {
// LAST:      {}
// FUNC-NOT:  Operations encountered
