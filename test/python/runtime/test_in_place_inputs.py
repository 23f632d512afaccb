"""CPU devices read arguments in place when they are as aligned as the module's dispatches assume
(16 bytes for oxla's llvm-cpu modules, 64 for any other); others are copied; results come back aligned."""

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


def _offset(values: np.ndarray, offset: int) -> np.ndarray:
    """A writeable copy of `values` whose data starts `offset` bytes past a 64-byte boundary."""
    raw = ort.aligned_empty((values.nbytes + offset,), np.uint8)
    out = raw[offset:].view(values.dtype).reshape(values.shape)
    out[...] = values
    return out


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
    numpy_aligned = [_offset(v, 16) for v in values]  # numpy's own alignment: enough for oxla's modules
    np.testing.assert_array_equal(module.main(*numpy_aligned), expected)
    assert copies == []
    misaligned = [np.frombuffer(b"\0" * 8 + v.tobytes(), dtype, offset=8).reshape(64, 32) for v in values]
    np.testing.assert_array_equal(module.main(*misaligned), expected)  # read-only and off by 8: copied
    assert len(copies) == 2
    np.testing.assert_array_equal(module.main(*[_offset(v, 8) for v in values]), expected)  # off by 8: copied
    assert len(copies) == 4


def test_modules_without_an_alignment_record_read_only_64_byte_aligned_arrays_in_place():
    artifact = compile(SUM.format(t="f32"), optimize=False)  # no codegen passes: IREE's 64-byte bindings
    module = ort.load(artifact, device="local-sync")
    assert module.main._inputs[0].alignment == ort.ALIGNMENT == 64
    copies = []
    _spied(module.main, copies)
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    np.testing.assert_array_equal(module.main(_offset(x, 16), _offset(x, 0)), 2 * x)
    assert len(copies) == 1  # the 16-byte aligned one


@pytest.mark.parametrize("text, expected", [("16", 16), ("1", 1), ("128", 128), ("12", 64), ("0", 64),
                                            ("-16", 64), ("x", 64), (None, 64)])
def test_binding_alignment_reads_the_reflection_record(text, expected):
    from oxla.runtime.arrays import ALIGNMENT_KEY, binding_alignment

    assert binding_alignment({} if text is None else {ALIGNMENT_KEY: text}) == expected


def test_the_compiler_writes_the_record_the_runtime_reads():
    from oxla.runtime.arrays import ALIGNMENT_KEY
    from oxla.transforms.bindings import ALIGNMENT_KEY as WRITTEN

    assert WRITTEN == ALIGNMENT_KEY
    module = ort.load(compile(SUM.format(t="f32")), device="local-sync")
    assert module.main._vm_function.reflection[ALIGNMENT_KEY] == "16"
    assert module.main._inputs[0].alignment == 16
    streamed = str(compile(SUM.format(t="f32"), compile_to="stream"))  # the dispatches' own assumption
    assert "stream.alignment = 16" in streamed and "stream.alignment = 64" not in streamed


def test_results_are_aligned_and_go_back_in_without_a_copy():
    module = ort.load(compile(SUM.format(t="f32")), device="local-task")
    copies = []
    _spied(module.main, copies)
    x = _offset(np.ones((64, 32), np.float32), 4)  # off by 4 bytes: copied
    y = module.main(x, x)
    z = module.main(y, y)
    assert y.ctypes.data % ort.ALIGNMENT == 0 and y.flags.writeable and y.flags.owndata is False
    np.testing.assert_array_equal(z, 4 * x)
    assert len(copies) == 2


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
