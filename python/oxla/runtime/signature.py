"""Function signatures read from a vmfb's reflection metadata.

IREE records each exported function as a declaration string, e.g.

    sync func @main(%input0: tensor<4x?xf32>,
                    %input1: tensor<2xi8> {iree.abi.encoding = tensor<2xui8>}) -> (%output0: tensor<f32>)

(one line in the vmfb). `iree.abi.encoding` gives the logical type (ui8) of a signless one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from oxla.runtime import dtypes
from oxla.runtime.dtypes import ElementType

_OPEN, _CLOSE = "<([{", ">)]}"
_HEAD = re.compile(r'\s*(sync|async)?\s*func\s+@("(?:[^"\\]|\\.)*"|[\w$.-]+)\s*\(')
_TENSOR = re.compile(r"tensor<((?:(?:\d+|\?)x)*)(.+)>")
_SCALARS = {"i32", "i64", "f32", "f64"}  # VM scalar registers a function may take or return directly


@dataclass(frozen=True)
class ValueSpec:
    """One parameter or result: its name, its type text, and what numpy value matches it."""

    name: str  # "%input0"
    type: str  # "tensor<4x?xf32>" (the logical type, e.g. ui8 rather than i8)
    kind: str  # "tensor", "scalar" (a VM i32/i64/f32/f64 register) or "other" (not checked)
    shape: tuple[int | None, ...]  # None dims are dynamic; () for scalars and others
    element: ElementType | None  # None for "other"

    @property
    def dtype(self) -> np.dtype | None:
        """The numpy dtype an argument must have (None when unknown)."""
        return self.element.dtype if self.element else None

    def __str__(self) -> str:
        return f"{self.name}: {self.type}"


@dataclass(frozen=True)
class Signature:
    """A function's parameters and results as its vmfb declares them."""

    name: str
    inputs: tuple[ValueSpec, ...]
    outputs: tuple[ValueSpec, ...]
    model: str = "sync"  # "sync", "async" (coarse fences follow the arguments), "unknown" (no reflection)

    def __str__(self) -> str:
        if self.model == "unknown":
            return f"{self.name}(?) -> ?"
        results = ", ".join(o.type for o in self.outputs)
        if len(self.outputs) != 1:
            results = f"({results})"
        return f"{self.name}({', '.join(map(str, self.inputs))}) -> {results}"

    def __repr__(self) -> str:
        return f"<Signature {self}>"


def _scan(text: str):
    """Yield (index, char, depth) outside string literals; depth counts open brackets, `->` aside."""
    depth, i, quoted = 0, 0, False
    while i < len(text):
        c = text[i]
        if quoted:
            quoted = c != '"'
            i += 2 if c == "\\" else 1
            continue
        if c == '"':
            quoted = True
        elif text.startswith("->", i):
            i += 2
            continue
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        yield i, c, depth
        i += 1


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at `sep` where no bracket or string is open."""
    parts, start = [], 0
    for i, c, depth in _scan(text):
        if c == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    return parts + [tail] if tail or parts else parts


def _matching_paren(text: str, open_at: int) -> int:
    """Index of the bracket closing the one at `open_at`."""
    for i, c, depth in _scan(text[open_at:]):
        if depth == 0 and c in _CLOSE:
            return open_at + i
    raise ValueError("unbalanced brackets")


def _attributes(text: str) -> dict[str, str]:
    """`{a = x, b}` -> {"a": "x", "b": ""}."""
    body = text.strip()[1:-1] if text.strip().startswith("{") else ""
    out = {}
    for item in split_top_level(body):
        key, _, value = item.partition("=")
        out[key.strip()] = value.strip()
    return out


def parse_type(type_text: str) -> tuple[str, tuple[int | None, ...], ElementType | None]:
    """Kind, shape and element type of `tensor<4x?xf32>`, of a VM scalar like `i32`, or of anything else."""
    if type_text in _SCALARS:
        return "scalar", (), dtypes.from_mlir(type_text)
    m = _TENSOR.fullmatch(type_text)
    element = m and dtypes.from_mlir(split_top_level(m.group(2))[0])  # drop a trailing `, #encoding`
    if not element:
        return "other", (), None
    return "tensor", tuple(None if d == "?" else int(d) for d in m.group(1).split("x")[:-1]), element


def _value(item: str, default_name: str) -> ValueSpec:
    """One `%name: type {attrs}` entry of a declaration."""
    name, rest = item.partition(":")[::2] if item.startswith("%") else (default_name, item)
    rest = rest.strip()
    attrs_at = next((i for i, c, depth in _scan(rest) if c == "{" and depth == 1), len(rest))
    type_text = _attributes(rest[attrs_at:]).get("iree.abi.encoding", rest[:attrs_at]).strip()
    return ValueSpec(name.strip(), type_text, *parse_type(type_text))


def parse_declaration(text: str, model: str | None = None) -> Signature:
    """Parse an `iree.abi.declaration` string; raises ValueError when it is not one."""
    head = _HEAD.match(text)
    if not head:
        raise ValueError(f"not a function declaration: {text!r}")
    close = _matching_paren(text, head.end() - 1)
    inputs = [_value(a, f"%input{i}") for i, a in enumerate(split_top_level(text[head.end() : close]))]
    rest = text[close + 1 :].strip()
    outputs = []
    if rest.startswith("->"):
        rest = rest[2:].strip()
        if rest.startswith("("):
            rest = rest[1 : _matching_paren(rest, 0)]
        outputs = [_value(r, f"%output{i}") for i, r in enumerate(split_top_level(rest))]
    name = head.group(2).strip('"')
    kind = "async" if head.group(1) == "async" or model == "coarse-fences" else "sync"
    return Signature(name, tuple(inputs), tuple(outputs), kind)


def from_reflection(name: str, reflection: dict) -> Signature | None:
    """The signature recorded in a VmFunction's reflection, or None when there is none usable."""
    text = reflection.get("iree.abi.declaration")
    if not text:
        return None
    try:
        sig = parse_declaration(text, reflection.get("iree.abi.model"))
    except ValueError:
        return None
    return sig if sig.name == name else Signature(name, sig.inputs, sig.outputs, sig.model)
