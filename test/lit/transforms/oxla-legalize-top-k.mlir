// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-top-k)' | FileCheck %s

// CHECK-LABEL: func.func @top_k
// CHECK:         %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<5x3xi32>
// CHECK:         %[[SORT:.*]]:2 = "stablehlo.sort"(%arg0, %[[IOTA]])
// CHECK:           stablehlo.compare GT, %{{.*}}, %{{.*}}, UNSIGNED
// CHECK:           stablehlo.compare EQ, %{{.*}}, %{{.*}}, UNSIGNED
// CHECK:           stablehlo.compare LT, %{{.*}}, %{{.*}}, SIGNED
// CHECK:         %[[B:.*]]:2 = stablehlo.optimization_barrier %[[SORT]]#0, %[[SORT]]#1
// CHECK:         stablehlo.slice %[[B]]#0 [0:5, 0:2]
// CHECK:         stablehlo.slice %[[B]]#1 [0:5, 0:2]
// CHECK-NOT:     chlo.top_k
func.func @top_k(%arg0: tensor<5x3xui16>) -> (tensor<5x2xui16>, tensor<5x2xi32>) {
  %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<5x3xui16> -> (tensor<5x2xui16>, tensor<5x2xi32>)
  return %values, %indices : tensor<5x2xui16>, tensor<5x2xi32>
}

// -----

// Floats order NaN above +inf, as top_k does.
// CHECK-LABEL: func.func @floats
// CHECK:         stablehlo.compare GT, %{{.*}}, %{{.*}}, TOTALORDER
func.func @floats(%arg0: tensor<6xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<6xf32> -> (tensor<3xf32>, tensor<3xi32>)
  return %values, %indices : tensor<3xf32>, tensor<3xi32>
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
