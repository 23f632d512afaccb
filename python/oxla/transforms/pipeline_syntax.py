"""MLIR's textual pass-pipeline syntax, parsed in Python.

    pipeline := element (',' element)*
    element  := op-name '(' pipeline? ')'          (an op anchor: names hold a '.')
              | pass-name ('{' options '}')?

Options stay raw text here (native passes get them verbatim); Python passes
split them with `split_options`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oxla.errors import PipelineError


@dataclass
class PassElement:
    """One pass in a pipeline, with its option text as written."""

    name: str
    options: str = ""
    column: int = 1

    def to_text(self) -> str:
        return f"{self.name}{{{self.options}}}" if self.options else self.name


@dataclass
class OpPipeline:
    """Passes nested under an op anchor such as `builtin.module` or `func.func`."""

    op_name: str
    elements: list["PassElement | OpPipeline"] = field(default_factory=list)
    column: int = 1

    def to_text(self) -> str:
        return f"{self.op_name}({','.join(e.to_text() for e in self.elements)})"


class _Scanner:
    """A cursor over the pipeline text that reports errors with a column."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, message: str, pos: int | None = None) -> PipelineError:
        col = (self.pos if pos is None else pos) + 1
        return PipelineError(f"pass pipeline:1:{col}: error: {message}\n  {self.text}\n  {' ' * (col - 1)}^")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "end of pipeline"
            raise self.error(f"expected '{char}', found {found}")
        self.pos += 1

    def name(self) -> str:
        self.skip_space()
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] in "-_.$"):
            self.pos += 1
        if start == self.pos:
            found = repr(self.text[self.pos]) if self.pos < len(self.text) else "end of pipeline"
            raise self.error(f"expected a pass or op name, found {found}")
        return self.text[start : self.pos]

    def balanced(self) -> str:
        """Reads `{...}` (after the '{'), honouring nested braces and quotes."""
        start, depth, quote = self.pos, 1, ""
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    self.pos += 1
                    return self.text[start : self.pos - 1].strip()
            self.pos += 1
        raise self.error("unbalanced '{' in pass options", start - 1)


def parse_pipeline(text: str) -> list[PassElement | OpPipeline]:
    """Parses a pipeline string into its elements; raises PipelineError with a column."""
    scanner = _Scanner(text)
    elements = _parse_elements(scanner, top_level=True)
    if scanner.peek():
        raise scanner.error(f"unexpected {scanner.peek()!r}")
    return elements


def _parse_elements(scanner: _Scanner, top_level: bool) -> list[PassElement | OpPipeline]:
    """Parses a comma-separated element list up to ')' or the end."""
    elements: list[PassElement | OpPipeline] = []
    if scanner.peek() in ("", ")"):
        if top_level and scanner.peek() == "":
            return elements
        return elements
    while True:
        elements.append(_parse_element(scanner))
        if scanner.peek() != ",":
            return elements
        scanner.pos += 1


def _parse_element(scanner: _Scanner) -> PassElement | OpPipeline:
    """Parses one pass (with options) or one op anchor (with its nested pipeline)."""
    scanner.skip_space()
    column = scanner.pos + 1
    name = scanner.name()
    if scanner.peek() == "(":
        if "." not in name:
            raise scanner.error(f"'{name}' is not an op name (op anchors look like 'func.func')", column - 1)
        scanner.pos += 1
        nested = _parse_elements(scanner, top_level=False)
        scanner.expect(")")
        return OpPipeline(name, nested, column)
    if "." in name:
        raise scanner.error(f"op anchor '{name}' must be followed by '(' and a nested pipeline", column - 1)
    options = ""
    if scanner.peek() == "{":
        scanner.pos += 1
        options = scanner.balanced()
    return PassElement(name, options, column)


def split_options(text: str) -> list[tuple[str, str]]:
    """Splits `a=1 b="x y" c={1,2}` into [(a, 1), (b, x y), (c, 1,2)]."""
    pairs: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        start = i
        while i < n and not text[i].isspace() and text[i] != "=":
            i += 1
        key = text[start:i]
        if i >= n or text[i] != "=":
            pairs.append((key, ""))  # a bare flag means `key=true`
            continue
        i += 1
        value, i = _read_value(text, i)
        pairs.append((key, value))
    return pairs


def _read_value(text: str, i: int) -> tuple[str, int]:
    """Reads one option value starting at i: quoted, braced or bare."""
    n = len(text)
    if i < n and text[i] in "\"'":
        end = text.find(text[i], i + 1)
        if end < 0:
            raise PipelineError(f"unterminated quote in pass options: {text}")
        return text[i + 1 : end], end + 1
    if i < n and text[i] == "{":
        depth, j = 0, i
        while j < n:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
            if depth == 0:
                return text[i + 1 : j - 1], j
        raise PipelineError(f"unbalanced '{{' in pass options: {text}")
    start = i
    while i < n and not text[i].isspace():
        i += 1
    return text[start:i], i
