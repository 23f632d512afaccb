"""tools/bench/ab.py: one paired comparison, and its check of the pass names."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from tools.bench import ab  # noqa: E402


def test_an_unknown_pass_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exited:
        ab.main(["--without", "oxla-no-such-pass", "row_sum"])
    assert exited.value.code == 2
    assert "no codegen pass named oxla-no-such-pass" in capsys.readouterr().err


def test_a_pass_that_changes_nothing_compiles_to_the_same_bytes():
    pytest.importorskip("jax")
    line = ab.compare("row_sum", ["oxla-llvmcpu-mmt4d-register-tiles"], [], 1, 1, 1)
    assert line.startswith("row_sum") and line.endswith("same bytes")


def test_a_pass_that_matters_is_timed_and_its_outputs_compared():
    pytest.importorskip("jax")
    line = ab.compare("col_sum", ["oxla-llvmcpu-outer-reduction-tiles"], [], 1, 1, 1)
    assert "ratio" in line and "outputs" in line
