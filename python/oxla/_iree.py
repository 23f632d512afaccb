"""The one module that wraps IREE's compiler package.

Everything else in oxla reaches the MLIR bindings through `oxla.ir`, which
re-exports `iree.compiler.ir` and builds on this file. The few
semi-private hooks the design needs (the session's stolen context, importing
and exporting a module through the C API, phase control) are wrapped here, so
that a change in the pinned wheel breaks one file and one test
(`test/python/test_iree_hooks.py`), loudly.
"""

from __future__ import annotations

import ctypes
import os

from iree.compiler import ir, passmanager, rewrite  # noqa: F401  (re-exported)
from iree.compiler.api import Session, Source
from iree.compiler.api import ctypes_dl as _ctypes_dl
from iree.compiler.version import VERSION as COMPILER_VERSION


# C entry points of libIREECompiler that oxla calls directly (not only through
# iree.compiler.api): if the wheel drops or renames one, check_hooks says so.
C_SYMBOLS = (
    "ireeCompilerSessionStealContext",
    "ireeCompilerInvocationParseSource",
    "ireeCompilerInvocationExportStealModule",
    "ireeCompilerInvocationImportBorrowModule",
    "ireeCompilerInvocationSetCompileToPhase",
    "ireeCompilerInvocationSetCompileFromPhase",
)

# Python-level names of iree.compiler.api.ctypes_dl that oxla relies on.
PY_HOOKS = ("_dylib", "PyCapsule_New", "MLIR_CAPSULE_PREFIX", "Session", "Source")

_MODULE_CAPSULE = (_ctypes_dl.MLIR_CAPSULE_PREFIX + "ir.Module._CAPIPtr").encode()


def check_hooks() -> list[str]:
    """Returns what the pinned IREE wheel no longer provides (empty when all is well)."""
    missing = [f"iree.compiler.api.ctypes_dl.{n}" for n in PY_HOOKS if not hasattr(_ctypes_dl, n)]
    dylib = getattr(_ctypes_dl, "_dylib", None)
    for name in C_SYMBOLS:
        if dylib is None or not hasattr(dylib, name):
            missing.append(f"libIREECompiler:{name}")
    for name in ("Operation", "Module", "Context", "Location", "MLIRError", "WalkResult"):
        if not hasattr(ir, name):
            missing.append(f"iree.compiler.ir.{name}")
    if not hasattr(passmanager.PassManager, "add"):
        missing.append("iree.compiler.passmanager.PassManager.add")
    return missing


class CompilerSession:
    """One IREE compiler session and the MLIR context it owns.

    The context has every dialect IREE knows registered; modules parsed
    through the session carry real file names in their locations.
    """

    def __init__(self) -> None:
        self.session = Session()
        self.context = self.session.context

    def parse_buffer(self, data: bytes, name: str) -> ir.Module | None:
        """Parses MLIR text or bytecode; returns None on failure.

        Diagnostics go to the context's handlers (see oxla.diagnostics).
        """
        inv = self.session.invocation()
        try:
            # The C API copies nothing: keep `data` alive until parsing is done.
            source = Source.wrap_buffer(self.session, data, buffer_name=name)
            inv._sources.append(source)
            # Parsing reports diagnostics to Python handlers, so the call must
            # keep the GIL, which the wrapper's ctypes.CDLL call releases.
            if not with_gil("ireeCompilerInvocationParseSource", ctypes.c_bool, [ctypes.c_void_p] * 2)(
                inv._inv_p, source._source_p
            ):
                return None
            return _export_module(inv)
        finally:
            inv.close()


def with_gil(name: str, restype, argtypes):
    """A libIREECompiler function called without releasing the GIL (ctypes.PyDLL)."""
    global _PYDLL
    if _PYDLL is None:
        _PYDLL = ctypes.PyDLL(_ctypes_dl._dylib._name)
    fn = getattr(_PYDLL, name)
    fn.restype, fn.argtypes = restype, argtypes
    return fn


_PYDLL: ctypes.PyDLL | None = None


def _export_module(inv) -> ir.Module:
    """Takes the invocation's module out as an owned `ir.Module`."""
    dylib = _ctypes_dl._dylib
    ptr = dylib.ireeCompilerInvocationExportStealModule(inv._inv_p)
    if not ptr:
        raise RuntimeError("the compiler invocation holds no module to export")
    capsule = _ctypes_dl.PyCapsule_New(ptr, _MODULE_CAPSULE, None)
    return ir.Module._CAPICreate(capsule)


def c_function(name: str, restype, argtypes) -> ctypes._CFuncPtr:
    """Returns a typed handle on a libIREECompiler C function the wrapper lacks."""
    fn = getattr(_ctypes_dl._dylib, name)
    fn.restype = restype
    fn.argtypes = argtypes
    return fn


def tool_path(name: str) -> str:
    """The path of a binary that ships in the compiler wheel (iree-opt, ...)."""
    from iree.compiler.tools.binaries import find_tool

    return find_tool(name)


class CapturedStderr:
    """Collects what native code writes to file descriptor 2 (and 1 with stdout=True) inside a `with`.

    LLVM reports bad pass options, and IREE's linker its errors, straight to
    the process's streams; oxla folds that text into its own errors instead.
    """

    def __init__(self, stdout: bool = False) -> None:
        self.fds = (1, 2) if stdout else (2,)
        self.text = ""

    def __enter__(self) -> "CapturedStderr":
        import sys
        import tempfile

        sys.stdout.flush()
        sys.stderr.flush()
        self._file = tempfile.TemporaryFile()
        self._saved = [os.dup(fd) for fd in self.fds]
        for fd in self.fds:
            os.dup2(self._file.fileno(), fd)
        return self

    def __exit__(self, *exc) -> None:
        for fd, saved in zip(self.fds, self._saved):
            os.dup2(saved, fd)
            os.close(saved)
        self._file.seek(0)
        self.text = self._file.read().decode("utf-8", "replace")
        self._file.close()
