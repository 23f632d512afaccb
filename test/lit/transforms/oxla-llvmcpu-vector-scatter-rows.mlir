// A dispatch's scatter of rows into a 2-D tensor loaded from and stored back to one binding becomes one
// workgroup's loop over the update rows: the row index read once (through the elementwise ops that
// computed it), the row and its target read as vectors, combined, written back; the store moves inside.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-vector-scatter-rows)' | FileCheck %s

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @add_rows
// CHECK-DAG:     %[[IDS:.*]] = iree_tensor_ext.dispatch.tensor.load {{.*}} -> tensor<256xi32>
// CHECK-DAG:     %[[ROWS:.*]] = iree_tensor_ext.dispatch.tensor.load {{.*}} -> tensor<256x64xf32>
// CHECK-DAG:     %[[OUT:.*]] = iree_tensor_ext.dispatch.tensor.load {{.*}} -> tensor<101x64xf32>
// CHECK:         scf.forall (%{{.*}}) in (1) {
// CHECK:           %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %[[OUT]])
// CHECK:             %[[RAW:.*]] = tensor.extract %[[IDS]][%[[I]]] : tensor<256xi32>
// CHECK:             %[[OK:.*]] = arith.cmpi sle, %[[RAW]]
// CHECK:             %[[ID:.*]] = arith.select {{.*}}, %[[RAW]], %{{.*}} : i32
// CHECK:             arith.index_cast %[[ID]] : i32 to index
// CHECK:             scf.for %[[J:.*]] = {{.*}} iter_args(%[[PART:.*]] = %[[ACC]])
// CHECK:               %[[U:.*]] = vector.transfer_read %[[ROWS]][%[[I]], %[[J]]]{{.*}} : tensor<256x64xf32>, vector<64xf32>
// CHECK:               %[[O:.*]] = vector.transfer_read %[[PART]]{{.*}} : tensor<101x64xf32>, vector<64xf32>
// CHECK:               %[[S:.*]] = arith.addf %[[O]], %[[U]] : vector<64xf32>
// CHECK:               vector.transfer_write %[[S]], %[[PART]]
// CHECK:           iree_tensor_ext.dispatch.tensor.store %[[R]]
// CHECK:         } {mapping = [#iree_codegen.workgroup_mapping<x>]}
// CHECK-NOT:     iree_linalg_ext.scatter
func.func @add_rows() {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %c99_i32 = arith.constant 99 : i32
  %c100_i32 = arith.constant 100 : i32
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) alignment(16) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<256xi32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(16) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<256x64xf32>>
  %2 = hal.interface.binding.subspan layout(#layout) binding(2) alignment(16) offset(%c0) : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<101x64xf32>>
  %3 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0], sizes = [256], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<256xi32>> -> tensor<256xi32>
  %4 = iree_tensor_ext.dispatch.tensor.load %1, offsets = [0, 0], sizes = [256, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<256x64xf32>> -> tensor<256x64xf32>
  %5 = iree_tensor_ext.dispatch.tensor.load %2, offsets = [0, 0], sizes = [101, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<101x64xf32>> -> tensor<101x64xf32>
  %6 = tensor.empty() : tensor<256xi32>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%3 : tensor<256xi32>) outs(%6 : tensor<256xi32>) {
  ^bb0(%in: i32, %out: i32):
    %9 = arith.cmpi sle, %in, %c99_i32 : i32
    %10 = arith.cmpi sge, %in, %c0_i32 : i32
    %11 = arith.andi %10, %9 : i1
    %12 = arith.select %11, %in, %c100_i32 : i32
    linalg.yield %12 : i32
  } -> tensor<256xi32>
  %8 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%4, %7 : tensor<256x64xf32>, tensor<256xi32>) outs(%5 : tensor<101x64xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %9 = arith.addf %arg1, %arg0 : f32
    iree_linalg_ext.yield %9 : f32
  } -> tensor<101x64xf32>
  iree_tensor_ext.dispatch.tensor.store %8, %2, offsets = [0, 0], sizes = [101, 64], strides = [1, 1] : tensor<101x64xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<101x64xf32>>
  return
}

// -----

// A scatter whose result goes to another binding than its operand came from stays.
#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @elsewhere
// CHECK:         iree_linalg_ext.scatter
// CHECK-NOT:     scf.forall
func.func @elsewhere() {
  %c0 = arith.constant 0 : index
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) alignment(16) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<256xi32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(16) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<256x64xf32>>
  %2 = hal.interface.binding.subspan layout(#layout) binding(2) alignment(16) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<101x64xf32>>
  %3 = hal.interface.binding.subspan layout(#layout) binding(3) alignment(16) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<101x64xf32>>
  %4 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0], sizes = [256], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<256xi32>> -> tensor<256xi32>
  %5 = iree_tensor_ext.dispatch.tensor.load %1, offsets = [0, 0], sizes = [256, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<256x64xf32>> -> tensor<256x64xf32>
  %6 = iree_tensor_ext.dispatch.tensor.load %2, offsets = [0, 0], sizes = [101, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<101x64xf32>> -> tensor<101x64xf32>
  %7 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%5, %4 : tensor<256x64xf32>, tensor<256xi32>) outs(%6 : tensor<101x64xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %9 = arith.addf %arg1, %arg0 : f32
    iree_linalg_ext.yield %9 : f32
  } -> tensor<101x64xf32>
  iree_tensor_ext.dispatch.tensor.store %7, %3, offsets = [0, 0], sizes = [101, 64], strides = [1, 1] : tensor<101x64xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<101x64xf32>>
  return
}
