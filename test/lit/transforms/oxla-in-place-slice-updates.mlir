// A dispatch computing a slice from the tensor it updates, read only where the slice goes, followed by a
// dispatch that copies the slice into the tensor: merged into one dispatch that binds the tensor
// read-write, its result tied to it, and stores the slice there. A slice computed from elsewhere in the
// window it is written to keeps its copy dispatch, and one written with flow.tensor.update passes through
// an optimization barrier, so that IREE does not place its dispatch in the tensor it reads; one read only
// where it goes is left to IREE. An in-place dispatch that reads its tensor elsewhere than it writes it
// is split into a dispatch computing the slice and a fenced update.
// RUN: oxla-opt %s -p 'builtin.module(oxla-in-place-slice-updates)' --split-input-file | FileCheck %s

// CHECK-LABEL: util.func public @rows
// CHECK:         %[[R:.*]] = flow.dispatch.workgroups[%arg1, %arg2](%arg0, %arg1, %arg2) : (tensor<16x64xf32>, index, index) -> %arg0 =
// CHECK-NEXT:        (%[[X:.*]]: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>>, %[[I:.*]]: index, %[[P:.*]]: index) {
// CHECK:           %[[NEW:.*]] = linalg.generic
// CHECK:           iree_tensor_ext.dispatch.tensor.store %[[NEW]], %[[X]], offsets = [%[[I]], 0], sizes = [1, 64], strides = [1, 1]
// CHECK-NOT:     flow.dispatch.workgroups
// CHECK:         util.return %[[R]]
#map = affine_map<(d0) -> (d0)>
util.func public @rows(%x: tensor<16x64xf32>, %i: index, %p: index) -> tensor<16x64xf32> {
  %row = flow.dispatch.workgroups[%i, %p](%x, %i, %p) : (tensor<16x64xf32>, index, index) -> tensor<64xf32> =
      (%b: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>>, %bi: index, %bp: index, %out: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>) {
    %oi = iree_tensor_ext.dispatch.workload.ordinal %bi, 0 : index
    %op = iree_tensor_ext.dispatch.workload.ordinal %bp, 1 : index
    %a = iree_tensor_ext.dispatch.tensor.load %b, offsets = [%op, 0], sizes = [1, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>> -> tensor<64xf32>
    %c = iree_tensor_ext.dispatch.tensor.load %b, offsets = [%oi, 0], sizes = [1, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>> -> tensor<64xf32>
    %e = tensor.empty() : tensor<64xf32>
    %s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%a, %c : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%u: f32, %v: f32, %w: f32):
      %sum = arith.addf %u, %v : f32
      linalg.yield %sum : f32
    } -> tensor<64xf32>
    iree_tensor_ext.dispatch.tensor.store %s, %out, offsets = [0], sizes = [64], strides = [1] : tensor<64xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
    flow.return
  } count(%ci: index, %cp: index) -> (index, index, index) {
    %x0, %y0, %z0 = iree_tensor_ext.dispatch.workgroup_count_from_slice(%ci, %cp)
    flow.return %x0, %y0, %z0 : index, index, index
  }
  %r = flow.dispatch.workgroups[%i](%row, %x, %i) : (tensor<64xf32>, tensor<16x64xf32>, index) -> %x =
      (%src: !iree_tensor_ext.dispatch.tensor<readonly:tensor<64xf32>>, %dst: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>>, %di: index) {
    %oi = iree_tensor_ext.dispatch.workload.ordinal %di, 0 : index
    %v = iree_tensor_ext.dispatch.tensor.load %src, offsets = [0], sizes = [64], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64xf32>> -> tensor<64xf32>
    iree_tensor_ext.dispatch.tensor.store %v, %dst, offsets = [%oi, 0], sizes = [1, 64], strides = [1, 1] : tensor<64xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>>
    flow.return
  } count(%ci: index) -> (index, index, index) {
    %x0, %y0, %z0 = iree_tensor_ext.dispatch.workgroup_count_from_slice(%ci)
    flow.return %x0, %y0, %z0 : index, index, index
  }
  util.return %r : tensor<16x64xf32>
}

// -----

// CHECK-LABEL: util.func public @shifted_copy
// CHECK-COUNT-2: flow.dispatch.workgroups
#map = affine_map<(d0) -> (d0)>
util.func public @shifted_copy(%x: tensor<16x64xf32>, %i: index) -> tensor<16x64xf32> {
  %row = flow.dispatch.workgroups[%i](%x, %i) : (tensor<16x64xf32>, index) -> tensor<63xf32> =
      (%b: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>>, %bi: index, %out: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<63xf32>>) {
    %oi = iree_tensor_ext.dispatch.workload.ordinal %bi, 0 : index
    %a = iree_tensor_ext.dispatch.tensor.load %b, offsets = [%oi, 0], sizes = [1, 63], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>> -> tensor<63xf32>
    iree_tensor_ext.dispatch.tensor.store %a, %out, offsets = [0], sizes = [63], strides = [1] : tensor<63xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<63xf32>>
    flow.return
  } count(%ci: index) -> (index, index, index) {
    %x0, %y0, %z0 = iree_tensor_ext.dispatch.workgroup_count_from_slice(%ci)
    flow.return %x0, %y0, %z0 : index, index, index
  }
  %r = flow.dispatch.workgroups[%i](%row, %x, %i) : (tensor<63xf32>, tensor<16x64xf32>, index) -> %x =
      (%src: !iree_tensor_ext.dispatch.tensor<readonly:tensor<63xf32>>, %dst: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>>, %di: index) {
    %oi = iree_tensor_ext.dispatch.workload.ordinal %di, 0 : index
    %v = iree_tensor_ext.dispatch.tensor.load %src, offsets = [0], sizes = [63], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<63xf32>> -> tensor<63xf32>
    iree_tensor_ext.dispatch.tensor.store %v, %dst, offsets = [%oi, 1], sizes = [1, 63], strides = [1, 1] : tensor<63xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>>
    flow.return
  } count(%ci: index) -> (index, index, index) {
    %x0, %y0, %z0 = iree_tensor_ext.dispatch.workgroup_count_from_slice(%ci)
    flow.return %x0, %y0, %z0 : index, index, index
  }
  util.return %r : tensor<16x64xf32>
}

// -----

// CHECK-LABEL: util.func public @shifted_update
// CHECK:         %[[ROW:.*]] = flow.dispatch.workgroups
// CHECK:         %[[R:.*]] = flow.tensor.reshape %[[ROW]]
// CHECK:         %[[F:.*]] = util.optimization_barrier %[[R]] : tensor<1x63xf32>
// CHECK:         flow.tensor.update %[[F]], %arg0[%arg1, %{{.*}}]
util.func public @shifted_update(%x: tensor<16x64xf32>, %i: index) -> tensor<16x64xf32> {
  %c1 = arith.constant 1 : index
  %row = flow.dispatch.workgroups[%i](%x, %i) : (tensor<16x64xf32>, index) -> tensor<63xf32> =
      (%b: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>>, %bi: index, %out: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<63xf32>>) {
    %oi = iree_tensor_ext.dispatch.workload.ordinal %bi, 0 : index
    %a = iree_tensor_ext.dispatch.tensor.load %b, offsets = [%oi, 0], sizes = [1, 63], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>> -> tensor<63xf32>
    iree_tensor_ext.dispatch.tensor.store %a, %out, offsets = [0], sizes = [63], strides = [1] : tensor<63xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<63xf32>>
    flow.return
  } count(%ci: index) -> (index, index, index) {
    %x0, %y0, %z0 = iree_tensor_ext.dispatch.workgroup_count_from_slice(%ci)
    flow.return %x0, %y0, %z0 : index, index, index
  }
  %r = flow.tensor.reshape %row : tensor<63xf32> -> tensor<1x63xf32>
  %u = flow.tensor.update %r, %x[%i, %c1] : tensor<1x63xf32> -> %x as tensor<16x64xf32>
  util.return %u : tensor<16x64xf32>
}

// -----

// CHECK-LABEL: util.func public @aligned_update
// CHECK-NOT:     util.optimization_barrier
util.func public @aligned_update(%x: tensor<16x64xf32>, %i: index) -> tensor<16x64xf32> {
  %c0 = arith.constant 0 : index
  %row = flow.dispatch.workgroups[%i](%x, %i) : (tensor<16x64xf32>, index) -> tensor<64xf32> =
      (%b: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>>, %bi: index, %out: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>) {
    %oi = iree_tensor_ext.dispatch.workload.ordinal %bi, 0 : index
    %a = iree_tensor_ext.dispatch.tensor.load %b, offsets = [%oi, 0], sizes = [1, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>> -> tensor<64xf32>
    iree_tensor_ext.dispatch.tensor.store %a, %out, offsets = [0], sizes = [64], strides = [1] : tensor<64xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
    flow.return
  } count(%ci: index) -> (index, index, index) {
    %x0, %y0, %z0 = iree_tensor_ext.dispatch.workgroup_count_from_slice(%ci)
    flow.return %x0, %y0, %z0 : index, index, index
  }
  %r = flow.tensor.reshape %row : tensor<64xf32> -> tensor<1x64xf32>
  %u = flow.tensor.update %r, %x[%i, %c0] : tensor<1x64xf32> -> %x as tensor<16x64xf32>
  util.return %u : tensor<16x64xf32>
}

// -----

// A dispatch that moves a row within itself in place (x[i, 1:] = x[i, :-1]) computes the row into a
// tensor of its own, which a fenced flow.tensor.update then writes where the dispatch stored it.
// CHECK-LABEL: util.func public @moved
// CHECK:         %[[ROW:.*]] = flow.dispatch.workgroups[%arg1](%arg0, %arg1) : (tensor<16x64xf32>, index) -> tensor<63xf32> =
// CHECK-NEXT:        (%{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x64xf32>>, %{{.*}}: index, %[[OUT:.*]]: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<63xf32>>)
// CHECK:           iree_tensor_ext.dispatch.tensor.store %{{.*}}, %[[OUT]], offsets = [0], sizes = [63], strides = [1]
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         %[[R:.*]] = flow.tensor.reshape %[[ROW]] : tensor<63xf32> -> tensor<1x63xf32>
// CHECK:         %[[F:.*]] = util.optimization_barrier %[[R]] : tensor<1x63xf32>
// CHECK:         %[[U:.*]] = flow.tensor.update %[[F]], %arg0[%arg1, %[[ONE]]]
// CHECK:         util.return %[[U]]
util.func public @moved(%x: tensor<16x64xf32>, %i: index) -> tensor<16x64xf32> {
  %r = flow.dispatch.workgroups[%i](%x, %i) : (tensor<16x64xf32>, index) -> %x =
      (%b: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>>, %bi: index) {
    %oi = iree_tensor_ext.dispatch.workload.ordinal %bi, 0 : index
    %a = iree_tensor_ext.dispatch.tensor.load %b, offsets = [%oi, 0], sizes = [1, 63], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>> -> tensor<63xf32>
    iree_tensor_ext.dispatch.tensor.store %a, %b, offsets = [%oi, 1], sizes = [1, 63], strides = [1, 1] : tensor<63xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>>
    flow.return
  } count(%ci: index) -> (index, index, index) {
    %x0, %y0, %z0 = iree_tensor_ext.dispatch.workgroup_count_from_slice(%ci)
    flow.return %x0, %y0, %z0 : index, index, index
  }
  util.return %r : tensor<16x64xf32>
}

// -----

// An in-place dispatch that reads the tensor only where it writes it (a scatter's whole operand) stays.
// CHECK-LABEL: util.func public @in_place
// CHECK:         flow.dispatch.workgroups(%arg0) : (tensor<16x64xf32>) -> %arg0 =
// CHECK-NOT:     flow.tensor.update
util.func public @in_place(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = flow.dispatch.workgroups(%x) : (tensor<16x64xf32>) -> %x =
      (%b: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>>) {
    %a = iree_tensor_ext.dispatch.tensor.load %b, offsets = [0, 0], sizes = [16, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>> -> tensor<16x64xf32>
    iree_tensor_ext.dispatch.tensor.store %a, %b, offsets = [0, 0], sizes = [16, 64], strides = [1, 1] : tensor<16x64xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16x64xf32>>
    flow.return
  } count() -> (index, index, index) {
    %x0, %y0, %z0 = iree_tensor_ext.dispatch.workgroup_count_from_slice()
    flow.return %x0, %y0, %z0 : index, index, index
  }
  util.return %r : tensor<16x64xf32>
}

// -----

// A copy between windows known to share no element (columns 1:3 to 5:7) stays in place: its window is no
// run of memory, which a flow.tensor.update could write.
// CHECK-LABEL: util.func public @disjoint
// CHECK:         flow.dispatch.workgroups(%arg0) : (tensor<2x5x7xf32>) -> %arg0 =
// CHECK-NOT:     flow.tensor.update
util.func public @disjoint(%x: tensor<2x5x7xf32>) -> tensor<2x5x7xf32> {
  %r = flow.dispatch.workgroups(%x) : (tensor<2x5x7xf32>) -> %x =
      (%b: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<2x5x7xf32>>) {
    %a = iree_tensor_ext.dispatch.tensor.load %b, offsets = [0, 0, 1], sizes = [2, 5, 2], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<2x5x7xf32>> -> tensor<2x5x2xf32>
    iree_tensor_ext.dispatch.tensor.store %a, %b, offsets = [0, 0, 5], sizes = [2, 5, 2], strides = [1, 1, 1] : tensor<2x5x2xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<2x5x7xf32>>
    flow.return
  } count() -> (index, index, index) {
    %x0, %y0, %z0 = iree_tensor_ext.dispatch.workgroup_count_from_slice()
    flow.return %x0, %y0, %z0 : index, index, index
  }
  util.return %r : tensor<2x5x7xf32>
}
