"""tools/bench/ab.py: the variant target, and one paired comparison."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from tools.bench import ab  # noqa: E402


def test_the_variant_leaves_out_only_the_named_pass():
    from oxla.pipelines.targets import TARGETS

    full = TARGETS["llvm-cpu"].codegen_passes
    variant = ab.variant_target(["oxla-llvmcpu-mmt4d-register-tiles"]).codegen_passes
    assert len(variant) == len(full) - 1
    assert not any("mmt4d-register-tiles" in pipeline for _, pipeline in variant)
    with pytest.raises(SystemExit, match="not among"):
        ab.variant_target(["oxla-no-such-pass"])
    assert TARGETS["llvm-cpu"].codegen_passes == full  # the table itself is untouched


def test_a_pass_that_changes_nothing_compiles_to_the_same_bytes():
    pytest.importorskip("jax")
    line = ab.compare("row_sum", ab.variant_target(["oxla-llvmcpu-mmt4d-register-tiles"]), [], 1, 1, 1)
    assert line.startswith("row_sum") and line.endswith("same bytes")


def test_a_pass_that_matters_is_timed_and_its_outputs_compared():
    pytest.importorskip("jax")
    line = ab.compare("col_sum", ab.variant_target(["oxla-llvmcpu-outer-reduction-tiles"]), [], 1, 1, 1)
    assert "ratio" in line and "outputs" in line
