"""oxla.interpreter's API: evaluate, arguments, errors, step limit, check failures."""

import ml_dtypes
import numpy as np
import pytest
from interpreter_testing import one, run

from oxla import interpreter, ir
from oxla.interpreter import CheckFailure, EvaluationError, EvaluationLimitExceeded, Interpreter

ADD = """
func.func @main(%a: tensor<2x2xf32>, %b: tensor<f32>) -> (tensor<2x2xf32>, tensor<f32>) {
  %0 = stablehlo.add %a, %a : tensor<2x2xf32>
  %1 = stablehlo.multiply %b, %b : tensor<f32>
  return %0, %1 : tensor<2x2xf32>, tensor<f32>
}
func.func @constant() -> tensor<3xi32> {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  return %0 : tensor<3xi32>
}
"""


def test_evaluate_text_and_module_give_numpy_results():
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    out = interpreter.evaluate(ADD, "main", a, np.float32(3))
    assert [o.dtype for o in out] == [np.float32, np.float32] and out[1].shape == ()
    np.testing.assert_array_equal(out[0], 2 * a)
    assert out[1] == 9
    again = interpreter.evaluate(ir.parse(ADD), "main", a, np.float32(3))
    np.testing.assert_array_equal(again[0], out[0])


def test_results_are_copies_the_caller_may_change():
    compiled = Interpreter(ADD)
    [first] = compiled.call("constant")
    first[0] = 100
    [second] = compiled.call("constant")
    assert second.tolist() == [1, 2, 3]


def test_python_numbers_and_lists_take_the_parameter_dtype():
    out = run(ADD, [[1, 2], [3, 4]], 2)
    assert out[0].dtype == np.float32 and out[0].tolist() == [[2, 4], [6, 8]]


@pytest.mark.parametrize("args, message", [
    ((np.zeros((2, 2), np.float32),), "arguments: @main takes 2 arguments, 1 given"),
    ((np.zeros((2, 2), np.float64), np.float32(1)), "argument 0 of @main: dtype float64 does not match"),
    ((np.zeros((3, 2), np.float32), np.float32(1)), "argument 0 of @main: shape (3, 2) does not match"),
    ((np.zeros((2, 2), np.float32), np.zeros(2, np.float32)), "argument 1 of @main: shape (2,)"),
])
def test_arguments_that_do_not_match_raise_value_error_naming_them(args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        interpreter.evaluate(ADD, "main", *args)


def test_unknown_function_and_bad_options_raise_value_error():
    with pytest.raises(ValueError, match="no function @nope in the module; it has @main, @constant"):
        interpreter.evaluate(ADD, "nope")
    with pytest.raises(ValueError, match="replicas must be a positive integer"):
        Interpreter(ADD, replicas=0)
    with pytest.raises(ValueError, match="step_limit"):
        Interpreter(ADD, step_limit=-1)


def test_an_op_it_cannot_evaluate_raises_not_implemented_naming_op_and_location():
    text = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = arith.negf %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    module = ir.parse(text, name="prog.mlir")
    with pytest.raises(NotImplementedError, match=r"arith.negf at prog.mlir:2:8: the interpreter cannot evaluate"):
        interpreter.evaluate(module, "main", np.zeros(2, np.float32))


def test_an_unknown_op_on_a_path_not_taken_does_not_fail():
    text = """func.func @main(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.if"(%p) ({
    %1 = arith.negf %a : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }, {
    stablehlo.return %a : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return %0 : tensor<f32>
}"""
    assert one(text, False, np.float32(2)) == 2
    with pytest.raises(NotImplementedError, match="arith.negf"):
        one(text, True, np.float32(2))


def test_unknown_custom_call_target_is_not_implemented():
    text = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @my_kernel(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    with pytest.raises(NotImplementedError, match="custom_call target 'my_kernel' is not known"):
        one(text, np.zeros(2, np.float32))


FOREVER = """func.func @main() -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r = stablehlo.while(%i = %zero) : tensor<i64>
   cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %next : tensor<i64>
  }
  return %r : tensor<i64>
}"""


def test_step_limit_stops_a_loop_that_never_ends():
    with pytest.raises(EvaluationLimitExceeded, match="evaluation stopped after 500 steps at stablehlo"):
        run(FOREVER, step_limit=500)


def test_step_limit_counts_evaluated_ops():
    assert run(ADD, np.zeros((2, 2), np.float32), np.float32(1), step_limit=2)
    with pytest.raises(EvaluationLimitExceeded):
        run(ADD, np.zeros((2, 2), np.float32), np.float32(1), step_limit=1)


def test_a_failing_kernel_is_an_evaluation_error_with_the_op_and_location():
    text = """func.func @main(%x: tensor<4xf32>, %s: tensor<1xi32>) -> tensor<?xf32> {
  %0 = stablehlo.real_dynamic_slice %x, %s, %s, %s : (tensor<4xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}"""
    with pytest.raises(EvaluationError, match=r"stablehlo.real_dynamic_slice at <source>:2:8: ValueError: slice bounds"):
        one(text, np.zeros(4, np.float32), np.array([9], np.int32))


def test_check_ops_that_fail_raise_check_failure_after_evaluation():
    text = """func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  stablehlo.custom_call @check.expect_eq(%x, %0) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
  return %x : tensor<2xi32>
}"""
    assert one(text, np.array([1, 2], np.int32)).tolist() == [1, 2]
    with pytest.raises(CheckFailure, match="expect_eq: 1 of 2 elements differ"):
        one(text, np.array([1, 3], np.int32))


def test_narrow_integers_come_back_as_ml_dtypes():
    text = """func.func @main() -> tensor<3xi4> {
  %0 = stablehlo.constant dense<[7, -8, 3]> : tensor<3xi4>
  %1 = stablehlo.add %0, %0 : tensor<3xi4>
  return %1 : tensor<3xi4>
}"""
    out = one(text)
    assert out.dtype == ml_dtypes.int4 and out.astype(int).tolist() == [-2, 0, 6]


def test_functions_lists_the_module():
    assert Interpreter(ADD).functions() == ["main", "constant"]
