// --mlir-print-op-generic prints every op in the generic form, in the output
// and in IR dumps; the result parses back to the same IR.
// RUN: oxla-opt %s --mlir-print-op-generic | FileCheck %s
// RUN: oxla-opt %s --mlir-print-op-generic --oxla-dce --mlir-print-ir-after-all -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DUMP
// RUN: oxla-opt %s --mlir-print-op-generic | oxla-opt | FileCheck %s --check-prefix=CUSTOM
// RUN: oxla-opt %s | FileCheck %s --check-prefix=CUSTOM

// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
// CHECK-NEXT:   ^bb0(%arg0: tensor<4xf32>):
// CHECK-NEXT:     %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:     "func.return"(%0) : (tensor<4xf32>) -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()

// DUMP:      IR Dump After DeadCodeElimination: oxla-dce
// DUMP-NEXT: "builtin.module"() ({

// CUSTOM:      module {
// CUSTOM-NEXT:   func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CUSTOM-NEXT:     %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
// CUSTOM-NEXT:     return %0 : tensor<4xf32>

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
