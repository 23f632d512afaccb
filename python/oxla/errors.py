"""Typed exceptions of the oxla API; each carries structured diagnostics."""

from __future__ import annotations

from typing import Sequence

from oxla.diagnostics import Diagnostic, format_all


class OxlaError(Exception):
    """Base of every error oxla raises on purpose.

    `diagnostics` holds the structured reports behind it; `str()` renders
    them as `file:line:col: error: message` lines.
    """

    def __init__(self, message: str | None = None, diagnostics: Sequence[Diagnostic] = ()) -> None:
        self.diagnostics = list(diagnostics)
        if message is None:
            message = format_all(self.diagnostics) or type(self).__name__
        super().__init__(message)


class ParseError(OxlaError, ValueError):
    """The input is not valid MLIR (text, bytecode or portable artifact)."""


class VerificationError(OxlaError, ValueError):
    """The IR parsed but breaks an op's or a dialect's rules."""


class PipelineError(OxlaError, ValueError):
    """A pass pipeline is malformed: bad syntax, unknown pass or option, wrong anchor."""


class PassFailure(OxlaError):
    """A pass failed while running.

    Raise it from a Python pass's `run` to stop the pipeline with a message
    at `op`'s location (the anchored op when `op` is None).
    """

    def __init__(self, message: str | None = None, diagnostics: Sequence[Diagnostic] = (), op=None) -> None:
        super().__init__(message, diagnostics)
        self.op = op
