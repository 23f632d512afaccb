"""oxla-llvmcpu-unroll-tiny-batch-matmuls: batched matmuls with short contractions run as element-wise
products summed, with the matmul's results; longer or unbatched ones stay matmuls."""

import ml_dtypes
import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

PASS = "builtin.module(oxla-llvmcpu-unroll-tiny-batch-matmuls)"


def batch_matmul(lhs: tuple, rhs: tuple, numbers: str, out: tuple, element="f32", result="f32") -> str:
    """@main(a, b): one stablehlo.dot_general of the given shapes and dimension numbers."""
    types = [f"tensor<{'x'.join(map(str, s))}x{e}>" for s, e in ((lhs, element), (rhs, element), (out, result))]
    return (f"func.func @main(%a: {types[0]}, %b: {types[1]}) -> {types[2]} {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, {numbers} : ({types[0]}, {types[1]}) -> {types[2]}\n"
            f"  return %0 : {types[2]}\n}}\n")


BMM = "batching_dims = [0] x [0], contracting_dims = [2] x [1]"


def _dots_left(text: str) -> int:
    """How many dot_generals the pass leaves in `text`'s module."""
    module = ir.parse(text)
    transforms.run(module, PASS)
    assert not ir.verify(module)
    return sum(op.name == "stablehlo.dot_general" for op in ir.ops(module))


@pytest.mark.parametrize("batch, m, k, n", [
    (64, 4, 4, 4),  # 4x4 transforms
    (32, 3, 3, 3),  # rotations
    (16, 2, 8, 5),  # the longest contraction taken at any size
    (16, 4, 16, 4),  # a contraction of 16 into 16 results
    (8, 7, 3, 1),  # matrix-vector products
    (4, 100, 2, 3),  # tall left matrices
])
def test_tiny_batch_matmuls_are_products_summed(batch, m, k, n):
    text = batch_matmul((batch, m, k), (batch, k, n), BMM, (batch, m, n))
    assert _dots_left(text) == 0
    rng = np.random.default_rng(m * k * n)
    a, b = rng.standard_normal((batch, m, k)).astype(np.float32), rng.standard_normal((batch, k, n)).astype(np.float32)
    got = np.asarray(runtime.load(compile(text)).main(a, b))
    np.testing.assert_allclose(got, np.matmul(a.astype(np.float64), b.astype(np.float64)), rtol=1e-5, atol=1e-5)


def test_any_dimension_order_matches_irees_matmul():
    # Two batch dimensions, two contracting ones (4 terms), free dimensions on both sides, all out of order.
    numbers = "batching_dims = [3, 0] x [1, 2], contracting_dims = [1, 4] x [3, 0]"
    text = batch_matmul((5, 2, 3, 6, 2), (2, 6, 5, 2, 4), numbers, (6, 5, 3, 4))
    assert _dots_left(text) == 0
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((5, 2, 3, 6, 2)).astype(np.float32), rng.standard_normal((2, 6, 5, 2, 4)).astype(np.float32)
    want = np.einsum("bkmcl,lcbkn->cbmn", a.astype(np.float64), b.astype(np.float64))
    got = np.asarray(runtime.load(compile(text)).main(a, b))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    unrolled_off = compile(text, disable_passes=["oxla-llvmcpu-unroll-tiny-batch-matmuls"])
    np.testing.assert_allclose(got, np.asarray(runtime.load(unrolled_off).main(a, b)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("result", ["bf16", "f32"])
def test_bf16_products_sum_in_f32(result):
    text = batch_matmul((8, 4, 8), (8, 8, 4), BMM, (8, 4, 4), element="bf16", result=result)
    assert _dots_left(text) == 0
    rng = np.random.default_rng(5)
    a, b = rng.integers(-8, 9, (8, 4, 8)), rng.integers(-8, 9, (8, 8, 4))
    got = np.asarray(runtime.load(compile(text)).main(a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16)))
    want = np.matmul(a, b).astype(np.float64)  # exact in f32, then rounded once
    if result == "bf16":
        want = want.astype(ml_dtypes.bfloat16).astype(np.float64)
    np.testing.assert_array_equal(got.astype(np.float64), want)


@pytest.mark.parametrize("lhs, rhs, numbers, out, element", [
    ((16, 8, 16), (16, 16, 16), BMM, (16, 8, 16), "f32"),  # 16 terms into 128 results each
    ((16, 8, 9), (16, 9, 16), BMM, (16, 8, 16), "f32"),  # 9 terms into 128 results
    ((64, 4), (4, 4), "contracting_dims = [1] x [0]", (64, 4), "f32"),  # no batch dimension
    ((16, 4, 4), (16, 4, 4), BMM, (16, 4, 4), "i32"),  # integers
])
def test_other_matmuls_stay(lhs, rhs, numbers, out, element):
    assert _dots_left(batch_matmul(lhs, rhs, numbers, out, element, element)) == 1
