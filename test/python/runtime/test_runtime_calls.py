"""Calling functions: results, arities, shapes, argument checks, sources of a vmfb, async calls."""

import concurrent.futures
import types

import numpy as np
import pytest
from runtime_testing import compile_mlir, load_cpu

import oxla.runtime as ort

SRC = """
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
func.func @split(%a: tensor<3xf32>, %n: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi1>, tensor<3xi32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<3xf32>
  %neg = stablehlo.negate %a : tensor<3xf32>
  %pos = stablehlo.compare GT, %a, %zero : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %twice = stablehlo.add %n, %n : tensor<3xi32>
  return %neg, %pos, %twice : tensor<3xf32>, tensor<3xi1>, tensor<3xi32>
}
func.func @nothing() {
  return
}
func.func @konst() -> tensor<2xi64> {
  %c = stablehlo.constant dense<[7, -8]> : tensor<2xi64>
  return %c : tensor<2xi64>
}
func.func @scale(%x: tensor<f32>, %v: tensor<3xf32>) -> tensor<f32> {
  %b = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %m = stablehlo.multiply %b, %v : tensor<3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @double(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @rows(%a: tensor<?x2xf32>, %b: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %0 = stablehlo.add %a, %b : tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
func.func @raw(%a: !hal.buffer_view) -> !hal.buffer_view {
  %t = hal.tensor.import %a "input0" : !hal.buffer_view -> tensor<4xf32>
  %0 = stablehlo.add %t, %t : tensor<4xf32>
  %r = hal.tensor.export %0 "output0" : tensor<4xf32> -> !hal.buffer_view
  return %r : !hal.buffer_view
}
func.func @count(%n: tensor<i64>, %f: tensor<ui8>, %p: tensor<i1>) -> (tensor<i64>, tensor<ui8>, tensor<i1>) {
  return %n, %f, %p : tensor<i64>, tensor<ui8>, tensor<i1>
}
"""


@pytest.fixture(scope="module")
def mod():
    return load_cpu(SRC)


@pytest.fixture(scope="module")
def vmfb():
    return compile_mlir(SRC)


def _owns_its_memory(array) -> bool:
    """Whether `array` is, or views, a numpy array that owns its data (not device memory mapped in)."""
    while array.base is not None:
        array = array.base
        if not isinstance(array, np.ndarray):
            return False
    return array.flags.owndata


def test_single_result_is_the_array(mod):
    a = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((8, 3)).astype(np.float32)
    got = mod.main(a, b)
    assert type(got) is np.ndarray and got.dtype == np.float32 and _owns_its_memory(got)
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(mod["main"](a, b), got)


def test_several_results_are_a_tuple(mod):
    neg, pos, twice = mod.split(np.array([1.5, -2.0, 0.0], np.float32), np.array([1, -2, 3], np.int32))
    np.testing.assert_array_equal(neg, [-1.5, 2.0, -0.0])
    assert pos.dtype == np.bool_ and pos.tolist() == [True, False, False]
    assert twice.dtype == np.int32 and twice.tolist() == [2, -4, 6]


def test_zero_arguments_and_zero_results(mod):
    assert mod.nothing() is None
    got = mod.konst()
    assert got.dtype == np.int64 and got.tolist() == [7, -8]


def test_rank0_arguments_and_results(mod):
    v = np.array([1.0, 2.0, 3.0], np.float32)
    got = mod.scale(np.float32(2.0), v)
    assert got.shape == () and got.dtype == np.float32 and float(got) == 12.0
    assert float(mod.scale(np.array(0.5, np.float32), v)) == 3.0
    assert float(mod.scale(3, v)) == 18.0  # a Python int converts losslessly to f32
    n, f, p = mod.count(2**40, 255, True)
    assert (n.dtype, f.dtype, p.dtype) == (np.int64, np.uint8, np.bool_)
    assert (int(n), int(f), bool(p)) == (2**40, 255, True)


def test_dynamic_dimensions_accept_any_size(mod):
    for n in (0, 1, 5, 1000):
        a = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(mod.double(a), 2 * a)
    a = np.ones((7, 2), np.float32)
    np.testing.assert_array_equal(mod.rows(a, a), 2 * a)


def test_argument_count_is_checked(mod):
    with pytest.raises(TypeError, match=r"^main: expects 2 arguments \(%input0, %input1\), got 1$"):
        mod.main(np.zeros((4, 8), np.float32))
    with pytest.raises(TypeError, match=r"^nothing: expects 0 arguments \(none\), got 1$"):
        mod.nothing(1)


def test_dtype_must_match_exactly(mod):
    a = np.zeros((4, 8), np.float32)
    with pytest.raises(TypeError) as e:
        mod.main(a, np.zeros((8, 16)))
    assert str(e.value) == "main: argument 2 (%input1) expects tensor<8x3xf32>, got float64[8,16]"
    with pytest.raises(TypeError, match=r"argument 1 \(%input0\) expects tensor<4x8xf32>, got float64\[4,8\]"):
        mod.main(a.astype(np.float64), np.zeros((8, 3), np.float32))
    with pytest.raises(TypeError, match=r"argument 2 \(%input1\) expects tensor<3xi32>, got int64\[3\]"):
        mod.split(np.zeros(3, np.float32), np.zeros(3, np.int64))
    with pytest.raises(TypeError, match=r"argument 1 \(%input0\) expects tensor<f32>, got float64\[\]"):
        mod.scale(np.float64(1.0), np.zeros(3, np.float32))  # a numpy scalar is typed


def test_shape_must_match_static_dimensions(mod):
    with pytest.raises(ValueError) as e:
        mod.main(np.zeros((4, 8), np.float32), np.zeros((8, 16), np.float32))
    assert str(e.value) == "main: argument 2 (%input1) expects tensor<8x3xf32>, got float32[8,16]"
    with pytest.raises(ValueError, match=r"argument 1 \(%input0\) expects tensor<\?x2xf32>, got float32\[3,3\]"):
        mod.rows(np.zeros((3, 3), np.float32), np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match=r"expects tensor<\?xf32>, got float32\[2,2\]"):
        mod.double(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"expects tensor<f32>, got float32\[1\]"):
        mod.scale(np.zeros(1, np.float32), np.zeros(3, np.float32))


def test_python_values_convert_only_without_loss(mod):
    v = [1.0, 2.0, 3.0]
    assert float(mod.scale(0.5, v)) == 3.0
    assert mod.split([1, -1, 0], [1, 2, 3])[2].tolist() == [2, 4, 6]
    for bad in ([1.5, 2, 3], [2**31, 0, 0], ["a", "b", "c"]):
        with pytest.raises(TypeError, match=r"argument 2 \(%input1\) expects tensor<3xi32>, got .*without loss"):
            mod.split(v, bad)
    with pytest.raises(TypeError, match="without loss"):
        mod.scale(1e300, v)  # overflows f32
    with pytest.raises(TypeError, match="without loss"):
        mod.count(2**40, 256, True)  # out of ui8's range
    with pytest.raises(TypeError, match="without loss"):
        mod.count(1, 1, 1)  # i1 takes only booleans
    with pytest.raises(TypeError, match="without loss"):
        mod.scale(1j, v)


def test_other_array_likes(mod):
    class DLPackOnly:
        """An array that offers only the DLPack protocol."""

        def __init__(self, array):
            self._array = array

        def __dlpack__(self, **kwargs):
            return self._array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self._array.__dlpack_device__()

    a = np.arange(1, 4, dtype=np.float32)
    assert float(mod.scale(DLPackOnly(np.array(2.0, np.float32)), DLPackOnly(a))) == 12.0
    strided = np.arange(6, dtype=np.float32)[::2]  # not contiguous
    np.testing.assert_array_equal(mod.double(strided), [0, 4, 8])
    fortran = np.asfortranarray(np.arange(8, dtype=np.float32).reshape(4, 2))
    np.testing.assert_array_equal(mod.rows(fortran, fortran), 2 * fortran)
    swapped = np.arange(3, dtype=">f4")  # other byte order, same type
    np.testing.assert_array_equal(mod.double(swapped), [0, 2, 4])


def test_results_do_not_alias_device_memory(mod):
    first = mod.konst()
    first[:] = 0
    assert mod.konst().tolist() == [7, -8]


def test_load_sources(vmfb, tmp_path):
    path = tmp_path / "prog.vmfb"
    path.write_bytes(vmfb)
    artifact = types.SimpleNamespace(vmfb=vmfb)
    for source in (vmfb, bytearray(vmfb), memoryview(vmfb), str(path), path, artifact):
        assert ort.load(source).konst().tolist() == [7, -8]
    with pytest.raises(TypeError, match="expects vmfb bytes, a path"):
        ort.load(12)
    with pytest.raises(FileNotFoundError):
        ort.load(tmp_path / "missing.vmfb")


def test_functions_and_reprs(mod):
    sigs = {s.name: s for s in mod.functions()}
    assert set(sigs) == {"main", "split", "nothing", "konst", "scale", "double", "rows", "raw", "count"}
    assert str(sigs["main"]) == "main(%input0: tensor<4x8xf32>, %input1: tensor<8x3xf32>) -> tensor<4x3xf32>"
    assert str(sigs["split"]).endswith("-> (tensor<3xf32>, tensor<3xi1>, tensor<3xi32>)")
    assert str(sigs["nothing"]) == "nothing() -> ()"
    d = sigs["rows"].inputs[0]
    assert (d.name, d.shape, d.dtype, d.kind) == ("%input0", (None, 2), np.float32, "tensor")
    assert repr(mod.main) == (
        "<oxla.runtime.Function main(%input0: tensor<4x8xf32>, %input1: tensor<8x3xf32>) -> tensor<4x3xf32> on local-task>"
    )
    assert repr(mod).startswith("<oxla.runtime.Module 'module' on local-task: main(")
    assert "double" in dir(mod) and "double" in mod and "__init" not in mod
    with pytest.raises(AttributeError, match="has no function 'nope'; functions: main, split"):
        mod.nope
    with pytest.raises(KeyError):
        mod["__init"]


def test_call_async(mod):
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    b = np.ones((8, 3), np.float32)
    fut = mod.main.call_async(a, b)
    assert isinstance(fut, concurrent.futures.Future)
    np.testing.assert_allclose(fut.result(timeout=30), a @ b)
    neg, pos, twice = mod.call_async("split", [1.0, -1.0, 2.0], [1, 2, 3]).result(timeout=30)
    assert pos.tolist() == [True, False, True]
    assert mod.call_async("nothing").result(timeout=30) is None
    futures = [mod.double.call_async(np.full(n, n, np.float32)) for n in range(1, 40)]
    for n, f in zip(range(1, 40), futures):
        np.testing.assert_array_equal(f.result(timeout=30), np.full(n, 2 * n))


def test_call_async_checks_and_copies_arguments_at_the_call(mod):
    with pytest.raises(TypeError, match="expects tensor<\\?xf32>, got int64"):
        mod.double.call_async(np.arange(3))
    a = np.ones(1000, np.float32)
    fut = mod.double.call_async(a)
    a[:] = 5  # the call already holds its own copy
    np.testing.assert_array_equal(fut.result(timeout=30), np.full(1000, 2.0))


def test_unchecked_parameters_and_failures_inside_the_vm(mod):
    # @raw takes a !hal.buffer_view: oxla cannot check it, the program's own assertion does.
    assert str(mod.raw.signature) == "raw(%input0: !hal.buffer_view) -> !hal.buffer_view"
    np.testing.assert_array_equal(mod.raw(np.ones(4, np.float32)), np.full(4, 2.0))
    with pytest.raises(ort.InvocationError, match=r"^raw: input0 shape dimension 0 mismatch; expected 4 but have 5"):
        mod.raw(np.ones(5, np.float32))
    with pytest.raises(ort.InvocationError, match=r"^raw: input0 element type mismatch"):
        mod.raw.call_async(np.ones(4, np.int32)).result(timeout=30)
    np.testing.assert_array_equal(mod.raw(np.array([1.5, 0, 0, 1], np.float32)), [3, 0, 0, 2])  # still works


def test_async_abi_functions_get_their_fences(vmfb):
    # Compiled with the async-external model, each function takes a wait and a signal fence.
    mod = ort.load(compile_mlir(SRC, flags=("--iree-execution-model=async-external",)))
    assert mod.double.signature.model == "async"
    np.testing.assert_array_equal(mod.double(np.arange(3, dtype=np.float32)), [0, 2, 4])
    assert mod.nothing() is None and mod.konst().tolist() == [7, -8]
    neg, pos, twice = mod.split.call_async([1.0, -1.0, 2.0], [1, 2, 3]).result(timeout=30)
    assert neg.tolist() == [-1.0, 1.0, -2.0] and twice.tolist() == [2, 4, 6]


def test_vm_scalar_parameters_and_results():
    mod = ort.load(
        compile_mlir(
            """
            func.func @pick(%a: i32, %b: f32, %t: tensor<2xf32>) -> (i32, f32, tensor<2xf32>) {
              return %a, %b, %t : i32, f32, tensor<2xf32>
            }"""
        )
    )
    assert str(mod.pick.signature) == "pick(%input0: i32, %input1: f32, %input2: tensor<2xf32>) -> (i32, f32, tensor<2xf32>)"
    a, b, t = mod.pick(7, 0.5, [1.0, 2.0])
    assert (a.dtype, int(a), b.dtype, float(b)) == (np.int32, 7, np.float32, 0.5)
    with pytest.raises(TypeError, match=r"argument 1 \(%input0\) expects i32, got 1.5"):
        mod.pick(1.5, 0.5, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"argument 2 \(%input1\) expects f32, got float32\[2\]"):
        mod.pick(1, np.zeros(2, np.float32), [1.0, 2.0])
