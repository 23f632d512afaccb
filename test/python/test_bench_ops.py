"""tools/bench/ops.py: an op measured on oxla and XLA, checked against XLA, and its row."""

import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from tools.bench import ops  # noqa: E402


def test_exact_ops_must_match_to_the_bit():
    a = [np.array([1.0, np.nan], np.float32)]
    assert ops._check(a, [a[0].copy()], 0.0) == "exact"
    assert ops._check(a, [np.array([1.0, 2.0], np.float32)], 0.0) == "DIFFERS"
    assert ops._check(a[:1], [np.array([1.0, np.nan], np.float32)], 1e-5) == "WRONG (err inf)"
    assert ops._check([np.array([1.0, 2.0])], [np.array([1.0, 2.00001])], 1e-4).startswith("err ")


def test_complex_outputs_are_checked_whole():
    """An imaginary part that differs is an error (it was once dropped before comparing)."""
    want = [np.array([1 + 1j, 2 - 1j], np.complex64)]
    assert ops._check([want[0].copy()], want, 1e-5) == "err 0.0e+00"
    assert ops._check([want[0].conj()], want, 1e-5).startswith("WRONG")


def test_a_small_sort_is_timed_and_checked(monkeypatch):
    pytest.importorskip("jax")
    monkeypatch.setitem(ops.OPS, "tiny_sort", ("jnp.sort of f32[8,256]", lambda: ops._sort(-1),
                                               lambda: [ops._normal(0, 8, 256)], 0.0))
    result = ops.measure_op("tiny_sort", repeat=1)
    assert result["check"] == "exact"
    assert result["oxla_s"] > 0 and result["xla_s"] > 0 and result["compile_s"]["oxla"] > 0
    line = ops.row("tiny_sort", result)
    assert line.startswith("tiny_sort") and line.endswith("exact")


def test_unknown_ops_are_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exited:
        ops.main(["--ops", "no_such_op"])
    assert exited.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_an_op_that_fails_is_reported_and_the_rest_still_run(monkeypatch, capsys):
    pytest.importorskip("jax")

    def unsupported(x):  # a LAPACK call oxla does not rewrite, which its JAX importer rejects
        import jax.numpy as jnp

        return jnp.linalg.eigvals(x)

    monkeypatch.setitem(ops.OPS, "eigvals", ("a LAPACK call", lambda: unsupported,
                                             lambda: [np.eye(4, dtype=np.float32)], 1e-5))
    monkeypatch.setitem(ops.OPS, "tiny_sort", ("jnp.sort of f32[8,256]", lambda: ops._sort(-1),
                                               lambda: [ops._normal(0, 8, 256)], 0.0))
    assert ops.main(["--ops", "eigvals", "tiny_sort", "--repeat", "1"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("eigvals") and "FAILED: UnsupportedOperatorsError" in lines[1]
    assert lines[2].startswith("tiny_sort") and lines[2].endswith("exact")


def test_resident_calls_copy_the_arguments_a_program_writes():
    """IREE may write a scatter's operand in place; oxla.runtime copies it, and so do the timed calls."""
    jax = pytest.importorskip("jax")
    import oxla
    import oxla.runtime as ort
    from tools.bench import systems

    table, at, rows = np.zeros((4, 8), np.float32), np.array([0, 2, 0], np.int32), np.ones((3, 8), np.float32)
    text = jax.jit(lambda t, i, u: t.at[i].add(u)).lower(table, at, rows).as_text()
    vmfb = oxla.compile(text, target="llvm-cpu").vmfb
    assert systems._written_arguments(vmfb) == {0}
    device = ort.load(vmfb).device.hal
    run = systems._iree_resident(vmfb, device, [table, at, rows], copied=systems._written_arguments(vmfb))
    want = np.zeros((4, 8), np.float32)
    np.add.at(want, at, rows)
    for _ in range(3):  # the same sums each time: every call starts from the caller's zeros
        np.testing.assert_array_equal(np.asarray(run()), want)
