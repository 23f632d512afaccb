// Sorts the cost model gives to the network become a stablehlo.while of rounds: each element's partner
// gathered, the comparator applied to whole tensors with ties by position, padding to a power of two
// sliced off. Short sorts, top-k prefixes and comparators that are not element-wise stay sorts.
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-sort-networks)' | FileCheck %s
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-llvmcpu-sort-networks{always=true})' | FileCheck %s --check-prefix=ALWAYS

// CHECK-LABEL: func.func @rows
// CHECK:         stablehlo.pad %arg0, %{{.*}}, low = [0, 0], high = [0, 24], interior = [0, 0] : (tensor<8x1000xf32>, tensor<f32>) -> tensor<8x1024xf32>
// CHECK:         stablehlo.iota dim = 1 : tensor<8x1024xi32>
// CHECK:         stablehlo.while
// CHECK:           stablehlo.constant dense<{{.*}}> : tensor<55x2xi32>
// CHECK:           "stablehlo.gather"
// CHECK:           stablehlo.compare LT, %{{.*}}, %{{.*}}, TOTALORDER : (tensor<8x1024xf32>, tensor<8x1024xf32>) -> tensor<8x1024xi1>
// CHECK-NOT:     "stablehlo.sort"
// CHECK:         stablehlo.slice %{{.*}} [0:8, 0:1000]
func.func @rows(%arg0: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<8x1000xf32>) -> tensor<8x1000xf32>
  return %0 : tensor<8x1000xf32>
}

// -----

// CHECK-LABEL: func.func @short
// CHECK:         "stablehlo.sort"
// ALWAYS-LABEL: func.func @short
// ALWAYS:        stablehlo.while
// ALWAYS-NOT:    "stablehlo.sort"
func.func @short(%arg0: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<4x8xi32>) -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// CHECK-LABEL: func.func @top_k
// CHECK:         "stablehlo.sort"
// ALWAYS-LABEL: func.func @top_k
// ALWAYS:        "stablehlo.sort"
func.func @top_k(%arg0: tensor<8x1000xf32>) -> tensor<8x5xf32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %2 = stablehlo.slice %0 [0:8, 0:5] : (tensor<8x1000xf32>) -> tensor<8x5xf32>
  return %2 : tensor<8x5xf32>
}

// -----

// CHECK-LABEL: func.func @not_elementwise
// CHECK:         "stablehlo.sort"
// ALWAYS-LABEL: func.func @not_elementwise
// ALWAYS:        "stablehlo.sort"
func.func @not_elementwise(%arg0: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.reshape %a : (tensor<f32>) -> tensor<1xf32>
    %s = stablehlo.reshape %r : (tensor<1xf32>) -> tensor<f32>
    %1 = stablehlo.compare LT, %s, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<8x1000xf32>) -> tensor<8x1000xf32>
  return %0 : tensor<8x1000xf32>
}
