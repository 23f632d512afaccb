"""IREE compiler flags whose defaults follow an optimization level, and the value each takes.

IREE derives these flags from `--iree-opt-level` (through the level of their
pipeline, such as `--iree-dispatch-creation-opt-level`) unless the flag was
given. A session remembers that a flag was given, not whether its value is the
default: once a compile sets one, setting it back to its default value pins
that value at every level. So oxla's session gives such a flag, from then on,
the value its level would have derived (`derived_values`).
"""

from __future__ import annotations

ROOT = "--iree-opt-level"
ROOT_DEFAULT = "O0"

# Each pipeline's level flag (which follows ROOT unless given) with the flags it derives, each as
# ((level, value from that level up), ...) in rising order: `iree-compile --help-hidden` of the
# pinned compiler lists them ("At optimization level O2 the default is true"); a test checks this
# table against it.
PIPELINE_LEVELS: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {
    "--iree-dispatch-creation-opt-level": {
        "--iree-dispatch-creation-enable-aggressive-fusion": (("O0", "false"), ("O2", "true")),
    },
    "--iree-global-optimization-opt-level": {
        "--iree-opt-aggressively-propagate-transposes": (("O0", "false"), ("O3", "true")),
        "--iree-opt-generalize-matmul": (("O0", "false"), ("O2", "true")),
        "--iree-opt-outer-dim-concat": (("O0", "false"), ("O1", "true")),
        "--iree-opt-strip-assertions": (("O0", "false"), ("O1", "true")),
    },
    "--iree-llvmcpu-mlir-opt-level": {
        "--iree-llvmcpu-reassociate-fp-reductions": (("O0", "false"), ("O2", "true")),
    },
}
_PIPELINE_OF = {flag: pipeline for pipeline, flags in PIPELINE_LEVELS.items() for flag in flags}


def is_derived(name: str) -> bool:
    """Whether IREE derives flag `name` from an optimization level when it is not given."""
    return name in PIPELINE_LEVELS or name in _PIPELINE_OF


def derived_value(name: str, given: dict[str, str]) -> str:
    """The value IREE would derive for flag `name` (is_derived) when the flags `given` are all that is set."""
    root = given.get(ROOT, ROOT_DEFAULT)
    if name in PIPELINE_LEVELS:
        return root
    pipeline = _PIPELINE_OF[name]
    level = int(given.get(pipeline, root).lstrip("O"))
    steps = PIPELINE_LEVELS[pipeline][name]
    return [value for at, value in steps if int(at.lstrip("O")) <= level][-1]


def derived_values(pinned, given: dict[str, str]) -> dict[str, str]:
    """`given`, plus the derived value of each flag in `pinned` that it does not set."""
    return {**{name: derived_value(name, given) for name in pinned if name not in given}, **given}
