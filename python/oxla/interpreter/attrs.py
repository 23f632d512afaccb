"""Reading op attributes generically (no StableHLO Python classes exist in the bindings).

Struct attributes such as `#stablehlo.gather<offset_dims = [1], ...>` are
read from their printed form; arrays from DenseI64ArrayAttr or the older
dense integer tensors.
"""

from __future__ import annotations

import re

import numpy as np

from oxla import ir
from oxla.dialects.elements import to_numpy

_FIELD = re.compile(r"(\w+)\s*=\s*(\[[^\]]*\]|-?\d+|true|false)")


def has(op, name: str) -> bool:
    """True when the op carries the attribute."""
    return name in op.attributes


def ints(op, name: str, default=None) -> list[int]:
    """An integer array attribute (array<i64: ...> or dense<...> : tensor<...>) as a list."""
    if name not in op.attributes:
        if default is None:
            raise ValueError(f"{op.name} has no '{name}' attribute")
        return list(default)
    attr = op.attributes[name]
    if isinstance(attr, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr)):
        return [int(v) for v in attr]
    if isinstance(attr, ir.DenseBoolArrayAttr):
        return [bool(v) for v in attr]
    if isinstance(attr, ir.ArrayAttr):
        return [int(ir.IntegerAttr(v).value) for v in attr]
    return [int(v) for v in to_numpy(attr).reshape(-1)]


def bools(op, name: str, default=None) -> list[bool]:
    """A boolean array attribute (array<i1: ...> or dense<[true, ...]>) as a list."""
    if name not in op.attributes:
        return list(default or [])
    attr = op.attributes[name]
    if isinstance(attr, ir.DenseBoolArrayAttr):
        return [bool(v) for v in attr]
    return [bool(v) for v in to_numpy(attr).reshape(-1)]


def integer(op, name: str, default: int | None = None) -> int:
    """An integer attribute's value."""
    if name not in op.attributes:
        if default is None:
            raise ValueError(f"{op.name} has no '{name}' attribute")
        return default
    return int(ir.IntegerAttr(op.attributes[name]).value)


def flag(op, name: str, default: bool = False) -> bool:
    """A boolean attribute (its default when absent)."""
    if name not in op.attributes:
        return default
    attr = op.attributes[name]
    return True if isinstance(attr, ir.UnitAttr) else bool(ir.BoolAttr(attr).value)


def string(op, name: str, default: str | None = None) -> str:
    """A string attribute's value."""
    if name not in op.attributes:
        if default is None:
            raise ValueError(f"{op.name} has no '{name}' attribute")
        return default
    return ir.StringAttr(op.attributes[name]).value


def symbol(op, name: str) -> str:
    """A flat symbol reference's name (`@f` -> "f")."""
    return ir.FlatSymbolRefAttr(op.attributes[name]).value


def enum(op, name: str, default: str | None = None) -> str | None:
    """The case of an enum attribute: `#stablehlo<comparison_direction GT>` -> "GT"."""
    if name not in op.attributes:
        return default
    return str(op.attributes[name]).split()[-1].rstrip(">")


def struct(op, name: str) -> dict:
    """The fields of a struct attribute such as `#stablehlo.scatter<...>` (lists, ints, bools)."""
    fields: dict = {}
    if name not in op.attributes:
        return fields
    for key, value in _FIELD.findall(str(op.attributes[name])):
        if value.startswith("["):
            fields[key] = [int(v) for v in value.strip("[]").split(",") if v.strip()]
        elif value in ("true", "false"):
            fields[key] = value == "true"
        else:
            fields[key] = int(value)
    return fields


def dense(op, name: str) -> np.ndarray | None:
    """A dense elements attribute as an array (None when absent)."""
    return to_numpy(op.attributes[name]) if name in op.attributes else None


def padding(op, rank: int, name: str = "padding") -> list[tuple[int, int]]:
    """(low, high) padding per dimension, zeros when absent."""
    values = dense(op, name)
    if values is None:
        return [(0, 0)] * rank
    return [(int(lo), int(hi)) for lo, hi in np.asarray(values).reshape(rank, 2)]


def location(op) -> str:
    """The op's location as `file:line:col` (or MLIR's own spelling when it is not a file location)."""
    text = str(op.location)
    match = re.search(r'"([^"]*)":(\d+):(\d+)', text)
    return f"{match.group(1)}:{match.group(2)}:{match.group(3)}" if match else text
