"""oxla-legalize-triangular-solve: every variant of triangular_solve compiles and matches numpy.

The pass is not in oxla.compile's input legalization yet (test/lit/tools/oxla-compile/bad-input.mlir
uses triangular_solve as its example of an op IREE rejects), so these compiles run it as a hook.
"""

import itertools

import ml_dtypes
import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import CompileError, compile

LEGALIZE = {}  # oxla.compile runs the pass by default (INPUT_LEGALIZATION_PASSES)

_MLIR = {ml_dtypes.bfloat16: "bf16", np.float32: "f32", np.float64: "f64", np.complex64: "complex<f32>", np.complex128: "complex<f64>"}


def _program(a_shape, b_shape, dtype, left, lower, transpose, unit) -> str:
    a = f"tensor<{'x'.join(map(str, a_shape))}x{_MLIR[dtype]}>"
    b = f"tensor<{'x'.join(map(str, b_shape))}x{_MLIR[dtype]}>"
    flag = lambda v: str(v).lower()  # noqa: E731
    return (f"func.func @main(%a: {a}, %b: {b}) -> {b} {{\n"
            f"  %0 = \"stablehlo.triangular_solve\"(%a, %b) <{{left_side = {flag(left)}, lower = {flag(lower)}, "
            f"transpose_a = #stablehlo<transpose {transpose}>, unit_diagonal = {flag(unit)}}}> : ({a}, {b}) -> {b}\n"
            f"  return %0 : {b}\n}}\n")


def reference(a, b, left, lower, transpose, unit):
    """x solving op(a) x = b (left) or x op(a) = b, using only a's triangle (its diagonal taken as 1 if unit)."""
    n = a.shape[-1]
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        t = np.where(np.eye(n, dtype=bool), 1, t)
    op = {"NO_TRANSPOSE": t, "TRANSPOSE": np.swapaxes(t, -1, -2),
          "ADJOINT": np.conj(np.swapaxes(t, -1, -2))}[transpose]
    if left:
        return np.linalg.solve(op, b)
    return np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)


def _random(shape, dtype, rng):
    values = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


VARIANTS = list(itertools.product([True, False], [True, False], ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"],
                                  [False, True]))


@pytest.mark.parametrize("left, lower, transpose, unit", VARIANTS,
                         ids=[f"{'left' if l else 'right'}-{'lower' if lo else 'upper'}-{t}-{'unit' if u else 'diag'}"
                              for l, lo, t, u in VARIANTS])
def test_variants_f64(left, lower, transpose, unit):
    rng = np.random.default_rng(3)
    a = _random((2, 4, 4), np.float64, rng) + 4 * np.eye(4)  # well conditioned
    unused = np.triu(np.ones((4, 4)), 1) if lower else np.tril(np.ones((4, 4)), -1)
    a = np.where(unused.astype(bool) | (unit & np.eye(4, dtype=bool)), np.nan, a)  # entries never read
    b = _random((2, 4, 3) if left else (2, 3, 4), np.float64, rng)
    src = _program(a.shape, b.shape, np.float64, left, lower, transpose, unit)
    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-legalize-triangular-solve)")
    assert "triangular_solve" not in ir.to_text(module) and "stablehlo.while" in ir.to_text(module)

    result = np.asarray(runtime.load(compile(src, hooks=LEGALIZE)).main(a, b))
    np.testing.assert_allclose(result, reference(a, b, left, lower, transpose, unit), rtol=1e-10, atol=1e-10)


# dtype, columns of b (1: IREE once failed on the vector dot this makes), tolerance
TYPES = [(ml_dtypes.bfloat16, 1, 3e-2), (np.float32, 2, 1e-5), (np.complex64, 1, 1e-5), (np.complex128, 2, 1e-12)]


@pytest.mark.parametrize("dtype, columns, tolerance", TYPES, ids=[_MLIR[t[0]] for t in TYPES])
def test_element_types(dtype, columns, tolerance):
    rng = np.random.default_rng(4)
    a = (_random((5, 5), np.complex128 if np.issubdtype(dtype, np.complexfloating) else np.float64, rng)
         + 5 * np.eye(5)).astype(dtype)
    a[0, 4] = np.inf  # outside the lower triangle: never read
    b = _random((5, columns), dtype, rng)
    src = _program(a.shape, b.shape, dtype, True, True, "ADJOINT", False)
    result = np.asarray(runtime.load(compile(src, hooks=LEGALIZE)).main(a, b)).astype(np.complex128)
    expected = reference(a.astype(np.complex128), b.astype(np.complex128), True, True, "ADJOINT", False)
    np.testing.assert_allclose(result, expected, rtol=tolerance, atol=tolerance)


def test_iree_rejects_it_unlegalized():
    with pytest.raises(CompileError, match="triangular_solve"):
        compile(_program((3, 3), (3, 1), np.float32, True, True, "NO_TRANSPOSE", False), legalize=False)


def test_other_ops_left_alone():
    src = "func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {\n  return %x : tensor<4x4xf32>\n}\n"
    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-legalize-triangular-solve)")
    assert ir.to_text(module) == ir.to_text(ir.parse(src))


@pytest.mark.parametrize("n", [32, 45, 100])
@pytest.mark.parametrize("left, lower, transpose, unit", [(True, True, "NO_TRANSPOSE", False),
                                                          (True, False, "TRANSPOSE", True),
                                                          (False, True, "ADJOINT", False)],
                         ids=["left-lower", "left-upper-transposed-unit", "right-lower-adjoint"])
def test_larger_systems_go_by_blocks_of_rows(n, left, lower, transpose, unit):
    from oxla.transforms.triangular_solve import block_rows

    rng = np.random.default_rng(n)
    a = _random((2, n, n), np.float64, rng) / n + np.eye(n)  # well conditioned with or without its diagonal
    unused = np.triu(np.ones((n, n)), 1) if lower else np.tril(np.ones((n, n)), -1)
    a = np.where(unused.astype(bool) | (unit & np.eye(n, dtype=bool)), np.nan, a)
    b = _random((2, n, 3) if left else (2, 3, n), np.float64, rng)
    src = _program(a.shape, b.shape, np.float64, left, lower, transpose, unit)
    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-legalize-triangular-solve)")
    loops = [op for op in ir.ops(module) if op.name == "stablehlo.while"]
    size = block_rows(n)
    # one loop inverting the diagonal blocks (a trip per row of a block), one over the blocks
    assert size > 1 and len(loops) == 2 and f"constant dense<{size}>" in ir.to_text(module)
    result = np.asarray(runtime.load(compile(src)).main(a, b))
    np.testing.assert_allclose(result, reference(a, b, left, lower, transpose, unit), rtol=1e-10, atol=1e-10)
