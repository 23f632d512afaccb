"""oxla-llvmcpu-outer-reduction-tiles: reductions over outer dimensions get register-wide tiles and stay exact."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile
from oxla.transforms.cpu_tiles import _vector_shape, outer_reduction_config

_MLIR = {np.float32: "f32", np.float64: "f64", np.int32: "i32"}


def _reduce(shape, dims, dtype, body="add", producer=None) -> str:
    """@main(x) = reduce(body) of x (or of producer(x)) over dims."""
    t = f"tensor<{'x'.join(map(str, shape))}x{_MLIR[dtype]}>"
    kept = [n for i, n in enumerate(shape) if i not in dims]
    r = f"tensor<{'x'.join(map(str, kept))}x{_MLIR[dtype]}>"
    init = "0.0" if dtype != np.int32 else "0"
    if body == "maximum":
        init = "0xFF800000" if dtype == np.float32 else ("0xFFF0000000000000" if dtype == np.float64 else "-2147483648")
    src = "%x" if producer is None else "%p"
    pre = "" if producer is None else f"  %p = stablehlo.{producer} %x : {t}\n"
    return (f"func.func @main(%x: {t}) -> {r} {{\n{pre}"
            f"  %z = stablehlo.constant dense<{init}> : tensor<{_MLIR[dtype]}>\n"
            f"  %r = stablehlo.reduce({src} init: %z) applies stablehlo.{body} across dimensions = {list(dims)} :"
            f" ({t}, tensor<{_MLIR[dtype]}>) -> {r}\n  return %r : {r}\n}}\n")


CASES = [  # shape, reduced dims, dtype, body, producer
    ((4096, 1024), (0,), np.float32, "add", None),
    ((300, 1000), (0,), np.float32, "add", None),  # 1000 is no multiple of the 512-wide strip
    ((64, 7), (0,), np.float64, "add", None),
    ((8, 96, 130), (1,), np.float32, "maximum", None),
    ((6, 40, 520), (0, 1), np.float64, "add", None),
    ((512, 300), (0,), np.int32, "add", None),
    ((256, 640), (0,), np.float32, "add", "exponential"),
]


@pytest.mark.parametrize("shape, dims, dtype, body, producer", CASES)
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_outer_reductions_compute_what_numpy_does(shape, dims, dtype, body, producer, device):
    artifact = compile(_reduce(shape, dims, dtype, body, producer))
    assert artifact.codegen_passes  # they ran, and the program compiled with them
    rng = np.random.default_rng(len(shape) + shape[-1])
    x = (rng.integers(-50, 50, shape) if dtype == np.int32 else rng.standard_normal(shape)).astype(dtype)
    got = np.asarray(runtime.load(artifact, device=device).main(x))
    source = np.exp(x.astype(np.float64)) if producer else x.astype(np.float64)
    expected = source.sum(axis=dims) if body == "add" else source.max(axis=dims)
    if dtype == np.int32:
        np.testing.assert_array_equal(got, expected.astype(np.int32))
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-3)


def _configs(src: str) -> list[str]:
    """The lowering configs the pass sets on `src` compiled to linalg (global-optimization)."""
    module = compile(src, compile_to="global-optimization")
    transforms.run(module, "builtin.module(oxla-llvmcpu-outer-reduction-tiles)")
    found = []
    ir.walk(module, lambda op: found.append(str(op.attributes["compilation_info"]))
            if "compilation_info" in op.attributes else None)
    return found


def _register_file_bytes() -> int:
    """Bytes of the host CPU's vector register file as the pass sees it (AVX-512: 32 x 64)."""
    vector_bytes, registers = _vector_shape(compile(_reduce((4, 4), (0,), np.float32), compile_to="global-optimization"))
    return vector_bytes * registers


def test_only_reductions_that_keep_the_innermost_dimension_are_tiled():
    strip = _register_file_bytes() // 4
    (column,) = _configs(_reduce((4096, 1024), (0,), np.float32))
    assert f"distribution = [{strip}, 0]" in column and f"vector_common_parallel = [{strip}, 0]" in column
    assert "vector_reduction = [0, 1]" in column
    assert _configs(_reduce((4096, 1024), (1,), np.float32)) == []  # a row sum is IREE's
    (f64,) = _configs(_reduce((64, 1024), (0,), np.float64))
    assert f"distribution = [{strip // 2}, 0]" in f64
    (narrow,) = _configs(_reduce((64, 7), (0,), np.float32))
    assert "distribution = [7, 0]" in narrow
    (middle,) = _configs(_reduce((8, 96, 130), (1,), np.float32))
    assert "distribution = [1, 130, 0]" in middle and "vector_reduction = [0, 0, 1]" in middle  # reductions last


def test_configured_and_dynamic_reductions_are_left_alone():
    src = ("func.func @main(%x: tensor<?x16xf32>) -> tensor<16xf32> {\n"
           "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
           "  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] :"
           " (tensor<?x16xf32>, tensor<f32>) -> tensor<16xf32>\n  return %r : tensor<16xf32>\n}\n")
    assert _configs(src) == []
    module = compile(_reduce((64, 32), (0,), np.float32), compile_to="global-optimization")
    transforms.run(module, "builtin.module(oxla-llvmcpu-outer-reduction-tiles)")
    generic = []
    ir.walk(module, lambda op: generic.append(op) if op.name == "linalg.generic" else None)
    assert outer_reduction_config(generic[0], 64, 32) is None  # already configured
