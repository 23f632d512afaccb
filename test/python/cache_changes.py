"""What must miss oxla's compile caches, shared by the tests of compile(cache=) and of tuning.

Imported by name (not a conftest.py, whose name another directory may share).
"""

from __future__ import annotations

from oxla.pipelines import cache

CHANGES = ("program", "flags", "optimize", "disable_passes", "chip", "oxla", "cpu")


def changed(change: str, source: str, edit, monkeypatch) -> tuple[str, dict]:
    """(source, compile options) for one of CHANGES: `edit(source)` makes another program; "oxla" and
    "cpu" patch the source stamp and the device fingerprint that key the cache."""
    options: dict = {}
    if change == "program":
        source = edit(source)
    elif change == "flags":
        options["flags"] = ["--iree-llvmcpu-loop-unrolling=true"]
    elif change == "optimize":
        options["optimize"] = False
    elif change == "disable_passes":
        options["disable_passes"] = ["oxla-binding-alignment"]
    elif change == "chip":
        options["cpu"] = "generic"
    elif change == "oxla":
        monkeypatch.setattr(cache, "source_stamp", lambda: "an edited oxla")
    elif change == "cpu":
        monkeypatch.setattr(cache, "device_fingerprint", lambda: "another CPU")
    else:
        raise ValueError(f"unknown change {change!r}; changes: {', '.join(CHANGES)}")
    return source, options
