// --mlir-print-ir-after-failure dumps the IR once, after the pass that
// failed, and nothing after the passes that succeeded.
//
// A native pass that leaves invalid IR: convert-func-to-spirv rewrites the
// return of a function it cannot convert (memref argument) into
// spirv.ReturnValue, which the verifier run after the pass rejects.
// RUN: not oxla-opt %s --split-input-file --mlir-print-ir-after-failure \
// RUN:   -p 'builtin.module(oxla-dce,func.func(cse),convert-func-to-spirv)' 2>&1 | FileCheck %s --check-prefix=VERIFY
// A Python pass that fails: oxla-print-op-stats cannot open its output file.
// RUN: not oxla-opt %s --split-input-file --mlir-print-ir-after-failure \
// RUN:   -p 'builtin.module(func.func(cse),oxla-print-op-stats{output=%t.missing-dir/stats.txt})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PYTHON
// A pipeline that succeeds dumps nothing.
// RUN: oxla-opt %s --split-input-file --mlir-print-ir-after-failure -p 'builtin.module(oxla-dce,func.func(cse))' \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=NONE --allow-empty
// The failure itself is also reported without the flag, with no dump.
// RUN: not oxla-opt %s --split-input-file -p 'builtin.module(convert-func-to-spirv)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODUMP

// VERIFY-NOT:  IR Dump After DeadCodeElimination
// VERIFY-NOT:  IR Dump After CSEPass
// VERIFY:      // -----// IR Dump After ConvertFuncToSPIRVPass Failed: convert-func-to-spirv{{.*}} //----- //
// VERIFY-NEXT: "builtin.module"() ({
// VERIFY:        "spirv.ReturnValue"
// VERIFY:      print-ir-after-failure.mlir:[[# @LINE + 24]]:5: error: type of return operand 0 ('!spirv.array<4 x f32>') doesn't match function result type ('tensor<4xf32>') in function @main
// VERIFY-NOT:  IR Dump
// VERIFY-NOT:  Traceback

// PYTHON-NOT:  IR Dump After CSEPass
// PYTHON:      // -----// IR Dump After PrintOpStats Failed: oxla-print-op-stats //----- //
// PYTHON-NEXT: module {
// PYTHON-NEXT:   func.func @main(%arg0: tensor<4xf32>, %arg1: memref<4xf32>) -> tensor<4xf32> {
// PYTHON-NEXT:     %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
// PYTHON-NEXT:     return %0 : tensor<4xf32>
// PYTHON:      print-ir-after-failure.mlir:[[# @LINE + 10]]:1: error: pass 'oxla-print-op-stats' raised FileNotFoundError: [Errno 2] No such file or directory: '{{.*}}missing-dir/stats.txt'
// PYTHON-NOT:  IR Dump
// PYTHON-NOT:  Traceback

// NONE-NOT: {{.}}

// NODUMP-NOT: IR Dump
// NODUMP:     error: type of return operand 0
// NODUMP-NOT: IR Dump

module {
  func.func @main(%arg0: tensor<4xf32>, %m: memref<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    %1 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
