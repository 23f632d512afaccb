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


def _dispatches(text: str, **options) -> str:
    """The program's dispatches after IREE configured them for the CPU, printed."""
    return ir.to_text(compile(text, target="llvm-cpu", compile_to="executable-configurations", **options))


def test_dispatch_loads_the_words_it_would_build():
    text = _slice("f32", 1, 2)
    assert "arith.shli" in _dispatches(text, disable_passes=["oxla-llvmcpu-word-loads"])
    loaded = _dispatches(text)
    assert f": memref<{ROWS * WIDTH // 2}xi64, #hal.descriptor_type<storage_buffer>>" in loaded  # the binding as words
    assert "arith.shli" not in loaded


def _bitcast(element: str, group: int, word: str, producer: str = "") -> str:
    """@main: stablehlo.bitcast_convert of x: tensor<ROWSx32xgroupxelement> (or of `producer`(x)) to words."""
    t, r = f"tensor<{ROWS}x32x{group}x{element}>", f"tensor<{ROWS}x32x{word}>"
    body = f"  %p = stablehlo.{producer} %x : {t}\n" if producer else ""
    return f"""func.func @main(%x: {t}) -> {r} {{
{body}  %w = stablehlo.bitcast_convert {"%p" if producer else "%x"} : ({t}) -> {r}
  return %w : {r}
}}
"""


@pytest.mark.parametrize("text, dtype, word", [
    (_bitcast("f32", 2, "i64"), np.float32, np.int64),
    (_bitcast("i8", 4, "i32"), np.int8, np.int32),
    (_bitcast("bf16", 2, "ui32"), ml_dtypes.bfloat16, np.uint32),
    (_bitcast("f16", 4, "f64"), np.float16, np.float64),
    (_bitcast("f32", 2, "i64", producer="negate"), np.float32, np.int64),
], ids=["f32-i64", "i8-i32", "bf16-ui32", "f16-f64", "computed"])
def test_widening_bitcasts_keep_the_bytes(text, dtype, word):
    """Words of an argument's bytes are loaded (words of computed values are still built); the same bits."""
    computed = "negate" in text
    assert ("arith.shli" in _dispatches(text)) == computed
    rng = np.random.default_rng(1)
    group = np.dtype(word).itemsize // np.dtype(dtype).itemsize
    x = (rng.standard_normal((ROWS, 32, group)) * 50).astype(dtype)
    got = runtime.load(compile(text, target="llvm-cpu"), device="local-sync").main(x)
    want = np.ascontiguousarray(-x if computed else x).view(word).reshape(ROWS, 32)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
