// oxla-run compiles StableHLO on the fly, takes iree-run-module's inputs, saves outputs.
// RUN: oxla-run %s --function=pair --input=2x2xi32=1,2,3,4 --input=f32=2.5 --output=@%t.0.npy | FileCheck %s
// RUN: %PYTHON -c "import numpy; print(numpy.load('%t.0.npy').tolist())" | FileCheck %s --check-prefix=NPY
// RUN: %PYTHON -c "import numpy; numpy.save('%t.in.npy', numpy.arange(4, dtype=numpy.int32).reshape(2, 2))"
// RUN: oxla-run %s --function=pair --input=@%t.in.npy --input=f32=-1 | FileCheck %s --check-prefix=FROMNPY
// RUN: oxla-run %s --list-functions | FileCheck %s --check-prefix=LIST
// RUN: %expect-exit 1 oxla-run %s --function=pair --input=2x2xf32=1 --input=f32=1 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: %expect-exit 1 oxla-run %s --function=pair 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: %expect-exit 1 oxla-run %s --function=nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: %expect-exit 1 oxla-run %s --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: %expect-exit 1 oxla-run %s --function=pair --input=2x2xi32=1,2,3 --input=f32=1 2>&1 | FileCheck %s --check-prefix=VALUES
// RUN: %PYTHON -c "open('%t.junk.vmfb', 'wb').write(b'IREE' + bytes(range(200)))"
// RUN: %expect-exit 1 oxla-run %t.junk.vmfb 2>&1 | FileCheck %s --check-prefix=JUNK

// CHECK:      EXEC @pair
// CHECK-NEXT: result[0]: hal.buffer_view
// CHECK-NEXT: 2x2xi32=[2 4][6 8]
// CHECK-NEXT: result[1]: hal.buffer_view
// CHECK-NEXT: f32=5
// NPY: {{\[\[}}2, 4], [6, 8]]
// FROMNPY: 2x2xi32=[0 2][4 6]
// FROMNPY: f32=-2
// LIST: pair(%input0: tensor<2x2xi32>, %input1: tensor<f32>) -> (tensor<2x2xi32>, tensor<f32>)
// DTYPE: oxla-run: error: pair: argument 1 (%input0) expects tensor<2x2xi32>, got float32[2,2]
// COUNT: oxla-run: error: pair: expects 2 arguments
// NOFUNC: oxla-run: error: no function 'nope' in the module; it has: pair
// DEVICE: oxla-run: error: {{.*}}tpu
// VALUES: oxla-run: error: '2x2xi32=1,2,3' has 3 values for shape (2, 2) (4 needed)
// JUNK: oxla-run: error:
// CHECK-NOT: Traceback
func.func @pair(%a: tensor<2x2xi32>, %b: tensor<f32>) -> (tensor<2x2xi32>, tensor<f32>) {
  %0 = stablehlo.add %a, %a : tensor<2x2xi32>
  %1 = stablehlo.add %b, %b : tensor<f32>
  return %0, %1 : tensor<2x2xi32>, tensor<f32>
}
