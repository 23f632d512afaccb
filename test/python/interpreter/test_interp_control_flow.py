"""while, if, case, func.call (recursive too), tuples, optimization_barrier, composite."""

import numpy as np
import pytest
from interpreter_testing import one, run

FACTORIAL = """
func.func @fact(%n: tensor<i64>) -> tensor<i64> {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %small = stablehlo.compare LE, %n, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %r = "stablehlo.if"(%small) ({
    stablehlo.return %one : tensor<i64>
  }, {
    %m = stablehlo.subtract %n, %one : tensor<i64>
    %f = func.call @fact(%m) : (tensor<i64>) -> tensor<i64>
    %p = stablehlo.multiply %n, %f : tensor<i64>
    stablehlo.return %p : tensor<i64>
  }) : (tensor<i1>) -> tensor<i64>
  return %r : tensor<i64>
}
"""


def test_recursive_calls_through_if_get_their_own_frames():
    assert one(FACTORIAL, np.int64(10), function="fact") == 3628800
    assert one(FACTORIAL, np.int64(0), function="fact") == 1


def test_while_threads_several_values_and_sees_values_from_above():
    text = """func.func @main(%n: tensor<i32>, %step: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %zero) : tensor<i32>, tensor<i32>
   cond {
    %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %next = stablehlo.add %i, %step : tensor<i32>
    %sum = stablehlo.add %acc, %i : tensor<i32>
    stablehlo.return %next, %sum : tensor<i32>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<i32>
}"""
    i, acc = run(text, np.int32(10), np.int32(3))
    assert (i, acc) == (12, 0 + 3 + 6 + 9)
    i, acc = run(text, np.int32(0), np.int32(3))  # the body never runs
    assert (i, acc) == (0, 0)


@pytest.mark.parametrize("index, expected", [(0, 10), (1, 11), (2, 12), (-1, 12), (7, 12)])
def test_case_runs_the_indexed_branch_or_the_last(index, expected):
    text = """func.func @main(%i: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.case"(%i) ({
    %a = stablehlo.constant dense<10> : tensor<i32>
    stablehlo.return %a : tensor<i32>
  }, {
    %b = stablehlo.constant dense<11> : tensor<i32>
    stablehlo.return %b : tensor<i32>
  }, {
    %c = stablehlo.constant dense<12> : tensor<i32>
    stablehlo.return %c : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}"""
    assert one(text, np.int32(index)) == expected


def test_tuples_barrier_and_composite():
    text = """func.func @twice(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %x, %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>, %y: tensor<2xi32>) -> (tensor<f32>, tensor<2xi32>, tensor<f32>) {
  %t = stablehlo.tuple %x, %y : tuple<tensor<f32>, tensor<2xi32>>
  %a = stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<f32>
  %b:2 = stablehlo.optimization_barrier %a, %y : tensor<f32>, tensor<2xi32>
  %c = stablehlo.composite "my.twice" %b#0 {decomposition = @twice} : (tensor<f32>) -> tensor<f32>
  return %b#0, %b#1, %c : tensor<f32>, tensor<2xi32>, tensor<f32>
}"""
    a, b, c = run(text, np.float32(1.5), np.array([1, 2], np.int32))
    assert (a, b.tolist(), c) == (1.5, [1, 2], 3.0)


def test_tuple_arguments_and_results():
    text = """func.func @main(%t: tuple<tensor<f32>, tensor<i32>>) -> tuple<tensor<i32>, tensor<f32>> {
  %a = stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>
  %b = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<i32>
  %r = stablehlo.tuple %b, %a : tuple<tensor<i32>, tensor<f32>>
  return %r : tuple<tensor<i32>, tensor<f32>>
}"""
    out = one(text, (np.float32(2), np.int32(3)))
    assert isinstance(out, tuple) and out == (3, 2.0)
    with pytest.raises(ValueError, match="expected a tuple of 2 values"):
        one(text, np.float32(2))
