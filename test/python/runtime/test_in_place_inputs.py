"""CPU devices read 64-byte aligned arguments in place; others are copied; results come back aligned."""

import gc

import ml_dtypes
import numpy as np
import pytest

import oxla.runtime as ort
from oxla.pipelines import compile

SUM = """func.func @main(%x: tensor<64x32x{t}>, %y: tensor<64x32x{t}>) -> tensor<64x32x{t}> {{
  %0 = stablehlo.add %x, %y : tensor<64x32x{t}>
  return %0 : tensor<64x32x{t}>
}}
"""
TYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "i1": np.bool_, "i64": np.int64}


def _spied(function, copies: list):
    """Counts the copies the function's inputs make (allocate_buffer_copy calls)."""
    for spec in function._inputs:
        upload = spec.upload
        spec.upload = lambda *args, _upload=upload: copies.append(1) or _upload(*args)


@pytest.mark.parametrize("t", list(TYPES))
def test_aligned_arguments_are_read_in_place_and_others_copied(t):
    source = SUM.format(t=t)
    module = ort.load(compile(source.replace("stablehlo.add", "stablehlo.or") if t == "i1" else source),
                      device="local-sync")
    copies = []
    _spied(module.main, copies)
    dtype = TYPES[t]
    rng = np.random.default_rng(0)
    values = [rng.integers(0, 5, (64, 32)).astype(dtype) for _ in range(2)]
    aligned = [ort.aligned_empty((64, 32), dtype) for _ in range(2)]
    for a, v in zip(aligned, values):
        a[...] = v
        assert a.ctypes.data % ort.ALIGNMENT == 0
    expected = values[0] | values[1] if t == "i1" else values[0] + values[1]
    np.testing.assert_array_equal(module.main(*aligned), expected)
    assert copies == []
    misaligned = [np.frombuffer(b"\0" * 8 + v.tobytes(), dtype, offset=8).reshape(64, 32) for v in values]
    np.testing.assert_array_equal(module.main(*misaligned), expected)  # read-only and off by 8: copied
    assert len(copies) == 2


def test_results_are_aligned_and_go_back_in_without_a_copy():
    module = ort.load(compile(SUM.format(t="f32")), device="local-task")
    copies = []
    _spied(module.main, copies)
    x = np.ones((64, 32), np.float32)
    y = module.main(x, x)  # x itself is not aligned (numpy's 16 bytes): copied
    z = module.main(y, y)
    assert y.ctypes.data % ort.ALIGNMENT == 0 and y.flags.writeable and y.flags.owndata is False
    np.testing.assert_array_equal(z, 4 * x)
    assert len(copies) == (2 if x.ctypes.data % ort.ALIGNMENT else 0)


def test_call_async_copies_even_aligned_arguments():
    module = ort.load(compile(SUM.format(t="f32")), device="local-task")
    copies = []
    _spied(module.main, copies)
    a = ort.aligned_empty((64, 32), np.float32)
    a[...] = 2.0
    future = module.main.call_async(a, a)
    a[...] = 7.0  # the call holds its own copies
    del a
    gc.collect()
    np.testing.assert_array_equal(future.result(), np.full((64, 32), 4.0, np.float32))
    assert len(copies) == 2


def test_a_coerced_argument_read_in_place_lives_through_the_call():
    module = ort.load(compile(SUM.format(t="f32")), device="local-sync")
    for _ in range(20):  # Python lists become fresh arrays, some of them aligned by chance
        np.testing.assert_array_equal(module.main([[1.0] * 32] * 64, [[2.0] * 32] * 64), np.full((64, 32), 3.0))


def test_aligned_empty_shapes_and_dtypes():
    for shape, dtype in (((3, 5), np.float64), (7, np.int8), ((), np.float32), ((0, 4), np.float32)):
        a = ort.aligned_empty(shape, dtype)
        assert a.dtype == np.dtype(dtype) and a.shape == (shape if isinstance(shape, tuple) else (shape,))
        assert a.flags.c_contiguous and (a.size == 0 or a.ctypes.data % ort.ALIGNMENT == 0)
