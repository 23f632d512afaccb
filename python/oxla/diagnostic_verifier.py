"""`--verify-diagnostics`: check the diagnostics a run produced against
`expected-error`, `expected-warning`, `expected-remark` and `expected-note`
comments in the source, the way mlir-opt does.

    // expected-error @+1 {{op requires a single operand}}
    // expected-warning @below {{unused}}
    %0 = "test.op"() : () -> i32  // expected-remark {{here}}

A designator `@+N`/`@-N` is relative to the comment's line, `@above`/`@below`
name the nearest line above/below that holds no expectation, `@unknown`
matches diagnostics without a file location. The text between `{{` and `}}`
must occur in the message; with `expected-error-re`, parts wrapped in a
second pair of braces are regular expressions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from oxla.diagnostics import Diagnostic, SourceLocation

_DIRECTIVE = re.compile(
    r"expected-(error|warning|note|remark)(-re)?\s*(?:@([+-]\d+|above|below|unknown))?\s*\{\{(.*)\}\}"
)

# MLIR attaches the failing op to verifier errors; mlir-opt turns that off
# when verifying diagnostics, the bindings cannot, so such notes are ignored.
_IGNORED_NOTE = "see current operation:"


@dataclass
class Expectation:
    """One expected diagnostic, written at `directive` and aimed at `line`."""

    severity: str
    pattern: re.Pattern
    text: str
    directive: SourceLocation
    line: int | None  # None: a diagnostic without a file location
    matched: bool = field(default=False)

    def matches(self, diag: Diagnostic, file: str) -> bool:
        if self.matched or diag.severity != self.severity:
            return False
        if self.line is None:
            where_ok = diag.location.file is None
        else:
            where_ok = diag.location.file == file and diag.location.line == self.line
        return where_ok and self.pattern.search(diag.message) is not None


def _pattern(text: str, is_regex: bool) -> re.Pattern:
    """A literal substring, or for -re, literal text with `{{regex}}` parts."""
    if not is_regex:
        return re.compile(re.escape(text))
    parts = re.split(r"\{\{(.*?)\}\}", text)
    return re.compile("".join(p if i % 2 else re.escape(p) for i, p in enumerate(parts)))


def parse_expectations(source: str, file: str) -> list[Expectation]:
    """Finds every expected-* directive of a source buffer."""
    lines = source.split("\n")  # as MLIR counts lines: splitlines() also breaks at \f, \u2028...
    has_directive = [bool(_DIRECTIVE.search(line)) for line in lines]
    found: list[Expectation] = []
    for index, line in enumerate(lines):
        for match in _DIRECTIVE.finditer(line):
            severity, regex, designator, text = match.groups()
            target = _target_line(index, designator, has_directive)
            loc = SourceLocation(file, index + 1, match.start() + 1)
            found.append(Expectation(severity, _pattern(text, bool(regex)), text, loc, target))
    return found


def _target_line(index: int, designator: str | None, has_directive: list[bool]) -> int | None:
    """The 1-based line an expectation refers to (None for @unknown)."""
    if designator is None:
        return index + 1
    if designator == "unknown":
        return None
    if designator in ("above", "below"):
        step = -1 if designator == "above" else 1
        j = index + step
        while 0 <= j < len(has_directive) and has_directive[j]:
            j += step
        return j + 1
    return index + 1 + int(designator)


def verify(diagnostics: list[Diagnostic], source: str, file: str) -> list[Diagnostic]:
    """Returns the mismatches as error diagnostics (empty when all is as expected)."""
    expectations = parse_expectations(source, file)
    problems: list[Diagnostic] = []
    for diag in _flatten(diagnostics):
        hit = next((e for e in expectations if e.matches(diag, file)), None)
        if hit is not None:
            hit.matched = True
        else:
            problems.append(Diagnostic("error", diag.location, f"unexpected {diag.severity}: {diag.message}"))
    for exp in expectations:
        if not exp.matched:
            problems.append(
                Diagnostic("error", exp.directive, f'expected {exp.severity} "{exp.text}" was not produced')
            )
    return problems


def _flatten(diagnostics: list[Diagnostic]):
    """Diagnostics and their notes, in order, without notes MLIR adds on its own."""
    for diag in diagnostics:
        yield diag
        for note in diag.notes:
            if not note.message.startswith(_IGNORED_NOTE):
                yield note
