// A linalg.generic that reads a table at a row computed from an input holding the same value all along
// the innermost loop reads that input inside the body instead (tensor.extract at linalg.index 0), so the
// vectorizer loads rows as vectors; an input that varies along the innermost loop stays a block argument.
// RUN: oxla-opt %s -p 'builtin.module(oxla-llvmcpu-contiguous-gathers)' | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK:         ^bb0(%[[IN:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[ID:.*]] = tensor.extract %arg1[%[[I]]] : tensor<64xi32>
// CHECK-NEXT:      %[[ROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT:      %[[COL:.*]] = linalg.index 1 : index
// CHECK-NEXT:      tensor.extract %arg0[%[[ROW]], %[[COL]]] : tensor<1000x32xf32>
func.func @rows(%t: tensor<1000x32xf32>, %ids: tensor<64xi32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<64xi32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%in: i32, %out: f32):
    %row = arith.index_cast %in : i32 to index
    %col = linalg.index 1 : index
    %x = tensor.extract %t[%row, %col] : tensor<1000x32xf32>
    linalg.yield %x : f32
  } -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// CHECK-LABEL: func.func @elements
// CHECK:         ^bb0(%[[IN:.*]]: index, %{{.*}}: f32):
// CHECK-NEXT:      tensor.extract %arg0[%[[IN]]] : tensor<1000xf32>
func.func @elements(%t: tensor<1000xf32>, %i: tensor<64x32xindex>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%i : tensor<64x32xindex>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%in: index, %out: f32):
    %x = tensor.extract %t[%in] : tensor<1000xf32>
    linalg.yield %x : f32
  } -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}
