// Bad input to oxla-run --interpret: one message, exit status 1, never a traceback.
// RUN: %expect-exit 1 oxla-run %s --interpret --function=pair --input=2x2xf32=1 --input=f32=1 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: %expect-exit 1 oxla-run %s --interpret --function=pair 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: %expect-exit 1 oxla-run %s --interpret --function=pair --input=3xi32=1 --input=f32=1 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: %expect-exit 1 oxla-run %s --interpret --function=nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: %expect-exit 1 oxla-run %s --interpret --function=unknown_op --input=2xf32=1 2>&1 | FileCheck %s --check-prefix=NOTIMPL
// RUN: %expect-exit 1 oxla-run %s --interpret --function=forever --step-limit=1000 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: %expect-exit 1 oxla-run %s --interpret --function=pair --input=2x2xi32=1,2,3 --input=f32=1 2>&1 | FileCheck %s --check-prefix=VALUES
// RUN: %expect-exit 1 oxla-run %s --interpret --function=checked --input=i32=3 2>&1 | FileCheck %s --check-prefix=CHECKFAIL
// RUN: oxla-run %s --interpret --function=checked --input=i32=2 | FileCheck %s --check-prefix=CHECKPASS
// RUN: %PYTHON -c "open('%t.bad.mlir', 'w').write('func.func @f() { %%0 = stablehlo.add }')"
// RUN: %expect-exit 1 oxla-run %t.bad.mlir --interpret 2>&1 | FileCheck %s --check-prefix=PARSE

// DTYPE: oxla-run: error: argument 0 of @pair: dtype float32 does not match tensor<2x2xi32> (expected int32)
// COUNT: oxla-run: error: arguments: @pair takes 2 arguments, 0 given
// SHAPE: oxla-run: error: argument 0 of @pair: shape (3,) does not match tensor<2x2xi32>
// NOFUNC: oxla-run: error: no function 'nope' in the module; it has: pair, unknown_op, forever, checked
// NOTIMPL: oxla-run: error: arith.negf at {{.*}}errors.mlir:{{[0-9]+}}:8: the interpreter cannot evaluate 'arith.negf'
// LIMIT: oxla-run: error: evaluation stopped after 1000 steps at stablehlo.add
// VALUES: oxla-run: error: '2x2xi32=1,2,3' has 3 values for shape (2, 2) (4 needed)
// CHECKFAIL: oxla-run: error: stablehlo.custom_call at {{.*}}errors.mlir:{{[0-9]+}}:3: expect_eq: 1 of 1 elements differ
// CHECKPASS: i32=4
// PARSE: error:
// DTYPE-NOT: Traceback
// COUNT-NOT: Traceback
// SHAPE-NOT: Traceback
// NOTIMPL-NOT: Traceback
// LIMIT-NOT: Traceback
// PARSE-NOT: Traceback
func.func @pair(%a: tensor<2x2xi32>, %b: tensor<f32>) -> (tensor<2x2xi32>, tensor<f32>) {
  %0 = stablehlo.add %a, %a : tensor<2x2xi32>
  %1 = stablehlo.add %b, %b : tensor<f32>
  return %0, %1 : tensor<2x2xi32>, tensor<f32>
}

func.func @unknown_op(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = arith.negf %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func @forever() -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r = stablehlo.while(%i = %zero) : tensor<i32>
   cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next : tensor<i32>
  }
  return %r : tensor<i32>
}

func.func @checked(%x: tensor<i32>) -> tensor<i32> {
  %two = stablehlo.constant dense<2> : tensor<i32>
  stablehlo.custom_call @check.expect_eq(%x, %two) {has_side_effect = true} : (tensor<i32>, tensor<i32>) -> ()
  %0 = stablehlo.add %x, %x : tensor<i32>
  return %0 : tensor<i32>
}
