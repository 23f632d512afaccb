// A VM branch that passes one ref to two block arguments passes the second (and any later) occurrence
// as a value of its own, the ref cast to !vm.ref<?> and back; refs passed once, and repeated non-ref
// operands, stay as they are.
// RUN: oxla-opt %s -p 'builtin.module(oxla-vm-distinct-branch-refs)' | FileCheck %s

module {
  vm.module public @module {
    // CHECK-LABEL: vm.func private @exit
    // CHECK-SAME: (%[[A:.+]]: !vm.ref<!hal.buffer>, %[[B:.+]]: !vm.ref<!hal.buffer>, %[[C:.+]]: i32)
    vm.func private @exit(%a: !vm.ref<!hal.buffer>, %b: !vm.ref<!hal.buffer>, %c: i32) -> !vm.ref<!hal.buffer> {
      // CHECK: %[[ANY:.+]] = vm.cast.ref.any %[[A]] : !vm.ref<!hal.buffer> -> !vm.ref<?>
      // CHECK: %[[COPY:.+]] = vm.cast.any.ref %[[ANY]] : !vm.ref<?> -> !vm.ref<!hal.buffer>
      // CHECK: %[[ANY2:.+]] = vm.cast.ref.any %[[A]] : !vm.ref<!hal.buffer> -> !vm.ref<?>
      // CHECK: %[[COPY2:.+]] = vm.cast.any.ref %[[ANY2]] : !vm.ref<?> -> !vm.ref<!hal.buffer>
      // CHECK: vm.cond_br %[[C]], ^bb1(%[[A]], %[[C]], %[[COPY]], %[[C]] : {{.*}}), ^bb2(%[[COPY2]], %[[B]] :
      vm.cond_br %c, ^bb1(%a, %c, %a, %c : !vm.ref<!hal.buffer>, i32, !vm.ref<!hal.buffer>, i32), ^bb2(%a, %b : !vm.ref<!hal.buffer>, !vm.ref<!hal.buffer>)
    ^bb1(%x: !vm.ref<!hal.buffer>, %i: i32, %y: !vm.ref<!hal.buffer>, %j: i32):
      vm.return %y : !vm.ref<!hal.buffer>
    ^bb2(%z: !vm.ref<!hal.buffer>, %w: !vm.ref<!hal.buffer>):
      // CHECK: vm.br ^bb1(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : !vm.ref<!hal.buffer>, i32, !vm.ref<!hal.buffer>, i32)
      // CHECK-NOT: vm.cast
      vm.br ^bb1(%z, %c, %w, %c : !vm.ref<!hal.buffer>, i32, !vm.ref<!hal.buffer>, i32)
    }
  }
}
