"""oxla.check.differential: the interpreter against compiled code, with per-dtype tolerances."""

import numpy as np
import pytest

from oxla import check

PROGRAM = """func.func @main(%x: tensor<4xf32>, %n: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  %1 = stablehlo.multiply %n, %n : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}"""
INPUTS = [np.array([0, 1, -2, 3.5], np.float32), np.array([3, -4, 2**16, 7], np.int32)]


def test_interpreter_and_llvm_cpu_agree():
    report = check.differential(PROGRAM, INPUTS, targets=["llvm-cpu"])
    assert report.ok, str(report)
    assert [c.index for c in report.for_target("llvm-cpu")] == [0, 1]
    assert report.reference[1].tolist() == [9, 16, 0, 49]  # i32 wraps: 2**32 -> 0
    assert "llvm-cpu result 1: ok" in str(report)
    assert report.raise_for_mismatch() is report


def test_compare_is_exact_for_integers_and_tolerant_for_floats():
    ok = check.compare("t", 0, np.array([1, 2]), np.array([1, 2]))
    assert ok.ok and ok.max_error == 0
    off = check.compare("t", 0, np.array([1, 3]), np.array([1, 2]))
    assert not off.ok and "1 of 2 elements differ; first at (1,)" in off.message
    one_ulp = np.nextafter(np.float32(1), np.float32(2))
    assert check.compare("t", 0, np.array([one_ulp]), np.array([1], np.float32)).ok
    assert not check.compare("t", 0, np.array([1.01], np.float32), np.array([1], np.float32)).ok
    assert check.compare("t", 0, np.array([1.01], np.float32), np.array([1], np.float32), rtol=0.1).ok
    assert check.compare("t", 0, np.array([np.nan]), np.array([np.nan])).ok
    assert not check.compare("t", 0, np.array([np.inf]), np.array([1e308])).ok
    assert not check.compare("t", 0, np.array([1.0]), np.array([1.0], np.float32)).ok  # dtypes differ
    assert not check.compare("t", 0, np.zeros(2), np.zeros(3)).ok
    complex_off = check.compare("t", 0, np.array([1 + 1e-3j], np.complex64), np.array([1 + 0j], np.complex64))
    assert not complex_off.ok and complex_off.max_error == pytest.approx(1e-3, rel=1e-3)


def test_a_target_that_fails_to_compile_is_a_mismatch_with_the_reason():
    # rocm:gfx000 names a chip LLVM does not know: the compile fails, the check reports it
    report = check.differential(PROGRAM, INPUTS, targets=["rocm:gfx000"])
    assert not report.ok
    [failure] = report.comparisons
    assert failure.index == -1 and failure.message
    with pytest.raises(check.MismatchError, match="rocm:gfx000"):
        report.raise_for_mismatch()


def test_an_unknown_target_name_is_a_value_error():
    with pytest.raises(ValueError, match="unknown target 'no-such-target'"):
        check.differential(PROGRAM, INPUTS, targets=["no-such-target"])


def test_a_wrong_compiled_result_is_reported(monkeypatch):
    import oxla.interpreter

    real = oxla.interpreter.evaluate
    monkeypatch.setattr(oxla.interpreter, "evaluate",
                        lambda *a, **k: [r + (1 if r.dtype.kind == "i" else 0.5) for r in real(*a, **k)])
    report = check.differential(PROGRAM, INPUTS)
    assert not report.ok and all(not c.ok for c in report.comparisons)
    assert "MISMATCH" in str(report)
