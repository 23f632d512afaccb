"""oxla-legalize-bf16-converts: integers and booleans to bf16 link, and round as XLA rounds them."""

import ml_dtypes
import numpy as np
import pytest

from oxla import runtime
from oxla.pipelines import compile

_MLIR = {np.int32: "i32", np.int64: "i64", np.uint8: "ui8", np.bool_: "i1"}


def _to_bf16(dtype, n: int) -> str:
    t = f"tensor<{n}x{_MLIR[dtype]}>"
    return (f"func.func @main(%x: {t}) -> tensor<{n}xbf16> {{\n"
            f"  %0 = stablehlo.convert %x : ({t}) -> tensor<{n}xbf16>\n  return %0 : tensor<{n}xbf16>\n}}\n")


def _values(dtype) -> np.ndarray:
    """Small values, every tie of bf16's rounding around 2^24, and wide random ones."""
    if dtype == np.bool_:
        return np.array([True, False, True, True])
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    near = np.arange(-300, 300) if info.min < 0 else np.arange(0, 256)
    parts = [near, rng.integers(info.min, info.max, 4000, dtype=dtype, endpoint=True), [info.min, info.max]]
    if info.bits >= 32:
        parts.append(np.arange(2 ** 24 - 600, 2 ** 24 + 70000, 7))  # past 2^24 the f32 rounds first
    return np.concatenate(parts).astype(dtype)


@pytest.mark.parametrize("dtype", list(_MLIR), ids=lambda d: np.dtype(d).name)
def test_integers_to_bf16_round_through_f32(dtype):
    x = _values(dtype)
    got = np.asarray(runtime.load(compile(_to_bf16(dtype, x.size))).main(x))
    want = x.astype(np.float32).astype(ml_dtypes.bfloat16)  # XLA's two roundings, ties to even
    assert got.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))

