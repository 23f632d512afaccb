"""Identities: operations that give back an operand or a constant whatever the other operand holds.

Float rules hold bit for bit, NaN and -0.0 included, unless marked fast_math.
"""

from __future__ import annotations

from oxla.transforms.simplify.rule import element_kind, full_like, is_exactly, rule

FAMILY = "identities"


@rule("stablehlo.add", family=FAMILY)
def add_zero(op, rw) -> bool:
    """x + 0 -> x for integers and booleans, and x + (-0.0) -> x for floats (x + 0.0 turns -0.0 into +0.0)."""
    x, y = op.operands
    kind = element_kind(x)
    zero = -0.0 if kind in ("float", "complex") else 0
    for value, other in ((x, y), (y, x)):
        if is_exactly(other, zero) and kind != "complex":
            return rw.replace(op, value)
    return False


@rule("stablehlo.add", family=FAMILY, fast_math=True)
def add_positive_zero_fast(op, rw) -> bool:
    """x + 0.0 -> x for floats under fast-math (exact except that -0.0 + 0.0 is +0.0)."""
    x, y = op.operands
    if element_kind(x) != "float":
        return False
    for value, other in ((x, y), (y, x)):
        if is_exactly(other, 0.0):
            return rw.replace(op, value)
    return False


@rule("stablehlo.multiply", family=FAMILY)
def multiply_one(op, rw) -> bool:
    """x * 1 -> x (exact for every type: 1.0 * NaN is NaN, 1.0 * -0.0 is -0.0)."""
    x, y = op.operands
    if element_kind(x) == "other":
        return False
    for value, other in ((x, y), (y, x)):
        if is_exactly(other, 1):
            return rw.replace(op, value)
    return False


@rule("stablehlo.subtract", family=FAMILY)
def subtract_self(op, rw) -> bool:
    """x - x -> 0 for integers (floats: inf - inf and NaN - NaN are NaN)."""
    x, y = op.operands
    if x != y or element_kind(x) != "int":
        return False
    zero = full_like(op, x, 0)
    return zero is not None and rw.replace(op, zero)
