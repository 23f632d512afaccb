// --help describes every flag, and says that any other --<pass> adds a pass.
// RUN: oxla-opt --help | FileCheck %s
// RUN: oxla-opt -h | FileCheck %s
// RUN: %expect-exit 0 oxla-opt --help

// CHECK: usage: oxla-opt
// CHECK-DAG: -o OUTPUT
// CHECK-DAG: --pass-pipeline PIPELINE, -p PIPELINE
// CHECK-DAG: --split-input-file
// CHECK-DAG: --verify-diagnostics
// CHECK-DAG: --allow-unregistered-dialect
// CHECK-DAG: --emit-bytecode
// CHECK-DAG: --list-passes
// CHECK-DAG: --verify-each {true,false,1,0}
// CHECK-DAG: --mlir-print-ir-before-all
// CHECK-DAG: --mlir-print-ir-after-all
// CHECK-DAG: --mlir-print-ir-before PASS
// CHECK-DAG: --mlir-print-ir-after PASS
// CHECK-DAG: --mlir-print-ir-after-failure
// CHECK-DAG: --mlir-print-ir-module-scope
// CHECK-DAG: --mlir-timing
// CHECK-DAG: --mlir-print-debuginfo
// CHECK-DAG: --mlir-print-op-generic
// CHECK-DAG: --mlir-elide-elementsattrs-if-larger N
// CHECK-DAG: --version
// CHECK: Any other --<pass-name>[=<options>] adds that pass
