"""Declaring algebraic-simplification rules: one small function per rewrite, with its own examples.

    @rule("stablehlo.multiply", family="identities")
    def multiply_one(op, rw):
        '''x * 1 -> x (exact for every type: 1.0 * NaN is NaN, 1.0 * -0.0 is -0.0).'''
        ...
        return rw.replace(op, x)

A rule returns True when it rewrote `op` (through the `Rewrite` helper, which
builds new ops just before `op`, at its location) and False when the pattern
does not apply; it declines anything it does not understand rather than
failing. `fast_math=True` rules change results for NaN, infinities, -0.0 or
rounding and only run under `oxla-simplify-stablehlo{fast-math=true}`.

Each rule's cases live in test/lit/transforms/simplify/<family>.mlir, marked
`// rule: <name> applies` or `// rule: <name> keeps`: FileCheck checks the
rewrite, and a differential test evaluates every case before and after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from oxla import ir
from oxla.dialects.elements import constant_value, splat_element


@dataclass(frozen=True)
class Rule:
    """One rewrite: the op it roots on, its family, the function, and whether it needs fast-math."""

    root: str
    family: str
    fn: Callable
    fast_math: bool = False

    @property
    def name(self) -> str:
        """The function's name, which names the rule."""
        return self.fn.__name__

    @property
    def doc(self) -> str:
        """The first line of the rule's docstring."""
        return (self.fn.__doc__ or "").strip().splitlines()[0]


RULES: list[Rule] = []


def rule(root: str, *, family: str, fast_math: bool = False):
    """Decorator declaring a rule rooted on ops named `root`."""
    def declare(fn):
        RULES.append(Rule(root, family, fn, fast_math))
        return fn
    return declare


class Rewrite:
    """What a rule uses to change the IR: replace an op by values built just before it, at its location."""

    def __init__(self, rewriter):
        self.rewriter = rewriter

    def replace(self, op, *values) -> bool:
        """Replaces `op`'s results by `values` (ir.Values or builder results); True, for `return rw.replace(...)`."""
        flat = []
        for v in values:
            flat.extend(v if isinstance(v, (list, tuple)) else [v])
        self.rewriter.replace_op(op.operation if hasattr(op, "operation") else op,
                                 [getattr(v, "value", v) for v in flat])
        return True

    def build(self, op, make):
        """Builds with `make()` at `op` (insertion point just before it, its location); returns what make returns."""
        with ir.InsertionPoint(op.operation if hasattr(op, "operation") else op), op.location:
            return make()


# Matching helpers -------------------------------------------------------------------------------------------------

def defining(value, name: str | None = None):
    """The op (as its registered class) that defines `value`, or None for block arguments or another op name."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.opview if hasattr(owner, "opview") else owner
    if name is not None and op.operation.name != name:
        return None
    return op


def constant_of(value) -> np.ndarray | None:
    """The value of a `stablehlo.constant` feeding `value`, as numpy; None when it is not one (or unreadable)."""
    op = defining(value, "stablehlo.constant")
    if op is None:
        return None
    try:
        return constant_value(op)
    except (KeyError, ValueError):
        return None


def _splat_kind(op) -> bool | None:
    """Whether a constant's dense attribute is a splat; None when the bindings cannot say (complex values)."""
    try:
        attr = op.operation.attributes["value"]
    except (KeyError, TypeError):  # the bindings cannot hand complex dense attributes to Python
        return None
    return attr.is_splat if isinstance(attr, ir.DenseElementsAttr) else None


def splat_of(value):
    """The single element of a splat constant feeding `value` (a numpy scalar), or None.

    Large weights are never read; a known splat is read as one element."""
    op = defining(value, "stablehlo.constant")
    if op is None:
        return None
    kind = _splat_kind(op)
    if kind is False:
        return None
    shaped = ir.ShapedType(value.type)
    if kind and shaped.has_static_shape and 0 not in shaped.shape:
        try:
            return splat_element(op)
        except (KeyError, ValueError):
            return None
    array = constant_of(value)
    if array is None or array.size == 0:
        return None
    first = array.reshape(-1)[0]
    raw = array.reshape(-1).view(np.uint8).reshape(array.size, -1)
    return first if (raw == raw[0]).all() else None


def element_kind(value) -> str:
    """"int", "bool", "float", "complex" or "other" for a tensor value's element type."""
    e = ir.ShapedType(value.type).element_type
    if isinstance(e, ir.IntegerType):
        return "bool" if e.width == 1 else "int"
    if isinstance(e, ir.FloatType):
        return "float"
    if isinstance(e, ir.ComplexType):
        return "complex"
    return "other"


def is_exactly(value, number) -> bool:
    """Whether `value` is a splat constant equal to `number`; float zeros match only with the same sign."""
    s = splat_of(value)
    if s is None:
        return False
    if np.iscomplexobj(s):
        return bool(s == number)
    if s.dtype.kind == "f" or type(s).__name__ in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        return bool(float(s) == number and np.signbit(float(s)) == np.signbit(number))
    return bool(s == number)


def full_like(op, value, number):
    """A splat constant of `value`'s type holding `number`, built at `op`; None for dynamic shapes or odd types."""
    from oxla.dialects import stablehlo as shlo  # imported when a rule first builds: oxla-opt starts faster
    from oxla.dialects.stablehlo.types import element_of, shape_of, to_numpy_dtype

    dims = shape_of(value)
    try:
        dtype = to_numpy_dtype(element_of(value))
    except TypeError:
        return None
    if None in dims:
        return None
    with ir.InsertionPoint(op.operation if hasattr(op, "operation") else op), op.location:
        return shlo.constant(np.full(dims, number, dtype=dtype))
