"""oxla-llvmcpu-reversed-row-loops and oxla-llvmcpu-vectorize-marked-loops: rows read backwards as vectors."""

import ml_dtypes
import numpy as np
import pytest

from oxla import ir, runtime
from oxla.pipelines import compile
from oxla.transforms.reversed_rows import MARK, reads_backwards

AVX2 = "x86-64-v3"


def _generic(indices: str, *, extra_input: bool = False, second_extract: bool = False) -> str:
    """A func holding one all-parallel linalg.generic over [64, 40] that extracts %x (f32[64, 40]) at
    `indices` (over %d0, %d1, the loop indices); optionally adding an input read in order, or a second
    extract read in order."""
    ins = "ins(%y : tensor<64x40xf32>) " if extra_input else ""
    maps = "affine_map<(d0, d1) -> (d0, d1)>, " * (2 if extra_input else 1)
    arguments = "%in: f32, %out: f32" if extra_input else "%out: f32"
    body = "    %v = arith.addf %e, %in : f32\n" if extra_input else "    %v = arith.mulf %e, %e : f32\n"
    if second_extract:
        body += "    %f = tensor.extract %x[%d0, %d1] : tensor<64x40xf32>\n    %w = arith.addf %v, %f : f32\n"
    result = "%w" if second_extract else "%v"
    return f"""func.func @f(%x: tensor<64x40xf32>, %y: tensor<64x40xf32>, %o: tensor<64x40xf32>) -> tensor<64x40xf32> {{
  %c39 = arith.constant 39 : index
  %c63 = arith.constant 63 : index
  %r = linalg.generic {{indexing_maps = [{maps[:-2]}], iterator_types = ["parallel", "parallel"]}}
      {ins}outs(%o : tensor<64x40xf32>) {{
  ^bb0({arguments}):
    %d0 = linalg.index 0 : index
    %d1 = linalg.index 1 : index
    %b0 = arith.subi %c63, %d0 : index
    %b1 = arith.subi %c39, %d1 : index
    %e = tensor.extract %x[{indices}] : tensor<64x40xf32>
{body}    linalg.yield {result} : f32
  }} -> tensor<64x40xf32>
  return %r : tensor<64x40xf32>
}}
"""


@pytest.mark.parametrize("text, expected", [
    (_generic("%d0, %b1"), True),  # each row from its end
    (_generic("%d0, %d1"), False),  # in order
    (_generic("%b0, %d1"), False),  # rows in reverse order, each read in order: IREE's vectors do that
    (_generic("%b0, %b1"), False),  # both: LLVM's vectorizer did not take it
    (_generic("%d0, %b1", extra_input=True), False),  # with a second input: 1.07x slower through LLVM
    (_generic("%d0, %b1", second_extract=True), False),
])
def test_rows_read_backwards(text, expected):
    module = ir.parse(text)
    generic = next(op for op in ir.ops(module) if op.name == "linalg.generic")
    assert reads_backwards(generic) is expected


def _reverse(shape: tuple[int, ...], element: str, dims: str = "[1]", convert: str | None = None) -> str:
    t = f"tensor<{'x'.join(map(str, shape))}x{element}>"
    out = t if convert is None else t.replace(element, convert)
    tail = "" if convert is None else f"  %c = stablehlo.convert %r : ({t}) -> {out}\n"
    return (f"func.func @main(%x: {t}) -> {out} {{\n  %r = stablehlo.reverse %x, dims = {dims} : {t}\n{tail}"
            f"  return {'%c' if convert else '%r'} : {out}\n}}\n")


def _optimized_llvm(src: str, directory, **options) -> str:
    """The optimized LLVM IR of `src`'s one dispatch, compiled for AVX2."""
    compile(src, cpu=AVX2, flags=[f"--iree-hal-dump-executable-intermediates-to={directory}"], **options)
    return next(directory.glob("*.optimized.ll")).read_text()


def test_llvm_loads_the_row_backwards_as_vectors(tmp_path):
    src = _reverse((256, 1024), "f32")
    vectorized = _optimized_llvm(src, tmp_path / "with")
    assert "%wide.load" in vectorized  # LLVM's loop vectorizer's loads, reversed in registers:
    assert "<8 x i32> <i32 7, i32 6, i32 5, i32 4, i32 3, i32 2, i32 1, i32 0>" in vectorized
    assert "%wide.load" not in _optimized_llvm(src, tmp_path / "without",
                                               disable_passes=["oxla-llvmcpu-reversed-row-loops"])


def test_the_dispatch_is_marked_then_its_innermost_loop_asks_llvm_to_vectorize():
    src = _reverse((256, 1024), "f32")
    configured = ir.to_text(compile(src, cpu=AVX2, compile_to="executable-configurations"))
    assert MARK in configured and "vector_common_parallel = [1, 1]" in configured
    lowered = ir.to_text(compile(src, cpu=AVX2, compile_to="executable-targets"))
    assert MARK not in lowered
    assert "#llvm.loop_vectorize<disable = false>" in lowered  # printed as aliases
    assert len([line for line in lowered.splitlines() if "llvm.br" in line and "loop_annotation" in line]) == 1
    plain = ir.to_text(compile(src, cpu=AVX2, compile_to="executable-targets",
                               disable_passes=["oxla-llvmcpu-reversed-row-loops"]))
    assert "loop_annotation" not in plain and MARK not in plain


@pytest.mark.parametrize("shape, element, dims, convert, dtype", [
    ((256, 1024), "f32", "[1]", None, np.float32),
    ((256, 1000), "f32", "[1]", "bf16", np.float32),  # converted on the way; a row no whole vectors
    ((8, 16, 100), "i8", "[2]", None, np.int8),
    ((64, 256), "f32", "[0, 1]", None, np.float32),  # left to IREE
])
def test_reversed_rows_are_exact(shape, element, dims, convert, dtype):
    x = (np.random.default_rng(3).standard_normal(shape) * 50).astype(dtype)
    axes = tuple(int(d) for d in dims.strip("[]").split(","))
    want = np.flip(x, axes)
    if convert:
        want = want.astype(ml_dtypes.bfloat16)
    got = np.asarray(runtime.load(compile(_reverse(shape, element, dims, convert))).main(x))
    np.testing.assert_array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))
