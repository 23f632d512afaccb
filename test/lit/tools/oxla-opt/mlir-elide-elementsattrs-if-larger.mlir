// --mlir-elide-elementsattrs-if-larger=N hides constants of more than N elements.
// RUN: oxla-opt %s --mlir-elide-elementsattrs-if-larger=3 | FileCheck %s
// RUN: oxla-opt %s | FileCheck %s --check-prefix=FULL
// RUN: not oxla-opt %s --mlir-elide-elementsattrs-if-larger=many 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
// CHECK: stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// FULL:  stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// BAD:   oxla-opt: error: argument --mlir-elide-elementsattrs-if-larger: invalid int value: 'many'

func.func @f() -> (tensor<4xf32>, tensor<2xf32>) {
  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %1 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0, %1 : tensor<4xf32>, tensor<2xf32>
}
