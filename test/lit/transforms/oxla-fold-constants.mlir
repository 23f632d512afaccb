// oxla-fold-constants: pure StableHLO ops whose operands are all constants become constants, bit for bit.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-fold-constants | FileCheck %s
// A smaller bound keeps results past it.
// RUN: oxla-opt %s --split-input-file --allow-unregistered-dialect --oxla-fold-constants=max-elements=100 \
// RUN:   | FileCheck %s --check-prefix=SMALL

// A chain folds to one constant; the constants it used go. NaN payloads and
// the sign of zero survive: -(NaN + -0.0) flips the NaN's sign bit only, and
// -(0.0 + -0.0) is -0.0.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<[-1.000000e+00, 0xFFC00001, -0.000000e+00, 0xFF800000]> : tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.add %[[C]], %arg0
// CHECK-NEXT:    return %[[R]]
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = stablehlo.constant dense<[1.0, 0x7FC00001, 0.0, 0x7F800000]> : tensor<4xf32>
  %b = stablehlo.constant dense<-0.0> : tensor<4xf32>
  %s = stablehlo.add %a, %b : tensor<4xf32>
  %n = stablehlo.negate %s : tensor<4xf32>
  %r = stablehlo.add %n, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Integers wrap around; unsigned ones too.
// CHECK-LABEL: func.func @integers
// CHECK-DAG:     stablehlo.constant dense<[-128, 0]> : tensor<2xi8>
// CHECK-DAG:     stablehlo.constant dense<255> : tensor<ui8>
// CHECK-DAG:     stablehlo.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NOT:     stablehlo.add
// CHECK-NOT:     stablehlo.subtract
// CHECK-NOT:     stablehlo.compare
func.func @integers() -> (tensor<2xi8>, tensor<ui8>, tensor<2xi1>) {
  %a = stablehlo.constant dense<[127, -1]> : tensor<2xi8>
  %one = stablehlo.constant dense<1> : tensor<2xi8>
  %s = stablehlo.add %a, %one : tensor<2xi8>
  %z = stablehlo.constant dense<0> : tensor<ui8>
  %u1 = stablehlo.constant dense<1> : tensor<ui8>
  %d = stablehlo.subtract %z, %u1 : tensor<ui8>
  %c = stablehlo.compare LT, %s, %a, SIGNED : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi1>
  return %s, %d, %c : tensor<2xi8>, tensor<ui8>, tensor<2xi1>
}

// -----

// Other element types: bf16, complex, and a conversion.
// CHECK-LABEL: func.func @element_types
// CHECK-DAG:     stablehlo.constant dense<[3.000000e+00, 0xFF80]> : tensor<2xbf16>
// CHECK-DAG:     stablehlo.constant dense<(4.000000e+00,6.000000e+00)> : tensor<complex<f32>>
// CHECK-DAG:     stablehlo.constant dense<[1.600000e+01, -2.000000e+00]> : tensor<2xf64>
// CHECK-NOT:     stablehlo.multiply
// CHECK-NOT:     stablehlo.add
// CHECK-NOT:     stablehlo.convert
func.func @element_types() -> (tensor<2xbf16>, tensor<complex<f32>>, tensor<2xf64>) {
  %a = stablehlo.constant dense<[1.5, 0xFF80]> : tensor<2xbf16>
  %two = stablehlo.constant dense<2.0> : tensor<2xbf16>
  %m = stablehlo.multiply %a, %two : tensor<2xbf16>
  %c = stablehlo.constant dense<(2.0, 3.0)> : tensor<complex<f32>>
  %s = stablehlo.add %c, %c : tensor<complex<f32>>
  %i = stablehlo.constant dense<[16, -2]> : tensor<2xi32>
  %f = stablehlo.convert %i : (tensor<2xi32>) -> tensor<2xf64>
  return %m, %s, %f : tensor<2xbf16>, tensor<complex<f32>>, tensor<2xf64>
}

// -----

// A broadcast of a splat stays a splat, however large; a reduce with a body
// (here reading a constant from above) folds.
// CHECK-LABEL: func.func @splats_and_regions
// CHECK-DAG:     stablehlo.constant dense<-0.000000e+00> : tensor<1000x1000xf32>
// CHECK-DAG:     stablehlo.constant dense<2.000000e+01> : tensor<f32>
// CHECK-NOT:     stablehlo.broadcast_in_dim
// CHECK-NOT:     stablehlo.reduce
// SMALL-LABEL: func.func @splats_and_regions
// SMALL:         stablehlo.broadcast_in_dim
// SMALL-NOT:     stablehlo.reduce
func.func @splats_and_regions() -> (tensor<1000x1000xf32>, tensor<f32>) {
  %z = stablehlo.constant dense<-0.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<1000x1000xf32>
  %v = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %two = stablehlo.constant dense<2.0> : tensor<f32>
  %r = stablehlo.reduce(%v init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    reducer(%a: tensor<f32>, %c: tensor<f32>) {
      %s = stablehlo.add %a, %c : tensor<f32>
      %d = stablehlo.multiply %s, %two : tensor<f32>
      %h = stablehlo.divide %d, %two : tensor<f32>
      stablehlo.return %h : tensor<f32>
    }
  %r2 = stablehlo.add %r, %r : tensor<f32>
  return %b, %r2 : tensor<1000x1000xf32>, tensor<f32>
}

// -----

// Small dense results from nothing or from splats fold (an iota, a
// concatenation of splats); large ones stay ops.
// CHECK-LABEL: func.func @expansion
// CHECK-DAG:     stablehlo.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
// CHECK-DAG:     stablehlo.constant dense<[1.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-DAG:     stablehlo.iota dim = 0 : tensor<2000xi32>
// CHECK-DAG:     stablehlo.broadcast_in_dim %{{.*}}, dims = [0] : (tensor<4xi32>) -> tensor<4x1000xi32>
// CHECK-DAG:     stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 0 : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<2000xf32>
func.func @expansion() -> (tensor<4xi32>, tensor<3xf32>, tensor<2000xi32>, tensor<4x1000xi32>, tensor<2000xf32>) {
  %i = stablehlo.iota dim = 0 : tensor<4xi32>
  %one = stablehlo.constant dense<1.0> : tensor<2xf32>
  %two = stablehlo.constant dense<2.0> : tensor<1xf32>
  %c = stablehlo.concatenate %one, %two, dim = 0 : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
  %big = stablehlo.iota dim = 0 : tensor<2000xi32>
  %d = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi32>
  %b = stablehlo.broadcast_in_dim %d, dims = [0] : (tensor<4xi32>) -> tensor<4x1000xi32>
  %p = stablehlo.constant dense<1.0> : tensor<1000xf32>
  %q = stablehlo.constant dense<2.0> : tensor<1000xf32>
  %cc = stablehlo.concatenate %p, %q, dim = 0 : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<2000xf32>
  return %i, %c, %big, %b, %cc : tensor<4xi32>, tensor<3xf32>, tensor<2000xi32>, tensor<4x1000xi32>, tensor<2000xf32>
}

// -----

// max-elements bounds every result: past it the op stays (SMALL run).
// CHECK-LABEL: func.func @bounded
// CHECK-NEXT:    stablehlo.constant dense<{{.*}}> : tensor<200xf32>
// CHECK-NEXT:    return
// SMALL-LABEL: func.func @bounded
// SMALL:         stablehlo.add
func.func @bounded() -> tensor<200xf32> {
  %i = stablehlo.iota dim = 0 : tensor<200xf32>
  %a = stablehlo.add %i, %i : tensor<200xf32>
  return %a : tensor<200xf32>
}

// -----

// Never folded: ops reading a non-constant, random numbers, custom calls,
// barriers, loops, side effects in a body, quantized or dynamic results,
// and ops of other dialects.
// CHECK-LABEL: func.func @kept
// CHECK:         stablehlo.add %arg0
// CHECK:         stablehlo.rng
// CHECK:         stablehlo.rng_bit_generator
// CHECK:         stablehlo.custom_call @f
// CHECK:         stablehlo.optimization_barrier
// CHECK:         stablehlo.while
// CHECK:         stablehlo.reduce
// CHECK:         stablehlo.custom_call @log
// CHECK:         stablehlo.uniform_quantize
// CHECK:         stablehlo.dynamic_broadcast_in_dim
// CHECK:         arith.addf
// CHECK:         "test.op"
func.func @kept(%x: tensor<f32>) -> (tensor<f32>, tensor<4xf32>, tensor<2xui64>, tensor<f32>, tensor<f32>, tensor<i32>,
                                    tensor<f32>, tensor<!quant.uniform<i8:f32, 0.5>>, tensor<?xf32>, f32, tensor<f32>) {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = stablehlo.add %x, %c : tensor<f32>
  %shape = stablehlo.constant dense<4> : tensor<1xi64>
  %1 = stablehlo.rng %c, %c, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  %state = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %2:2 = stablehlo.rng_bit_generator %state, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui64>)
  %3 = stablehlo.custom_call @f(%c) : (tensor<f32>) -> tensor<f32>
  %4 = stablehlo.optimization_barrier %c : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %5 = stablehlo.while(%i = %zero) : tensor<i32>
    cond {
      %ten = stablehlo.constant dense<10> : tensor<i32>
      %p = stablehlo.compare LT, %i, %ten : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %n : tensor<i32>
    }
  %v = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %6 = stablehlo.reduce(%v init: %c) across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %log = stablehlo.custom_call @log(%a) {has_side_effect = true} : (tensor<f32>) -> tensor<f32>
      %s = stablehlo.add %log, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }
  %7 = stablehlo.uniform_quantize %c : (tensor<f32>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  %dims = stablehlo.constant dense<3> : tensor<1xi64>
  %8 = stablehlo.dynamic_broadcast_in_dim %c, %dims, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %a1 = arith.constant 1.0 : f32
  %9 = arith.addf %a1, %a1 : f32
  %10 = "test.op"(%c) : (tensor<f32>) -> tensor<f32>
  return %0, %1, %2#1, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<f32>, tensor<4xf32>, tensor<2xui64>, tensor<f32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<!quant.uniform<i8:f32, 0.5>>, tensor<?xf32>, f32, tensor<f32>
}
