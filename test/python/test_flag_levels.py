"""Flags IREE derives from an optimization level: the table against the compiler, and no compile pinning one."""

import re
import subprocess

from oxla import ir
from oxla._iree import tool_path
from oxla.pipelines import compile, levels

# A softmax whose exponentials also feed a matmul: IREE's aggressive fusion (on from O2) puts the
# normalisation in the exponentials' dispatch, which without it is one of its own.
_SOFTMAX_AND_DOT = """func.func @main(%x: tensor<64x256xf32>, %w: tensor<256x128xf32>) -> (tensor<64x128xf32>, tensor<64x256xf32>) {
  %e = stablehlo.exponential %x : tensor<64x256xf32>
  %p = stablehlo.dot_general %e, %w, contracting_dims = [1] x [0] : (tensor<64x256xf32>, tensor<256x128xf32>) -> tensor<64x128xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<64xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<64xf32>) -> tensor<64x256xf32>
  %n = stablehlo.divide %e, %b : tensor<64x256xf32>
  return %p, %n : tensor<64x128xf32>, tensor<64x256xf32>
}
"""
_AGGRESSIVE_FUSION = "--iree-dispatch-creation-enable-aggressive-fusion"


def _help_levels() -> dict[str, tuple[str, dict[str, str]]]:
    """From `iree-compile --help-hidden`: each flag with per-level defaults -> (the level flag of its
    section, {level: value})."""
    text = subprocess.run([tool_path("iree-compile"), "--help-hidden"], capture_output=True, text=True).stdout
    section = flag = None
    level_of_section, section_of, steps = {}, {}, {}
    for line in text.splitlines():
        if re.match(r"^\S.*:$", line):
            section = line
        elif m := re.match(r"^  (--iree[\w-]+)", line):
            flag = m.group(1)
            section_of[flag] = section
            if flag.endswith("-opt-level") and flag != levels.ROOT:
                level_of_section[section] = flag
        if m := re.search(r"At optimization level (O\d) the default is (\S+)", line):
            steps.setdefault(flag, {})[m.group(1)] = m.group(2)
    return {name: (level_of_section.get(section_of[name]), found) for name, found in steps.items()}


def test_the_table_is_the_pinned_compilers():
    want = {name: (pipeline, dict(steps)) for pipeline, flags in levels.PIPELINE_LEVELS.items()
            for name, steps in flags.items()}
    assert _help_levels() == want


def test_derived_values_follow_the_pipeline_level_then_the_root():
    assert levels.derived_value(_AGGRESSIVE_FUSION, {levels.ROOT: "O3"}) == "true"
    assert levels.derived_value(_AGGRESSIVE_FUSION, {levels.ROOT: "O1"}) == "false"
    assert levels.derived_value(_AGGRESSIVE_FUSION, {}) == "false"
    assert levels.derived_value(_AGGRESSIVE_FUSION,
                                {levels.ROOT: "O3", "--iree-dispatch-creation-opt-level": "O1"}) == "false"
    assert levels.derived_value("--iree-global-optimization-opt-level", {levels.ROOT: "O2"}) == "O2"


def _executables(**options) -> int:
    """How many dispatches IREE makes of the program (as written: oxla's optimizer would change it)."""
    return ir.to_text(compile(_SOFTMAX_AND_DOT, compile_to="flow", optimize=False, **options)).count("flow.executable ")


def test_a_level_flag_one_compile_gave_does_not_pin_it_for_the_next():
    """IREE keeps a flag given once as given, even set back to its default value, so every later compile
    ran without aggressive fusion; oxla now gives such a flag the value the level derives."""
    from oxla.pipelines import compiler as compiler_module

    fused = _executables()
    assert _executables(flags=[f"{_AGGRESSIVE_FUSION}=false"]) == fused + 1
    assert _executables() == fused
    session = compiler_module._compiler()
    compile(_SOFTMAX_AND_DOT, opt_level="O0", compile_to="flow", optimize=False)
    assert dict(f.partition("=")[::2] for f in session.session.get_flags(False))[_AGGRESSIVE_FUSION] == "false"
