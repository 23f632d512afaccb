// Each public function whose results are static tensors of at least `min-bytes` in all gets an entry
// `__oxla_into.<name>` that takes its arguments, then one storage argument per result
// (iree.abi.output, with the result's logical type), and calls it; private functions, dynamic
// results and smaller results are left alone, and a second run adds nothing.
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-result-storage-entries)' | FileCheck %s
// RUN: oxla-opt %s --pass-pipeline='builtin.module(oxla-result-storage-entries{min-bytes=16},oxla-result-storage-entries{min-bytes=16})' | FileCheck %s --check-prefix=SMALL

// CHECK-LABEL: func.func @main(
// CHECK:       func.func @__oxla_into.main(%arg0: tensor<512x512xf32>, %arg1: tensor<512x512xf32> {iree.abi.output = 0 : index}) -> tensor<512x512xf32> {
// CHECK-NEXT:    %[[R:.+]] = call @main(%arg0) : (tensor<512x512xf32>) -> tensor<512x512xf32>
// CHECK-NEXT:    return %[[R]] : tensor<512x512xf32>
// CHECK-NOT:   __oxla_into

// SMALL-COUNT-1: func.func @__oxla_into.main(
// SMALL:         func.func @__oxla_into.pair(%arg0: tensor<4xi8> {iree.abi.encoding = tensor<4xui8>}, %arg1: tensor<4xi8> {iree.abi.encoding = tensor<4xui8>, iree.abi.output = 0 : index}, %arg2: tensor<4xf32> {iree.abi.output = 1 : index}) -> (tensor<4xi8> {iree.abi.encoding = tensor<4xui8>}, tensor<4xf32>) {
// SMALL-NEXT:      %[[P:.+]]:2 = call @pair(%arg0) : (tensor<4xi8>) -> (tensor<4xi8>, tensor<4xf32>)
// SMALL-NEXT:      return %[[P]]#0, %[[P]]#1 : tensor<4xi8>, tensor<4xf32>
// SMALL-NOT:     __oxla_into
module {
  func.func @main(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
    %0 = stablehlo.multiply %x, %x : tensor<512x512xf32>
    return %0 : tensor<512x512xf32>
  }
  func.func @pair(%x: tensor<4xi8> {iree.abi.encoding = tensor<4xui8>}) -> (tensor<4xi8> {iree.abi.encoding = tensor<4xui8>}, tensor<4xf32>) {
    %c = stablehlo.constant dense<1.0> : tensor<4xf32>
    return %x, %c : tensor<4xi8>, tensor<4xf32>
  }
  func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
    return %x : tensor<?xf32>
  }
  func.func private @hidden(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
    return %x : tensor<512x512xf32>
  }
}
