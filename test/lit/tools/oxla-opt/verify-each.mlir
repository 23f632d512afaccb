// --verify-each (default true) runs the verifier after every pass.
// convert-func-to-spirv, on a function it cannot convert (memref argument),
// still rewrites the return into spirv.ReturnValue: invalid IR.
//
// With verification the run fails at that pass, with the verifier's message:
// RUN: not oxla-opt %s --convert-func-to-spirv 2>&1 | FileCheck %s --check-prefix=VERIFIED
// RUN: not oxla-opt %s --convert-func-to-spirv --verify-each=true 2>&1 | FileCheck %s --check-prefix=VERIFIED
// RUN: not oxla-opt %s --convert-func-to-spirv --verify-each=1 2>&1 | FileCheck %s --check-prefix=VERIFIED
// RUN: %expect-exit 1 oxla-opt %s --convert-func-to-spirv
// --verify-each=false lets the invalid IR through, to the output:
// RUN: oxla-opt %s --convert-func-to-spirv --verify-each=false | FileCheck %s --check-prefix=UNVERIFIED
// RUN: oxla-opt %s --convert-func-to-spirv --verify-each=0 | FileCheck %s --check-prefix=UNVERIFIED
// ... where reading it back finds the problem.
// RUN: oxla-opt %s --convert-func-to-spirv --verify-each=false | not oxla-opt 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REREAD
// Other values are a usage error.
// RUN: not oxla-opt %s --verify-each=maybe 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: %expect-exit 1 oxla-opt %s --verify-each=maybe

// VERIFIED-NOT: Traceback
// VERIFIED:     verify-each.mlir:[[# @LINE + 13]]:3: error: type of return operand 0 ('!spirv.array<4 x f32>') doesn't match function result type ('tensor<4xf32>') in function @main
// VERIFIED-NOT: module
// VERIFIED-NOT: Traceback

// UNVERIFIED:      func.func @main(%arg0: tensor<4xf32>, %arg1: memref<4xf32>) -> tensor<4xf32> {
// UNVERIFIED-NEXT:   %[[CAST:.*]] = builtin.unrealized_conversion_cast %arg0 : tensor<4xf32> to !spirv.array<4 x f32>
// UNVERIFIED-NEXT:   spirv.ReturnValue %[[CAST]] : !spirv.array<4 x f32>

// REREAD: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: type of return operand 0 ('!spirv.array<4 x f32>') doesn't match function result type ('tensor<4xf32>')

// BAD: oxla-opt: error: argument --verify-each: invalid choice: 'maybe' (choose from 'true', 'false', '1', '0')

func.func @main(%arg0: tensor<4xf32>, %m: memref<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
