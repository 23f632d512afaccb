"""reduce, reduce_window, select_and_scatter, map and sort: fast ufunc paths and general regions agree."""

import numpy as np
import pytest
from interpreter_testing import one, run


def test_reduce_sum_and_max_with_init_values():
    text = """func.func @main(%x: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2xf32>) {
  %zero = stablehlo.constant dense<10.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0, %1 : tensor<3xf32>, tensor<2xf32>
}"""
    x = np.array([[1, np.nan, 3], [4, 5, 6]], np.float32)
    total, largest = run(text, x)
    assert total[0] == 15 and np.isnan(total[1]) and total[2] == 19
    assert np.isnan(largest[0]) and largest[1] == 6


ARGMAX = """func.func @main(%x: tensor<5xf32>) -> (tensor<f32>, tensor<i32>) {
  %iota = stablehlo.iota dim = 0 : tensor<5xi32>
  %v0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %v0), (%iota init: %i0) across dimensions = [0] :
      (tensor<5xf32>, tensor<5xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {
      %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lower = stablehlo.minimum %ai, %bi : tensor<i32>
      %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
      %i = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i32>
      %j = stablehlo.select %eq, %lower, %i : tensor<i1>, tensor<i32>
      stablehlo.return %v, %j : tensor<f32>, tensor<i32>
    }
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}"""


def test_variadic_reduce_runs_the_region_argmax():
    value, index = run(ARGMAX, np.array([3, 9, 1, 9, 2], np.float32))
    assert value == 9 and index == 1


def test_reduce_of_an_empty_dimension_is_the_init_value():
    text = """func.func @main(%x: tensor<0x2xi32>) -> tensor<2xi32> {
  %c = stablehlo.constant dense<-7> : tensor<i32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [0] : (tensor<0x2xi32>, tensor<i32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}"""
    assert one(text, np.zeros((0, 2), np.int32)).tolist() == [-7, -7]


def test_boolean_reduce_with_add_is_or():
    text = """func.func @main(%x: tensor<3xi1>) -> tensor<i1> {
  %c = stablehlo.constant dense<false> : tensor<i1>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<3xi1>, tensor<i1>) -> tensor<i1>
  return %0 : tensor<i1>
}"""
    assert one(text, np.array([False, True, True])).dtype == np.bool_
    assert bool(one(text, np.array([False, True, True])))


def reduce_window_text(body: str) -> str:
    return f"""func.func @main(%x: tensor<4x5xf32>) -> tensor<2x3xf32> {{
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %c) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    {body}
  }}) {{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>, base_dilations = array<i64: 1, 1>,
       window_dilations = array<i64: 2, 1>, padding = dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>}} : (tensor<4x5xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}}"""


def test_reduce_window_with_padding_strides_and_dilation():
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    out = one(reduce_window_text("%s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %s : tensor<f32>"), x)
    padded = np.pad(x, [(0, 0), (1, 0)])
    expected = [[padded[i, j] + padded[i, j + 1] + padded[i + 2, j] + padded[i + 2, j + 1] for j in (0, 2, 4)]
                for i in range(2)]
    np.testing.assert_array_equal(out, expected)


def test_reduce_window_general_region_matches_ufunc_path():
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    fast = one(reduce_window_text("%s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %s : tensor<f32>"), x)
    slow = one(reduce_window_text(
        "%n = stablehlo.negate %b : tensor<f32>\n    %s = stablehlo.subtract %a, %n : tensor<f32>\n"
        "    stablehlo.return %s : tensor<f32>"), x)
    np.testing.assert_array_equal(fast, slow)


def test_select_and_scatter_sends_each_source_to_its_window_maximum():
    text = """func.func @main(%x: tensor<4x4xf32>, %s: tensor<2x2xf32>) -> tensor<4x4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%x, %s, %c) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %ge = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %ge : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %sum = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}"""
    x = np.array([[1, 5, 0, 0], [2, 3, 0, 7], [9, 9, 1, 1], [0, 0, 1, 1]], np.float32)
    out = one(text, x, np.array([[10, 20], [30, 40]], np.float32))
    expected = np.zeros((4, 4), np.float32)
    expected[0, 1], expected[1, 3], expected[2, 0], expected[2, 2] = 10, 20, 30, 40  # ties: the first wins (GE)
    np.testing.assert_array_equal(out, expected)


def test_map_applies_the_computation_per_element():
    text = """func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.map"(%x, %y) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %p : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}"""
    assert one(text, np.array([1, 2, 3], np.float32), np.array([4, 5, 6], np.float32)).tolist() == [4, 10, 18]


def sort_text(comparator: str, stable: bool = True) -> str:
    return f"""func.func @main(%k: tensor<2x6xf32>, %v: tensor<2x6xi32>) -> (tensor<2x6xf32>, tensor<2x6xi32>) {{
  %0:2 = "stablehlo.sort"(%k, %v) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    {comparator}
  }}) {{dimension = 1 : i64, is_stable = {str(stable).lower()}}} : (tensor<2x6xf32>, tensor<2x6xi32>) -> (tensor<2x6xf32>, tensor<2x6xi32>)
  return %0#0, %0#1 : tensor<2x6xf32>, tensor<2x6xi32>
}}"""


KEYS = np.array([[3, 1, 2, 1, 3, -0.0], [5, 5, 5, 0.0, 1, 5]], np.float32)
VALUES = np.arange(12, dtype=np.int32).reshape(2, 6)


@pytest.mark.parametrize("direction", ["LT", "GT"])
def test_sort_is_stable_with_ties_and_carries_other_operands(direction):
    cmp = (f"%r = stablehlo.compare {direction}, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
           "    stablehlo.return %r : tensor<i1>")
    keys, values = run(sort_text(cmp), KEYS, VALUES)
    descending = direction == "GT"
    for row in range(2):
        order = sorted(range(6), key=lambda i: (-KEYS[row, i] if descending else KEYS[row, i], i))
        np.testing.assert_array_equal(values[row], VALUES[row, order])
        np.testing.assert_array_equal(keys[row], KEYS[row, order])


def test_sort_with_a_general_comparator_sorts_by_two_keys():
    # by key descending, ties by value ascending: not a single compare, so the all-pairs path runs
    cmp = """%gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt = stablehlo.compare GT, %c, %d : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %r = stablehlo.or %gt, %tie : tensor<i1>
    stablehlo.return %r : tensor<i1>"""
    keys, values = run(sort_text(cmp), KEYS, VALUES)
    for row in range(2):
        order = sorted(range(6), key=lambda i: (-KEYS[row, i], -VALUES[row, i]))
        np.testing.assert_array_equal(values[row], VALUES[row, order])


def test_sort_total_order_puts_negative_zero_first_and_nan_last():
    cmp = ("%r = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
           "    stablehlo.return %r : tensor<i1>")
    keys = np.array([[np.nan, 0.0, -0.0, -np.inf, 1, -1]] * 2, np.float32)
    out, _ = run(sort_text(cmp), keys, VALUES)
    assert np.signbit(out[0, 2]) and not np.signbit(out[0, 3]) and np.isnan(out[0, 5])
    assert out[0, :2].tolist() == [-np.inf, -1]


def test_signed_zeros_follow_the_spec_in_sums_and_extrema():
    text = """func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %i = stablehlo.constant dense<-0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  %m = stablehlo.reduce(%y init: %i) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  %n = stablehlo.reduce(%y init: %i) applies stablehlo.minimum across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %s, %m, %n : tensor<f32>, tensor<f32>, tensor<f32>
}"""
    negative, mixed = np.full(3, -0.0, np.float32), np.array([0.0, -0.0, 0.0], np.float32)
    total, largest, smallest = run(text, negative, mixed)
    assert total == 0 and np.signbit(total)  # -0.0 + -0.0 + ... stays -0.0
    assert largest == 0 and not np.signbit(largest)  # -0.0 < +0.0
    assert smallest == 0 and np.signbit(smallest)
