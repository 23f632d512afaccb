"""oxla-legalize-fft and oxla-llvmcpu-staged-fft: fft forms IREE rejects compile as DFT matmuls or stages,
the ones it lowers as stages on llvm-cpu, and all match numpy."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import CompileError, compile

# name, fft type, input shape, lengths, numpy reference (on complex128/float64), input complex, result type
CASES = [
    ("fft_6", "FFT", (3, 6), [6], lambda x: np.fft.fft(x), np.complex64),
    ("ifft_5x3_f64", "IFFT", (2, 5, 3), [5, 3], lambda x: np.fft.ifft2(x), np.complex128),
    ("rfft_17_f64", "RFFT", (4, 17), [17], lambda x: np.fft.rfft(x), np.float64),
    ("rfft_4x6", "RFFT", (2, 4, 6), [4, 6], lambda x: np.fft.rfft2(x), np.float32),
    ("irfft_33_f64", "IRFFT", (3, 17), [33], lambda x: np.fft.irfft(x, 33), np.complex128),
    ("irfft_3x4x8", "IRFFT", (2, 3, 4, 5), [3, 4, 8], lambda x: np.fft.irfftn(x, (3, 4, 8), axes=(1, 2, 3)),
     np.complex64),
    # stages: lengths of small prime factors, 64 and up
    ("fft_1000", "FFT", (3, 1000), [1000], lambda x: np.fft.fft(x), np.complex64),
    ("fft_1001_f64", "FFT", (2, 1001), [1001], lambda x: np.fft.fft(x), np.complex128),
    ("ifft_96x128", "IFFT", (2, 96, 128), [96, 128], lambda x: np.fft.ifft2(x), np.complex64),
    ("fft_256x6", "FFT", (256, 6), [256, 6], lambda x: np.fft.fft2(x), np.complex64),
    ("rfft_200_f64", "RFFT", (5, 200), [200], lambda x: np.fft.rfft(x), np.float64),  # as 100 complex values
    ("rfft_64x80", "RFFT", (2, 64, 80), [64, 80], lambda x: np.fft.rfft2(x), np.float32),
    ("irfft_201_f64", "IRFFT", (3, 101), [201], lambda x: np.fft.irfft(x, 201), np.complex128),
    ("irfft_400_f64", "IRFFT", (2, 201), [400], lambda x: np.fft.irfft(x, 400), np.complex128),  # half: 200
    ("irfft_64x80", "IRFFT", (2, 64, 41), [64, 80], lambda x: np.fft.irfft2(x, (64, 80)), np.complex64),
]
# the forms IREE lowers (one f32 axis, a power of two) that oxla-llvmcpu-staged-fft takes
IREE_FORMS = [
    ("fft_1024", "FFT", (4, 1024), [1024], lambda x: np.fft.fft(x), np.complex64),
    ("ifft_64", "IFFT", (8, 64), [64], lambda x: np.fft.ifft(x), np.complex64),
    ("rfft_4096", "RFFT", (2, 4096), [4096], lambda x: np.fft.rfft(x), np.float32),
    ("irfft_256", "IRFFT", (3, 129), [256], lambda x: np.fft.irfft(x, 256), np.complex64),
    ("fft_128", "FFT", (2, 128), [128], lambda x: np.fft.fft(x), np.complex64),
]
_MLIR = {np.complex64: "complex<f32>", np.complex128: "complex<f64>", np.float32: "f32", np.float64: "f64"}
_REAL = {np.complex64: np.float32, np.complex128: np.float64, np.float32: np.float32, np.float64: np.float64}
_COMPLEX = {np.float32: np.complex64, np.float64: np.complex128}


def _types(kind, shape, lengths, dtype):
    """The MLIR operand and result types of the fft."""
    out = list(shape)
    if kind == "RFFT":
        out[-1] = lengths[-1] // 2 + 1
        result = _MLIR[_COMPLEX[_REAL[dtype]]]
    elif kind == "IRFFT":
        out[-1] = lengths[-1]
        result = _MLIR[_REAL[dtype]]
    else:
        result = _MLIR[dtype]
    dims = lambda s: "x".join(map(str, s))  # noqa: E731
    return f"tensor<{dims(shape)}x{_MLIR[dtype]}>", f"tensor<{dims(out)}x{result}>"


def _program(kind, shape, lengths, dtype) -> str:
    operand, result = _types(kind, shape, lengths, dtype)
    return (f"func.func @main(%x: {operand}) -> {result} {{\n"
            f"  %0 = stablehlo.fft %x, type = {kind}, length = [{', '.join(map(str, lengths))}] : ({operand}) -> {result}\n"
            f"  return %0 : {result}\n}}\n")


def _input(shape, dtype):
    rng = np.random.default_rng(2)
    real = rng.standard_normal(shape)
    return (real + 1j * rng.standard_normal(shape) if dtype in _COMPLEX.values() else real).astype(dtype)


def _matches_numpy(pass_name, kind, shape, lengths, reference, dtype):
    """`pass_name` leaves no fft, and the compiled program matches numpy."""
    src = _program(kind, shape, lengths, dtype)
    module = ir.parse(src)
    transforms.run(module, f"builtin.module({pass_name})")
    assert "stablehlo.fft" not in ir.to_text(module)

    x = _input(shape, dtype)
    result = np.asarray(runtime.load(compile(src)).main(x))
    expected = reference(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64))
    tolerance = 1e-12 if _REAL[dtype] == np.float64 else 1e-5
    assert result.dtype == expected.astype(result.dtype).dtype
    np.testing.assert_allclose(result, expected, rtol=0, atol=tolerance * max(1.0, np.abs(expected).max()))


@pytest.mark.parametrize("name, kind, shape, lengths, reference, dtype", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy(name, kind, shape, lengths, reference, dtype):
    _matches_numpy("oxla-legalize-fft", kind, shape, lengths, reference, dtype)


@pytest.mark.parametrize("name, kind, shape, lengths, reference, dtype", IREE_FORMS, ids=[c[0] for c in IREE_FORMS])
def test_staged_iree_forms_match_numpy(name, kind, shape, lengths, reference, dtype):
    _matches_numpy("oxla-llvmcpu-staged-fft", kind, shape, lengths, reference, dtype)


def test_iree_rejects_them_unlegalized():
    with pytest.raises(CompileError, match="stablehlo.fft"):
        compile(_program("RFFT", (4, 17), [17], np.float32), legalize=False)


def test_lengths_not_the_trailing_dims_are_rejected_where_they_stand():
    """fft_length must name the operand's trailing dims; an fft whose lengths do not is left as it is, and
    the compile fails with a diagnostic at its location rather than an error inside the pass."""
    src = _program("FFT", (2, 96, 64, 3), [96, 64, 3], np.complex64).replace("length = [96, 64, 3]",
                                                                         "length = [96, 64]")
    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-legalize-fft,oxla-llvmcpu-staged-fft)")
    assert "stablehlo.fft" in ir.to_text(module)
    with pytest.raises(CompileError, match=r"2:\d+: error: failed to legalize operation 'stablehlo.fft'"):
        compile(src)


def test_forms_iree_lowers_left_alone():
    src = _program("FFT", (3, 8), [8], np.complex64) + _program("IRFFT", (3, 9), [16], np.complex64).replace(
        "@main", "@irfft")
    module = ir.parse(src)
    before = ir.to_text(module)
    transforms.run(module, "builtin.module(oxla-legalize-fft)")
    assert ir.to_text(module) == before


def test_iree_lowered_irfft_matches_numpy():
    """IRFFT of a power-of-two length: IREE's own lowering, whose complex gather oxla's dispatch
    rewrites see (a complex<f32> binding type once failed to parse there)."""
    src = _program("IRFFT", (4, 33), [64], np.complex64)
    x = _input((4, 33), np.complex64)
    result = np.asarray(runtime.load(compile(src, disable_passes=["oxla-llvmcpu-staged-fft"])).main(x))
    np.testing.assert_allclose(result, np.fft.irfft(x.astype(np.complex128), 64), rtol=0, atol=1e-5)


def test_vulkan_runs_stages_where_it_exists():
    """The stages oxla-legalize-fft builds for every target: a length of 1000 and a 2-D IRFFT (its last axis
    as half as many complex values) on lavapipe."""
    if not any(d.name == "vulkan" and d.available for d in runtime.devices()):
        pytest.skip("no vulkan device on this machine")
    for kind, shape, lengths, reference in (("FFT", (3, 1000), [1000], np.fft.fft),
                                            ("IRFFT", (2, 64, 65), [64, 128], lambda x: np.fft.irfft2(x, (64, 128)))):
        x = _input(shape, np.complex64)
        program = compile(_program(kind, shape, lengths, np.complex64), target="vulkan-spirv")
        result = np.asarray(runtime.load(program, device="vulkan").main(x))
        expected = reference(x.astype(np.complex128))
        np.testing.assert_allclose(result, expected, rtol=0, atol=1e-5 * np.abs(expected).max())


def test_vulkan_takes_oxla_forms_for_iree_forms_too():
    """IREE's own lowering of the forms it takes failed to compile on Vulkan for lengths up to 32 and
    computed wrong values from 64 (FFT of c64[4,256]: off by 3e8 relative); oxla.compile has
    oxla-legalize-fft take them there."""
    from oxla.pipelines.compiler import input_legalization
    from oxla.pipelines.targets import TARGETS

    assert "iree-forms=true" in input_legalization(TARGETS["vulkan-spirv"])
    assert "iree-forms" not in input_legalization(TARGETS["llvm-cpu"])
    if not any(d.name == "vulkan" and d.available for d in runtime.devices()):
        pytest.skip("no vulkan device on this machine")
    for kind, shape, lengths, reference in (("FFT", (4, 8), [8], np.fft.fft), ("FFT", (4, 256), [256], np.fft.fft),
                                            ("IRFFT", (3, 65), [128], lambda x: np.fft.irfft(x, 128))):
        x = _input(shape, np.complex64)
        program = compile(_program(kind, shape, lengths, np.complex64), target="vulkan-spirv")
        result = np.asarray(runtime.load(program, device="vulkan").main(x))
        expected = reference(x.astype(np.complex128))
        np.testing.assert_allclose(result, expected, rtol=0, atol=1e-5 * np.abs(expected).max())


def _along_other_axes(kind, shape, lengths, perm) -> str:
    """A program as JAX writes an fft along other axes: a transpose moving them last, a call of a function
    holding the fft, and the transpose back."""
    moved = [shape[p] for p in perm]
    back = [int(d) for d in np.argsort(perm)]
    x_type, y_type = (f"tensor<{'x'.join(map(str, s))}xcomplex<f32>>" for s in (shape, moved))
    return (f"func.func @main(%x: {x_type}) -> {x_type} {{\n"
            f"  %0 = stablehlo.transpose %x, dims = {perm} : ({x_type}) -> {y_type}\n"
            f"  %1 = call @fft(%0) : ({y_type}) -> {y_type}\n"
            f"  %2 = stablehlo.transpose %1, dims = {back} : ({y_type}) -> {x_type}\n"
            f"  return %2 : {x_type}\n}}\n"
            + _program(kind, tuple(moved), lengths, np.complex64).replace("func.func @main", "func.func private @fft"))


@pytest.mark.parametrize("kind, shape, lengths, perm, reference", [
    ("FFT", (1024, 64), [1024], [1, 0], lambda x: np.fft.fft(x, axis=0)),
    ("IFFT", (64, 96, 8), [64, 96], [2, 0, 1], lambda x: np.fft.ifft2(x, axes=(0, 1))),
    ("FFT", (100, 8, 3), [100], [1, 2, 0], lambda x: np.fft.fft(x, axis=0)),
], ids=["fft_columns", "ifft2_leading", "fft_1000_columns"])
def test_ffts_along_other_axes_read_the_transposed_tensor(kind, shape, lengths, perm, reference):
    """An fft of a transposed tensor (JAX's fft along other axes, its fft in a function of its own) runs
    along the transpose's operand: the call is inlined and the stages read the operand, whose transpose is
    left dead (IREE moves complex elements one at a time)."""
    src = _along_other_axes(kind, shape, lengths, perm)
    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-llvmcpu-staged-fft,oxla-legalize-fft,oxla-dce)")
    text = ir.to_text(module)
    assert "stablehlo.fft" not in text and "call" not in text
    assert "stablehlo.transpose %arg0" not in text
    x = _input(shape, np.complex64)
    result = np.asarray(runtime.load(compile(src)).main(x))
    expected = reference(x.astype(np.complex128))
    np.testing.assert_allclose(result, expected, rtol=0, atol=1e-5 * np.abs(expected).max())


def test_an_rfft_moved_back_by_a_transpose_moves_its_words():
    """JAX's RFFT along axis 0 transposes the complex result back; the pass transposes its i64 words
    instead (and undoes that for the fft's own result, which cancels JAX's transpose)."""
    src = ("func.func @main(%x: tensor<128x8xf32>) -> tensor<65x8xcomplex<f32>> {\n"
           "  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<128x8xf32>) -> tensor<8x128xf32>\n"
           "  %1 = stablehlo.fft %0, type = RFFT, length = [128] : (tensor<8x128xf32>) -> tensor<8x65xcomplex<f32>>\n"
           "  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<8x65xcomplex<f32>>) -> tensor<65x8xcomplex<f32>>\n"
           "  return %2 : tensor<65x8xcomplex<f32>>\n}\n")
    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-llvmcpu-staged-fft)")
    assert "(tensor<8x65xi64>) -> tensor<65x8xi64>" in ir.to_text(module)
    x = _input((128, 8), np.float32)
    result = np.asarray(runtime.load(compile(src)).main(x))
    expected = np.fft.rfft(x.astype(np.float64), axis=0)
    np.testing.assert_allclose(result, expected, rtol=0, atol=1e-5 * np.abs(expected).max())


@pytest.mark.parametrize("words", [True, False])
@pytest.mark.parametrize("kind, shape, lengths, reference", [
    ("FFT", (2, 96, 128), [96, 128], np.fft.fft2),
    ("IRFFT", (2, 64, 65), [64, 128], lambda x: np.fft.irfft2(x, (64, 128))),
], ids=["fft2", "irfft2"])
def test_results_joined_as_i64_words_or_transposed(words, kind, shape, lengths, reference):
    """f32 results join their planes' parts as i64 words (the default), or transposed into pairs where a
    device has no 64-bit integers (i64-words=false, as oxla.compile sets for vulkan)."""
    module = ir.parse(_program(kind, shape, lengths, np.complex64))
    transforms.run(module, f"builtin.module(oxla-legalize-fft{{i64-words={str(words).lower()}}})")
    text = ir.to_text(module)
    assert ("xi64>" in text) == words
    x = _input(shape, np.complex64)
    result = np.asarray(runtime.load(compile(text)).main(x))
    expected = reference(x.astype(np.complex128))
    np.testing.assert_allclose(result, expected, rtol=0, atol=1e-5 * np.abs(expected).max())


@pytest.mark.parametrize("length", [1024, 1000])
def test_a_run_time_batch_takes_dft_matrices(length):
    """Stages reshape by static sizes, and IREE's own fft lowering rejects a dynamic shape: a batch of run-time
    size takes DFT matrix products, of a power of two too."""
    operand, result = f"tensor<?x{length}xcomplex<f32>>", f"tensor<?x{length}xcomplex<f32>>"
    src = (f"func.func @main(%x: {operand}) -> {result} {{\n"
           f"  %0 = stablehlo.fft %x, type = FFT, length = [{length}] : ({operand}) -> {result}\n"
           f"  return %0 : {result}\n}}\n")
    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-legalize-fft)")
    text = ir.to_text(module)
    assert "stablehlo.fft" not in text and "stablehlo.dot_general" in text
    x = _input((3, length), np.complex64)
    result = np.asarray(runtime.load(compile(src)).main(x))
    expected = np.fft.fft(x.astype(np.complex128))
    np.testing.assert_allclose(result, expected, rtol=0, atol=1e-5 * np.abs(expected).max())
