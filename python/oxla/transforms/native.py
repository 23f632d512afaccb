"""The catalogue of native MLIR/IREE passes registered in the pinned wheel.

The bindings can run any registered pass by name but cannot list them, so the
catalogue is read once per process from `iree-opt --help` (about 0.1 s), and
only when needed: `--list-passes` and the close-match hint of an unknown pass.
"""

from __future__ import annotations

import functools
import re
import subprocess

from oxla import ir
from oxla._iree import CapturedStderr, tool_path

_ENTRY = re.compile(r"^ {6}--([A-Za-z0-9][\w.-]*)\s+-\s+(.*)$")


@functools.cache
def native_passes() -> dict[str, str]:
    """Maps each native pass and pass pipeline name to its one-line summary."""
    try:
        out = subprocess.run(
            [tool_path("iree-opt"), "--help-list"], capture_output=True, text=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    return parse_help(out)


def parse_help(text: str) -> dict[str, str]:
    """Extracts pass names and summaries from the '--help' text of an mlir-opt-like tool."""
    passes: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        if line.strip() in ("Passes:", "Pass Pipelines:"):
            inside = True
            continue
        if inside and line.startswith("  --"):
            break  # the next top-level option ends the pass list
        match = _ENTRY.match(line) if inside else None
        if match:
            passes[match.group(1)] = match.group(2).strip()
    return passes


_RESTRICTED = re.compile(r"restricted to '([^']+)'")


def native_anchor(pass_text: str) -> str | None:
    """The op a native pass is restricted to (None: any op or the module).

    MLIR names it only when refusing the pass at module level, so ask that.
    """
    with ir.context(), CapturedStderr() as captured:
        try:
            ir.passmanager.PassManager("builtin.module").add(pass_text)
            return None
        except ValueError as exc:
            error = str(exc)
    match = _RESTRICTED.search(f"{captured.text} {error}")
    return match.group(1) if match else None
