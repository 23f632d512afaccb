"""The StableHLO check semantics used to judge compiled results."""

import ml_dtypes
import numpy as np
import pytest

from oxla.testing.checks import expect_almost_eq, expect_close, expect_eq, ulp_distance


def test_expect_eq_is_ieee_equality():
    a = np.array([1.0, np.nan, 0.0], np.float32)
    assert expect_eq(a, np.array([1.0, 2.0, -0.0], np.float32)).startswith("1 of 3 elements differ")
    assert "at (1,)" in expect_eq(a, a)  # NaN never equals NaN
    assert expect_eq(np.array([0.0]), np.array([-0.0])) is None
    assert expect_eq(np.array([True, False]), np.array([True, False])) is None
    assert expect_eq(np.array([1 + 2j]), np.array([1 + 3j])) is not None
    assert expect_eq(np.zeros(2), np.zeros(3)).startswith("shape")


def test_expect_almost_eq():
    a = np.array([1.0, np.nan, np.inf, 5.0])
    assert expect_almost_eq(a, np.array([1.0005, np.nan, np.inf, 5.0])) is None
    assert expect_almost_eq(a, np.array([1.01, np.nan, np.inf, 5.0])) is not None
    assert expect_almost_eq(np.array([np.inf]), np.array([-np.inf])) is not None
    assert expect_almost_eq(np.array([np.nan]), np.array([1.0])) is not None


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
def test_ulp_distance(dtype):
    one = np.array([1.0], dtype)
    up = np.nextafter(np.float64(1.0), 2.0) if dtype == np.float64 else None
    next_up = np.array([up], dtype) if up is not None else (one.view(_uint(dtype)) + 1).view(dtype)
    assert ulp_distance(next_up, one)[0] == 1
    assert ulp_distance(np.array([-0.0], dtype), np.array([0.0], dtype))[0] == 0
    tiny = (np.zeros(1, dtype).view(_uint(dtype)) + 1).view(dtype)
    assert ulp_distance(-tiny, tiny)[0] == 2  # across zero: magnitudes add
    assert ulp_distance(np.array([np.nan], dtype), np.array([np.nan], dtype))[0] == 0
    assert np.isinf(ulp_distance(np.array([np.inf], dtype), np.array([1.0], dtype))[0])


def _uint(dtype):
    return {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]


def test_expect_close_bounds():
    x = np.array([1.0], np.float32)
    three = (x.view(np.uint32) + 3).view(np.float32)
    four = (x.view(np.uint32) + 4).view(np.float32)
    assert expect_close(three, x) is None
    assert expect_close(four, x) is not None
    assert expect_close(x, x, min_ulp=1) is not None
    assert expect_close(np.array([1 + 1j], np.complex64), np.array([1 + 1j], np.complex64)) is None
    assert expect_close(np.array([3], np.int32), np.array([3], np.int32)) is None
