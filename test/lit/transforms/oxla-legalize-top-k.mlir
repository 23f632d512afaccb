// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-top-k)' | FileCheck %s

// Floats rank by their bits, magnitude flipped where the sign is set (NaN above +inf, -NaN below -inf),
// in the high half of distinct i64 keys whose low half is the position's complement; IREE's top-k
// takes the keys (marked), and the values are gathered at the positions it finds.
// CHECK-LABEL: func.func @floats
// CHECK:         %[[BITS:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<6xf32>) -> tensor<6xi32>
// CHECK:         %[[SIGN:.*]] = stablehlo.shift_right_arithmetic %[[BITS]], %{{.*}} : tensor<6xi32>
// CHECK:         %[[MAG:.*]] = stablehlo.and %[[SIGN]], %{{.*}} : tensor<6xi32>
// CHECK:         %[[RANK:.*]] = stablehlo.xor %[[BITS]], %[[MAG]] : tensor<6xi32>
// CHECK:         %[[WIDE:.*]] = stablehlo.convert %[[RANK]] : (tensor<6xi32>) -> tensor<6xi64>
// CHECK:         %[[HIGH:.*]] = stablehlo.shift_left %[[WIDE]], %{{.*}} : tensor<6xi64>
// CHECK:         %[[AT:.*]] = stablehlo.iota dim = 0 : tensor<6xi64>
// CHECK:         %[[ONES:.*]] = stablehlo.or %[[HIGH]], %{{.*}} : tensor<6xi64>
// CHECK:         %[[KEYS:.*]] = stablehlo.subtract %[[ONES]], %[[AT]] : tensor<6xi64>
// CHECK:         %[[V:.*]], %[[I:.*]] = chlo.top_k(%[[KEYS]], k = 3) {oxla.distinct_keys}
// CHECK:         %[[P:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[I]] : tensor<3xi1>, tensor<3xi32>
// CHECK:         %[[G:.*]] = "stablehlo.gather"(%arg0, %{{.*}})
// CHECK:         return %[[G]], %[[P]] : tensor<3xf32>, tensor<3xi32>
func.func @floats(%arg0: tensor<6xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<6xf32> -> (tensor<3xf32>, tensor<3xi32>)
  return %values, %indices : tensor<3xf32>, tensor<3xi32>
}

// -----

// Unsigned 32-bit values rank with the top bit flipped; narrower integers as they are.
// CHECK-LABEL: func.func @unsigned
// CHECK:         %[[BITS:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<5x3xui32>) -> tensor<5x3xi32>
// CHECK:         stablehlo.xor %[[BITS]], %{{.*}} : tensor<5x3xi32>
// CHECK:         chlo.top_k(%{{.*}}, k = 2) {oxla.distinct_keys}
// CHECK-LABEL: func.func @narrow
// CHECK:         stablehlo.convert %arg0 : (tensor<5x3xui16>) -> tensor<5x3xi32>
// CHECK:         chlo.top_k(%{{.*}}, k = 2) {oxla.distinct_keys}
func.func @unsigned(%arg0: tensor<5x3xui32>) -> (tensor<5x2xui32>, tensor<5x2xi32>) {
  %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<5x3xui32> -> (tensor<5x2xui32>, tensor<5x2xi32>)
  return %values, %indices : tensor<5x2xui32>, tensor<5x2xi32>
}
func.func @narrow(%arg0: tensor<5x3xui16>) -> (tensor<5x2xui16>, tensor<5x2xi32>) {
  %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<5x3xui16> -> (tensor<5x2xui16>, tensor<5x2xi32>)
  return %values, %indices : tensor<5x2xui16>, tensor<5x2xi32>
}

// -----

// Long rows: the maxima of chunks of 32 keys, IREE's top-k over them, then over the 3 chunks it picks.
// CHECK-LABEL: func.func @chunked
// CHECK:         stablehlo.pad %{{.*}}, low = [0, 0], high = [0, 8], interior = [0, 0] : (tensor<4x3000xi64>, tensor<i64>) -> tensor<4x3008xi64>
// CHECK:         stablehlo.reshape %{{.*}} : (tensor<4x3008xi64>) -> tensor<4x94x32xi64>
// CHECK:         stablehlo.reduce
// CHECK:         chlo.top_k(%{{.*}}, k = 3) {oxla.distinct_keys} : tensor<4x94xi64>
// CHECK:         "stablehlo.gather"{{.*}} -> tensor<4x96xi64>
// CHECK:         chlo.top_k(%{{.*}}, k = 3) {oxla.distinct_keys} : tensor<4x96xi64>
func.func @chunked(%arg0: tensor<4x3000xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>) {
  %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<4x3000xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
  return %values, %indices : tensor<4x3xf32>, tensor<4x3xi32>
}

// -----

// 64-bit values: a sort of (value, index) pairs that breaks ties by index, then the first k.
// CHECK-LABEL: func.func @wide
// CHECK:         %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<5x3xi32>
// CHECK:         %[[SORT:.*]]:2 = "stablehlo.sort"(%arg0, %[[IOTA]])
// CHECK:           stablehlo.compare GT, %{{.*}}, %{{.*}}, SIGNED
// CHECK:           stablehlo.compare EQ, %{{.*}}, %{{.*}}, SIGNED
// CHECK:           stablehlo.compare LT, %{{.*}}, %{{.*}}, SIGNED
// CHECK:         %[[B:.*]]:2 = stablehlo.optimization_barrier %[[SORT]]#0, %[[SORT]]#1
// CHECK:         stablehlo.slice %[[B]]#0 [0:5, 0:2]
// CHECK:         stablehlo.slice %[[B]]#1 [0:5, 0:2]
// CHECK-NOT:     chlo.top_k
func.func @wide(%arg0: tensor<5x3xi64>) -> (tensor<5x2xi64>, tensor<5x2xi32>) {
  %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<5x3xi64> -> (tensor<5x2xi64>, tensor<5x2xi32>)
  return %values, %indices : tensor<5x2xi64>, tensor<5x2xi32>
}

// -----

// JAX's composite of the same name goes the same way; its decomposition is left for DCE.
// CHECK-LABEL: func.func @composite
// CHECK-NOT:     stablehlo.composite
// CHECK:         chlo.top_k(%{{.*}}, k = 2) {oxla.distinct_keys}
func.func @composite(%arg0: tensor<5x3xf32>) -> (tensor<5x2xf32>, tensor<5x2xi32>) {
  %0:2 = stablehlo.composite "chlo.top_k" %arg0 {composite_attributes = {k = 2 : i64}, decomposition = @top_k_impl, version = 1 : i32} : (tensor<5x3xf32>) -> (tensor<5x2xf32>, tensor<5x2xi32>)
  return %0#0, %0#1 : tensor<5x2xf32>, tensor<5x2xi32>
}
func.func private @top_k_impl(%arg0: tensor<5x3xf32>) -> (tensor<5x2xf32>, tensor<5x2xi32>) {
  %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<5x3xf32> -> (tensor<5x2xf32>, tensor<5x2xi32>)
  return %values, %indices : tensor<5x2xf32>, tensor<5x2xi32>
}

// -----

// A sort that is not a top_k is left alone.
// CHECK-LABEL: func.func @plain_sort
// CHECK-NOT:     stablehlo.optimization_barrier
func.func @plain_sort(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %c = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
