"""IREE's compilation phases: the one vocabulary the API, the tools and hooks share."""

from __future__ import annotations

# In order. A module "at phase P" has been compiled up to and including P;
# compiling "from P" resumes with the phase after P.
PHASES: tuple[str, ...] = (
    "start",
    "input",
    "abi",
    "preprocessing",
    "global-optimization",
    "dispatch-creation",
    "flow",
    "stream",
    "executable-sources",
    "executable-configurations",
    "executable-targets",
    "hal",
    "vm",
    "end",
)


def phase_index(name: str) -> int:
    """The position of a phase; ValueError listing the valid names otherwise."""
    try:
        return PHASES.index(name)
    except ValueError:
        raise ValueError(f"unknown phase '{name}'; phases are: {', '.join(PHASES)}") from None


def hook_boundary(key: str) -> int:
    """Maps a hook key ('after:flow', 'before:stream') to the index of the phase it follows."""
    when, _, phase = key.partition(":")
    if when not in ("before", "after") or not phase:
        raise ValueError(f"hook key '{key}' must be 'before:<phase>' or 'after:<phase>'")
    index = phase_index(phase)
    if when == "before":
        if index == 0:
            raise ValueError("nothing runs before 'start'; use 'after:start'")
        return index - 1
    if index == len(PHASES) - 1:
        raise ValueError("nothing runs after 'end'; use 'before:end'")
    return index
