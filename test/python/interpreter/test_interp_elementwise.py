"""Elementwise ops at their edges: wrap-around, division by zero, NaN, signed zero, rounding, conversions."""

import math

import ml_dtypes
import numpy as np
import pytest
from interpreter_testing import binary, one, run, unary

I8_MIN, I8_MAX = -128, 127


def test_signed_and_unsigned_arithmetic_wraps_around():
    assert binary("stablehlo.add", "tensor<2xi8>", np.array([I8_MAX, I8_MIN], np.int8),
                  np.array([1, -1], np.int8)).tolist() == [I8_MIN, I8_MAX]
    assert binary("stablehlo.subtract", "tensor<2xui8>", np.array([0, 5], np.uint8),
                  np.array([1, 10], np.uint8)).tolist() == [255, 251]
    assert binary("stablehlo.multiply", "tensor<1xi32>", np.array([2**30], np.int32),
                  np.array([4], np.int32)).tolist() == [0]
    assert unary("stablehlo.negate", "tensor<2xi8>", np.array([I8_MIN, 5], np.int8)).tolist() == [I8_MIN, -5]
    assert unary("stablehlo.abs", "tensor<1xi8>", np.array([I8_MIN], np.int8)).tolist() == [I8_MIN]
    assert unary("stablehlo.negate", "tensor<2xui8>", np.array([1, 0], np.uint8)).tolist() == [255, 0]


@pytest.mark.parametrize("type_, values, expected", [
    ("i4", [7, -8], [-2, 0]),     # 7+7=14 -> -2, -8-8=-16 -> 0
    ("ui4", [15, 9], [14, 2]),    # 30 mod 16, 18 mod 16
    ("i2", [1, -2], [-2, 0]),     # 2 -> -2, -4 -> 0
    ("ui2", [3, 2], [2, 0]),
])
def test_narrow_integers_wrap_to_their_width(type_, values, expected):
    dtype = {"i4": ml_dtypes.int4, "ui4": ml_dtypes.uint4, "i2": ml_dtypes.int2, "ui2": ml_dtypes.uint2}[type_]
    x = np.array(values).astype(dtype)
    out = binary("stablehlo.add", f"tensor<2x{type_}>", x, x)
    assert out.dtype == dtype and out.astype(int).tolist() == expected


def test_i4_shifts_and_bit_counts_use_four_bits():
    x = np.array([-1, 1, 4]).astype(ml_dtypes.int4)
    ones = np.array([1, 1, 1]).astype(ml_dtypes.int4)
    assert binary("stablehlo.shift_right_logical", "tensor<3xi4>", x, ones).astype(int).tolist() == [7, 0, 2]
    assert binary("stablehlo.shift_left", "tensor<3xi4>", x, ones).astype(int).tolist() == [-2, 2, -8]
    assert unary("stablehlo.popcnt", "tensor<3xi4>", x).astype(int).tolist() == [4, 1, 1]
    assert unary("stablehlo.count_leading_zeros", "tensor<3xi4>", x).astype(int).tolist() == [0, 3, 1]


def test_integer_division_and_remainder_edges():
    x = np.array([7, -7, 7, -7, I8_MIN, 5, I8_MIN], np.int8)
    y = np.array([2, 2, -2, -2, -1, 0, 0], np.int8)
    assert binary("stablehlo.divide", "tensor<7xi8>", x, y).tolist() == [3, -3, -3, 3, I8_MIN, -1, -1]
    assert binary("stablehlo.remainder", "tensor<7xi8>", x, y).tolist() == [1, -1, 1, -1, 0, 5, I8_MIN]
    u = binary("stablehlo.divide", "tensor<2xui8>", np.array([7, 7], np.uint8), np.array([2, 0], np.uint8))
    assert u.tolist() == [3, 255]


def test_float_remainder_keeps_the_dividend_sign():
    out = binary("stablehlo.remainder", "tensor<3xf32>", np.array([5.5, -5.5, -0.0], np.float32),
                 np.array([2, 2, 1], np.float32))
    assert out.tolist() == [1.5, -1.5, 0.0] and math.copysign(1, out[2]) == -1


@pytest.mark.parametrize("op, amount, expected", [
    ("stablehlo.shift_left", [1, 7, 8, -1], [-2, I8_MIN, 0, 0]),
    ("stablehlo.shift_right_logical", [1, 7, 8, 100], [127, 1, 0, 0]),
    ("stablehlo.shift_right_arithmetic", [1, 7, 8, -3], [-1, -1, -1, -1]),
])
def test_shifts_by_the_width_or_more(op, amount, expected):
    x = np.array([-1, -1, -1, -1], np.int8) if op != "stablehlo.shift_left" else np.array([-1, 1, 1, 1], np.int8)
    assert binary(op, "tensor<4xi8>", x, np.array(amount, np.int8)).tolist() == expected


def test_maximum_and_minimum_propagate_nan():
    x = np.array([np.nan, 1.0, -0.0], np.float32)
    y = np.array([1.0, np.nan, 2.0], np.float32)
    for op in ("stablehlo.maximum", "stablehlo.minimum"):
        out = binary(op, "tensor<3xf32>", x, y)
        assert np.isnan(out[:2]).all()


def test_complex_maximum_is_lexicographic():
    x = np.array([1 + 5j, 2 + 0j], np.complex64)
    y = np.array([1 + 6j, 1 + 9j], np.complex64)
    assert binary("stablehlo.maximum", "tensor<2xcomplex<f32>>", x, y).tolist() == [1 + 6j, 2 + 0j]


def test_signed_zero_and_nan_survive_sign_and_negate():
    x = np.array([-0.0, 0.0, np.nan, -3.0, np.inf], np.float64)
    sign = unary("stablehlo.sign", "tensor<5xf64>", x)
    assert [math.copysign(1, v) for v in sign[:2]] == [-1, 1] and np.isnan(sign[2])
    assert sign[3:].tolist() == [-1, 1]
    neg = unary("stablehlo.negate", "tensor<5xf64>", x)
    assert math.copysign(1, neg[0]) == 1 and math.copysign(1, neg[1]) == -1


def test_rounding_ties():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997], np.float32)
    assert unary("stablehlo.round_nearest_even", "tensor<6xf32>", x).tolist() == [0, 2, 2, -0.0, -2, 0]
    assert unary("stablehlo.round_nearest_afz", "tensor<6xf32>", x).tolist() == [1, 2, 3, -1, -3, 0]


@pytest.mark.parametrize("values, target, expected", [
    ([1e10, -1e10, np.nan, 3.9, -3.9], "i8", [I8_MAX, I8_MIN, 0, 3, -3]),
    ([1e10, -1.0, 255.5], "ui8", [255, 0, 255]),
    ([2.0**63, -2.0**64, 1e30], "i64", [2**63 - 1, -2**63, 2**63 - 1]),
    ([2.0**64, 2.0**63 + 2048, -5.0], "ui64", [2**64 - 1, 2**63 + 2048, 0]),
])
def test_float_to_int_truncates_and_saturates(values, target, expected):
    n = len(values)
    out = unary("stablehlo.convert", f"tensor<{n}xf64>", np.array(values), f"tensor<{n}x{target}>")
    assert [int(v) for v in out] == expected


def test_convert_to_and_from_bool_and_complex():
    out = unary("stablehlo.convert", "tensor<3xcomplex<f64>>", np.array([-1 + 0j, 1j, 0j]), "tensor<3xi1>")
    assert out.tolist() == [True, False, False]  # the imaginary part is ignored
    out = unary("stablehlo.convert", "tensor<2xi1>", np.array([True, False]), "tensor<2xf32>")
    assert out.tolist() == [1.0, 0.0]
    out = unary("stablehlo.convert", "tensor<2xf32>", np.array([1.5, -2], np.float32), "tensor<2xcomplex<f64>>")
    assert out.tolist() == [1.5 + 0j, -2 + 0j]


def test_f64_to_bf16_rounds_once():
    # halfway between two bf16 values plus a tiny bit: rounding through f32 first would round down
    x = np.array([1 + 2**-8 + 2**-30])
    out = unary("stablehlo.convert", "tensor<1xf64>", x, "tensor<1xbf16>")
    assert out.dtype == ml_dtypes.bfloat16 and float(out[0]) == 1 + 2**-7


def test_int64_to_f32_rounds_once():
    x = np.array([2**60 + 2**36 + 1], np.int64)  # a tie for f32 unless the low bit is kept
    out = unary("stablehlo.convert", "tensor<1xi64>", x, "tensor<1xf32>")
    assert int(out[0]) == 2**60 + 2**37


def test_compare_total_order_separates_signed_zeros_and_orders_nan():
    x = np.array([-0.0, np.nan, -np.nan, 1.0], np.float32)
    y = np.array([0.0, np.inf, -np.inf, np.nan], np.float32)
    lt = binary("stablehlo.compare", "tensor<4xf32>", x, y, "tensor<4xi1>",
                "{comparison_direction = #stablehlo<comparison_direction LT>, "
                "compare_type = #stablehlo<comparison_type TOTALORDER>}")
    assert lt.tolist() == [True, False, True, True]
    eq = binary("stablehlo.compare", "tensor<4xf32>", x, y, "tensor<4xi1>",
                "{comparison_direction = #stablehlo<comparison_direction EQ>, "
                "compare_type = #stablehlo<comparison_type FLOAT>}")
    assert eq.tolist() == [True, False, False, False]


def test_compare_unsigned_and_complex():
    x = np.array([200, 1], np.uint8)
    y = np.array([100, 2], np.uint8)
    gt = binary("stablehlo.compare", "tensor<2xui8>", x, y, "tensor<2xi1>",
                "{comparison_direction = #stablehlo<comparison_direction GT>}")
    assert gt.tolist() == [True, False]
    c = binary("stablehlo.compare", "tensor<2xcomplex<f32>>", np.array([1 + 2j, 1 + 2j], np.complex64),
               np.array([1 + 3j, 1 + 2j], np.complex64), "tensor<2xi1>",
               "{comparison_direction = #stablehlo<comparison_direction NE>}")
    assert c.tolist() == [True, False]


def test_reduce_precision_to_bf16_and_f16_formats():
    x = np.array([1 + 2**-11, 70000.0, 1e-8, np.nan, -0.0], np.float32)  # a tie at f16 precision, rounds to even
    out = unary("stablehlo.reduce_precision", "tensor<5xf32>", x, attrs="{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}")
    expected = np.array([1.0, np.inf, 0.0, np.nan, -0.0], np.float32)  # f16: rounds, overflows, flushes
    np.testing.assert_array_equal(out, expected)
    assert math.copysign(1, out[4]) == -1
    bf = unary("stablehlo.reduce_precision", "tensor<5xf32>", x, attrs="{exponent_bits = 8 : i32, mantissa_bits = 7 : i32}")
    np.testing.assert_array_equal(bf, x.astype(ml_dtypes.bfloat16).astype(np.float32))


def test_bitcast_convert_splits_and_joins_and_packs_bits():
    x = np.array([1.0], np.float32)
    out = unary("stablehlo.bitcast_convert", "tensor<1xf32>", x, "tensor<1x4xui8>")
    assert out.tolist() == [[0, 0, 128, 63]]
    back = unary("stablehlo.bitcast_convert", "tensor<1x4xui8>", out, "tensor<1xf32>")
    assert back.tolist() == [1.0]
    bits = unary("stablehlo.bitcast_convert", "tensor<ui8>", np.array(5, np.uint8), "tensor<8xi1>")
    assert bits.tolist() == [True, False, True, False, False, False, False, False]


def test_integer_power_wraps_and_handles_negative_exponents():
    x = np.array([2, 3, -1, 1, 2, 0], np.int32)
    y = np.array([31, 3, -3, -7, -1, 0], np.int32)
    assert binary("stablehlo.power", "tensor<6xi32>", x, y).tolist() == [-2**31, 27, -1, 1, 0, 1]


def test_math_functions_are_within_an_ulp_of_correct_rounding():
    x = np.linspace(-3, 3, 101).astype(np.float32)
    for op, ref in [("stablehlo.exponential", np.exp), ("stablehlo.tanh", np.tanh), ("stablehlo.sine", np.sin),
                    ("stablehlo.log_plus_one", np.log1p), ("stablehlo.cbrt", np.cbrt)]:
        arg = np.abs(x) if op == "stablehlo.log_plus_one" else x
        out = unary(op, "tensor<101xf32>", arg)
        np.testing.assert_array_equal(out, ref(arg.astype(np.float64)).astype(np.float32), err_msg=op)


def test_half_precision_math_rounds_once_from_wide():
    x = np.array([0.1, 1.7, -2.3], np.float16)
    out = unary("stablehlo.exponential", "tensor<3xf16>", x)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, np.exp(x.astype(np.float64)).astype(np.float16))
    b = np.array([0.1, 1.7], ml_dtypes.bfloat16)
    out = unary("stablehlo.sqrt", "tensor<2xbf16>", b)
    assert out.dtype == ml_dtypes.bfloat16


def test_complex_functions():
    z = np.array([1 + 2j, -0.5 + 1e-9j], np.complex128)
    np.testing.assert_allclose(unary("stablehlo.exponential_minus_one", "tensor<2xcomplex<f64>>", z), np.expm1(z),
                               rtol=1e-15)
    small = np.array([1e-12 + 1e-12j])
    out = unary("stablehlo.log_plus_one", "tensor<1xcomplex<f64>>", small)
    np.testing.assert_allclose(out, [1e-12 + 1e-12j], rtol=1e-9)
    parts = one("""func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xcomplex<f32>> {
  %0 = stablehlo.complex %x, %y : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}""", np.array([np.inf, -0.0], np.float32), np.array([0.0, np.inf], np.float32))
    assert parts.real.tolist() == [np.inf, -0.0] and parts.imag.tolist() == [0.0, np.inf]


def test_rank_zero_and_empty_tensors():
    assert binary("stablehlo.add", "tensor<f64>", np.float64(1.5), np.float64(2)) == 3.5
    out = binary("stablehlo.add", "tensor<0x3xf32>", np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32))
    assert out.shape == (0, 3) and out.dtype == np.float32


def test_select_and_clamp_broadcast_scalars():
    text = """func.func @main(%p: tensor<i1>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = stablehlo.select %p, %x, %y : tensor<i1>, tensor<3xf32>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %1 = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}"""
    from interpreter_testing import run

    sel, clamped = run(text, True, np.array([-1, 0.5, 2], np.float32), np.zeros(3, np.float32))
    assert sel.tolist() == [-1, 0.5, 2] and clamped.tolist() == [0, 0.5, 1]


def test_maximum_and_minimum_order_signed_zeros_whatever_the_operand_order():
    text = """func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = stablehlo.maximum %x, %y : tensor<2xf32>
  %b = stablehlo.maximum %y, %x : tensor<2xf32>
  %c = stablehlo.minimum %x, %y : tensor<2xf32>
  %d = stablehlo.minimum %y, %x : tensor<2xf32>
  return %a, %b, %c, %d : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}"""
    x, y = np.array([-0.0, 0.0], np.float32), np.array([0.0, -0.0], np.float32)
    a, b, c, d = run(text, x, y)
    assert not np.signbit(a).any() and not np.signbit(b).any()
    assert np.signbit(c).all() and np.signbit(d).all()
