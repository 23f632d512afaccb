// RUN: oxla-opt %s --split-input-file --mlir-print-debuginfo --oxla-strip-locations | FileCheck %s
// No file, fused, named or call-site location survives anywhere in the output.
// RUN: oxla-opt %s --split-input-file --mlir-print-debuginfo --oxla-strip-locations \
// RUN:   | FileCheck %s --check-prefix=NONE
// Without the pass the locations are there: the pass is what removes them.
// RUN: oxla-opt %s --split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=KEEP
// Nested under func.func it strips each function and what it holds, not the module.
// RUN: oxla-opt %s --split-input-file --mlir-print-debuginfo \
// RUN:   -p 'builtin.module(func.func(oxla-strip-locations))' | FileCheck %s --check-prefix=FUNC
// Without --mlir-print-debuginfo no location is printed at all, stripped or not.
// RUN: oxla-opt %s --split-input-file --oxla-strip-locations | FileCheck %s --check-prefix=PLAIN

// Ops, block arguments (of the entry block and of later blocks) and the
// module itself all end up with unknown locations.
// CHECK:       [[UNKNOWN:#loc[0-9]*]] = loc(unknown)
// CHECK-LABEL: func.func @ops
// CHECK-SAME:    (%arg0: tensor<4xf32> loc(unknown))
// CHECK-NEXT:    stablehlo.add {{.*}} loc([[UNKNOWN]])
// CHECK-NEXT:    cf.br ^bb1({{.*}}) loc([[UNKNOWN]])
// CHECK-NEXT:  ^bb1(%{{.*}}: tensor<4xf32> loc(unknown)):
// CHECK-NEXT:    return {{.*}} loc([[UNKNOWN]])
// CHECK-NEXT:  } loc([[UNKNOWN]])
// CHECK-NEXT: } loc([[UNKNOWN]])
// NONE:      #loc = loc(unknown)
// NONE-NOT:  {{\.mlir|\.py|fused|callsite|"named"}}
// KEEP-LABEL: func.func @ops
// KEEP-SAME:    (%arg0: tensor<4xf32> loc("{{.*}}oxla-strip-locations.mlir":[[# @LINE + 12]]:18))
// KEEP:       ^bb1(%{{.*}}: tensor<4xf32> loc("{{.*}}oxla-strip-locations.mlir":[[# @LINE + 14]]:8)):
// KEEP:       #loc = loc("{{.*}}oxla-strip-locations.mlir":[[# @LINE + 9]]:1)
// FUNC:       [[UNKNOWN:#loc[0-9]+]] = loc(unknown)
// FUNC:       func.func @ops(%arg0: tensor<4xf32> loc(unknown))
// FUNC:       ^bb1(%{{.*}}: tensor<4xf32> loc(unknown)):
// FUNC:       } loc([[UNKNOWN]])
// FUNC-NEXT:  } loc(#loc)
// FUNC-NEXT:  #loc = loc("{{.*}}oxla-strip-locations.mlir":[[# @LINE + 3]]:1)
// PLAIN-NOT:  loc(
// PLAIN:      func.func @rich
module {
  func.func @ops(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    cf.br ^bb1(%0 : tensor<4xf32>)
  ^bb1(%1: tensor<4xf32>):
    return %1 : tensor<4xf32>
  }
}

// -----

// Fused, named and call-site locations are replaced too.
// CHECK-LABEL: func.func @rich
// CHECK-NEXT:    stablehlo.abs {{.*}} loc([[UNKNOWN2:#loc[0-9]*]])
// CHECK-NEXT:    stablehlo.abs {{.*}} loc([[UNKNOWN2]])
// CHECK-NEXT:    stablehlo.abs {{.*}} loc([[UNKNOWN2]])
// KEEP-LABEL: func.func @rich
// KEEP-DAG:   loc("a.py":1:2)
// KEEP-DAG:   loc(fused[
// KEEP-DAG:   loc("named"(
// KEEP-DAG:   loc(callsite(
func.func @rich(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %arg0 : tensor<4xf32> loc(fused["a.py":1:2, "b.py":3:4])
  %1 = stablehlo.abs %0 : tensor<4xf32> loc("named"("c.py":5:6))
  %2 = stablehlo.abs %1 : tensor<4xf32> loc(callsite("f"("d.py":7:8) at "e.py":9:10))
  return %2 : tensor<4xf32>
}
