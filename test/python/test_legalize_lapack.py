"""oxla-legalize-lapack-calls: JAX's CPU LAPACK custom calls compute what LAPACK does.

The first tests build the calls as text and check them against numpy (whose linalg is LAPACK); the last
ones compile jnp.linalg and jax.scipy.linalg functions as JAX exports them and compare with XLA.
"""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

from compiled import compiled
from lapack_calls import lapack_call

PASS = "builtin.module(oxla-legalize-lapack-calls)"
KERNELS = "oxla-llvmcpu-lapack-kernels"  # f32 routines as CPU dispatches (test_lapack_kernels.py)
_MLIR = {np.float32: "f32", np.float64: "f64", np.complex64: "complex<f32>", np.complex128: "complex<f64>"}
_LETTER = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}


def _call(routine: str, dtype, operands: list[tuple], results: list[tuple], config: str = "") -> str:
    """A module whose main makes one lapack_<t><routine>_ffi call; operands and results as (shape, element)."""
    return lapack_call(routine, _LETTER[dtype], operands, results, config)


def _run(src: str, *args, **options):
    results = runtime.load(compiled(src, **options)).main(*args)
    return [np.asarray(r) for r in (results if isinstance(results, (list, tuple)) else [results])]


def _random(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _adjoint(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _need_vulkan():
    if not any(d.name == "vulkan" and d.available for d in runtime.devices()):
        pytest.skip("no vulkan device on this machine")


def _tolerance(dtype) -> float:
    return 1e-10 if dtype in (np.float64, np.complex128) else 2e-5


def _hermitian_positive(shape, dtype, seed=0):
    a = _random(shape, dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


@pytest.mark.parametrize("dtype, uplo", [(np.float32, "L"), (np.float64, "U"), (np.complex64, "U"),
                                         (np.complex128, "L")], ids=lambda v: _MLIR.get(v, v))
def test_potrf_factors_its_triangle_and_keeps_the_other(dtype, uplo):
    a = _hermitian_positive((3, 6, 6), dtype)
    other = np.triu(np.ones((6, 6), bool), 1) if uplo == "L" else np.tril(np.ones((6, 6), bool), -1)
    a = np.where(other, np.asarray(7, dtype), a)  # never read, left as it is
    element = _MLIR[dtype]
    src = _call("potrf", dtype, [((3, 6, 6), element)], [((3, 6, 6), element), ((3,), "i32")],
                f"uplo = {ord(uplo)} : ui8")
    factor, info = _run(src, a)
    full = np.where(other, np.conj(np.swapaxes(a, -1, -2)), a)
    lower = np.linalg.cholesky(full)
    expected = np.where(other, a, lower if uplo == "L" else np.conj(np.swapaxes(lower, -1, -2)))
    np.testing.assert_allclose(factor, expected, rtol=_tolerance(dtype), atol=_tolerance(dtype))
    assert info.tolist() == [0, 0, 0]


def test_potrf_reports_the_first_column_that_is_not_positive():
    a = np.stack([np.eye(4), np.diag([1.0, 2.0, -1.0, 3.0]), np.diag([1.0, np.nan, 1.0, 1.0])]).astype(np.float32)
    src = _call("potrf", np.float32, [((3, 4, 4), "f32")], [((3, 4, 4), "f32"), ((3,), "i32")],
                f"uplo = {ord('L')} : ui8")
    _, info = _run(src, a)
    assert info.tolist() == [0, 3, 2]


@pytest.mark.parametrize("dtype, shape, uplo, failing", [(np.float64, (130, 130), "L", None),
                                                        (np.complex64, (2, 128, 128), "U", None),
                                                        (np.float32, (150, 150), "L", 140)],
                         ids=["f64-tail", "c64-batched-upper", "f32-fails-in-last-panel"])
def test_potrf_by_panels_factors_as_lapack(dtype, shape, uplo, failing):
    from oxla.transforms.lapack import BLOCKED_CHOLESKY

    a = _hermitian_positive(shape, dtype, 27)
    if failing is not None:
        a[..., failing, failing] = -abs(a[..., failing, failing])  # info = failing + 1
    element, batch = _MLIR[dtype], list(shape[:-2])
    src = _call("potrf", dtype, [(shape, element)], [(shape, element), (batch, "i32")], f"uplo = {ord(uplo)} : ui8")
    module = ir.parse(src)
    transforms.run(module, PASS)
    assert shape[-1] >= BLOCKED_CHOLESKY and sum(op.name == "stablehlo.while" for op in ir.ops(module)) >= 2
    lower = np.tril(np.ones(shape[-2:], bool))
    artifact = compile(src, disable_passes=[KERNELS])  # the panels, which f32 factors on a CPU do not take
    for device in ("local-sync", "local-task"):
        factor, info = [np.asarray(r) for r in runtime.load(artifact, device).main(a)]
        if failing is not None:
            assert int(info) == failing + 1
            np.testing.assert_allclose(np.tril(factor[:failing, :failing]), np.linalg.cholesky(a[:failing, :failing]),
                                       rtol=1e-4, atol=1e-4)
            continue
        assert not np.any(info)
        want = np.linalg.cholesky(a)
        if uplo == "U":
            want = np.conj(np.swapaxes(want, -1, -2))
        mine = np.where(lower if uplo == "L" else lower.T, factor, want)  # the other triangle is a's
        np.testing.assert_allclose(mine, want, rtol=_tolerance(dtype) * 10, atol=_tolerance(dtype) * 10)


@pytest.mark.parametrize("lower", [True, False])
def test_the_stablehlo_cholesky_op(lower):
    a = _hermitian_positive((2, 5, 5), np.float32)
    a[1] = -a[1]  # not positive definite: all NaN
    src = ("func.func @main(%a: tensor<2x5x5xf32>) -> tensor<2x5x5xf32> {\n"
           f"  %r = stablehlo.cholesky %a, lower = {str(lower).lower()} : tensor<2x5x5xf32>\n"
           "  return %r : tensor<2x5x5xf32>\n}\n")
    (factor,) = _run(src, a)
    lower_factor = np.linalg.cholesky(a[0])
    np.testing.assert_allclose(factor[0], lower_factor if lower else lower_factor.T, rtol=2e-5, atol=2e-5)
    assert np.isnan(factor[1]).all()


def _getf2(a):
    """LAPACK's unblocked LU with partial pivoting, in numpy: (lu, 1-based ipiv, info)."""
    lu, info = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64).copy(), 0
    m, n = lu.shape
    ipiv = []
    for j in range(min(m, n)):
        size = np.abs(lu[j:, j].real) + np.abs(lu[j:, j].imag)
        p = j + int(np.argmax(size))
        ipiv.append(p + 1)
        lu[[j, p]] = lu[[p, j]]
        if lu[j, j] != 0:
            lu[j + 1:, j] /= lu[j, j]
        elif info == 0:
            info = j + 1
        lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
    return lu, np.array(ipiv), info


@pytest.mark.parametrize("dtype, shape", [(np.float32, (5, 5)), (np.float64, (2, 7, 4)), (np.complex64, (3, 6)),
                                          (np.complex128, (2, 5, 5))],
                         ids=["f32-square", "f64-tall", "c64-wide", "c128-batched"])
def test_getrf_pivots_and_factors_as_lapack(dtype, shape):
    a = _random(shape, dtype, seed=1)
    m, n = shape[-2:]
    element = _MLIR[dtype]
    batch = list(shape[:-2])
    src = _call("getrf", dtype, [(shape, element)], [(shape, element), (batch + [min(m, n)], "i32"), (batch, "i32")])
    lu, ipiv, info = _run(src, a)
    for index in np.ndindex(*batch):
        want_lu, want_ipiv, want_info = _getf2(a[index])
        np.testing.assert_allclose(lu[index], want_lu, rtol=_tolerance(dtype) * 10, atol=_tolerance(dtype) * 10)
        assert ipiv[index].tolist() == want_ipiv.tolist() and int(info[index]) == want_info


def test_getrf_on_a_singular_matrix_reports_the_zero_pivot_and_goes_on():
    a = np.array([[1, 2, 3], [2, 4, 6], [1, 1, 1]], np.float32)
    src = _call("getrf", np.float32, [((3, 3), "f32")], [((3, 3), "f32"), ((3,), "i32"), ((), "i32")])
    lu, ipiv, info = _run(src, a)
    want_lu, want_ipiv, want_info = _getf2(a)
    np.testing.assert_allclose(lu, want_lu, rtol=1e-6)
    assert ipiv.tolist() == want_ipiv.tolist() and int(info) == want_info == 3


@pytest.mark.parametrize("dtype, shape, zero_column", [(np.float64, (128, 128), None), (np.float64, (150, 150), 7),
                                                       (np.complex64, (2, 130, 130), None), (np.float32, (160, 160), 140)],
                         ids=["f64-two-panels", "f64-tail-singular", "c64-batched-tail", "f32-singular-in-last-panel"])
def test_square_getrf_by_panels_pivots_and_factors_as_lapack(dtype, shape, zero_column):
    from oxla.transforms.lapack import BLOCKED_LU, LU_PANEL

    a = _random(shape, dtype, seed=3)
    if zero_column is not None:
        a[..., zero_column] = 0  # info = zero_column + 1, and the factorization goes on
    n = shape[-1]
    batch = list(shape[:-2])
    element = _MLIR[dtype]
    src = _call("getrf", dtype, [(shape, element)], [(shape, element), (batch + [n], "i32"), (batch, "i32")])
    module = ir.parse(src)
    transforms.run(module, PASS)
    loops = [op for op in ir.ops(module) if op.name == "stablehlo.while"]
    # the loop over the panels, the loop over a panel's columns in it, and the last panel's loop where n % 32
    assert n >= BLOCKED_LU and len(loops) == (3 if n % LU_PANEL else 2)
    # products only in the panels' loop (a row of U, the trailing update): a last panel has no columns right
    # of it, and its trailing update, always empty, made IREE put a whole matrix on the stack at O3
    assert sum(op.name == "stablehlo.dot_general" for op in ir.ops(module)) == 2
    # several threads (local-task) as well as one: the panels' loops must not race each other
    artifact = compile(src, disable_passes=[KERNELS])  # the panels, which f32 factors on a CPU do not take
    for device in ("local-sync", "local-task"):
        lu, ipiv, info = [np.asarray(r) for r in runtime.load(artifact, device).main(a)]
        for index in np.ndindex(*batch):
            want_lu, want_ipiv, want_info = _getf2(a[index])
            np.testing.assert_allclose(lu[index], want_lu, rtol=_tolerance(dtype) * 100,
                                       atol=_tolerance(dtype) * 100 * np.abs(want_lu).max())
            assert ipiv[index].tolist() == want_ipiv.tolist() and int(info[index]) == want_info


def _geqrf_then_orgqr(shape, dtype) -> str:
    """geqrf of `shape`, then orgqr (ungqr) of its first min(m, n) columns: (reflectors, tau, Q)."""
    m, n = shape[-2:]
    k, element, batch = min(m, n), _MLIR[dtype], "".join(f"{d}x" for d in shape[:-2])
    letter, q = _LETTER[dtype], "ungqr" if np.issubdtype(dtype, np.complexfloating) else "orgqr"
    a, tau = f"tensor<{batch}{m}x{n}x{element}>", f"tensor<{batch}{k}x{element}>"
    qt = f"tensor<{batch}{m}x{k}x{element}>"
    config = "{mhlo.backend_config = {}}"
    limits = list(shape[:-1]) + [k]
    return (f"func.func @main(%a: {a}) -> ({a}, {tau}, {qt}) {{\n"
            f"  %r:2 = stablehlo.custom_call @lapack_{letter}geqrf_ffi(%a) {config} : ({a}) -> ({a}, {tau})\n"
            f"  %s = stablehlo.slice %r#0 [{', '.join(f'0:{d}' for d in limits)}] : ({a}) -> {qt}\n"
            f"  %q = stablehlo.custom_call @lapack_{letter}{q}_ffi(%s, %r#1) {config} : ({qt}, {tau}) -> {qt}\n"
            f"  return %r#0, %r#1, %q : {a}, {tau}, {qt}\n}}\n")


@pytest.mark.parametrize("dtype, shape", [(np.float32, (6, 4)), (np.float64, (4, 6)), (np.complex64, (2, 5, 5)),
                                          (np.complex128, (6, 4))],
                         ids=["f32-tall", "f64-wide", "c64-batched", "c128-tall"])
def test_geqrf_and_orgqr_match_numpy_which_calls_them(dtype, shape):
    a = _random(shape, dtype, seed=2)
    reflectors, tau, q = _run(_geqrf_then_orgqr(shape, dtype), a)
    for index in np.ndindex(*shape[:-2]):
        raw, want_tau = np.linalg.qr(a[index].astype(np.complex128 if np.iscomplexobj(a) else np.float64), mode="raw")
        tolerance = _tolerance(dtype) * 10
        np.testing.assert_allclose(reflectors[index], raw.T, rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(tau[index], want_tau, rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(q[index], np.linalg.qr(a[index])[0], rtol=tolerance, atol=tolerance)


def test_a_complex_qr_that_o3_dispatch_creation_breaks_compiles_at_o3_elsewhere():
    # Dispatch creation's aggressive fusion wires a vecmat of the complex<f64> QR's loop to a rank-0 result
    # of a multi-result dispatch region, which fails IREE's verifier; the set after "o3" turns only that
    # fusion off (it fell back to IREE's O0 defaults before). When IREE stops failing, this gives "o3".
    shape = (6, 4)
    a = _random(shape, np.complex128, seed=2)
    artifact = compile(_geqrf_then_orgqr(shape, np.complex128))
    assert artifact.flag_set == "o3-dispatch-o1" and "--iree-opt-level=O3" in artifact.flags
    _, _, q = (np.asarray(r) for r in runtime.load(artifact).main(a))
    np.testing.assert_allclose(q, np.linalg.qr(a)[0], rtol=1e-10, atol=1e-10)


def test_geqrf_leaves_a_column_with_nothing_below_it_alone():
    a = np.triu(_random((4, 4), np.float32, seed=3))  # already upper triangular: every tau is 0 but the last
    reflectors, tau, q = _run(_geqrf_then_orgqr((4, 4), np.float32), a)
    np.testing.assert_array_equal(reflectors, a)
    np.testing.assert_array_equal(tau, np.zeros(4, np.float32))
    np.testing.assert_array_equal(q, np.eye(4, dtype=np.float32))


@pytest.mark.parametrize("dtype, shape, low, high", [(np.float64, (6, 6), 1, 6), (np.complex128, (6, 6), 1, 6),
                                                     (np.float32, (2, 5, 5), 1, 5), (np.complex128, (6, 6), 2, 4),
                                                     (np.float64, (6, 6), 3, 3), (np.float32, (1, 1), 1, 1)],
                         ids=["f64", "c128", "f32-batched", "c128-ilo-ihi", "f64-nothing-to-do", "f32-1"])
def test_gehrd_matches_lapack(dtype, shape, low, high):
    """The reduction to Hessenberg form, LAPACK's ilo and ihi (low, high) included, against scipy's LAPACK."""
    lapack = pytest.importorskip("scipy.linalg.lapack")
    a = _random(shape, dtype, seed=4)
    n, element, batch = shape[-1], _MLIR[dtype], list(shape[:-2])
    src = _call("gehrd", dtype, [(shape, element)], [(shape, element), (batch + [n - 1], element), (batch, "i32")],
                f"low = {low} : i32, high = {high} : i32")
    h, tau, info = _run(src, a)
    reference = getattr(lapack, f"{_LETTER[dtype]}gehrd")
    tolerance = _tolerance(dtype) * 10
    for index in np.ndindex(*batch):
        want_h, want_tau, _ = reference(a[index], low - 1, high - 1)
        np.testing.assert_allclose(h[index], want_h, rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(tau[index], want_tau[:n - 1], rtol=tolerance, atol=tolerance)
    assert not info.any()


def test_qr_of_a_single_entry_has_no_reflector_to_apply():
    reflectors, tau, q = _run(_geqrf_then_orgqr((1, 1), np.float32), np.array([[-3]], np.float32))
    assert reflectors.tolist() == [[-3]] and tau.tolist() == [0] and q.tolist() == [[1]]


@pytest.mark.parametrize("dtype, uplo, shape", [(np.float32, "L", (4, 4)), (np.float64, "U", (3, 5, 5)),
                                                (np.float32, "U", (1, 1)), (np.float32, "L", (20, 20)),
                                                (np.float64, "L", (20, 20))],
                         ids=["f32-4", "f64-upper-batched-odd", "f32-1", "f32-20", "f64-20"])
def test_syevd_values_ascending_and_orthonormal_vectors(dtype, uplo, shape):
    a = _random(shape, dtype, seed=15)
    symmetric = a + np.swapaxes(a, -1, -2)
    n = shape[-1]
    other = np.triu(np.ones((n, n), bool), 1) if uplo == "L" else np.tril(np.ones((n, n), bool), -1)
    given = np.where(other, np.asarray(np.nan, dtype), symmetric)  # the other triangle is never read
    element, batch = _MLIR[dtype], list(shape[:-2])
    src = _call("syevd", dtype, [(shape, element)], [(shape, element), (batch + [n], element), (batch, "i32")],
                f"mode = 86 : ui8, uplo = {ord(uplo)} : ui8")
    vectors, values, info = _run(src, given, disable_passes=[KERNELS])  # the Jacobi loops, not f32's kernel
    tolerance = 1e-12 if dtype == np.float64 else 2e-6
    scale = np.abs(symmetric).max()
    np.testing.assert_allclose(values, np.linalg.eigvalsh(symmetric), rtol=0, atol=tolerance * scale * n)
    assert (np.diff(values, axis=-1) >= 0).all()
    rebuilt = vectors @ (values[..., None] * np.swapaxes(vectors, -1, -2))
    np.testing.assert_allclose(rebuilt, symmetric, rtol=0, atol=tolerance * scale * n)
    np.testing.assert_allclose(np.swapaxes(vectors, -1, -2) @ vectors, np.broadcast_to(np.eye(n), shape),
                               rtol=0, atol=tolerance * n)
    assert not np.any(info)


def test_syevd_of_repeated_eigenvalues_and_a_diagonal_matrix():
    a = np.stack([np.diag([3.0, -1.0, 2.0, 2.0]), np.full((4, 4), 1.0), np.zeros((4, 4))]).astype(np.float32)
    src = _call("syevd", np.float32, [((3, 4, 4), "f32")], [((3, 4, 4), "f32"), ((3, 4), "f32"), ((3,), "i32")],
                f"mode = 86 : ui8, uplo = {ord('L')} : ui8")
    vectors, values, info = _run(src, a, disable_passes=[KERNELS])
    np.testing.assert_allclose(values, [[-1, 2, 2, 3], [0, 0, 0, 4], [0, 0, 0, 0]], atol=1e-6)
    np.testing.assert_allclose(vectors @ (values[..., None] * np.swapaxes(vectors, -1, -2)), a, atol=1e-6)
    assert not np.any(info)


@pytest.mark.parametrize("dtype, uplo, shape", [(np.complex64, "L", (4, 4)), (np.complex128, "U", (2, 5, 5)),
                                                (np.complex64, "U", (12, 12))],
                         ids=["c64-4", "c128-upper-batched-odd", "c64-12"])
def test_heevd_values_ascending_and_unitary_vectors(dtype, uplo, shape):
    """Complex Hermitian matrices: Jacobi rotations that first take the phase out of each pair's entry."""
    a = _random(shape, dtype, seed=25)
    hermitian = a + _adjoint(a)
    n = shape[-1]
    other = np.triu(np.ones((n, n), bool), 1) if uplo == "L" else np.tril(np.ones((n, n), bool), -1)
    given = np.where(other, np.asarray(np.nan, dtype), hermitian)  # the other triangle is never read
    given = given + 1j * np.eye(n, dtype=dtype)  # nor the diagonal's imaginary parts (heevd takes them as 0)
    element, batch = _MLIR[dtype], list(shape[:-2])
    src = _call("heevd", dtype, [(shape, element)], [(shape, element), (batch + [n], _MLIR[np.finfo(dtype).dtype.type]), (batch, "i32")],
                f"mode = 86 : ui8, uplo = {ord(uplo)} : ui8")
    vectors, values, info = _run(src, given, disable_passes=[KERNELS])  # c64's kernel: test_lapack_kernels.py
    assert values.dtype == np.finfo(dtype).dtype
    tolerance = 1e-12 if dtype == np.complex128 else 2e-6
    scale = np.abs(hermitian).max()
    np.testing.assert_allclose(values, np.linalg.eigvalsh(hermitian), rtol=0, atol=tolerance * scale * n)
    assert (np.diff(values, axis=-1) >= 0).all()
    np.testing.assert_allclose(vectors @ (values[..., None] * _adjoint(vectors)), hermitian, rtol=0,
                               atol=tolerance * scale * n)
    np.testing.assert_allclose(_adjoint(vectors) @ vectors, np.broadcast_to(np.eye(n), shape), rtol=0,
                               atol=tolerance * n)
    assert not np.any(info)


def _gesdd(shape, dtype, mode: str) -> str:
    m, n = shape[-2:]
    k, element, batch = min(m, n), _MLIR[dtype], list(shape[:-2])
    u, vt = ([m, m], [n, n]) if mode in "AN" else ([m, k], [k, n])
    results = [(shape, element), (batch + [k], _MLIR[np.finfo(dtype).dtype.type]), (batch + u, element), (batch + vt, element),
               (batch, "i32")]
    return _call("gesdd", dtype, [(shape, element)], results, f"mode = {ord(mode)} : ui8")


@pytest.mark.parametrize("dtype, shape, mode", [(np.float32, (4, 4), "A"), (np.float64, (2, 7, 4), "A"),
                                                (np.float32, (2, 4, 7), "A"), (np.float64, (5, 3), "S"),
                                                (np.float32, (3, 5), "S"), (np.float32, (6, 6), "N"),
                                                (np.float32, (1, 1), "A"), (np.complex64, (5, 3), "S"),
                                                (np.complex128, (2, 3, 5), "A"), (np.complex64, (4, 4), "N")],
                         ids=["f32-square", "f64-tall", "f32-wide", "f64-tall-thin", "f32-wide-thin", "f32-values",
                              "f32-1", "c64-tall-thin", "c128-wide", "c64-values"])
def test_gesdd_values_descending_and_orthonormal_vectors(dtype, shape, mode):
    a = _random(shape, dtype, seed=17)
    _, values, u, vt, info = _run(_gesdd(shape, dtype, mode), a, disable_passes=[KERNELS])  # the Jacobi loops
    tolerance = 1e-12 if dtype in (np.float64, np.complex128) else 2e-6
    scale = np.abs(a).max() * max(shape[-2:])
    np.testing.assert_allclose(values, np.linalg.svd(a, compute_uv=False), rtol=0, atol=tolerance * scale)
    assert not np.any(info)
    if mode == "N":
        return
    k = min(shape[-2:])
    rebuilt = (u[..., :, :k] * values[..., None, :]) @ vt[..., :k, :]
    np.testing.assert_allclose(rebuilt, a, rtol=0, atol=tolerance * scale)
    for q in (_adjoint(u) @ u, vt @ _adjoint(vt)):
        np.testing.assert_allclose(q, np.broadcast_to(np.eye(q.shape[-1]), q.shape), rtol=0, atol=tolerance * 10)


def test_gesdd_of_a_rank_deficient_matrix_keeps_its_vectors_orthonormal():
    a = _random((5, 5), np.float32, seed=18)
    a[:, 3], a[:, 4] = a[:, 1], 0  # rank 3
    _, values, u, vt, info = _run(_gesdd((5, 5), np.float32, "A"), a)
    np.testing.assert_allclose(values[3:], 0, atol=1e-6)
    np.testing.assert_allclose((u * values) @ vt, a, atol=1e-5)
    np.testing.assert_allclose(u.T @ u, np.eye(5), atol=1e-6)
    np.testing.assert_allclose(vt @ vt.T, np.eye(5), atol=1e-6)


@pytest.mark.parametrize("kernels", [True, False], ids=["kernels", "loops"])
@pytest.mark.parametrize("deficient", [False, True], ids=["full-rank", "rank-two"])
def test_gesdd_completes_vectors_only_where_a_value_is_zero(kernels, deficient):
    """In mode 'S' (and 'A' of a square matrix) the normalized rows are the vectors where every singular
    value is kept: a stablehlo.if runs the QR that completes them only where one is not."""
    a = _random((12, 5), np.float32, seed=19)
    if deficient:
        a = (a[:, :2] @ _random((2, 5), np.float32, seed=20)).astype(np.float32)
    src = _gesdd((12, 5), np.float32, "S")
    options = {} if kernels else {"disable_passes": [KERNELS]}
    legalized = ir.parse(src)
    transforms.run(legalized, "builtin.module(oxla-llvmcpu-lapack-kernels,oxla-legalize-lapack-calls)")
    assert ir.to_text(legalized).count("stablehlo.if") == 1
    _, values, u, vt, info = _run(src, a, **options)
    assert info == 0
    np.testing.assert_allclose((u * values) @ vt, a, atol=2e-5)
    np.testing.assert_allclose(u.T @ u, np.eye(5), atol=2e-6)
    np.testing.assert_allclose(vt @ vt.T, np.eye(5), atol=2e-6)


def _rotated_matrices(src: str) -> int:
    """How many matrices the Jacobi rounds' loop of the rewritten `src` rotates (its carried tensors of rank
    two, the counter being 0-d)."""
    module = ir.parse(src)
    transforms.run(module, PASS)
    loops = [op for op in ir.ops(module) if op.name == "stablehlo.while"]
    innermost = [op for op in loops if not any(inner.name == "stablehlo.while" for inner in list(ir.ops(op))[1:])]
    return max(sum(len(ir.RankedTensorType(v.type).shape) >= 2 for v in op.operands) for op in innermost)


def test_jacobi_rotates_no_vectors_where_none_are_read():
    """jnp.linalg.eigvalsh calls syevd for vectors and drops them; svd(compute_uv=False) asks for none."""
    eigh = _call("syevd", np.float32, [((8, 8), "f32")], [((8, 8), "f32"), ((8,), "f32"), ((), "i32")],
                 f"mode = 86 : ui8, uplo = {ord('L')} : ui8")
    values_only = eigh.replace("return %r#0, %r#1, %r#2 : tensor<8x8xf32>, tensor<8xf32>, tensor<i32>",
                               "return %r#1, %r#1, %r#2 : tensor<8xf32>, tensor<8xf32>, tensor<i32>")
    values_only = values_only.replace("-> (tensor<8x8xf32>, tensor<8xf32>, tensor<i32>) {",
                                      "-> (tensor<8xf32>, tensor<8xf32>, tensor<i32>) {", 1)
    assert _rotated_matrices(eigh) == 2 and _rotated_matrices(values_only) == 1
    assert _rotated_matrices(_gesdd((6, 4), np.float32, "S")) == 2
    assert _rotated_matrices(_gesdd((6, 4), np.float32, "N")) == 1
    symmetric = _hermitian_positive((8, 8), np.float32, 26)
    values, _, info = _run(values_only, symmetric, disable_passes=[KERNELS])
    np.testing.assert_allclose(values, np.linalg.eigvalsh(symmetric), rtol=1e-5)
    assert int(info) == 0


@pytest.mark.parametrize("side, uplo, trans, diag", [("L", "L", "N", "U"), ("L", "U", "N", "N"), ("R", "U", "T", "N"),
                                                     ("L", "L", "C", "N")])
def test_trsm_becomes_the_triangular_solve(side, uplo, trans, diag):
    dtype = np.complex64 if trans == "C" else np.float32
    a = _random((2, 4, 4), dtype, seed=4) + 4 * np.eye(4, dtype=dtype)
    b = _random((2, 4, 3) if side == "L" else (2, 3, 4), dtype, seed=5)
    config = ", ".join(f"{k} = {ord(v)} : ui8" for k, v in
                       (("diag", diag), ("side", side), ("trans_x", trans), ("uplo", uplo)))
    element = _MLIR[dtype]
    src = _call("trsm", dtype, [(a.shape, element), (b.shape, element)], [(b.shape, element)], config)
    module = ir.parse(src)
    transforms.run(module, PASS)
    assert "stablehlo.triangular_solve" in ir.to_text(module) and "custom_call" not in ir.to_text(module)
    (x,) = _run(src, a, b)
    t = np.tril(a) if uplo == "L" else np.triu(a)
    if diag == "U":
        t = np.where(np.eye(4, dtype=bool), 1, t)
    op = {"N": t, "T": np.swapaxes(t, -1, -2), "C": np.conj(np.swapaxes(t, -1, -2))}[trans]
    product = op @ x if side == "L" else x @ op
    np.testing.assert_allclose(product, b, rtol=1e-4, atol=1e-4)


def test_other_custom_calls_and_misfits_are_left_alone():
    src = (_call("geev", np.complex64, [((4, 4), "complex<f32>")],
                 [((4, 4), "complex<f32>"), ((4,), "complex<f32>"), ((), "i32")]).replace("func.func @main", "func.func @eig")
           + _call("getrf", np.float32, [((4, 4), "f32")], [((4, 4), "f32"), ((), "i32")])
           .replace("func.func @main", "func.func @two_results"))
    module = ir.parse(src)
    transforms.run(module, PASS)
    assert ir.to_text(module) == ir.to_text(ir.parse(src))


# ----------------------------------------------------------------------------
# jnp.linalg and jax.scipy.linalg as JAX exports them, against XLA
# ----------------------------------------------------------------------------


def _jax_cases():
    jnp = pytest.importorskip("jax.numpy")
    jsl = pytest.importorskip("jax.scipy.linalg")
    a, b = _random((3, 5, 5), np.float32, 6), _random((3, 5, 2), np.float32, 7)
    spd = _hermitian_positive((2, 5, 5), np.float32, 8)
    complex_a = _random((4, 4), np.complex64, 9)
    return {
        "solve": (jnp.linalg.solve, [a, b]),
        "inv": (jnp.linalg.inv, [a]),
        "det": (jnp.linalg.det, [a]),
        "slogdet": (jnp.linalg.slogdet, [a]),
        "cholesky": (jnp.linalg.cholesky, [spd]),
        "cholesky_not_positive": (jnp.linalg.cholesky, [np.array([[1, 2], [2, 1]], np.float32)]),
        "cholesky_upper": (lambda x: jsl.cholesky(x, lower=False), [spd]),
        "cho_solve": (lambda x, y: jsl.cho_solve(jsl.cho_factor(x), y), [spd, b[:2]]),
        "lu_factor": (jsl.lu_factor, [a]),
        "qr": (jnp.linalg.qr, [_random((6, 4), np.float32, 10)]),
        "qr_complete": (lambda x: jnp.linalg.qr(x, mode="complete"), [_random((6, 4), np.float32, 11)]),
        "qr_wide": (jnp.linalg.qr, [_random((3, 5), np.float32, 12)]),
        "solve_triangular": (lambda x, y: jsl.solve_triangular(x, y, trans=1, lower=False),
                             [a + 5 * np.eye(5, dtype=np.float32), b]),
        "eigvalsh": (jnp.linalg.eigvalsh, [a + np.swapaxes(a, -1, -2)]),
        "svdvals": (lambda x: jnp.linalg.svd(x, compute_uv=False), [a]),
        "pinv": (jnp.linalg.pinv, [_random((6, 4), np.float32, 19)]),
        "lstsq": (lambda x, y: jnp.linalg.lstsq(x, y)[0], [_random((6, 4), np.float32, 20),
                                                            _random((6, 2), np.float32, 22)]),
        "matrix_rank": (jnp.linalg.matrix_rank, [np.concatenate([a, a[..., :1]], -1)]),
        "norm_2": (lambda x: jnp.linalg.norm(x, 2, axis=(-2, -1)), [a]),
        "complex_inv": (jnp.linalg.inv, [complex_a]),
        "complex_qr": (jnp.linalg.qr, [complex_a]),
        "complex_eigvalsh": (jnp.linalg.eigvalsh, [complex_a + np.conj(complex_a.T)]),
        "complex_svdvals": (lambda x: jnp.linalg.svd(x, compute_uv=False), [_random((2, 5, 3), np.complex64, 28)]),
        "complex_pinv": (jnp.linalg.pinv, [_random((3, 5), np.complex64, 29)]),
        "hessenberg": (lambda x: jsl.hessenberg(x, calc_q=True), [a[0]]),
        "complex_hessenberg": (lambda x: jsl.hessenberg(x, calc_q=True), [complex_a]),
    }


CASES = ["solve", "inv", "det", "slogdet", "cholesky", "cholesky_not_positive", "cholesky_upper", "cho_solve",
         "lu_factor", "qr", "qr_complete", "qr_wide", "solve_triangular", "eigvalsh", "svdvals", "pinv", "lstsq",
         "matrix_rank", "norm_2", "complex_inv", "complex_qr", "complex_eigvalsh", "complex_svdvals", "complex_pinv",
         "hessenberg", "complex_hessenberg"]


def _assert_close(got, want, tolerance):
    want, got = np.asarray(want), np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        scale = np.max(np.abs(np.nan_to_num(want))) or 1.0
        np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * scale)


@pytest.mark.parametrize("name", CASES)
def test_jax_linalg_matches_xla(name):
    jax = pytest.importorskip("jax")
    import oxla

    function, args = _jax_cases()[name]
    want = jax.tree_util.tree_leaves(jax.jit(function)(*args))
    got = oxla.compile_model(jax.jit(function), *args)(*args)
    got = list(got) if isinstance(got, (list, tuple)) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _assert_close(g, w, 1e-4)


def test_jax_eigh_matches_xla_up_to_the_vectors_signs():
    jax = pytest.importorskip("jax")
    import oxla

    a = _random((6, 8, 8), np.float32, 16)
    a = a + np.swapaxes(a, -1, -2)
    want_values, want_vectors = jax.jit(jax.numpy.linalg.eigh)(a)
    values, vectors = oxla.compile_model(jax.jit(jax.numpy.linalg.eigh), a)(a)
    _assert_close(values, want_values, 1e-5)
    signs = np.sign(np.sum(np.asarray(vectors) * np.asarray(want_vectors), axis=-2, keepdims=True))
    _assert_close(np.asarray(vectors) * signs, want_vectors, 1e-4)


def test_jax_complex_eigh_and_svd_rebuild_their_matrices():
    """jnp.linalg.eigh and svd of complex matrices (lapack_cheevd and lapack_cgesdd); vectors are unique only up
    to a unit phase, so the rebuilt matrices are compared."""
    jax = pytest.importorskip("jax")
    import oxla

    a = _random((2, 6, 6), np.complex64, 30)
    hermitian = a + _adjoint(a)
    values, vectors = (np.asarray(r) for r in oxla.compile_model(jax.jit(jax.numpy.linalg.eigh), hermitian)(hermitian))
    _assert_close(values, jax.jit(jax.numpy.linalg.eigvalsh)(hermitian), 1e-5)
    np.testing.assert_allclose(vectors @ (values[..., None] * _adjoint(vectors)), hermitian, atol=2e-5)
    wide = _random((3, 5), np.complex64, 31)
    function = jax.jit(lambda x: jax.numpy.linalg.svd(x, full_matrices=False))
    u, s, vt = (np.asarray(r) for r in oxla.compile_model(function, wide)(wide))
    np.testing.assert_allclose((u * s) @ vt, wide, atol=2e-5)
    np.testing.assert_allclose(_adjoint(u) @ u, np.eye(3), atol=2e-6)


def test_jax_svd_rebuilds_its_matrix():
    jax = pytest.importorskip("jax")
    import oxla

    for shape, full in (((2, 6, 4), True), ((3, 5), False)):
        a = _random(shape, np.float32, 21)
        function = jax.jit(lambda x: jax.numpy.linalg.svd(x, full_matrices=full))  # noqa: B023
        u, values, vt = oxla.compile_model(function, a)(a)
        _assert_close(values, jax.jit(lambda x: jax.numpy.linalg.svd(x, compute_uv=False))(a), 1e-5)
        k = min(shape[-2:])
        rebuilt = (np.asarray(u)[..., :, :k] * np.asarray(values)[..., None, :]) @ np.asarray(vt)[..., :k, :]
        np.testing.assert_allclose(rebuilt, a, atol=2e-5)


def test_jax_linalg_in_double_precision():
    jax = pytest.importorskip("jax")
    import oxla

    a = _random((6, 6), np.float64, 13)
    with jax.enable_x64(True):
        for function in (jax.numpy.linalg.inv, jax.numpy.linalg.qr, lambda x: jax.numpy.linalg.cholesky(x @ x.T),
                         lambda x: jax.numpy.linalg.eigvalsh(x + x.T), jax.numpy.linalg.pinv):
            want = jax.tree_util.tree_leaves(jax.jit(function)(a))
            got = oxla.compile_model(jax.jit(function), a)(a)
            for g, w in zip(got if isinstance(got, (list, tuple)) else [got], want):
                _assert_close(g, w, 1e-10)


def test_a_householder_qr_compiles_with_the_codegen_passes():
    """The reflection's product, fused with the update it feeds, once made IREE reject a 16 KiB vector
    (oxla-llvmcpu-gemv-reductions configured it), and the program compiled without oxla's passes."""
    import warnings

    from oxla.pipelines.compiler import CodegenPassesWarning

    a = _random((64, 64), np.float32, 14)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CodegenPassesWarning)
        artifact = compile(_geqrf_then_orgqr((64, 64), np.float32), disable_passes=[KERNELS])  # the loops
        reflectors, tau, q = [np.asarray(r) for r in runtime.load(artifact).main(a)]
    np.testing.assert_allclose(q @ np.triu(reflectors), a, rtol=1e-4, atol=1e-4)


def test_the_reflections_products_are_not_data_tiled():
    """v^H x of each Householder reflection is a vector-matrix product of a matrix the loop computes:
    data tiling packed that matrix on every trip (QR of f32[256,128]: 9.4 ms, 3.8 without)."""
    module = compile(_geqrf_then_orgqr((256, 128), np.float32), compile_to="flow", disable_passes=[KERNELS])
    text = ir.to_text(module)
    assert "flow.tensor.encode" not in text and text.count("compilation_info") == 2  # geqrf's and orgqr's


def test_the_jacobi_routines_run_on_vulkan_where_f64_is_f32():
    """IREE demotes f64 to f32 for Vulkan: the rotations then run in f32, and their stopping tests and sorts
    must hold there too (an f64 epsilon never converged; a total-order sort on f64 did not compile)."""
    _need_vulkan()
    symmetric = _hermitian_positive((2, 5, 5), np.float32, 23)
    src = _call("syevd", np.float32, [((2, 5, 5), "f32")], [((2, 5, 5), "f32"), ((2, 5), "f32"), ((2,), "i32")],
                f"mode = 86 : ui8, uplo = {ord('L')} : ui8")
    vectors, values, info = (np.asarray(r) for r in runtime.load(compile(src, target="vulkan-spirv"),
                                                                 device="vulkan").main(symmetric))
    np.testing.assert_allclose(values, np.linalg.eigvalsh(symmetric), rtol=1e-5)
    np.testing.assert_allclose(vectors @ (values[..., None] * np.swapaxes(vectors, -1, -2)), symmetric, atol=1e-4)
    assert not np.any(info)
    a = _random((5, 3), np.float32, 24)
    _, singular, u, vt, info = (np.asarray(r) for r in runtime.load(compile(_gesdd((5, 3), np.float32, "S"),
                                                                            target="vulkan-spirv"),
                                                                    device="vulkan").main(a))
    np.testing.assert_allclose(singular, np.linalg.svd(a, compute_uv=False), rtol=1e-5)
    np.testing.assert_allclose((u * singular) @ vt, a, atol=1e-5)
    assert not np.any(info)


def test_complex_routines_run_on_vulkan():
    """IREE's SPIR-V code has no complex select (oxla-split-complex-selects chooses the parts apart): complex
    QR and Hermitian eigenvectors compile for Vulkan and run there in f32."""
    _need_vulkan()
    a = _random((2, 5, 5), np.complex64, 33)
    hermitian = a + _adjoint(a)
    src = _call("heevd", np.complex64, [((2, 5, 5), "complex<f32>")],
                [((2, 5, 5), "complex<f32>"), ((2, 5), "f32"), ((2,), "i32")], f"mode = 86 : ui8, uplo = {ord('L')} : ui8")
    vectors, values, info = (np.asarray(r) for r in runtime.load(compile(src, target="vulkan-spirv"),
                                                                 device="vulkan").main(hermitian))
    np.testing.assert_allclose(values, np.linalg.eigvalsh(hermitian), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(vectors @ (values[..., None] * _adjoint(vectors)), hermitian, atol=1e-4)
    assert not np.any(info)
    b = _random((6, 4), np.complex64, 34)
    reflectors, _, q = (np.asarray(r) for r in runtime.load(compile(_geqrf_then_orgqr((6, 4), np.complex64),
                                                                    target="vulkan-spirv"), device="vulkan").main(b))
    np.testing.assert_allclose(q @ np.triu(reflectors)[:4], b, atol=1e-5)


def test_getrf_by_panels_runs_on_vulkan():
    _need_vulkan()
    a = _random((140, 140), np.float32, 25)
    a[:, 7] = 0
    src = _call("getrf", np.float32, [((140, 140), "f32")], [((140, 140), "f32"), ((140,), "i32"), ((), "i32")])
    lu, ipiv, info = (np.asarray(r) for r in runtime.load(compile(src, target="vulkan-spirv"), device="vulkan").main(a))
    want_lu, want_ipiv, want_info = _getf2(a)
    np.testing.assert_allclose(lu, want_lu, rtol=2e-3, atol=2e-3 * np.abs(want_lu).max())
    assert ipiv.tolist() == want_ipiv.tolist() and int(info) == want_info == 8
