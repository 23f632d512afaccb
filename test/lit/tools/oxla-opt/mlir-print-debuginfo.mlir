// --mlir-print-debuginfo prints locations: in the output and in IR dumps.
// RUN: oxla-opt %s --mlir-print-debuginfo | FileCheck %s
// RUN: oxla-opt %s --mlir-print-debuginfo --cse --mlir-print-ir-after-all -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DUMP
// Without it, none.
// RUN: oxla-opt %s | FileCheck %s --check-prefix=PLAIN
// RUN: oxla-opt %s --cse --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN
// Locations written in the input survive the round trip.
// RUN: oxla-opt %s --mlir-print-debuginfo | oxla-opt --mlir-print-debuginfo | FileCheck %s --check-prefix=ROUNDTRIP

// CHECK:      module {
// CHECK-NEXT:   func.func @f(%arg0: i32 loc("{{.*}}mlir-print-debuginfo.mlir":[[# @LINE + 17]]:14)) -> i32 {
// CHECK-NEXT:     arith.addi %arg0, %arg0 : i32 loc(#[[ADD:loc[0-9]*]])
// CHECK-NEXT:     return {{.*}} loc(#[[RET:loc[0-9]*]])
// CHECK-NEXT:   } loc(#{{loc[0-9]*}})
// CHECK-NEXT: } loc(#{{loc[0-9]*}})
// CHECK-DAG:  #[[ADD]] = loc("my_model.py":42:7)
// CHECK-DAG:  #[[RET]] = loc("{{.*}}mlir-print-debuginfo.mlir":[[# @LINE + 13]]:3)

// DUMP:      IR Dump After CSEPass: cse
// DUMP:      loc("my_model.py":42:7)
// DUMP:      loc("{{.*}}mlir-print-debuginfo.mlir":{{[0-9]+}}:{{[0-9]+}})

// PLAIN-NOT: loc(

// ROUNDTRIP: loc("my_model.py":42:7)
// ROUNDTRIP: loc("{{.*}}mlir-print-debuginfo.mlir":[[# @LINE + 4]]:3)

func.func @f(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32 loc("my_model.py":42:7)
  return %0 : i32
}
