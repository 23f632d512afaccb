"""The PyTorch operator table: each ATen (or Python) operator torch.export emits, and its StableHLO translation.

An operator is declared once, next to its translation, with `@translates`:

    @translates("aten.mm.default")
    def mm(cx, a, b):
        return ...

The translation receives the `Lowering` (the node being lowered, its traced
result `cx.out`, the run-time symbolic sizes) and the operator's arguments in
the order of its schema, with defaults filled in: tensors as
`oxla.builder.Tensor`s, symbolic ints as `Sym`s, everything else as torch
passed it. An optional `check(args)` sees the same arguments as torch.fx
nodes and constants before anything is lowered and names an unsupported
variant (`"training mode"`), which then goes into the one
`UnsupportedOperatorsError`. One family of operators per module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch


@dataclass(frozen=True)
class Translation:
    """One operator: its name, the function that lowers it, its family, and what it does not cover."""

    name: str
    lower: Callable
    family: str
    note: str = ""
    check: Callable | None = None

    @property
    def status(self) -> str:
        """"supported", or "partial" when some arguments are rejected by `check`."""
        return "partial" if self.check is not None else "supported"


OPS: dict[str, Translation] = {}

# Operators known not to translate, with the reason (shown in the coverage table).
UNSUPPORTED: dict[str, str] = {
    "aten.nonzero.default": "the result's size depends on the data",
    "aten.masked_select.default": "the result's size depends on the data",
    "aten.unique.default": "the result's size depends on the data",
    "aten.lstm.input": "recurrent layers: export them unrolled or as loops (torch.cond/while_loop are not translated)",
    "higher_order.cond": "control flow in the graph is not translated",
    "higher_order.while_loop": "control flow in the graph is not translated",
}


def translates(*names: str, note: str = "", check: Callable | None = None):
    """Decorator: declares `fn` as the translation of the operators `names`."""
    def register(fn):
        family = fn.__module__.rsplit(".", 1)[-1]
        for name in names:
            if name in OPS:
                raise ValueError(f"{name} is translated twice: by {OPS[name].lower.__qualname__} and {fn.__qualname__}")
            OPS[name] = Translation(name, fn, family, note, check)
        return fn
    return register


def output_unused(index: int, what: str) -> Callable:
    """A check for an op whose result `index` is not computed: it translates while nothing reads that result."""
    def check(node, args):
        used = any(u.args[1:2] == (index,) and u.users for u in node.users)
        return f"its {what} output is used" if used else None
    return check


def first_failure(*checks: Callable) -> Callable:
    """A check that applies `checks` in order and reports the first rejection."""
    def check(node, args):
        return next((r for r in (c(node, args) for c in checks) if r), None)
    return check


def op_name(target) -> str:
    """The table's name for an FX call target: "aten.add.Tensor", "operator.getitem", "higher_order.cond"."""
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"higher_order.{target.name()}"
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", repr(target))
    if module in ("_operator", "operator"):
        return f"operator.{name}"
    return f"{module}.{name}" if module else name


def bind(target, args, kwargs) -> list:
    """The call's arguments in schema order with defaults filled in (as given for targets without a schema)."""
    schema = getattr(target, "_schema", None)
    if schema is None:
        return list(args) + list(kwargs.values())
    bound = []
    for i, a in enumerate(schema.arguments):
        if i < len(args):
            bound.append(args[i])
        elif a.name in kwargs:
            bound.append(kwargs[a.name])
        elif a.has_default_value():
            bound.append(a.default_value)
        else:
            bound.append(None)
    return bound


def coverage_rows() -> list[dict]:
    """One row per operator for the generated docs: {"op", "status", "note"}, translated ones first."""
    rows = [{"op": t.name, "status": t.status, "note": t.note, "family": t.family}
            for t in sorted(OPS.values(), key=lambda t: (t.family, t.name))]
    rows += [{"op": name, "status": "unsupported", "note": reason, "family": ""}
             for name, reason in sorted(UNSUPPORTED.items()) if name not in OPS]
    return rows


from oxla.importers.torch_ops import (  # noqa: E402,F401  (each family fills OPS)
    activations, attention, convolution, creation, elementwise, indexing, linalg, normalization, reduction, shape,
    symbolic)
