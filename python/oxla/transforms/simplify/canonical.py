"""Canonical forms: constant operands of commutative ops and comparisons go to the right-hand side.

With one form for `c + x` and `x + c`, later rules look at one operand order
and CSE sees `x * 2` twice where the program wrote `2 * x` once. Swapping
operands changes nothing: the ops below are commutative for every element
type they take (IEEE-754 addition, multiplication, maximum and minimum are,
NaN aside, whose payload no rule promises), and a comparison with mirrored
direction is the same predicate. An op whose operands are both constants
is left alone, so the rules cannot undo each other or loop.
"""

from __future__ import annotations

from oxla.dialects import stablehlo as shlo
from oxla.transforms.simplify.rule import defining, rule

FAMILY = "canonical"

_BUILDERS = {
    "stablehlo.add": shlo.add, "stablehlo.multiply": shlo.multiply,
    "stablehlo.maximum": shlo.maximum, "stablehlo.minimum": shlo.minimum,
    "stablehlo.and": shlo.and_, "stablehlo.or": shlo.or_, "stablehlo.xor": shlo.xor,
}

# The direction of `y ? x` that is the same predicate as `x ? y`.
_MIRRORED = {"EQ": "EQ", "NE": "NE", "LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE"}


def _is_constant(value) -> bool:
    """Whether `value` is the result of a `stablehlo.constant`."""
    return defining(value, "stablehlo.constant") is not None


def _constant_on_left(op) -> bool:
    """Whether the lhs is a constant and the rhs is not (the one case the rules swap)."""
    lhs, rhs = op.operands
    return _is_constant(lhs) and not _is_constant(rhs)


@rule("stablehlo.add", family=FAMILY)
@rule("stablehlo.multiply", family=FAMILY)
@rule("stablehlo.maximum", family=FAMILY)
@rule("stablehlo.minimum", family=FAMILY)
@rule("stablehlo.and", family=FAMILY)
@rule("stablehlo.or", family=FAMILY)
@rule("stablehlo.xor", family=FAMILY)
def constant_to_rhs(op, rw) -> bool:
    """op(c, x) -> op(x, c) for commutative ops with a constant lhs and a non-constant rhs (same value)."""
    if not _constant_on_left(op):
        return False
    build = _BUILDERS[op.operation.name]
    lhs, rhs = op.operands
    return rw.replace(op, rw.build(op, lambda: build(rhs, lhs, result_types=[op.result.type])))


@rule("stablehlo.compare", family=FAMILY)
def compare_constant_to_rhs(op, rw) -> bool:
    """compare(c, x, LT) -> compare(x, c, GT), and so on: the mirrored direction is the same predicate."""
    direction = op.comparison_direction
    if direction not in _MIRRORED or not _constant_on_left(op):
        return False
    lhs, rhs = op.operands
    compare_type = op.compare_type
    return rw.replace(op, rw.build(op, lambda: shlo.compare(
        rhs, lhs, comparison_direction=_MIRRORED[direction], compare_type=compare_type,
        result_types=[op.result.type])))
