"""Fast start for console programs.

IREE's `iree.compiler.ir` imports numpy eagerly, only to offer numpy-based
attribute builders, and numpy's import costs about 60 ms: a third of an
oxla-opt run on a small file. Console programs defer it: `numpy` stands as a
placeholder module that imports the real one on first use, so nothing
changes for code that does use numpy.
"""

from __future__ import annotations

import importlib
import sys
import types


class _DeferredModule(types.ModuleType):
    """Stands in for a module until an attribute is asked for, then forwards to it."""

    def __getattr__(self, attr: str):
        return getattr(_load_real(self.__name__), attr)


def _load_real(name: str) -> types.ModuleType:
    """Imports the real module in place of its placeholder (once) and returns it."""
    current = sys.modules.get(name)
    if isinstance(current, _DeferredModule):
        del sys.modules[name]
        real = importlib.import_module(name)
        current.__dict__.update({k: v for k, v in real.__dict__.items() if k not in ("__name__",)})
        return real
    return current if current is not None else importlib.import_module(name)


def defer_import(name: str) -> None:
    """Puts a placeholder for `name` in sys.modules unless the module is already loaded."""
    if name not in sys.modules:
        placeholder = _DeferredModule(name)
        placeholder.__spec__ = None  # the import system reads it; it must not trigger loading
        sys.modules[name] = placeholder


def fast_start() -> None:
    """What every oxla console program calls first."""
    defer_import("numpy")


def console_main(prog: str, run, argv=None) -> None:
    """Runs a console program's `run(argv) -> status`; never shows a traceback unless asked.

    Every error a user can cause is reported by `run` itself; anything that
    escapes is a bug, reported in one line (OXLA_DEBUG=1 shows the traceback).
    """
    import os

    fast_start()
    try:
        status = run(argv)
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:
        status = 0
    except Exception as exc:  # noqa: BLE001: the last line of defence
        if os.environ.get("OXLA_DEBUG"):
            raise
        print(f"{prog}: internal error: {type(exc).__name__}: {exc} (set OXLA_DEBUG=1 for a traceback)",
              file=sys.stderr)
        status = 1
    sys.exit(status)
