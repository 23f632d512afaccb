"""CHLO: expanded ops agree with references, broadcasting ops, top_k, is_inf, constant_like."""

import math

import numpy as np
import pytest
from interpreter_testing import one, run


def chlo(op: str, values, type_: str = "tensor<6xf64>", result: str | None = None):
    result = result or type_
    text = f"""func.func @main(%x: {type_}) -> {result} {{
  %0 = "chlo.{op}"(%x) : ({type_}) -> {result}
  return %0 : {result}
}}"""
    return one(text, values)


X = np.array([-2.5, -0.3, 0.0, 0.7, 1.5, 4.0])


@pytest.mark.parametrize("op, reference", [
    ("erf", math.erf), ("erfc", math.erfc), ("sinh", math.sinh), ("cosh", math.cosh), ("atan", math.atan),
    ("asinh", math.asinh), ("tan", math.tan),
])
def test_expanded_elementwise_ops_agree_with_libm(op, reference):
    out = chlo(op, X)
    np.testing.assert_allclose(out, [reference(v) for v in X], rtol=1e-13, atol=1e-15)


def test_lgamma_and_digamma():
    positive = np.array([0.5, 1.0, 2.5, 7.0, 30.0, 100.5])
    np.testing.assert_allclose(chlo("lgamma", positive), [math.lgamma(v) for v in positive], rtol=1e-12)
    digamma = chlo("digamma", np.array([1.0, 2.0, 0.5, 10.0, 3.0, 1.5]))
    euler = 0.5772156649015329
    np.testing.assert_allclose(digamma[:3], [-euler, 1 - euler, -euler - 2 * math.log(2)], rtol=1e-10)


def test_is_inf_family():
    x = np.array([np.inf, -np.inf, np.nan, 1.0, 0.0, -0.0])
    assert chlo("is_inf", x, result="tensor<6xi1>").tolist() == [True, True, False, False, False, False]
    assert chlo("is_neg_inf", x, result="tensor<6xi1>").tolist() == [False, True, False, False, False, False]


def test_broadcasting_binary_ops():
    text = """func.func @main(%x: tensor<2x3xi32>, %y: tensor<3xi32>, %z: tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2x3xi1>) {
  %0 = chlo.broadcast_add %x, %y : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = chlo.broadcast_compare %x, %z {broadcast_dimensions = array<i64: 0>, comparison_direction = #chlo<comparison_direction GT>}
      : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi1>
  return %0, %1 : tensor<2x3xi32>, tensor<2x3xi1>
}"""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    added, greater = run(text, x, np.array([10, 20, 30], np.int32), np.array([1, 4], np.int32))
    assert added.tolist() == [[10, 21, 32], [13, 24, 35]]
    assert greater.tolist() == [[False, False, True], [False, False, True]]


def test_top_k_keeps_the_first_of_equal_values():
    text = """func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %0:2 = chlo.top_k(%x, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}"""
    x = np.array([[1, 5, 3, 5, 2], [np.nan, 1, np.inf, -1, 0]], np.float32)
    values, indices = run(text, x)
    assert indices.tolist() == [[1, 3, 2], [0, 2, 1]]
    assert values[0].tolist() == [5, 5, 3] and np.isnan(values[1, 0])


def test_mulhi_of_64_bit_integers():
    text = """func.func @main(%x: tensor<2xi64>, %y: tensor<2xi64>) -> tensor<2xi64> {
  %0 = "chlo.mulhi"(%x, %y) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}"""
    x = np.array([2**62, -(2**40)], np.int64)
    y = np.array([16, 2**30], np.int64)
    assert one(text, x, y).tolist() == [(2**62 * 16) >> 64, (-(2**40) * 2**30) >> 64]
