"""Structured diagnostics: capture what MLIR reports instead of letting it
write to stderr, and render it the way mlir-opt does (`file:line:col: error: ...`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from oxla._iree import ir

SEVERITIES = ("error", "warning", "note", "remark")

_SEVERITY_NAMES = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}

# The first file:line:col inside a printed location, whatever wraps it
# (name, call site, fused): that is the position a person wants to see.
_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


@dataclass(frozen=True)
class SourceLocation:
    """A position in a source buffer; `file` is None for unknown locations."""

    file: str | None = None
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.file is None:
            return "<unknown>"
        return f"{self.file}:{self.line}:{self.col}"

    @staticmethod
    def of(location) -> "SourceLocation":
        """Converts an MLIR location (or its printed form) into a SourceLocation."""
        match = _FILE_LOC.search(str(location))
        if not match:
            return SourceLocation()
        return SourceLocation(match.group(1), int(match.group(2)), int(match.group(3)))


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic: severity, where, what, and the notes attached to it."""

    severity: str
    location: SourceLocation
    message: str
    notes: tuple["Diagnostic", ...] = field(default=())

    def __str__(self) -> str:
        return self.format()

    def format(self, source_lines: dict[str, list[str]] | None = None) -> str:
        """Renders like mlir-opt; with the source text, also the line and a caret."""
        lines = [f"{self.location}: {self.severity}: {self.message}"]
        text = (source_lines or {}).get(self.location.file or "")
        src = text[self.location.line - 1].rstrip("\n") if text and 0 < self.location.line <= len(text) else ""
        if src.isprintable() and src.strip():
            lines.append(src)
            lines.append(" " * max(self.location.col - 1, 0) + "^")
        lines.extend(note.format() for note in self.notes)
        return "\n".join(lines)

    @staticmethod
    def of(diag, severity: str | None = None) -> "Diagnostic":
        """Converts an `ir.Diagnostic`, `ir.DiagnosticInfo` or `_iree.RawDiagnostic` into a Diagnostic."""
        sev = severity or (diag.severity if isinstance(diag.severity, str) else _SEVERITY_NAMES.get(diag.severity,
                                                                                                     "error"))
        notes = tuple(Diagnostic.of(n, "note") for n in getattr(diag, "notes", ()))
        return Diagnostic(sev, SourceLocation.of(diag.location), str(diag.message).rstrip(), notes)

    @staticmethod
    def error(message: str, location: SourceLocation | None = None) -> "Diagnostic":
        """An error diagnostic made in Python (no MLIR location involved)."""
        return Diagnostic("error", location or SourceLocation(), message)


class DiagnosticCollector:
    """Context manager that gathers the diagnostics the context emits.

    Only `severities` are taken; the others pass on to outer handlers.
    MLIR's Python bindings route *errors* of parse, verify and pass runs into
    the raised `MLIRError`; warnings and remarks still reach handlers. Use
    `add_error(exc)` to merge the former, so one list holds everything.
    """

    def __init__(self, context, severities: tuple[str, ...] = SEVERITIES) -> None:
        self.context = context
        self.severities = severities
        self.diagnostics: list[Diagnostic] = []
        self._handler = None

    def __enter__(self) -> "DiagnosticCollector":
        self._handler = self.context.attach_diagnostic_handler(self._on_diagnostic)
        return self

    def __exit__(self, *exc) -> None:
        self._handler.detach()
        self._handler = None

    def _on_diagnostic(self, diag) -> bool:
        converted = Diagnostic.of(diag)
        if converted.severity not in self.severities:
            return False  # not ours: let the next handler see it
        self.diagnostics.append(converted)
        return True

    def add_error(self, exc: ir.MLIRError) -> None:
        """Merges the diagnostics carried by an `MLIRError` (or its message alone)."""
        infos = list(getattr(exc, "error_diagnostics", ()) or ())
        if infos:
            self.diagnostics.extend(Diagnostic.of(d, "error") for d in infos)
        else:
            self.diagnostics.append(Diagnostic.error(str(exc)))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def format_all(diagnostics: Iterable[Diagnostic], source_lines=None) -> str:
    """Renders diagnostics one after another, mlir-opt style."""
    return "\n".join(d.format(source_lines) for d in diagnostics)
