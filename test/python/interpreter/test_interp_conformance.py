"""Every StableHLO conformance program and interpreter case, evaluated by oxla.interpreter (a few seconds)."""

import os
import shutil

import pytest

from oxla.testing.conformance import interpret_program, run_line_arguments
from oxla.tools import conformance as cli

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "conformance")
TESTDATA, CASES = os.path.join(SHARED, "testdata"), os.path.join(SHARED, "interpret")
needs_shared = pytest.mark.skipif(not os.path.isdir(TESTDATA), reason="../shared/conformance is not present")

# Programs whose expected values follow XLA's own rounding (see docs/conformance.md, "Interpreter").
KNOWN_FAILURES = {
    "cumprod_complex64_8_9.mlir", "fft_complex64_14_15_16_17.mlir", "pow_complex64_20_30_complex64_20_30.mlir",
    "sin_complex64_20_20.mlir", "triangular_solve_float32_2_8_8_float32_2_10_8.mlir",
}


def _results(folder: str) -> list:
    names = sorted(n for n in os.listdir(folder) if n.endswith(".mlir"))
    return [r for name in names for r in interpret_program(os.path.join(folder, name))]


@needs_shared
def test_all_testdata_programs():
    results = _results(TESTDATA)
    failed = {r.name: f"{r.status}: {r.reason}" for r in results if r.status != "pass"}
    assert len(results) == len(os.listdir(TESTDATA)) - 2  # every .mlir file but the two folders
    assert set(failed) <= KNOWN_FAILURES, {k: v for k, v in failed.items() if k not in KNOWN_FAILURES}
    assert len(failed) <= 0.01 * len(results)


@needs_shared
def test_all_interpreter_cases():
    results = _results(CASES) + _results(os.path.join(CASES, "chlo"))
    failed = {r.name: f"{r.status}: {r.reason}" for r in results if r.status != "pass"}
    assert len(results) > 500 and not failed, failed


@needs_shared
def test_quantized_programs():
    results = _results(os.path.join(TESTDATA, "quantized"))
    assert results and all(r.status == "pass" for r in results), [r for r in results if r.status != "pass"]


@needs_shared
def test_a_wrong_expectation_fails(tmp_path):
    text = open(os.path.join(TESTDATA, "sign_.mlir")).read()
    broken = text.replace("%c = stablehlo.constant dense<0>", "%c = stablehlo.constant dense<7>", 1)
    assert broken != text
    path = tmp_path / "sign_broken.mlir"
    path.write_text(broken)
    [result] = interpret_program(str(path))
    assert result.status == "fail" and "expect_eq" in result.reason


def test_split_cases_are_judged_one_by_one(tmp_path):
    path = tmp_path / "cases.mlir"
    path.write_text("""func.func @good() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 2]> : tensor<2xi32>
  func.return
}

// -----

func.func @bad() {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  check.expect_almost_eq_const %0, dense<1.5> : tensor<f32>
  func.return
}

// -----

func.func @unknown() {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  %1 = stablehlo.custom_call @mystery(%0) : (tensor<f32>) -> tensor<f32>
  func.return
}
""")
    good, bad, unknown = interpret_program(str(path))
    assert (good.name, good.status) == ("cases.mlir#0", "pass")
    assert bad.status == "fail" and "cases.mlir:11:3" in bad.reason
    assert unknown.status == "unsupported" and "mystery" in unknown.reason


def test_run_line_arguments():
    text = '// RUN: stablehlo-translate %s --interpret --args="[dense<1> : tensor<2xi32>, dense<[2.5]> : tensor<1xf32>]"\n'
    one, two = run_line_arguments(text)
    assert one.tolist() == [1, 1] and two.tolist() == [2.5]
    assert run_line_arguments("// RUN: stablehlo-translate --interpret %s\n") is None


@needs_shared
def test_cli_backend_interpreter(tmp_path, capsys):
    for name in ("abs_float32_20_20.mlir", "sign_.mlir"):
        shutil.copy(os.path.join(TESTDATA, name), tmp_path / name)
    out = tmp_path / "results.json"
    assert cli.run([str(tmp_path), "--backend=interpreter", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "PASS          abs_float32_20_20.mlir" in printed and "2/2 passed (100.0%)" in printed
    assert '"backend": "interpreter"' in out.read_text()
