"""The conformance runner: programs rewritten, compiled, run, and judged by their own checks."""

import os
import shutil

import pytest

from oxla import ir
from oxla.testing.conformance import UnsupportedProgram, prepare, run_program, split_name
from oxla.tools import conformance as cli

TESTDATA = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "conformance", "testdata")
SAMPLE = [
    "abs_float32_20_20.mlir",                      # expect_close, one input
    "sign_.mlir",                                  # no @inputs at all
    "reduce_bfloat16_4_6_int32_4_6.mlir",          # two checks, bf16 and i32
    "scatter_uint16_4_2_3_uint16_2.mlir",          # needs oxla-canonicalize-scatter
    "scatter_add_bfloat16_1_50_3_bfloat16_1_3.mlir",
]

needs_testdata = pytest.mark.skipif(not os.path.isdir(TESTDATA), reason="../shared/conformance is not present")


@needs_testdata
@pytest.mark.parametrize("name", SAMPLE)
def test_sample_programs_pass_on_llvm_cpu(name):
    result = run_program(os.path.join(TESTDATA, name))
    assert (result.status, result.reason) == ("pass", "")


@needs_testdata
def test_a_wrong_expectation_fails(tmp_path):
    text = open(os.path.join(TESTDATA, "sign_.mlir")).read()
    broken = text.replace("func.func private @expected() -> (tensor<2x2xui16> {mhlo.layout_mode = \"default\"}) {\n"
                          "    %c = stablehlo.constant dense<0>", "func.func private @expected() -> (tensor<2x2xui16> "
                          "{mhlo.layout_mode = \"default\"}) {\n    %c = stablehlo.constant dense<7>")
    assert broken != text
    path = tmp_path / "sign_broken.mlir"
    path.write_text(broken)
    result = run_program(str(path))
    assert result.status == "fail" and "expect_eq: 4 of 4 elements differ" in result.reason


@needs_testdata
def test_prepare_moves_inputs_to_arguments_and_checks_to_results():
    prepared = prepare(ir.parse_file(os.path.join(TESTDATA, "reduce_bfloat16_4_6_int32_4_6.mlir")))
    main = [op for op in prepared.module.body.operations if "main" in str(op.attributes["sym_name"])][0]
    text = ir.to_text(main)
    assert "check." not in text and "call @inputs" not in text
    assert [c.kind for c in prepared.checks] == ["expect_close", "expect_eq"]
    assert prepared.inputs_function == "inputs"
    assert ir.verify(prepared.module) == []


def test_prepare_rejects_programs_without_checks():
    with pytest.raises(UnsupportedProgram):
        prepare(ir.parse("func.func @main() { return }"))


def test_split_name():
    assert split_name("abs_float32_20_20.mlir") == ("abs", "float32")
    assert split_name("scatter_add_bfloat16_1_2_bfloat16_1.mlir") == ("scatter_add", "bfloat16")
    assert split_name("sign_.mlir") == ("sign", "none")


@needs_testdata
def test_cli_summary_and_json(tmp_path, capsys):
    for name in SAMPLE[:2]:
        shutil.copy(os.path.join(TESTDATA, name), tmp_path / name)
    out = tmp_path / "results.json"
    assert cli.run([str(tmp_path), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "PASS          abs_float32_20_20.mlir" in printed
    assert "2/2 passed (100.0%)" in printed and "by op: " in printed
    assert '"status": "pass"' in out.read_text()
