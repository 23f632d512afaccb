// A gather IREE collapsed into one loop (its position taken apart by remsi/divsi) is rebuilt over its loops,
// each part of the old position one loop's index, and stored through its binding viewed in that shape, so
// the row it reads is indexed by the innermost loop; generics that keep several loops, or whose result
// is stored in part, are left alone.
// RUN: oxla-opt %s -p 'builtin.module(oxla-llvmcpu-unflatten-gathers)' | FileCheck %s

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>

// CHECK-LABEL: func.func @rows_per_batch
// CHECK:         %[[OUT:.*]] = hal.interface.binding.subspan {{.*}} binding(2) {{.*}} : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x8x16xf32>>
// CHECK-NOT:     tensor<512xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<4x8x16xf32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f32):
// CHECK-NEXT:      %[[B:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[C:.*]] = linalg.index 2 : index
// CHECK-NOT:       arith.remsi
// CHECK-NOT:       arith.divsi
// CHECK:           %[[ID:.*]] = tensor.extract %{{.*}}[%[[B]], %[[J]]] : tensor<4x8xi32>
// CHECK:           tensor.extract %{{.*}}[%[[B]], %{{.*}}, %[[C]]] : tensor<4x32x16xf32>
// CHECK:         iree_tensor_ext.dispatch.tensor.store %[[G]], %[[OUT]], offsets = [0, 0, 0], sizes = [4, 8, 16], strides = [1, 1, 1]
func.func @rows_per_batch() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c31 = arith.constant 31 : index
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) alignment(16) offset(%c0) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x8xi32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(16) offset(%c0) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x32x16xf32>>
  %2 = hal.interface.binding.subspan layout(#layout) binding(2) alignment(16) offset(%c0) flags(Indirect) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<512xf32>>
  %ids = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [4, 8], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x8xi32>> -> tensor<4x8xi32>
  %x = iree_tensor_ext.dispatch.tensor.load %1, offsets = [0, 0, 0], sizes = [4, 32, 16], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x32x16xf32>> -> tensor<4x32x16xf32>
  %e = tensor.empty() : tensor<512xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<512xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c = arith.remsi %i, %c16 : index
    %q = arith.divsi %i, %c16 : index
    %j = arith.remsi %q, %c8 : index
    %b = arith.divsi %q, %c8 : index
    %id = tensor.extract %ids[%b, %j] : tensor<4x8xi32>
    %row = arith.index_cast %id : i32 to index
    %low = arith.maxsi %row, %c0 : index
    %r = arith.minui %low, %c31 : index
    %v = tensor.extract %x[%b, %r, %c] : tensor<4x32x16xf32>
    linalg.yield %v : f32
  } -> tensor<512xf32>
  iree_tensor_ext.dispatch.tensor.store %g, %2, offsets = [0], sizes = [512], strides = [1] : tensor<512xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<512xf32>>
  return
}

// CHECK-LABEL: func.func @stored_in_part
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}} : tensor<256xf32>)
// CHECK:         arith.remsi
func.func @stored_in_part() {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(16) offset(%c0) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x16xf32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(2) alignment(16) offset(%c0) flags(Indirect) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<512xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [16, 16], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x16xf32>> -> tensor<16x16xf32>
  %e = tensor.empty() : tensor<256xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<256xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c = arith.remsi %i, %c16 : index
    %r = arith.divsi %i, %c16 : index
    %v = tensor.extract %x[%c, %r] : tensor<16x16xf32>
    linalg.yield %v : f32
  } -> tensor<256xf32>
  iree_tensor_ext.dispatch.tensor.store %g, %1, offsets = [256], sizes = [256], strides = [1] : tensor<256xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<512xf32>>
  return
}
