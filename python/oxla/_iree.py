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
import functools
import os
from types import SimpleNamespace
from typing import NamedTuple

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
    # MLIR's diagnostic C API, for NativeDiagnostics.
    "mlirContextAttachDiagnosticHandler",
    "mlirContextDetachDiagnosticHandler",
    "mlirDiagnosticGetSeverity",
    "mlirDiagnosticGetLocation",
    "mlirDiagnosticPrint",
    "mlirDiagnosticGetNumNotes",
    "mlirDiagnosticGetNote",
    "mlirLocationPrint",
)

# Python-level names of iree.compiler.api.ctypes_dl that oxla relies on.
PY_HOOKS = ("_dylib", "PyCapsule_New", "MLIR_CAPSULE_PREFIX", "Session", "Source")

_MODULE_CAPSULE = (_ctypes_dl.MLIR_CAPSULE_PREFIX + "ir.Module._CAPIPtr").encode()
_CONTEXT_CAPSULE = (_ctypes_dl.MLIR_CAPSULE_PREFIX + "ir.Context._CAPIPtr").encode()


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


class RawDiagnostic(NamedTuple):
    """One diagnostic as MLIR's C API gives it: severity name, printed location, message, notes."""

    severity: str
    location: str
    message: str
    notes: tuple["RawDiagnostic", ...] = ()


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


_SEVERITIES = ("error", "warning", "note", "remark")  # MlirDiagnosticSeverity's order
# MlirDiagnostic, MlirContext and MlirLocation are structs of one pointer, MlirLogicalResult of one int8:
# passed and returned as those.
_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int8, ctypes.c_void_p, ctypes.c_void_p)
_STRING_CALLBACK = ctypes.CFUNCTYPE(None, _StringRef, ctypes.c_void_p)


@functools.lru_cache(maxsize=None)
def _diagnostic_api() -> SimpleNamespace:
    """MLIR's diagnostic C functions, typed once."""
    text = [ctypes.c_void_p, _STRING_CALLBACK, ctypes.c_void_p]
    return SimpleNamespace(
        attach=c_function("mlirContextAttachDiagnosticHandler", ctypes.c_uint64,
                          [ctypes.c_void_p, _HANDLER, ctypes.c_void_p, ctypes.c_void_p]),
        detach=c_function("mlirContextDetachDiagnosticHandler", None, [ctypes.c_void_p, ctypes.c_uint64]),
        severity=c_function("mlirDiagnosticGetSeverity", ctypes.c_int, [ctypes.c_void_p]),
        location=c_function("mlirDiagnosticGetLocation", ctypes.c_void_p, [ctypes.c_void_p]),
        num_notes=c_function("mlirDiagnosticGetNumNotes", ctypes.c_ssize_t, [ctypes.c_void_p]),
        note=c_function("mlirDiagnosticGetNote", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_ssize_t]),
        print_location=c_function("mlirLocationPrint", None, text),
        print_message=c_function("mlirDiagnosticPrint", None, text),
    )


class NativeDiagnostics:
    """Takes every diagnostic the context reports inside a `with`, from any thread, as RawDiagnostics.

    For native calls that release the GIL while MLIR runs passes on worker
    threads. A handler attached through the Python bindings cannot serve
    them: it needs the GIL, so a worker reporting while the caller holds it
    deadlocks, and if the caller released it the bindings crash freeing the
    diagnostic after giving the GIL back. A ctypes callback takes the GIL
    for its whole run on whichever thread calls it.
    """

    def __init__(self, context) -> None:
        self._context = ctypes.c_void_p(ctypes.pythonapi.PyCapsule_GetPointer(
            ctypes.py_object(context._CAPIPtr), _CONTEXT_CAPSULE))
        self.diagnostics: list[RawDiagnostic] = []
        self._callback = _HANDLER(self._on_diagnostic)  # kept alive while attached
        self._id = None

    def __enter__(self) -> "NativeDiagnostics":
        self._id = _diagnostic_api().attach(self._context, self._callback, None, None)
        return self

    def __exit__(self, *exc) -> None:
        _diagnostic_api().detach(self._context, self._id)

    def _on_diagnostic(self, diagnostic, _user_data) -> int:
        self.diagnostics.append(_read_diagnostic(diagnostic))  # list.append is atomic under the GIL
        return 1  # handled: no other handler sees it


def _printed(print_fn, handle) -> str:
    """What an MLIR C API print function writes for `handle`."""
    pieces: list[bytes] = []
    callback = _STRING_CALLBACK(lambda ref, _: pieces.append(ctypes.string_at(ref.data, ref.length)))
    print_fn(handle, callback, None)
    return b"".join(pieces).decode("utf-8", "replace")


def _read_diagnostic(diagnostic) -> RawDiagnostic:
    """A RawDiagnostic with the notes of an MlirDiagnostic (valid only inside the handler)."""
    api = _diagnostic_api()
    severity = api.severity(diagnostic)
    notes = tuple(_read_diagnostic(api.note(diagnostic, i)) for i in range(api.num_notes(diagnostic)))
    return RawDiagnostic(_SEVERITIES[severity] if 0 <= severity < len(_SEVERITIES) else "error",
                         _printed(api.print_location, api.location(diagnostic)),
                         _printed(api.print_message, diagnostic), notes)
