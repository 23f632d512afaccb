// A host loop's (scf.for's, scf.while's) zero-dimensional integer tensors are carried as host scalars,
// and a dispatch that only computes scalars from splatted host scalars runs on the host: its arith ops
// cloned before it, the values it stored read where the host loaded them. A dispatch that reads a device
// tensor stays.
// RUN: oxla-opt %s -p 'builtin.module(oxla-host-scalar-dispatches,util.func(canonicalize))' | FileCheck %s

#map = affine_map<() -> ()>
module {
  flow.executable private @wrap {
    flow.executable.export public @wrap workgroups() -> (index, index, index) {
      %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
      flow.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @wrap(%arg0: !iree_tensor_ext.dispatch.tensor<readonly:tensor<i32>>, %arg1: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<i32>>) {
        %c1_i32 = arith.constant 1 : i32
        %c15_i32 = arith.constant 15 : i32
        %c0_i32 = arith.constant 0 : i32
        %0 = iree_tensor_ext.dispatch.tensor.load %arg0, offsets = [], sizes = [], strides = [] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<i32>> -> tensor<i32>
        %1 = tensor.empty() : tensor<i32>
        %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%0 : tensor<i32>) outs(%1 : tensor<i32>) {
        ^bb0(%in: i32, %out: i32):
          %3 = arith.subi %in, %c1_i32 : i32
          %4 = arith.addi %in, %c15_i32 : i32
          %5 = arith.cmpi slt, %3, %c0_i32 : i32
          %6 = arith.select %5, %4, %3 : i32
          linalg.yield %6 : i32
        } -> tensor<i32>
        iree_tensor_ext.dispatch.tensor.store %2, %arg1, offsets = [], sizes = [], strides = [] : tensor<i32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<i32>>
        return
      }
    }
  }
  // CHECK-LABEL: util.func public @loop
  // CHECK:         %[[R:.*]]:2 = scf.for %{{.*}} iter_args(%[[I:.*]] = %c1_i32, %{{.*}} = %{{.*}}) -> (i32, tensor<8xf32>)
  // CHECK-NOT:       flow.dispatch @wrap
  // CHECK:           %[[BACK:.*]] = arith.subi %[[I]], %c1_i32
  // CHECK:           %[[UP:.*]] = arith.addi %[[I]], %c15_i32
  // CHECK:           %[[NEG:.*]] = arith.cmpi slt, %[[BACK]], %c0_i32
  // CHECK:           %[[PREV:.*]] = arith.select %[[NEG]], %[[UP]], %[[BACK]]
  // CHECK:           arith.index_cast %[[PREV]]
  // CHECK:           %[[NEXT:.*]] = arith.addi %[[I]], %c1_i32
  // CHECK:           scf.yield %[[NEXT]], %{{.*}} : i32, tensor<8xf32>
  // CHECK:         %[[OUT:.*]] = flow.tensor.splat %[[R]]#0 : tensor<i32>
  // CHECK:         util.return %[[OUT]], %[[R]]#1
  util.func public @loop(%x: tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>) {
    %c0 = arith.constant 0 : i32
    %c15 = arith.constant 15 : i32
    %c1 = arith.constant 1 : i32
    %c0_index = arith.constant 0 : index
    %start = arith.constant dense<1> : tensor<i32>
    %r:2 = scf.for %t = %c0 to %c15 step %c1 iter_args(%i = %start, %s = %x) -> (tensor<i32>, tensor<8xf32>) : i32 {
      %prev = flow.dispatch @wrap::@wrap(%i) : (tensor<i32>) -> tensor<i32>
      %p = flow.tensor.load %prev : tensor<i32>
      %at = arith.index_cast %p : i32 to index
      %v = flow.tensor.load %s[%at] : tensor<8xf32>
      %s2 = flow.tensor.store %v, %s[%c0_index] : tensor<8xf32>
      %i_t = flow.tensor.load %i : tensor<i32>
      %i2 = arith.addi %i_t, %c1 : i32
      %next = flow.tensor.splat %i2 : tensor<i32>
      scf.yield %next, %s2 : tensor<i32>, tensor<8xf32>
    }
    util.return %r#0, %r#1 : tensor<i32>, tensor<8xf32>
  }

  // CHECK-LABEL: util.func public @while_loop
  // CHECK:         %[[W:.*]] = scf.while (%[[I:.*]] = %c1_i32) : (i32) -> i32 {
  // CHECK:           %[[MORE:.*]] = arith.cmpi slt, %[[I]], %c15_i32
  // CHECK:           scf.condition(%[[MORE]]) %[[I]] : i32
  // CHECK:         } do {
  // CHECK:         ^bb0(%[[J:.*]]: i32):
  // CHECK:           %[[NEXT:.*]] = arith.addi %[[J]], %c1_i32
  // CHECK:           scf.yield %[[NEXT]] : i32
  // CHECK:         flow.tensor.splat %[[W]] : tensor<i32>
  util.func public @while_loop() -> tensor<i32> {
    %c1 = arith.constant 1 : i32
    %c15 = arith.constant 15 : i32
    %start = arith.constant dense<1> : tensor<i32>
    %r = scf.while (%i = %start) : (tensor<i32>) -> tensor<i32> {
      %v = flow.tensor.load %i : tensor<i32>
      %more = arith.cmpi slt, %v, %c15 : i32
      scf.condition(%more) %i : tensor<i32>
    } do {
    ^bb0(%j: tensor<i32>):
      %v = flow.tensor.load %j : tensor<i32>
      %n = arith.addi %v, %c1 : i32
      %next = flow.tensor.splat %n : tensor<i32>
      scf.yield %next : tensor<i32>
    }
    util.return %r : tensor<i32>
  }

  // CHECK-LABEL: util.func public @from_the_device
  // CHECK:         flow.dispatch @wrap::@wrap(%arg0)
  util.func public @from_the_device(%d: tensor<i32>) -> i32 {
    %prev = flow.dispatch @wrap::@wrap(%d) : (tensor<i32>) -> tensor<i32>
    %p = flow.tensor.load %prev : tensor<i32>
    util.return %p : i32
  }
}
