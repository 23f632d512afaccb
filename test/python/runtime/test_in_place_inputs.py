"""CPU devices read arguments in place when they are as aligned as the module's dispatches assume
(16 bytes for oxla's llvm-cpu modules, 64 for any other) and the module records that it does not write
them; others are copied; results come back aligned."""

import gc

import ml_dtypes
import numpy as np
import pytest

import oxla.runtime as ort
from oxla.pipelines import compile
from oxla.runtime.arrays import written_arguments

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
    artifact = compile(SUM.format(t="f32"), disable_passes=["oxla-binding-alignment"])  # IREE's 64-byte bindings
    module = ort.load(artifact, device="local-sync")
    assert module.main._inputs[0].alignment == ort.ALIGNMENT == 64
    copies = []
    _spied(module.main, copies)
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    np.testing.assert_array_equal(module.main(_offset(x, 16), _offset(x, 0)), 2 * x)
    assert len(copies) == 1  # the 16-byte aligned one


def test_modules_without_a_write_record_copy_every_argument():
    module = ort.load(compile(SUM.format(t="f32"), optimize=False), device="local-sync")  # no oxla records
    copies = []
    _spied(module.main, copies)
    x = ort.aligned_empty((64, 32), np.float32)
    x[...] = 1.0
    np.testing.assert_array_equal(module.main(x, x), np.full((64, 32), 2.0))
    assert len(copies) == 2  # the module may write any argument it was given


# Programs in which IREE sorts, updates or scatters into an argument's own buffer (IREE issue 16168):
# the caller's arrays must come back unchanged.
SORT = """func.func @main(%x: tensor<{n}x12xf32>) -> tensor<{n}x12xf32> {{
  %0 = "stablehlo.sort"(%x) <{{dimension = 1 : i64, is_stable = true}}> ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }}) : (tensor<{n}x12xf32>) -> tensor<{n}x12xf32>
  return %0 : tensor<{n}x12xf32>
}}
"""
UPDATE = """func.func @main(%x: tensor<8x12xf32>, %u: tensor<2x3xf32>, %i: tensor<i32>) -> tensor<8x12xf32> {
  %0 = stablehlo.dynamic_update_slice %x, %u, %i, %i : (tensor<8x12xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<8x12xf32>
  return %0 : tensor<8x12xf32>
}
"""
SCATTER = """func.func @main(%x: tensor<8x12xf32>, %i: tensor<2x1xi32>, %u: tensor<2x12xf32>) -> tensor<8x12xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1],
      inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<8x12xf32>, tensor<2x1xi32>, tensor<2x12xf32>) -> tensor<8x12xf32>
  return %0 : tensor<8x12xf32>
}
"""


def _aligned_copy(values: np.ndarray) -> np.ndarray:
    out = ort.aligned_empty(values.shape, values.dtype)
    out[...] = values
    return out


def _sorted_rows(n: int):
    rng = np.random.default_rng(1)
    return SORT.format(n=n), [rng.standard_normal((n, 12)).astype(np.float32)], lambda x: np.sort(x, 1)


def _updated():
    x = np.arange(96, dtype=np.float32).reshape(8, 12)
    u = np.full((2, 3), -1.0, np.float32)

    def expected(x, u, i):
        out = x.copy()
        out[int(i):int(i) + 2, int(i):int(i) + 3] = u
        return out

    return UPDATE, [x, u, np.array(2, np.int32)], expected


def _scattered():
    x = np.arange(96, dtype=np.float32).reshape(8, 12)

    def expected(x, i, u):
        out = x.copy()
        np.add.at(out, i[:, 0], u)
        return out

    return SCATTER, [x, np.array([[1], [5]], np.int32), np.ones((2, 12), np.float32)], expected


# 8 rows, and 22000 rows: results over 1 MiB, which go through the result-storage entry.
@pytest.mark.parametrize("program", [lambda: _sorted_rows(8), lambda: _sorted_rows(22000), _updated, _scattered],
                         ids=["sort", "sort-into-storage", "dynamic-update-slice", "scatter"])
def test_arguments_the_program_writes_are_copied_and_come_back_unchanged(program):
    source, values, expected = program()
    module = ort.load(compile(source), device="local-sync")
    written = written_arguments(module.main._vm_function.reflection)
    assert written is not None and 0 in written  # the case arises: IREE writes argument 0's buffer
    copies = []
    _spied(module.main, copies)
    arguments = [_aligned_copy(v) for v in values]
    for _ in range(2):  # the second call sees the same arguments
        np.testing.assert_array_equal(module.main(*arguments), expected(*values))
    for argument, value in zip(arguments, values):
        np.testing.assert_array_equal(argument, value)
    assert len(copies) == 2 * len([i for i in range(len(values)) if i in written])


def test_arguments_the_program_only_reads_are_still_read_in_place():
    source = """func.func @main(%x: tensor<8x12xf32>, %y: tensor<8x12xf32>) -> (tensor<8x12xf32>, tensor<8x12xf32>) {
  %0 = stablehlo.add %x, %x : tensor<8x12xf32>
  %1 = "stablehlo.sort"(%y) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %2 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %2 : tensor<i1>
  }) : (tensor<8x12xf32>) -> tensor<8x12xf32>
  return %0, %1 : tensor<8x12xf32>, tensor<8x12xf32>
}
"""
    module = ort.load(compile(source), device="local-sync")
    assert [spec.import_ is not None for spec in module.main._inputs] == [True, False]
    x = _aligned_copy(np.arange(96, dtype=np.float32).reshape(8, 12)[:, ::-1].copy())
    doubled, ordered = module.main(x, x)
    np.testing.assert_array_equal(doubled, 2 * x)
    np.testing.assert_array_equal(ordered, np.sort(x, 1))
    np.testing.assert_array_equal(x, np.arange(96, dtype=np.float32).reshape(8, 12)[:, ::-1])


@pytest.mark.parametrize("text, expected", [("", frozenset()), ("0", {0}), ("1,3", {1, 3}), (" 2 , 0 ", {0, 2}),
                                            ("x", None), ("-1", None), (None, None)])
def test_written_arguments_reads_the_reflection_record(text, expected):
    from oxla.runtime.arrays import WRITTEN_KEY

    assert written_arguments({} if text is None else {WRITTEN_KEY: text}) == expected


@pytest.mark.parametrize("text, expected", [("16", 16), ("1", 1), ("128", 128), ("12", 64), ("0", 64),
                                            ("-16", 64), ("x", 64), (None, 64)])
def test_binding_alignment_reads_the_reflection_record(text, expected):
    from oxla.runtime.arrays import ALIGNMENT_KEY, binding_alignment

    assert binding_alignment({} if text is None else {ALIGNMENT_KEY: text}) == expected


def test_the_compiler_writes_the_record_the_runtime_reads():
    from oxla.runtime.arrays import ALIGNMENT_KEY, WRITTEN_KEY
    from oxla.transforms import bindings

    assert (bindings.ALIGNMENT_KEY, bindings.WRITTEN_KEY) == (ALIGNMENT_KEY, WRITTEN_KEY)
    module = ort.load(compile(SUM.format(t="f32")), device="local-sync")
    assert module.main._vm_function.reflection[ALIGNMENT_KEY] == "16"
    assert module.main._vm_function.reflection[WRITTEN_KEY] == ""
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
