// --emit-bytecode writes MLIR bytecode; reading it back gives the same text
// as the textual round trip, through a file or a pipe.
// RUN: oxla-opt %s --emit-bytecode -o %t.mlirbc
// RUN: %PYTHON -c "import sys; data = open(sys.argv[1], 'rb').read(); print(data[:4])" %t.mlirbc \
// RUN:   | FileCheck %s --check-prefix=MAGIC
// RUN: oxla-opt %t.mlirbc > %t.from-bytecode.mlir
// RUN: oxla-opt %s > %t.from-text.mlir
// RUN: diff %t.from-text.mlir %t.from-bytecode.mlir
// RUN: oxla-opt %s --emit-bytecode | oxla-opt > %t.piped.mlir
// RUN: diff %t.from-text.mlir %t.piped.mlir
// RUN: FileCheck %s --input-file %t.piped.mlir
// Locations survive in the bytecode too.
// RUN: oxla-opt %s --emit-bytecode | oxla-opt --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// Passes run before the bytecode is written, and bytecode input takes passes.
// RUN: oxla-opt %s --emit-bytecode --oxla-dce | oxla-opt | FileCheck %s --check-prefix=DCE
// RUN: oxla-opt %t.mlirbc --oxla-dce | FileCheck %s --check-prefix=DCE
// --split-input-file leaves a bytecode input whole.
// RUN: oxla-opt %t.mlirbc --split-input-file | FileCheck %s

// MAGIC: b'ML\xefR'
// CHECK:      func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %0 = stablehlo.add %arg0, %arg0 {oxla.note = "kept"} : tensor<4xf32>
// CHECK-NEXT:   %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:   %1 = stablehlo.multiply %0, %cst : tensor<4xf32>
// CHECK:      func.func private @unused()
// LOC: loc("{{.*}}emit-bytecode.mlir":[[# @LINE + 6]]:8)
// DCE-LABEL: func.func @f
// DCE-NOT:   @unused

// A little of everything: attributes, constants, a private function.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x {oxla.note = "kept"} : tensor<4xf32>
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %1 = stablehlo.multiply %0, %c : tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @unused() {
  return
}
