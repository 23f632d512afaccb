"""Identities: operations that give back an operand or a constant whatever the other operand holds.

Float rules hold bit for bit, NaN and -0.0 included, unless marked fast_math.
Every rule replaces an op only by a value of exactly the op's result type, so
a result type refined differently from the operands' makes it decline.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.transforms.simplify.rule import defining, element_kind, full_like, is_exactly, rule, splat_of

FAMILY = "identities"


def _same_type(op, value) -> bool:
    """Whether `value` may stand for `op`'s result (the two types are identical)."""
    return value.type == op.result.type


def _replace_if_same_type(op, rw, value) -> bool:
    """Replaces `op` by `value` when their types match; False (declines) otherwise."""
    return _same_type(op, value) and rw.replace(op, value)


def _constant_result(op, rw, number) -> bool:
    """Replaces `op` by a splat constant of its result type holding `number` (declines on dynamic shapes)."""
    constant = full_like(op, op.result, number)
    return constant is not None and rw.replace(op, constant)


def _is_positive_complex_zero(value) -> bool:
    """Whether `value` is a splat complex constant 0.0 + 0.0i with both parts +0.0."""
    s = splat_of(value)
    return (s is not None and np.iscomplexobj(s) and s == 0
            and not np.signbit(s.real) and not np.signbit(s.imag))


def _is_complex_zero(value) -> bool:
    """Whether `value` is a splat complex constant zero (either sign on either part)."""
    s = splat_of(value)
    return s is not None and np.iscomplexobj(s) and s == 0


def _is_all_ones(value) -> bool:
    """Whether `value` is a splat integer or boolean constant with every bit set (true, -1, or 2^n - 1)."""
    s = splat_of(value)
    if s is None:
        return False
    e = ir.ShapedType(value.type).element_type
    if not isinstance(e, ir.IntegerType):
        return False
    e = ir.IntegerType(e)
    if e.width == 1:
        return bool(s)
    return int(s) == ((1 << e.width) - 1 if e.is_unsigned else -1)


def _pairs(op):
    """(kept, other) for both operand orders of a commutative binary op."""
    x, y = op.operands
    return ((x, y), (y, x))


_BITS = ("int", "bool")


def _identity_element(op, rw, kinds, is_identity) -> bool:
    """x op e -> x for a commutative op on elements of `kinds`, when either operand satisfies `is_identity`."""
    if element_kind(op.operands[0]) not in kinds:
        return False
    for value, other in _pairs(op):
        if is_identity(other):
            return _replace_if_same_type(op, rw, value)
    return False


def _absorbing_element(op, rw, kinds, is_absorbing) -> bool:
    """x op z -> z for a commutative op on elements of `kinds`, when either operand satisfies `is_absorbing`."""
    if element_kind(op.operands[0]) not in kinds:
        return False
    for _, other in _pairs(op):
        if is_absorbing(other):
            return _replace_if_same_type(op, rw, other)
    return False


# -- add ---------------------------------------------------------------------------------------------------------

@rule("stablehlo.add", family=FAMILY)
def add_zero(op, rw) -> bool:
    """x + 0 -> x for integers and booleans, and x + (-0.0) -> x for floats (x + 0.0 turns -0.0 into +0.0)."""
    return _identity_element(op, rw, ("int", "bool", "float"),
                             lambda v: is_exactly(v, -0.0 if element_kind(v) == "float" else 0))


@rule("stablehlo.add", family=FAMILY, fast_math=True)
def add_positive_zero_fast(op, rw) -> bool:
    """x + 0.0 -> x for floats under fast-math (exact except that -0.0 + 0.0 is +0.0)."""
    return _identity_element(op, rw, ("float",), lambda v: is_exactly(v, 0.0))


# -- multiply ----------------------------------------------------------------------------------------------------

@rule("stablehlo.multiply", family=FAMILY)
def multiply_one(op, rw) -> bool:
    """x * 1 -> x for integers, booleans and floats (1.0 * NaN is NaN, 1.0 * -0.0 is -0.0)."""
    # Complex (a + bi) * (1 + 0i) computes a*1 - b*0: +0.0 for a = b = -0.0, NaN for b = inf.
    return _identity_element(op, rw, ("int", "bool", "float"), lambda v: is_exactly(v, 1))


@rule("stablehlo.multiply", family=FAMILY, fast_math=True)
def multiply_one_fast(op, rw) -> bool:
    """Complex x * 1 -> x under fast-math (the cross terms turn infinite parts into NaN, -0.0 into +0.0)."""
    return _identity_element(op, rw, ("complex",), lambda v: is_exactly(v, 1))


@rule("stablehlo.multiply", family=FAMILY)
def multiply_zero(op, rw) -> bool:
    """x * 0 -> 0 for integers and booleans (exact: no NaN or infinity; floats need fast-math)."""
    return _absorbing_element(op, rw, _BITS, lambda v: is_exactly(v, 0))


@rule("stablehlo.multiply", family=FAMILY, fast_math=True)
def multiply_zero_fast(op, rw) -> bool:
    """Float or complex x * 0 -> 0 under fast-math (NaN * 0 and inf * 0 are NaN, -1.0 * 0.0 is -0.0)."""
    return _absorbing_element(op, rw, ("float", "complex"), lambda v: _is_complex_zero(v) if element_kind(v) == "complex"
                              else is_exactly(v, 0.0) or is_exactly(v, -0.0))


# -- subtract ----------------------------------------------------------------------------------------------------

@rule("stablehlo.subtract", family=FAMILY)
def subtract_self(op, rw) -> bool:
    """x - x -> 0 for integers and booleans (floats: inf - inf and NaN - NaN are NaN)."""
    x, y = op.operands
    if x != y or element_kind(x) not in ("int", "bool"):
        return False
    return _constant_result(op, rw, 0)


@rule("stablehlo.subtract", family=FAMILY, fast_math=True)
def subtract_self_fast(op, rw) -> bool:
    """Float or complex x - x -> 0 under fast-math (inf - inf and NaN - NaN are NaN)."""
    x, y = op.operands
    if x != y or element_kind(x) not in ("float", "complex"):
        return False
    return _constant_result(op, rw, 0)


@rule("stablehlo.subtract", family=FAMILY)
def subtract_zero(op, rw) -> bool:
    """x - 0 -> x for integers and booleans, x - (+0.0) -> x for floats and complex (-0.0 - 0.0 is -0.0)."""
    x, y = op.operands
    kind = element_kind(x)
    if kind in ("int", "bool"):
        applies = is_exactly(y, 0)
    elif kind == "float":
        applies = is_exactly(y, 0.0)
    elif kind == "complex":
        applies = _is_positive_complex_zero(y)
    else:
        return False
    return applies and _replace_if_same_type(op, rw, x)


@rule("stablehlo.subtract", family=FAMILY, fast_math=True)
def subtract_negative_zero_fast(op, rw) -> bool:
    """Float or complex x - (-0.0) -> x under fast-math (exact except that -0.0 - (-0.0) is +0.0)."""
    x, y = op.operands
    kind = element_kind(x)
    applies = (kind == "float" and is_exactly(y, -0.0)) or (kind == "complex" and _is_complex_zero(y))
    return applies and _replace_if_same_type(op, rw, x)


# -- divide and power ------------------------------------------------------------------------------------------

@rule("stablehlo.divide", family=FAMILY)
def divide_one(op, rw) -> bool:
    """x / 1 -> x for integers and floats (exact: NaN / 1.0 is NaN, -0.0 / 1.0 is -0.0); not complex division."""
    x, y = op.operands
    if element_kind(x) not in ("int", "float") or not is_exactly(y, 1):
        return False
    return _replace_if_same_type(op, rw, x)


@rule("stablehlo.power", family=FAMILY)
def power_one(op, rw) -> bool:
    """x ** 1 -> x for integers and floats (IEEE-754 pow(x, 1) is x, -0.0, infinities and NaN included)."""
    # Complex power is exp(y * log(x)), which rounds: it is left alone.
    x, y = op.operands
    if element_kind(x) not in ("int", "float") or not is_exactly(y, 1):
        return False
    return _replace_if_same_type(op, rw, x)


# -- bitwise and logical ----------------------------------------------------------------------------------------

def _bits(x) -> bool:
    """Whether `x` has integer or boolean elements (the ones and/or/xor/not take)."""
    return element_kind(x) in ("int", "bool")


@rule("stablehlo.and", family=FAMILY)
def and_zero(op, rw) -> bool:
    """x & 0 -> 0 for integers and booleans (every bit cleared)."""
    return _absorbing_element(op, rw, _BITS, lambda v: is_exactly(v, 0))


@rule("stablehlo.and", family=FAMILY)
def and_all_ones(op, rw) -> bool:
    """x & ~0 -> x for integers and booleans (every bit kept)."""
    return _identity_element(op, rw, _BITS, _is_all_ones)


@rule("stablehlo.and", family=FAMILY)
def and_self(op, rw) -> bool:
    """x & x -> x for integers and booleans (each bit and itself is that bit)."""
    x, y = op.operands
    return x == y and _bits(x) and _replace_if_same_type(op, rw, x)


@rule("stablehlo.or", family=FAMILY)
def or_zero(op, rw) -> bool:
    """x | 0 -> x for integers and booleans (every bit kept)."""
    return _identity_element(op, rw, _BITS, lambda v: is_exactly(v, 0))


@rule("stablehlo.or", family=FAMILY)
def or_all_ones(op, rw) -> bool:
    """x | ~0 -> ~0 for integers and booleans (every bit set)."""
    return _absorbing_element(op, rw, _BITS, _is_all_ones)


@rule("stablehlo.or", family=FAMILY)
def or_self(op, rw) -> bool:
    """x | x -> x for integers and booleans (each bit or itself is that bit)."""
    x, y = op.operands
    return x == y and _bits(x) and _replace_if_same_type(op, rw, x)


@rule("stablehlo.xor", family=FAMILY)
def xor_self(op, rw) -> bool:
    """x ^ x -> 0 for integers and booleans (every bit cancels)."""
    x, y = op.operands
    if x != y or not _bits(x):
        return False
    return _constant_result(op, rw, 0)


@rule("stablehlo.xor", family=FAMILY)
def xor_zero(op, rw) -> bool:
    """x ^ 0 -> x for integers and booleans (every bit kept)."""
    return _identity_element(op, rw, _BITS, lambda v: is_exactly(v, 0))


# -- unary involutions ----------------------------------------------------------------------------------------------

@rule("stablehlo.negate", family=FAMILY)
def negate_negate(op, rw) -> bool:
    """-(-x) -> x (exact: two sign flips for floats and complex, wrap-around twice for integers)."""
    inner = defining(op.operand, "stablehlo.negate")
    if inner is None:
        return False
    x = inner.operands[0]
    if element_kind(x) not in ("int", "float", "complex"):
        return False
    return _replace_if_same_type(op, rw, x)


@rule("stablehlo.not", family=FAMILY)
def not_not(op, rw) -> bool:
    """not(not x) -> x for integers and booleans (every bit flipped twice)."""
    inner = defining(op.operand, "stablehlo.not")
    if inner is None:
        return False
    x = inner.operands[0]
    return _bits(x) and _replace_if_same_type(op, rw, x)


# -- select -----------------------------------------------------------------------------------------------------

@rule("stablehlo.select", family=FAMILY)
def select_constant_predicate(op, rw) -> bool:
    """select(true, a, b) -> a and select(false, a, b) -> b for a splat constant predicate."""
    p = splat_of(op.pred)
    if p is None or element_kind(op.pred) != "bool":
        return False
    return _replace_if_same_type(op, rw, op.on_true if bool(p) else op.on_false)


@rule("stablehlo.select", family=FAMILY)
def select_same_branches(op, rw) -> bool:
    """select(p, x, x) -> x (either choice gives the same value)."""
    return op.on_true == op.on_false and _replace_if_same_type(op, rw, op.on_true)


# -- compare, maximum, minimum ----------------------------------------------------------------------------------

_REFLEXIVE = {"EQ": True, "GE": True, "LE": True, "NE": False, "GT": False, "LT": False}


@rule("stablehlo.compare", family=FAMILY)
def compare_self(op, rw) -> bool:
    """compare(x, x): EQ/GE/LE -> true, NE/GT/LT -> false where every value equals itself (integers, TOTALORDER)."""
    # A FLOAT comparison of NaN with itself is false for EQ/GE/LE and true for NE: fast-math only.
    x, y = op.operands
    direction = op.comparison_direction
    if x != y or direction not in _REFLEXIVE:
        return False
    kind = element_kind(x)
    if not (kind in ("int", "bool") or (kind == "float" and op.compare_type == "TOTALORDER")):
        return False
    return _constant_result(op, rw, _REFLEXIVE[direction])


@rule("stablehlo.compare", family=FAMILY, fast_math=True)
def compare_self_fast(op, rw) -> bool:
    """Float or complex compare(x, x) -> the reflexive answer under fast-math (wrong for NaN)."""
    x, y = op.operands
    direction = op.comparison_direction
    if x != y or direction not in _REFLEXIVE or element_kind(x) not in ("float", "complex"):
        return False
    return _constant_result(op, rw, _REFLEXIVE[direction])


@rule("stablehlo.maximum", family=FAMILY)
def maximum_self(op, rw) -> bool:
    """max(x, x) -> x for every element type (NaN stays that NaN, -0.0 stays -0.0)."""
    x, y = op.operands
    return x == y and element_kind(x) != "other" and _replace_if_same_type(op, rw, x)


@rule("stablehlo.minimum", family=FAMILY)
def minimum_self(op, rw) -> bool:
    """min(x, x) -> x for every element type (NaN stays that NaN, -0.0 stays -0.0)."""
    x, y = op.operands
    return x == y and element_kind(x) != "other" and _replace_if_same_type(op, rw, x)
