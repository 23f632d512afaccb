// A generic that builds words from a binding's groups of elements (each zero-extended, shifted left by
// its position times its width and ORed into zeros, on the bits of float words: IREE's lowering of a
// widening bitcast) becomes a load of the binding viewed as words, the same bytes. Words built from
// computed values, from part of each group, at a byte offset that is not a multiple of the word, with
// other shifts or a non-zero start stay.
// RUN: oxla-opt %s -p 'builtin.module(oxla-llvmcpu-word-loads)' | FileCheck %s

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
#groups = affine_map<(d0, d1) -> (d0, d1)>
#words = affine_map<(d0, d1) -> (d0)>
#each = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @float_pairs
// CHECK:         %[[VIEW:.*]] = hal.interface.binding.subspan {{.*}} binding(0) alignment(16) offset(%{{.*}}) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64xi64>>
// CHECK-NOT:     tensor<64x2xf32>
// CHECK:         %[[W:.*]] = iree_tensor_ext.dispatch.tensor.load %[[VIEW]], offsets = [0], sizes = [64], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64xi64>> -> tensor<64xi64>
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     arith.shli
// CHECK:         linalg.generic {{.*}} ins(%[[W]] : tensor<64xi64>)
// CHECK:           arith.shrui
func.func @float_pairs() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %c32 = arith.constant 32 : i64
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) alignment(16) offset(%c0) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x2xf32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(16) offset(%c0) flags(Indirect) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [64, 2], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x2xf32>> -> tensor<64x2xf32>
  %e = tensor.empty() : tensor<64xi64>
  %z = linalg.fill ins(%zero : i64) outs(%e : tensor<64xi64>) -> tensor<64xi64>
  %w = linalg.generic {indexing_maps = [#groups, #words], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x2xf32>) outs(%z : tensor<64xi64>) {
  ^bb0(%in: f32, %out: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %shift = arith.muli %jj, %c32 : i64
    %bits = arith.bitcast %in : f32 to i32
    %wide = arith.extui %bits : i32 to i64
    %placed = arith.shli %wide, %shift : i64
    %word = arith.ori %placed, %out : i64
    linalg.yield %word : i64
  } -> tensor<64xi64>
  %f = tensor.empty() : tensor<64xf32>
  %odd = linalg.generic {indexing_maps = [#each, #each], iterator_types = ["parallel"]} ins(%w : tensor<64xi64>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: i64, %out: f32):
    %high = arith.shrui %in, %c32 : i64
    %low = arith.trunci %high : i64 to i32
    %v = arith.bitcast %low : i32 to f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  iree_tensor_ext.dispatch.tensor.store %odd, %1, offsets = [0], sizes = [64], strides = [1] : tensor<64xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  return
}

// Bytes into 32-bit words (no bitcast), from rows 8..15 of the binding, the shift's factors swapped and
// the OR's operands too.
// CHECK-LABEL: func.func @byte_rows
// CHECK:         %[[VIEW:.*]] = hal.interface.binding.subspan {{.*}} binding(0) {{.*}} offset(%{{.*}}) {{.*}} : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32xi32>>
// CHECK:         %[[W:.*]] = iree_tensor_ext.dispatch.tensor.load %[[VIEW]], offsets = [8], sizes = [8], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32xi32>> -> tensor<8xi32>
// CHECK-NOT:     linalg.generic
// CHECK:         iree_tensor_ext.dispatch.tensor.store %[[W]]
func.func @byte_rows() {
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) alignment(16) offset(%c64) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x4xi8>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(16) offset(%c64) flags(Indirect) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xi32>>
  %x = iree_tensor_ext.dispatch.tensor.load %0, offsets = [8, 0], sizes = [8, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x4xi8>> -> tensor<8x4xi8>
  %e = tensor.empty() : tensor<8xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e : tensor<8xi32>) -> tensor<8xi32>
  %w = linalg.generic {indexing_maps = [#groups, #words], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x4xi8>) outs(%z : tensor<8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i32
    %shift = arith.muli %c8, %jj : i32
    %wide = arith.extui %in : i8 to i32
    %placed = arith.shli %wide, %shift : i32
    %word = arith.ori %out, %placed : i32
    linalg.yield %word : i32
  } -> tensor<8xi32>
  iree_tensor_ext.dispatch.tensor.store %w, %1, offsets = [0], sizes = [8], strides = [1] : tensor<8xi32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xi32>>
  return
}

// Float words: the accumulator and the word are the float's bits.
// CHECK-LABEL: func.func @half_quads
// CHECK:         %[[VIEW:.*]] = hal.interface.binding.subspan {{.*}} : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16xf64>>
// CHECK:         %[[W:.*]] = iree_tensor_ext.dispatch.tensor.load %[[VIEW]], offsets = [0], sizes = [16], strides = [1] {{.*}} -> tensor<16xf64>
// CHECK-NEXT:    iree_tensor_ext.dispatch.tensor.store %[[W]]
func.func @half_quads() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %c16 = arith.constant 16 : i64
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) alignment(16) offset(%c0) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x4xf16>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(16) offset(%c0) flags(Indirect) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16xf64>>
  %x = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [16, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x4xf16>> -> tensor<16x4xf16>
  %e = tensor.empty() : tensor<16xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<16xf64>) -> tensor<16xf64>
  %w = linalg.generic {indexing_maps = [#groups, #words], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x4xf16>) outs(%z : tensor<16xf64>) {
  ^bb0(%in: f16, %out: f64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %shift = arith.muli %jj, %c16 : i64
    %bits = arith.bitcast %in : f16 to i16
    %wide = arith.extui %bits : i16 to i64
    %placed = arith.shli %wide, %shift : i64
    %acc = arith.bitcast %out : f64 to i64
    %word = arith.ori %placed, %acc : i64
    %v = arith.bitcast %word : i64 to f64
    linalg.yield %v : f64
  } -> tensor<16xf64>
  iree_tensor_ext.dispatch.tensor.store %w, %1, offsets = [0], sizes = [16], strides = [1] : tensor<16xf64> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16xf64>>
  return
}

// CHECK-LABEL: func.func @kept
// CHECK-NOT:     tensor<{{[0-9]+}}xi64>>
// CHECK-COUNT-5: arith.shli
// CHECK-NOT:     arith.shli
func.func @kept() {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %c16 = arith.constant 16 : i64
  %c32 = arith.constant 32 : i64
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) alignment(16) offset(%c0) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x2xf32>>
  %quads = hal.interface.binding.subspan layout(#layout) binding(0) alignment(16) offset(%c0) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4xf32>>
  %shifted = hal.interface.binding.subspan layout(#layout) binding(0) alignment(16) offset(%c4) flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x2xf32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(16) offset(%c0) flags(Indirect) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<5x64xi64>>
  %x = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [64, 2], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x2xf32>> -> tensor<64x2xf32>
  %half = iree_tensor_ext.dispatch.tensor.load %quads, offsets = [0, 0], sizes = [64, 2], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4xf32>> -> tensor<64x2xf32>
  %off = iree_tensor_ext.dispatch.tensor.load %shifted, offsets = [0, 0], sizes = [64, 2], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x2xf32>> -> tensor<64x2xf32>
  %pe = tensor.empty() : tensor<64x2xf32>
  %exp = linalg.generic {indexing_maps = [#groups, #groups], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x2xf32>) outs(%pe : tensor<64x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<64x2xf32>
  %e = tensor.empty() : tensor<64xi64>
  %z = linalg.fill ins(%zero : i64) outs(%e : tensor<64xi64>) -> tensor<64xi64>
  %ones = linalg.fill ins(%one : i64) outs(%e : tensor<64xi64>) -> tensor<64xi64>
  // Computed values, part of each group, a byte offset of 4, a shift of 16 per element, a start of 1.
  %computed = linalg.generic {indexing_maps = [#groups, #words], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<64x2xf32>) outs(%z : tensor<64xi64>) {
  ^bb0(%in: f32, %out: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %shift = arith.muli %jj, %c32 : i64
    %bits = arith.bitcast %in : f32 to i32
    %wide = arith.extui %bits : i32 to i64
    %placed = arith.shli %wide, %shift : i64
    %word = arith.ori %placed, %out : i64
    linalg.yield %word : i64
  } -> tensor<64xi64>
  %part = linalg.generic {indexing_maps = [#groups, #words], iterator_types = ["parallel", "reduction"]} ins(%half : tensor<64x2xf32>) outs(%z : tensor<64xi64>) {
  ^bb0(%in: f32, %out: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %shift = arith.muli %jj, %c32 : i64
    %bits = arith.bitcast %in : f32 to i32
    %wide = arith.extui %bits : i32 to i64
    %placed = arith.shli %wide, %shift : i64
    %word = arith.ori %placed, %out : i64
    linalg.yield %word : i64
  } -> tensor<64xi64>
  %unaligned = linalg.generic {indexing_maps = [#groups, #words], iterator_types = ["parallel", "reduction"]} ins(%off : tensor<64x2xf32>) outs(%z : tensor<64xi64>) {
  ^bb0(%in: f32, %out: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %shift = arith.muli %jj, %c32 : i64
    %bits = arith.bitcast %in : f32 to i32
    %wide = arith.extui %bits : i32 to i64
    %placed = arith.shli %wide, %shift : i64
    %word = arith.ori %placed, %out : i64
    linalg.yield %word : i64
  } -> tensor<64xi64>
  %overlapping = linalg.generic {indexing_maps = [#groups, #words], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x2xf32>) outs(%z : tensor<64xi64>) {
  ^bb0(%in: f32, %out: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %shift = arith.muli %jj, %c16 : i64
    %bits = arith.bitcast %in : f32 to i32
    %wide = arith.extui %bits : i32 to i64
    %placed = arith.shli %wide, %shift : i64
    %word = arith.ori %placed, %out : i64
    linalg.yield %word : i64
  } -> tensor<64xi64>
  %started = linalg.generic {indexing_maps = [#groups, #words], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x2xf32>) outs(%ones : tensor<64xi64>) {
  ^bb0(%in: f32, %out: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %shift = arith.muli %jj, %c32 : i64
    %bits = arith.bitcast %in : f32 to i32
    %wide = arith.extui %bits : i32 to i64
    %placed = arith.shli %wide, %shift : i64
    %word = arith.ori %placed, %out : i64
    linalg.yield %word : i64
  } -> tensor<64xi64>
  iree_tensor_ext.dispatch.tensor.store %computed, %1, offsets = [0, 0], sizes = [1, 64], strides = [1, 1] : tensor<64xi64> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<5x64xi64>>
  iree_tensor_ext.dispatch.tensor.store %part, %1, offsets = [1, 0], sizes = [1, 64], strides = [1, 1] : tensor<64xi64> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<5x64xi64>>
  iree_tensor_ext.dispatch.tensor.store %unaligned, %1, offsets = [2, 0], sizes = [1, 64], strides = [1, 1] : tensor<64xi64> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<5x64xi64>>
  iree_tensor_ext.dispatch.tensor.store %overlapping, %1, offsets = [3, 0], sizes = [1, 64], strides = [1, 1] : tensor<64xi64> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<5x64xi64>>
  iree_tensor_ext.dispatch.tensor.store %started, %1, offsets = [4, 0], sizes = [1, 64], strides = [1, 1] : tensor<64xi64> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<5x64xi64>>
  return
}
