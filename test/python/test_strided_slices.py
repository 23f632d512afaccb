"""oxla-llvmcpu-strided-slice-bitcasts: slices taking every s-th element of whole rows are read as words of
s elements each, shifted and truncated, with the slices' exact bits; other slices stay slices."""

import numpy as np
import ml_dtypes
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

ROWS, WIDTH = 8, 64


def _slice(element: str, start: int, stride: int, *, width: int = WIDTH, limit: int | None = None,
           producer: str = "") -> str:
    """@main: x[:, start:limit:stride] of an x: tensor<ROWSxwidthxelement>, of exp(x) with `producer`."""
    limit = width if limit is None else limit
    count = len(range(start, limit, stride))
    t, r = f"tensor<{ROWS}x{width}x{element}>", f"tensor<{ROWS}x{count}x{element}>"
    source = "%x"
    body = ""
    if producer:
        body = f"  %p = stablehlo.{producer} %x : {t}\n"
        source = "%p"
    return f"""func.func @main(%x: {t}) -> {r} {{
{body}  %s = stablehlo.slice {source} [0:{ROWS}, {start}:{limit}:{stride}] : ({t}) -> {r}
  return %s : {r}
}}
"""


def _rewritten(text: str) -> bool:
    """Whether the pass rewrote the program's slice."""
    module = ir.parse(text)
    transforms.run(module, "builtin.module(oxla-llvmcpu-strided-slice-bitcasts)")
    assert not ir.verify(module)
    printed = ir.to_text(module)
    return "stablehlo.slice" not in printed and "stablehlo.bitcast_convert" in printed


def _values(dtype) -> np.ndarray:
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, (ROWS, WIDTH), dtype=dtype, endpoint=True)
    x = (rng.standard_normal((ROWS, WIDTH)) * 100).astype(dtype)
    x[0, :4] = [np.nan, -0.0, np.inf, -np.inf]
    return x


@pytest.mark.parametrize("element, dtype, start, stride", [
    ("f32", np.float32, 0, 2), ("f32", np.float32, 1, 2), ("bf16", ml_dtypes.bfloat16, 3, 4),
    ("f16", np.float16, 1, 2), ("i8", np.int8, 5, 8), ("ui16", np.uint16, 3, 4), ("i32", np.int32, 1, 2)])
def test_every_strideth_element_of_whole_rows_is_read_as_words(element, dtype, start, stride):
    text = _slice(element, start, stride)
    assert _rewritten(text)
    x = _values(dtype)
    got = runtime.load(compile(text, target="llvm-cpu"), device="local-sync").main(x)
    want = x[:, start::stride]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))  # the same bits


@pytest.mark.parametrize("text", [
    _slice("f32", 3, 2, limit=61),  # part of each row
    _slice("f32", 0, 2, width=63),  # the last group not whole
    _slice("f32", 0, 3),  # 96-bit groups
    _slice("f64", 0, 2),  # 128-bit groups
    _slice("f32", 0, 2, producer="exponential"),  # an element-wise producer IREE fuses into the slice
], ids=["part", "odd-width", "stride-3", "f64", "producer"])
def test_other_slices_stay(text):
    assert not _rewritten(text)
