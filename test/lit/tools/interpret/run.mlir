// oxla-run --interpret evaluates StableHLO with the reference interpreter: same inputs and outputs as compiled runs.
// RUN: oxla-run %s --interpret --function=pair --input=2x2xi32=1,2,3,4 --input=f32=2.5 --output=@%t.0.npy | FileCheck %s
// RUN: %PYTHON -c "import numpy; print(numpy.load('%t.0.npy').tolist())" | FileCheck %s --check-prefix=NPY
// RUN: %PYTHON -c "import numpy; numpy.save('%t.in.npy', numpy.arange(4, dtype=numpy.int32).reshape(2, 2))"
// RUN: oxla-run %s --interpret --function=pair --input=@%t.in.npy --input=f32=-1 | FileCheck %s --check-prefix=FROMNPY
// RUN: oxla-run %s --interpret --list-functions | FileCheck %s --check-prefix=LIST
// RUN: oxla-run %s --interpret --function=wrap --input="2xui8=[250 3]" | FileCheck %s --check-prefix=WRAP
// RUN: oxla-run %s --interpret --function=loop --input=i32=5 | FileCheck %s --check-prefix=LOOP

// CHECK:      EXEC @pair
// CHECK-NEXT: result[0]: tensor
// CHECK-NEXT: 2x2xi32=[2 4][6 8]
// CHECK-NEXT: result[1]: tensor
// CHECK-NEXT: f32=5
// CHECK-NOT: Traceback
// NPY: {{\[\[}}2, 4], [6, 8]]
// FROMNPY: 2x2xi32=[0 2][4 6]
// FROMNPY: f32=-2
// LIST-DAG: @pair(tensor<2x2xi32>, tensor<f32>) -> (tensor<2x2xi32>, tensor<f32>)
// LIST-DAG: @wrap(tensor<2xui8>) -> (tensor<2xui8>)
// Unsigned arithmetic wraps around: 250 + 10 = 4 (mod 256), 3 + 10 = 13.
// WRAP: 2xui8=[4 13]
// 1 + 2 + 3 + 4 + 5, summed by a while loop.
// LOOP: i32=15
func.func @pair(%a: tensor<2x2xi32>, %b: tensor<f32>) -> (tensor<2x2xi32>, tensor<f32>) {
  %0 = stablehlo.add %a, %a : tensor<2x2xi32>
  %1 = stablehlo.add %b, %b : tensor<f32>
  return %0, %1 : tensor<2x2xi32>, tensor<f32>
}

func.func @wrap(%a: tensor<2xui8>) -> tensor<2xui8> {
  %c = stablehlo.constant dense<10> : tensor<2xui8>
  %0 = stablehlo.add %a, %c : tensor<2xui8>
  return %0 : tensor<2xui8>
}

func.func @loop(%n: tensor<i32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %one, %acc = %zero) : tensor<i32>, tensor<i32>
   cond {
    %le = stablehlo.compare LE, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %le : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i32>
    %sum = stablehlo.add %acc, %i : tensor<i32>
    stablehlo.return %next, %sum : tensor<i32>, tensor<i32>
  }
  return %r#1 : tensor<i32>
}
