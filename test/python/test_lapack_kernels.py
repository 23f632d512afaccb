"""oxla-llvmcpu-lapack-kernels: f32 and c64 Cholesky, LU, QR, triangular solves, symmetric (Hermitian)
eigenproblems and singular values (and vectors) as CPU dispatches oxla writes.

Each kernel runs against numpy (LAPACK) on shapes that exercise its edges: sides that are not a whole
number of vectors or of BLOCK, batches, the other triangle, info, pivots among equals and NaNs, and the
vector widths of AVX-512, AVX2 and SSE (cpu= chips this host can run; the narrower two on the shapes
with tails).
"""

import math
import re

import numpy as np
import pytest

from oxla import ir, runtime
from oxla.pipelines import compile
from oxla.transforms.lapack_kernels import BLOCK

from compiled import compiled
from lapack_calls import lapack_call

KERNELS = "oxla-llvmcpu-lapack-kernels"
# Chips whose vectors are 64, 32 and 16 bytes (16, 8 and 4 f32 lanes); each runs where the host has its features.
CHIPS = ("host", "x86-64-v3", "generic")


def _on_chips(cases: list[tuple], ids: list[str], narrow: list[str]) -> list:
    """pytest params: each case on the host, and the cases named in `narrow` on the other CHIPS too (their
    narrower vectors), the chip last."""
    named = dict(zip(ids, cases))
    return ([pytest.param(*case, "host", id=f"{name}-host") for name, case in named.items()]
            + [pytest.param(*named[name], chip, id=f"{name}-{chip}") for name in narrow for chip in CHIPS[1:]])


def _call(routine: str, operands: list[tuple], results: list[tuple], config: str = "") -> str:
    """A module whose main makes one lapack_s<routine>_ffi call; operands and results as (shape[, element])."""
    return lapack_call(routine, "s", [(o[0], o[1] if len(o) > 1 else "f32") for o in operands],
                       [(r[0], r[1] if len(r) > 1 else "f32") for r in results], config)


def _run(src: str, *args, chip: str = "host", **options):
    results = runtime.load(compiled(src, cpu=chip, **options)).main(*args)
    return [np.asarray(r) for r in (results if isinstance(results, (list, tuple)) else [results])]


def _dispatched(src: str, **options) -> bool:
    """Whether the program's factorization or solve is one of the kernels' dispatches."""
    module = compile(src, compile_to="input", **options)
    return "flow.dispatch @oxla_f32_" in ir.to_text(module)


def _positive(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(np.float32)


def _potrf(shape, uplo: str) -> str:
    return _call("potrf", [(shape,)], [(shape,), (shape[:-2], "i32")], f"uplo = {ord(uplo)} : ui8")


@pytest.mark.parametrize("shape, uplo, chip", _on_chips(
    [((5, 5), "L"), ((2, 37, 37), "U"), ((70, 70), "L"), ((3, 64, 64), "U")],
    ["tiny", "batched-upper-tail", "lower-tail", "batched-upper-whole-vectors"], ["batched-upper-tail", "lower-tail"]))
def test_potrf_factors_its_triangle_and_keeps_the_other(shape, uplo, chip):
    a = _positive(shape, 1)
    other = np.triu(np.ones(shape[-2:], bool), 1) if uplo == "L" else np.tril(np.ones(shape[-2:], bool), -1)
    a = np.where(other, np.float32(7), a)  # never read, left as it is
    src = _potrf(shape, uplo)
    assert _dispatched(src, cpu=chip)
    factor, info = _run(src, a, chip=chip)
    lower = np.linalg.cholesky(np.where(other, np.swapaxes(a, -1, -2), a).astype(np.float64))
    want = np.where(other, a, lower if uplo == "L" else np.swapaxes(lower, -1, -2))
    np.testing.assert_allclose(factor, want, rtol=2e-5, atol=2e-5)
    assert not np.any(info)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_potrf_info_is_the_first_column_that_is_not_positive(uplo):
    a = np.stack([_positive((9, 9), 2)] * 4)
    a[1, 6, 6] = -abs(a[1, 6, 6]) - 100  # column 7 fails, in the second block of BLOCK rows
    a[2, 0, 0] = np.nan
    a[3, 8, 8] = 0  # the last column fails within a block and the padding
    factor, info = _run(_potrf((4, 9, 9), uplo), a)
    assert BLOCK < 7 and info.tolist() == [0, 7, 1, 9]
    lower = np.linalg.cholesky(a[1, :6, :6].astype(np.float64))  # the columns before it are factored
    made = np.tril(factor[1, :6, :6]) if uplo == "L" else np.triu(factor[1, :6, :6]).T
    np.testing.assert_allclose(made, lower, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("lower", [True, False])
def test_the_stablehlo_cholesky_op(lower):
    a = _positive((2, 19, 19), 3)
    a[1] = -a[1]  # not positive definite: all NaN
    src = ("func.func @main(%a: tensor<2x19x19xf32>) -> tensor<2x19x19xf32> {\n"
           f"  %r = stablehlo.cholesky %a, lower = {str(lower).lower()} : tensor<2x19x19xf32>\n"
           "  return %r : tensor<2x19x19xf32>\n}\n")
    assert _dispatched(src)
    (factor,) = _run(src, a)
    want = np.linalg.cholesky(a[0].astype(np.float64))
    np.testing.assert_allclose(factor[0], want if lower else want.T, rtol=2e-5, atol=2e-5)  # zeros in the other
    assert np.isnan(factor[1]).all()


def _complex_positive(shape, seed=0):
    """c c^H + n I for a complex normal c: Hermitian positive definite, as complex64."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return (c @ np.conj(np.swapaxes(c, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(np.complex64)


def _complex_potrf(shape, uplo: str) -> str:
    return lapack_call("potrf", "c", [(shape, "complex<f32>")], [(shape, "complex<f32>"), (shape[:-2], "i32")],
                       f"uplo = {ord(uplo)} : ui8")


@pytest.mark.parametrize("shape, uplo, chip", _on_chips(
    [((5, 5), "L"), ((2, 37, 37), "U"), ((70, 70), "L"), ((3, 64, 64), "U")],
    ["tiny", "batched-upper-tail", "lower-tail", "batched-upper-whole-vectors"], ["batched-upper-tail"]))
def test_complex_potrf_runs_the_complex_kernel(shape, uplo, chip):
    """The factor of the uplo triangle (the diagonal's imaginary parts taken as zero, as LAPACK does), the
    other triangle left as it was."""
    a = _complex_positive(shape, 4)
    other = np.triu(np.ones(shape[-2:], bool), 1) if uplo == "L" else np.tril(np.ones(shape[-2:], bool), -1)
    given = np.where(other, np.complex64(7 - 3j), a + 5j * np.eye(shape[-1], dtype=np.complex64))
    src = _complex_potrf(shape, uplo)
    assert "@oxla_c64_cholesky_" in ir.to_text(compile(src, compile_to="input", cpu=chip))
    factor, info = _run(src, given, chip=chip)
    lower = np.linalg.cholesky(a.astype(np.complex128))
    want = np.where(other, given, lower if uplo == "L" else np.conj(np.swapaxes(lower, -1, -2)))
    np.testing.assert_allclose(factor, want, rtol=2e-5, atol=2e-5 * np.abs(lower).max())
    assert not np.any(info)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_complex_potrf_info_is_the_first_column_that_is_not_positive(uplo):
    a = np.stack([_complex_positive((9, 9), 5)] * 4)
    a[1, 6, 6] = -abs(a[1, 6, 6]) - 100
    a[2, 0, 0] = np.nan
    a[3, 8, 8] = 0
    factor, info = _run(_complex_potrf((4, 9, 9), uplo), a)
    assert info.tolist() == [0, 7, 1, 9]
    lower = np.linalg.cholesky(a[1, :6, :6].astype(np.complex128))  # the columns before it are factored
    made = np.tril(factor[1, :6, :6]) if uplo == "L" else np.conj(np.triu(factor[1, :6, :6]).T)
    np.testing.assert_allclose(made, lower, rtol=2e-5, atol=2e-5 * np.abs(lower).max())


@pytest.mark.parametrize("lower", [True, False])
def test_the_stablehlo_cholesky_op_of_complex_matrices(lower):
    a = _complex_positive((2, 19, 19), 6)
    a[1] = -a[1]  # not positive definite: all NaN
    t = "tensor<2x19x19xcomplex<f32>>"
    src = (f"func.func @main(%a: {t}) -> {t} {{\n"
           f"  %r = stablehlo.cholesky %a, lower = {str(lower).lower()} : {t}\n  return %r : {t}\n}}\n")
    assert "@oxla_c64_cholesky_" in ir.to_text(compile(src, compile_to="input"))
    (factor,) = _run(src, a)
    want = np.linalg.cholesky(a[0].astype(np.complex128))
    np.testing.assert_allclose(factor[0], want if lower else np.conj(want.T), rtol=2e-5, atol=2e-5 * np.abs(want).max())
    assert np.isnan(factor[1]).all()


def _getf2(a):
    """LAPACK's unblocked LU with partial pivoting, in f64 (complex<f64>): (lu, 1-based ipiv, info); a NaN is a
    pivot only where every candidate is one (the first of them); a complex pivot has the largest |re| + |im|
    (icamax)."""
    complex_ = np.iscomplexobj(a)
    lu, info = a.astype(np.complex128 if complex_ else np.float64).copy(), 0
    m, n = lu.shape
    ipiv = []
    for j in range(min(m, n)):
        column = lu[j:, j]
        size = np.where(np.isnan(column), -1, np.abs(column.real) + np.abs(column.imag) if complex_ else np.abs(column))
        p = j + int(np.argmax(size))
        ipiv.append(p + 1)
        lu[[j, p]] = lu[[p, j]]
        if lu[j, j] != 0:
            lu[j + 1:, j] *= 1 / lu[j, j]
        elif info == 0:
            info = j + 1
        lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
    return lu, np.array(ipiv), info


def _getrf(shape, element: str = "f32") -> str:
    m, n = shape[-2:]
    batch = list(shape[:-2])
    return lapack_call("getrf", "c" if element.startswith("complex") else "s", [(shape, element)],
                       [(shape, element), (batch + [min(m, n)], "i32"), (batch, "i32")])


def _assert_lu(a, lu, ipiv, info):
    for index in np.ndindex(*a.shape[:-2]):
        want_lu, want_ipiv, want_info = _getf2(a[index])
        assert ipiv[index].tolist() == want_ipiv.tolist() and int(info[index]) == want_info
        np.testing.assert_allclose(lu[index], want_lu, rtol=1e-4, atol=1e-4 * max(1, np.nanmax(np.abs(want_lu))))


@pytest.mark.parametrize("shape, chip", _on_chips(
    [((5, 5),), ((2, 7, 4),), ((3, 6),), ((2, 37, 37),), ((64, 64),), ((70, 45),)],
    ["tiny", "batched-tall", "wide", "batched-tail", "whole-vectors", "tall-tail"], ["batched-tail", "tall-tail"]))
def test_getrf_pivots_and_factors_as_lapack(shape, chip):
    a = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    src = _getrf(shape)
    assert _dispatched(src, cpu=chip)
    _assert_lu(a, *_run(src, a, chip=chip))


def test_getrf_of_singular_matrices_reports_the_first_zero_pivot_and_goes_on():
    a = np.random.default_rng(5).standard_normal((3, 21, 21)).astype(np.float32)
    a[0, :, 9] = 0  # a zero column: its pivot is 0, left as it is
    a[2, :, -1] = 0
    lu, ipiv, info = _run(_getrf(a.shape), a)
    assert info.tolist() == [10, 0, 21]
    _assert_lu(a, lu, ipiv, info)


def test_getrf_pivots_on_the_first_of_equals_and_on_nan_only_where_all_are():
    a = np.array([[1, 5, 0, 1], [-3, 1, 2, 1], [3, 2, 1, 1], [np.nan, 0, 0, 1]], np.float32)
    lu, ipiv, info = _run(_getrf((4, 4)), a)
    assert ipiv.tolist()[0] == 2  # |-3| and |3|: the first
    nan_column = np.array([[np.nan, 1], [np.nan, 2]], np.float32)
    _, ipiv, _ = _run(_getrf((2, 2)), nan_column)
    assert ipiv.tolist()[0] == 1


@pytest.mark.parametrize("shape, chip", _on_chips(
    [((5, 5),), ((2, 7, 4),), ((3, 6),), ((2, 37, 37),), ((64, 64),), ((70, 45),)],
    ["tiny", "batched-tall", "wide", "batched-tail", "whole-vectors", "tall-tail"], ["batched-tail"]))
def test_complex_getrf_runs_the_complex_kernel(shape, chip):
    rng = np.random.default_rng(6)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    src = _getrf(shape, "complex<f32>")
    assert "@oxla_c64_lu_" in ir.to_text(compile(src, compile_to="input", cpu=chip))
    _assert_lu(a, *_run(src, a, chip=chip))


def test_complex_getrf_of_singular_matrices_pivots_on_re_plus_im_and_nan_only_where_all_are():
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((4, 21, 21)) + 1j * rng.standard_normal((4, 21, 21))).astype(np.complex64)
    a[0, :, 9] = 0  # a zero column: its pivot is 0, left as it is
    a[2, :, -1] = 0
    a[3, :, 0] = 0.1
    a[3, :4, 0] = [1 + 1j, 0.5 - 1.9j, -1.5 + 1.0j, 1.6j]  # |z| is largest in row 1, |re| + |im| (2.5) in row 2
    a[3, 6, 0] = 1.25 - 1.25j  # 2.5 too, after it
    lu, ipiv, info = _run(_getrf(a.shape, "complex<f32>"), a)
    assert info.tolist() == [10, 0, 21, 0] and ipiv[3, 0] == 3
    _assert_lu(a, lu, ipiv, info)
    nan_column = np.array([[np.nan, 1], [complex(1, np.nan), 2]], np.complex64)
    _, ipiv, _ = _run(_getrf((2, 2), "complex<f32>"), nan_column)
    assert ipiv.tolist()[0] == 1


def _qr(shape, element: str = "f32") -> str:
    """geqrf of `shape`, then orgqr (ungqr) of its first min(m, n) columns: (reflectors, tau, Q)."""
    m, n = shape[-2:]
    k, batch = min(m, n), "".join(f"{d}x" for d in shape[:-2])
    a, tau, qt = (f"tensor<{batch}{m}x{n}x{element}>", f"tensor<{batch}{k}x{element}>",
                  f"tensor<{batch}{m}x{k}x{element}>")
    limits = ", ".join(f"0:{d}" for d in list(shape[:-1]) + [k])
    config = "{mhlo.backend_config = {}}"
    geqrf, orgqr = ("cgeqrf", "cungqr") if element.startswith("complex") else ("sgeqrf", "sorgqr")
    return (f"func.func @main(%a: {a}) -> ({a}, {tau}, {qt}) {{\n"
            f"  %r:2 = stablehlo.custom_call @lapack_{geqrf}_ffi(%a) {config} : ({a}) -> ({a}, {tau})\n"
            f"  %s = stablehlo.slice %r#0 [{limits}] : ({a}) -> {qt}\n"
            f"  %q = stablehlo.custom_call @lapack_{orgqr}_ffi(%s, %r#1) {config} : ({qt}, {tau}) -> {qt}\n"
            f"  return %r#0, %r#1, %q : {a}, {tau}, {qt}\n}}\n")


def _assert_qr(a, reflectors, tau, q):
    """geqrf's reflectors and tau, and Q's first min(m, n) columns, as numpy's (LAPACK's, in double) make them."""
    k = min(a.shape[-2:])
    for index in np.ndindex(*a.shape[:-2]):
        x = a[index].astype(np.complex128 if np.iscomplexobj(a) else np.float64)
        raw, want_tau = np.linalg.qr(x, mode="raw")
        np.testing.assert_allclose(reflectors[index], raw.T, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(tau[index], want_tau, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(q[index], np.linalg.qr(x)[0][:, :k], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape, chip", _on_chips(
    [((6, 4),), ((2, 37, 20),), ((20, 37),), ((64, 64),)], ["tall", "batched-tall-tail", "wide", "whole-vectors"],
    ["batched-tall-tail", "wide"]))
def test_householder_qr_and_q_match_numpy_which_calls_lapack(shape, chip):
    a = np.random.default_rng(12).standard_normal(shape).astype(np.float32)
    a[..., 3:, 2] = 0  # nothing below the diagonal in column 2: no reflection there (tau 0)
    src = _qr(shape)
    assert _dispatched(src, cpu=chip)
    reflectors, tau, q = _run(src, a, chip=chip)
    _assert_qr(a, reflectors, tau, q)


@pytest.mark.parametrize("shape, chip", _on_chips(
    [((6, 4),), ((2, 37, 20),), ((20, 37),), ((64, 64),)], ["tall", "batched-tall-tail", "wide", "whole-vectors"],
    ["batched-tall-tail"]))
def test_complex_householder_qr_and_q_match_numpy_which_calls_lapack(shape, chip):
    """zgeqr2's reflectors and tau (a column with nothing below the diagonal gets none where its diagonal is
    real, and one that makes it real where it is not), and zung2r's Q."""
    rng = np.random.default_rng(13)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    a[..., 3:, 2] = 0
    a[..., 2, 2] = 1.5  # real: tau 0
    a[..., 2:, 1] = 0
    a[..., 1, 1] = 0.5 - 2j  # made real by a reflection of tau 1 - alpha / beta
    src = _qr(shape, "complex<f32>")
    text = ir.to_text(compile(src, compile_to="input", cpu=chip))
    assert "@oxla_c64_qr_" in text and "@oxla_c64_householder_q_" in text
    reflectors, tau, q = _run(src, a, chip=chip)
    _assert_qr(a, reflectors, tau, q)


def test_complex_householder_qr_of_entries_near_the_largest_f32():
    """1 / (alpha - beta), which scales a reflector's entries, is below f32's normal range there (it is formed
    and applied in f64)."""
    rng = np.random.default_rng(14)
    a = ((rng.standard_normal((6, 4)) + 1j * rng.standard_normal((6, 4))) * 3e37).astype(np.complex64)
    reflectors, tau, q = _run(_qr(a.shape, "complex<f32>"), a)
    _assert_qr(a, reflectors, tau, q)


def _trsm(a_shape, b_shape, side, uplo, trans, diag, element: str = "f32") -> str:
    config = ", ".join(f"{k} = {ord(v)} : ui8" for k, v in
                       (("diag", diag), ("side", side), ("trans_x", trans), ("uplo", uplo)))
    return lapack_call("trsm", "c" if element.startswith("complex") else "s", [(a_shape, element), (b_shape, element)],
                       [(b_shape, element)], config)


@pytest.mark.parametrize("side, uplo, trans, diag, n, k, chip", _on_chips(
    [("L", "L", "N", "U", 37, 8), ("L", "U", "N", "N", 37, 1), ("R", "U", "T", "N", 20, 3),
     ("L", "L", "T", "N", 64, 20), ("R", "L", "N", "U", 5, 33)],
    ["lower-unit-8", "upper-1", "right-transposed-3", "transposed-whole-vectors", "right-unit-33"],
    ["lower-unit-8", "right-unit-33"]))
def test_triangular_solves(side, uplo, trans, diag, n, k, chip):
    rng = np.random.default_rng(6)
    a = (rng.standard_normal((2, n, n)) + 4 * np.eye(n)).astype(np.float32)
    b = rng.standard_normal((2, n, k) if side == "L" else (2, k, n)).astype(np.float32)
    src = _trsm(a.shape, b.shape, side, uplo, trans, diag)
    assert _dispatched(src, cpu=chip)
    (x,) = _run(src, a, b, chip=chip)
    t = np.tril(a) if uplo == "L" else np.triu(a)
    if diag == "U":
        t = np.where(np.eye(n, dtype=bool), 1, t)
    op = t if trans == "N" else np.swapaxes(t, -1, -2)
    want = np.linalg.solve(op.astype(np.float64), b) if side == "L" else np.swapaxes(
        np.linalg.solve(np.swapaxes(op, -1, -2).astype(np.float64), np.swapaxes(b, -1, -2)), -1, -2)
    np.testing.assert_allclose(x, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


@pytest.mark.parametrize("side, uplo, trans, diag, n, k, chip", _on_chips(
    [("L", "L", "N", "U", 37, 8), ("L", "U", "N", "N", 37, 1), ("R", "U", "T", "N", 20, 3),
     ("L", "L", "C", "N", 64, 20), ("R", "L", "C", "U", 5, 33)],
    ["lower-unit-8", "upper-1", "right-transposed-3", "adjoint-whole-vectors", "right-adjoint-unit-33"],
    ["lower-unit-8"]))
def test_complex_triangular_solves(side, uplo, trans, diag, n, k, chip):
    rng = np.random.default_rng(8)
    a = (rng.standard_normal((2, n, n)) + 1j * rng.standard_normal((2, n, n)) + 4 * np.eye(n)).astype(np.complex64)
    shape = (2, n, k) if side == "L" else (2, k, n)
    b = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    src = _trsm(a.shape, b.shape, side, uplo, trans, diag, "complex<f32>")
    assert re.search(r"@oxla_c64_(lower|upper)(_unit)?_solve_", ir.to_text(compile(src, compile_to="input", cpu=chip)))
    (x,) = _run(src, a, b, chip=chip)
    t = np.tril(a) if uplo == "L" else np.triu(a)
    if diag == "U":
        t = np.where(np.eye(n, dtype=bool), 1, t)
    op = {"N": t, "T": np.swapaxes(t, -1, -2), "C": np.conj(np.swapaxes(t, -1, -2))}[trans].astype(np.complex128)
    want = np.linalg.solve(op, b) if side == "L" else np.swapaxes(
        np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    np.testing.assert_allclose(x, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_the_stablehlo_triangular_solve_op():
    a = (np.random.default_rng(7).standard_normal((10, 10)) + 4 * np.eye(10)).astype(np.float32)
    b = np.random.default_rng(8).standard_normal((10, 3)).astype(np.float32)
    src = ("func.func @main(%a: tensor<10x10xf32>, %b: tensor<10x3xf32>) -> tensor<10x3xf32> {\n"
           "  %x = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower = false, unit_diagonal = false,\n"
           "    transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<10x10xf32>, tensor<10x3xf32>) -> tensor<10x3xf32>\n"
           "  return %x : tensor<10x3xf32>\n}\n")
    assert _dispatched(src)
    (x,) = _run(src, a, b)
    np.testing.assert_allclose(np.triu(a) @ x, b, rtol=1e-4, atol=1e-4)


def _syevd(shape, uplo: str = "L", mode: str = "V") -> str:
    return _call("syevd", [(shape,)], [(shape,), (shape[:-1],), (shape[:-2], "i32")],
                 f"mode = {ord(mode)} : ui8, uplo = {ord(uplo)} : ui8")


def _symmetric(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (a + np.swapaxes(a, -1, -2)).astype(np.float32)


def _assert_eigen(a, values, vectors, info, tolerance=4e-6):
    """values ascending and those of numpy (LAPACK in f64), vectors orthonormal with a v = lambda v, each
    within tolerance times the matrix's 2-norm (LAPACK's own bound is a small multiple of eps ||a||)."""
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    a64 = a.astype(wide)
    norm = max(np.linalg.norm(a64, 2, axis=(-2, -1)).max(), np.finfo(np.float32).tiny)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(a64), rtol=0, atol=tolerance * norm)
    assert (np.diff(values, axis=-1) >= 0).all()
    if vectors is not None:
        v = vectors.astype(wide)
        n = a.shape[-1]
        np.testing.assert_allclose(a64 @ v, v * values[..., None, :], rtol=0, atol=tolerance * norm)
        np.testing.assert_allclose(np.conj(np.swapaxes(v, -1, -2)) @ v, np.broadcast_to(np.eye(n), a.shape),
                                   rtol=0, atol=tolerance)
    assert not np.any(info)


@pytest.mark.parametrize("shape, uplo, chip", _on_chips(
    [((1, 1), "L"), ((2, 2), "U"), ((3, 5, 5), "L"), ((37, 37), "U"), ((64, 64), "L"), ((2, 100, 100), "U")],
    ["one", "two-upper", "batched-tiny", "upper-tail", "whole-vectors", "batched-upper-100"],
    ["batched-tiny", "upper-tail"]))
def test_syevd_values_and_vectors_match_lapack(shape, uplo, chip):
    a = _symmetric(shape, 30)
    n = shape[-1]
    other = np.triu(np.ones((n, n), bool), 1) if uplo == "L" else np.tril(np.ones((n, n), bool), -1)
    src = _syevd(shape, uplo)
    assert _dispatched(src, cpu=chip)
    given = np.where(other, np.float32(np.nan), a)  # the other triangle is never read
    vectors, values, info = _run(src, given, chip=chip)
    _assert_eigen(a, values, vectors, info)


def test_syevd_without_vectors_runs_the_values_kernel():
    """mode N, and jnp.linalg.eigvalsh's mode V with the vectors dropped, only find the eigenvalues."""
    a = _symmetric((4, 20, 20), 31)
    values_only = _syevd(a.shape, mode="N")
    dropped = _syevd(a.shape).replace("return %r#0, %r#1, %r#2", "return %a0, %r#1, %r#2")
    for src in (values_only, dropped):
        text = ir.to_text(compile(src, compile_to="input"))
        assert "@oxla_f32_symmetric_eigen_4x20" in text and "_vectors" not in text
        _, values, info = _run(src, a)
        _assert_eigen(a, values, None, info)


@pytest.mark.parametrize("name", ["diagonal", "zero", "identity", "ones", "split", "tridiagonal", "wilkinson",
                                  "huge", "tiny"])
def test_syevd_of_structured_and_scaled_matrices(name):
    """No reflector to make (tau 0), repeated and clustered eigenvalues, a matrix already split into blocks, and
    entries whose squares overflow or underflow f32 (the reflectors' norms are summed in f64)."""
    n = 12
    wilkinson = np.diag(np.abs(np.arange(n) - (n - 1) / 2)) + np.eye(n, k=1) + np.eye(n, k=-1)
    split = np.zeros((n, n))
    split[:5, :5], split[5:, 5:] = _symmetric((5, 5), 32), _symmetric((7, 7), 33)
    a = {"diagonal": np.diag(np.arange(n, 0, -1.0)), "zero": np.zeros((n, n)), "identity": np.eye(n),
         "ones": np.ones((n, n)), "split": split, "tridiagonal": np.diag(np.arange(n) / 3.0) + np.eye(n, k=1) +
         np.eye(n, k=-1), "wilkinson": wilkinson, "huge": _symmetric((n, n), 34) * np.float32(3e37),
         "tiny": _symmetric((n, n), 35) * np.float32(1e-30)}[name].astype(np.float32)
    vectors, values, info = _run(_syevd(a.shape), a)
    _assert_eigen(a, values, vectors, info)


def test_syevd_counts_what_does_not_converge_and_finishes():
    a = _symmetric((2, 6, 6), 36)
    a[1, 2, 3] = a[1, 3, 2] = np.nan
    vectors, values, info = _run(_syevd(a.shape), a)
    assert info[0] == 0 and info[1] > 0
    _assert_eigen(a[:1], values[:1], vectors[:1], info[:1])


def test_jax_eigh_and_eigvalsh_match_xla():
    jax = pytest.importorskip("jax")
    from oxla.importers.jax import import_jax

    a = _symmetric((70, 70), 37)

    def run(fn):
        module = import_jax(fn, a).module
        assert "symmetric_eigen" in ir.to_text(compile(module, compile_to="input"))
        return runtime.load(compile(module)).main(a)

    values, vectors = (np.asarray(r) for r in run(jax.numpy.linalg.eigh))
    want_values, want_vectors = (np.asarray(r) for r in jax.jit(jax.numpy.linalg.eigh)(a))
    scale = np.abs(want_values).max()
    np.testing.assert_allclose(values, want_values, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(np.asarray(run(jax.numpy.linalg.eigvalsh)), want_values, rtol=0, atol=1e-5 * scale)
    signs = np.sign(np.sum(vectors * want_vectors, axis=0, keepdims=True))  # each vector is unique up to sign
    np.testing.assert_allclose(vectors * signs, want_vectors, rtol=0, atol=1e-4)


def _heevd(shape, mode: str) -> str:
    return lapack_call("heevd", "c", [(shape, "complex<f32>")],
                       [(shape, "complex<f32>"), (shape[:-1], "f32"), (shape[:-2], "i32")],
                       f"mode = {ord(mode)} : ui8, uplo = {ord('L')} : ui8")


def _unitary(n, seed):
    a = np.random.default_rng(seed).standard_normal((n, n, 2)) @ np.array([1, 1j])
    return np.linalg.qr(a)[0]


def _hermitian_case(name):
    """Hermitian test matrices: repeated eigenvalues on and off the diagonal, a complex tridiagonal one (no
    entries below the subdiagonal: each reflector only makes one real), a real one, one with NaN (whose
    eigenvalues do not converge), scaled ones whose squares overflow or underflow f32, and random ones."""
    rng = np.random.default_rng(44)
    shape = {"batched-tail": (3, 21, 21), "one": (1, 1), "two": (2, 2), "batched-70": (2, 70, 70),
             "nan": (2, 6, 6)}.get(name, (12, 12))
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    q = _unitary(12, 45)
    clusters = np.diag([1.0, 1.0, 1.0, -2.0, -2.0, 7.0, 7.0, 7.0, 7.0, 7.0, 9.0, 0.5])
    random = a + np.conj(np.swapaxes(a, -1, -2))
    if name == "nan":
        random[1, 2, 3] = random[1, 3, 2] = np.nan
    if name == "tridiagonal":
        subdiagonal = np.diag(a[0, :11], -1)
        return np.diag(a[1].real) + subdiagonal + np.conj(subdiagonal.T)
    return {"identity": np.eye(12), "repeated": np.diag([2.0, -1.0, 2.0, 5.0] * 3) * (1 + 0j),
            "clusters-rotated": q @ clusters @ np.conj(q.T), "zero": np.zeros((12, 12)),
            "real": a.real + np.swapaxes(a.real, -1, -2), "huge": random * 1e37,
            "tiny": random * 1e-30}.get(name, random)


_HERMITIAN_12 = ["random", "identity", "repeated", "clusters-rotated", "zero", "real", "tridiagonal", "huge", "tiny"]


# The 12 x 12 cases in both modes (one program each); the other shapes with vectors only (the values-only
# kernel's reduction is the same, and each shape is a compile).
@pytest.mark.parametrize("name, mode", [(name, mode) for name in _HERMITIAN_12 + ["batched-tail"] for mode in "NV"]
                         + [(name, "V") for name in ("one", "two", "batched-70")])
def test_heevd_runs_the_hermitian_kernel(name, mode):
    """A Hermitian matrix's eigenvalues and vectors through the complex reduction to real tridiagonal form and
    QL; repeated eigenvalues still come with orthonormal vectors."""
    hermitian = _hermitian_case(name).astype(np.complex64)
    src = _heevd(hermitian.shape, mode)
    kernel = "_vectors_" if mode == "V" else "_"
    assert f"@oxla_c64_hermitian_eigen{kernel}" in ir.to_text(compile(src, compile_to="input"))
    vectors, values, info = _run(src, hermitian)
    _assert_eigen(hermitian, values, vectors if mode == "V" else None, info)


@pytest.mark.parametrize("chip", CHIPS[1:])
def test_complex_eigen_and_svd_kernels_on_narrower_vectors(chip):
    """The Hermitian, complex bidiagonal and complex Jacobi kernels where a row's halves are padded to vectors
    of 8 and 4 f32 lanes (rows of 21 and 13 columns: neither a whole number of them)."""
    hermitian = _hermitian_case("batched-tail").astype(np.complex64)
    vectors, values, info = _run(_heevd(hermitian.shape, "V"), hermitian, chip=chip)
    _assert_eigen(hermitian, values, vectors, info)
    a, mode = _complex_svd_case("batched-tail")
    _, values, u, vt, info = _run(_gesdd(a.shape, mode, "complex<f32>"), a, chip=chip)
    _assert_svd(a.astype(np.complex128), values, u, vt, info)
    _, values, _, _, info = _run(_gesdd(a.shape, "N", "complex<f32>"), a, chip=chip)
    _assert_singular_values(a.astype(np.complex128), values, info)


def test_heevd_counts_what_does_not_converge_and_finishes():
    hermitian = _hermitian_case("nan").astype(np.complex64)
    vectors, values, info = _run(_heevd(hermitian.shape, "V"), hermitian)
    assert info[0] == 0 and info[1] > 0
    _assert_eigen(hermitian[:1], values[:1], vectors[:1], info[:1])


def _gesdd(shape, mode: str = "N", element: str = "f32") -> str:
    """A gesdd call of `element` matrices (f32 or complex<f32>); its singular values are f32 either way."""
    m, n = shape[-2:]
    k, batch = min(m, n), tuple(shape[:-2])
    u, vt = ((m, m), (n, n)) if mode in "AN" else ((m, k), (k, n))
    letter = "c" if element.startswith("complex") else "s"
    return lapack_call("gesdd", letter, [(shape, element)], [(shape, element), (batch + (k,), "f32"),
                                                             (batch + u, element), (batch + vt, element),
                                                             (batch, "i32")], f"mode = {ord(mode)} : ui8")


def _assert_singular_values(a, values, info, tolerance=4e-6):
    """values descending and numpy's (LAPACK's in f64) within tolerance times the largest."""
    want = np.linalg.svd(a if np.iscomplexobj(a) else a.astype(np.float64), compute_uv=False)
    np.testing.assert_allclose(values, want, rtol=0, atol=tolerance * max(want.max(), np.finfo(np.float32).tiny))
    assert (np.diff(values, axis=-1) <= 0).all()
    assert not np.any(info)


@pytest.mark.parametrize("shape, chip", _on_chips(
    [((1, 1),), ((5, 3),), ((3, 5),), ((2, 37, 20),), ((20, 37),), ((64, 64),), ((2, 100, 100),)],
    ["one", "tall", "wide", "batched-tall-tail", "wide-tail", "whole-vectors", "batched-100"],
    ["batched-tall-tail", "wide-tail"]))
def test_gesdd_singular_values_match_lapack(shape, chip):
    a = np.random.default_rng(40).standard_normal(shape).astype(np.float32)
    src = _gesdd(shape)
    assert _dispatched(src, cpu=chip)
    operand, values, u, vt, info = _run(src, a, chip=chip)
    np.testing.assert_array_equal(operand, a)
    assert not u.any() and not vt.any()
    _assert_singular_values(a, values, info)


@pytest.mark.parametrize("name", ["rank-two", "zero", "zero-column", "orthogonal", "huge", "tiny"])
def test_gesdd_of_rank_deficient_and_scaled_matrices(name):
    """Zero singular values (B^T B's eigenvalues a rounding below zero), no reflector to make, all values
    equal, and entries whose squares overflow or underflow f32."""
    rng = np.random.default_rng(41)
    a = {"rank-two": rng.standard_normal((30, 2)) @ rng.standard_normal((2, 20)), "zero": np.zeros((30, 20)),
         "zero-column": np.where(np.arange(20) == 3, 0.0, rng.standard_normal((30, 20))),
         "orthogonal": np.linalg.qr(rng.standard_normal((30, 20)))[0],
         "huge": rng.standard_normal((30, 20)) * 1e37, "tiny": rng.standard_normal((30, 20)) * 1e-30}[name]
    a = a.astype(np.float32)
    _, values, _, _, info = _run(_gesdd(a.shape), a)
    _assert_singular_values(a, values, info)


def test_gesdd_values_count_nans_in_info():
    a = np.random.default_rng(42).standard_normal((2, 6, 4)).astype(np.float32)
    a[1, 2, 3] = np.nan
    _, values, _, _, info = _run(_gesdd(a.shape), a)
    assert info[0] == 0 and info[1] > 0
    _assert_singular_values(a[0], values[0], info[0])


@pytest.mark.parametrize("name", ["tall", "wide", "batched-tail", "rank-two", "unitary", "real", "one", "zero",
                                  "bidiagonal", "huge", "tiny"])
def test_complex_gesdd_values_run_the_complex_kernel(name):
    """A complex matrix's singular values through the complex reduction to real bidiagonal form: equal ones
    (all of a unitary matrix's), zero ones, a complex bidiagonal matrix (each reflector only makes an entry
    real), and entries whose squares overflow or underflow f32."""
    rng = np.random.default_rng(47)
    shape = {"wide": (9, 23), "batched-tail": (2, 21, 13), "one": (1, 1)}.get(name, (20, 12))
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    a = {"rank-two": lambda: a[:, :2] @ a[:2, :], "unitary": lambda: np.linalg.qr(a[:12])[0],
         "real": lambda: a.real, "zero": lambda: 0 * a, "bidiagonal": lambda: np.triu(np.tril(a, 1)),
         "huge": lambda: a * 1e37, "tiny": lambda: a * 1e-30}.get(name, lambda: a)()
    a = a.astype(np.complex64)
    src = _gesdd(a.shape, "N", "complex<f32>")
    assert "@oxla_c64_singular_values_" in ir.to_text(compile(src, compile_to="input"))
    operand, values, u, vt, info = _run(src, a)
    np.testing.assert_array_equal(operand, a)
    assert not u.any() and not vt.any()
    _assert_singular_values(a.astype(np.complex128), values, info)


def _assert_svd(a, values, u, vt, info, tolerance=4e-6):
    """_assert_singular_values, and u and vt orthonormal (unitary), rebuilding a to tolerance times its largest
    value."""
    _assert_singular_values(a, values, info, tolerance)
    k = values.shape[-1]
    rebuilt = (u[..., :, :k] * values[..., None, :]) @ vt[..., :k, :]
    np.testing.assert_allclose(rebuilt, a, rtol=0, atol=tolerance * max(np.abs(values).max(), 1e-30))
    for q in (np.conj(np.swapaxes(u, -1, -2)) @ u, vt @ np.conj(np.swapaxes(vt, -1, -2))):
        np.testing.assert_allclose(q, np.broadcast_to(np.eye(q.shape[-1]), q.shape), rtol=0, atol=tolerance)


def _complex_svd_case(name):
    """(complex matrix, mode): random ones, and singular values that repeat (2k equal ones in the embedding,
    whose vectors need not pair up) or are zero (a null space on each side to choose a basis of apart)."""
    rng = np.random.default_rng(48)
    shape = {"wide-full": (9, 23), "batched-tail": (2, 21, 13), "one": (1, 1), "zero": (6, 6)}.get(name, (20, 12))
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    q, p = _unitary(20, 49)[:, :12], _unitary(12, 50)
    clusters = [3.0, 3.0, 3.0, 2.0, 1.0, 1.0, 0.5, 0.25, 0.0, 0.0, 0.0, 0.0]
    a = {"rank-two": lambda: a[:, :2] @ a[:2, :], "unitary": lambda: _unitary(12, 51), "zero": lambda: 0 * a,
         "clusters": lambda: (q * clusters) @ np.conj(p.T)}.get(name, lambda: a)()
    mode = "A" if name in ("wide-full", "rank-two", "zero", "one") else "S"
    return a.astype(np.complex64), mode


@pytest.mark.parametrize("name", ["tall", "wide-full", "batched-tail", "rank-two", "unitary", "clusters", "zero",
                                  "one"])
def test_complex_gesdd_vectors_by_complex_one_sided_jacobi(name):
    """A complex matrix's singular vectors by one-sided Jacobi on complex rows, preconditioned by U, the
    Hermitian kernel's eigenvectors of their Gram matrix (made unitary in f64): repeated and zero values too.
    The values stay within 1e-7 of the largest (2e-7 where U is only as unitary as the kernel makes it)."""
    a, mode = _complex_svd_case(name)
    src = _gesdd(a.shape, mode, "complex<f32>")
    text = ir.to_text(compile(src, compile_to="input"))
    assert "@oxla_c128_one_sided_jacobi_" in text and "@oxla_c64_hermitian_eigen_vectors_" in text
    operand, values, u, vt, info = _run(src, a)
    np.testing.assert_array_equal(operand, a)
    _assert_svd(a.astype(np.complex128), values, u, vt, info)
    _assert_singular_values(a.astype(np.complex128), values, info, tolerance=1e-7)


@pytest.mark.parametrize("shape, mode, chip", _on_chips(
    [((1, 1), "A"), ((5, 3), "S"), ((3, 5), "A"), ((2, 37, 20), "S"), ((20, 37), "S"), ((64, 64), "A"),
     ((50, 12), "S"), ((2, 7, 30), "A"), ((2, 24, 12), "S")],
    ["one", "tall-thin", "wide-full", "batched-tall-tail", "wide-tail", "square-full", "long-through-qr",
     "batched-wide-full-through-qr", "batched-long-through-qr"],
    ["batched-tall-tail", "batched-wide-full-through-qr"]))
def test_gesdd_vectors_by_one_sided_jacobi_in_one_dispatch(shape, mode, chip):
    """Rows at least twice as long as there are rows (the last three) are swept as R^H of their QR; the last
    one's product with Q met IREE's miscompile of narrowed f64 (oxla-isolate-narrowed-matmul-operands). The
    sweeps run on rows turned by the f32 eigen kernel's vectors, made orthogonal in f64: the values stay
    within 1.5e-7 of the largest (3e-7 where those vectors are only as orthogonal as the kernel makes them)."""
    a = np.random.default_rng(45).standard_normal(shape).astype(np.float32)
    src = _gesdd(shape, mode)
    text = ir.to_text(compile(src, compile_to="input", cpu=chip))
    k, long = min(shape[-2:]), max(shape[-2:])
    rows, batch = k + k % 2, math.prod(shape[:-2])  # gesdd's sweeps take an even number of rows
    assert f"@oxla_f64_one_sided_jacobi_{batch}x{rows}x{rows if long >= 2 * rows else long}" in text
    _, values, u, vt, info = _run(src, a, chip=chip)
    _assert_svd(a, values, u, vt, info)
    _assert_singular_values(a, values, info, tolerance=1.5e-7)


@pytest.mark.parametrize("name", ["rank-two", "rank-three-long", "zero", "orthogonal", "nan"])
def test_gesdd_vectors_of_rank_deficient_matrices_and_nan(name):
    """Zero singular values leave rows of no direction, whose vectors gesdd completes; NaN shows in info."""
    rng = np.random.default_rng(46)
    a = {"rank-two": rng.standard_normal((30, 2)) @ rng.standard_normal((2, 20)), "zero": np.zeros((30, 20)),
         "rank-three-long": rng.standard_normal((60, 3)) @ rng.standard_normal((3, 10)),
         "orthogonal": np.linalg.qr(rng.standard_normal((30, 20)))[0],
         "nan": np.where(np.eye(30, 20, 3) > 0, np.nan, rng.standard_normal((30, 20)))}[name].astype(np.float32)
    _, values, u, vt, info = _run(_gesdd(a.shape, "A"), a)
    if name == "nan":
        assert info > 0
        return
    _assert_svd(a, values, u, vt, info)


def test_jax_singular_values_pinv_and_lstsq_match_xla():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    from oxla.importers.jax import import_jax

    rng = np.random.default_rng(43)
    a = rng.standard_normal((40, 25)).astype(np.float32)
    deficient = (rng.standard_normal((40, 3)) @ rng.standard_normal((3, 25))).astype(np.float32)
    for fn, x, kernel in ((lambda m: jnp.linalg.svd(m, compute_uv=False), a, "singular_values"),
                          (lambda m: jnp.linalg.norm(m, 2), a.T, "singular_values"),
                          (jnp.linalg.matrix_rank, deficient, "singular_values"),
                          (jnp.linalg.pinv, a, "one_sided_jacobi"), (jnp.linalg.pinv, deficient.T, "one_sided_jacobi"),
                          (lambda m: jnp.linalg.lstsq(m, a[:, :3])[0], deficient, "one_sided_jacobi")):
        module = import_jax(fn, x).module
        assert f"_{kernel}_" in ir.to_text(compile(module, compile_to="input"))
        got, want = np.asarray(runtime.load(compile(module)).main(x)), np.asarray(jax.jit(fn)(x))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_other_types_targets_and_the_switches_keep_the_loops():
    f64 = _call("potrf", [((8, 8), "f64")], [((8, 8), "f64"), ((), "i32")], f"uplo = {ord('L')} : ui8")
    assert not _dispatched(f64)
    src = _potrf((8, 8), "L")
    assert _dispatched(src)
    assert not _dispatched(src, optimize=False)
    assert not _dispatched(src, disable_passes=[KERNELS])
    assert not _dispatched(src, target="vulkan-spirv")
    a = _positive((8, 8), 9)
    factor, _ = _run(src, a, disable_passes=[KERNELS])  # the loop's factor, as the kernel's
    np.testing.assert_allclose(np.tril(factor), np.linalg.cholesky(a.astype(np.float64)), rtol=2e-5, atol=2e-5)


def test_jax_solve_and_cholesky_match_xla():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    from oxla.importers.jax import import_jax

    rng = np.random.default_rng(10)
    a = rng.standard_normal((50, 50)).astype(np.float32)
    b = rng.standard_normal((50, 3)).astype(np.float32)
    spd = _positive((50, 50), 11)
    for fn, args in ((jnp.linalg.solve, (a, b)), (jnp.linalg.cholesky, (spd,)), (jnp.linalg.inv, (a,)),
                     (jnp.linalg.det, (a,)), (lambda m: jnp.linalg.qr(m)[0], (b,)), (lambda m: jnp.linalg.qr(m)[1], (a,))):
        imported = import_jax(fn, *args)
        got = runtime.load(compile(imported.module)).main(*args)
        want = np.asarray(jax.jit(fn)(*args))
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-3, atol=1e-3 * np.abs(want).max())
