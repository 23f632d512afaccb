"""Element-wise arithmetic, math functions, comparisons, logic, where/masked_fill and clamp.

Operands are converted to the dtype torch computed for the result (or, for
comparisons, to the dtype torch promotes the operands to) and broadcast to
the result's shape; Python scalars and symbolic ints take part as constants.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from oxla import ir
from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import translates
from oxla.importers.torch_ops.lowering import (
    Sym, broadcast, convert, dims_of, dtype_of, element, floor_divide, full, is_float, remainder_needs_adjusting,
    scalar)


def operands(cx, xs, dtype: str, dims=None) -> list[Tensor]:
    """Each operand (tensor, Python scalar or Sym) as `dtype`, broadcast to `dims` (default: the result's)."""
    dims = cx.out_dims() if dims is None else dims
    return [broadcast(convert(x, dtype) if isinstance(x, Tensor) else scalar(x, dtype), dims) for x in xs]


def promoted(*xs) -> str:
    """The element type torch computes a binary op of these operands in (its type promotion rules)."""
    def stand_in(x):
        if isinstance(x, Tensor):
            return torch.empty([1] * min(x.ndim, 1), dtype=dtype_of(x))
        return x.kind(1) if isinstance(x, Sym) else x
    a, b = (stand_in(x) for x in xs)
    return element(torch.result_type(a, b))


def like(t: Tensor, value) -> Tensor:
    """A constant of t's dtype and shape."""
    return full(dims_of(t), value, t.dtype)


def chlo(name: str, x: Tensor) -> Tensor:
    """A CHLO element-wise op (IREE's input pipeline expands these, e.g. erf as a polynomial)."""
    try:
        loc = ir.Location.current
    except ValueError:
        loc = None
    op = ir.Operation.create(f"chlo.{name}", results=[x.type], operands=[x.value], loc=loc or ir.Location.unknown())
    return Tensor(op.results[0])


# Binary arithmetic ------------------------------------------------------------------------------------------------

def python_mod(x: Tensor, y: Tensor) -> Tensor:
    """x mod y with the sign of y (torch.remainder)."""
    r = shlo.remainder(x, y)
    if x.dtype.startswith("ui"):
        return r
    return shlo.select(remainder_needs_adjusting(r, y), shlo.add(r, y), r)


def _ignoring_nan(build, x: Tensor, y: Tensor) -> Tensor:
    """build(x, y), except that a NaN operand gives way to the other one (fmax, fmin)."""
    if not is_float(x.dtype):
        return build(x, y)
    both = build(x, y)
    return shlo.select(shlo.compare(x, x, "NE"), y, shlo.select(shlo.compare(y, y, "NE"), x, both))


def trunc(x: Tensor) -> Tensor:
    """Rounds toward zero (integers unchanged)."""
    if not is_float(x.dtype):
        return x
    return shlo.select(shlo.compare(x, like(x, 0), "LT"), shlo.ceil(x), shlo.floor(x))


def divide(x: Tensor, y: Tensor, rounding_mode=None) -> Tensor:
    """x / y with torch's rounding modes (None: true division; "trunc"; "floor")."""
    if rounding_mode is None or rounding_mode == "trunc":
        q = shlo.divide(x, y)
        return trunc(q) if rounding_mode == "trunc" else q
    if is_float(x.dtype):
        return shlo.floor(shlo.divide(x, y))
    return floor_divide(x, y)


# aten name -> builder of two operands in the result's dtype
_BINARY = {
    "add": shlo.add, "sub": shlo.subtract, "mul": shlo.multiply, "maximum": shlo.maximum, "minimum": shlo.minimum,
    "fmod": shlo.remainder, "remainder": python_mod, "atan2": shlo.atan2,
    "bitwise_and": shlo.and_, "__and__": shlo.and_, "bitwise_or": shlo.or_, "__or__": shlo.or_,
    "bitwise_xor": shlo.xor, "__xor__": shlo.xor, "floor_divide": lambda x, y: divide(x, y, "floor"),
    "bitwise_left_shift": shlo.shift_left, "__lshift__": shlo.shift_left, "max": shlo.maximum, "min": shlo.minimum,
    "fmax": lambda x, y: _ignoring_nan(shlo.maximum, x, y), "fmin": lambda x, y: _ignoring_nan(shlo.minimum, x, y),
    "hypot": lambda x, y: shlo.sqrt(shlo.add(shlo.multiply(x, x), shlo.multiply(y, y))),
    "xlogy": lambda x, y: shlo.select(shlo.and_(shlo.compare(x, like(x, 0), "EQ"), shlo.compare(y, y, "EQ")),
                                      like(x, 0), shlo.multiply(x, shlo.log(y))),
}
_OVERLOADS = {
    "add": ("Tensor", "Scalar"), "sub": ("Tensor", "Scalar"), "mul": ("Tensor", "Scalar"),
    "maximum": ("default",), "minimum": ("default",), "fmod": ("Tensor", "Scalar"),
    "remainder": ("Tensor", "Scalar", "Scalar_Tensor"), "atan2": ("default",), "floor_divide": ("default", "Scalar"),
    "bitwise_left_shift": ("Tensor", "Tensor_Scalar"), "__lshift__": ("Tensor", "Scalar"),
    "fmax": ("default",), "fmin": ("default",), "max": ("other",), "min": ("other",), "hypot": ("default",),
    "xlogy": ("Tensor", "Scalar_Other"),
}


def _binary(build):
    """The translation of a binary op; `alpha` (add, sub) scales the second operand."""
    def lower(cx, a, b, alpha=1, *_):
        x, y = operands(cx, [a, b], cx.out_dtype)
        if alpha != 1:
            y = shlo.multiply(y, operands(cx, [alpha], cx.out_dtype)[0])
        return build(x, y)
    return lower


for _name, _build in _BINARY.items():
    translates(*[f"aten.{_name}.{o}" for o in _OVERLOADS.get(_name, ("Tensor", "Scalar"))])(_binary(_build))


@translates("aten.rsub.Tensor", "aten.rsub.Scalar")
def rsub(cx, a, b, alpha=1, *_):
    """b - alpha * a."""
    return _binary(shlo.subtract)(cx, b, a, alpha)


@translates("aten.bitwise_right_shift.Tensor", "aten.bitwise_right_shift.Tensor_Scalar", "aten.__rshift__.Tensor",
            "aten.__rshift__.Scalar")
def right_shift(cx, a, b, *_):
    """a >> b: arithmetic for signed integers, logical for unsigned ones."""
    x, y = operands(cx, [a, b], cx.out_dtype)
    return (shlo.shift_right_logical if x.dtype.startswith("ui") else shlo.shift_right_arithmetic)(x, y)


@translates("aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode", "aten.div.Scalar_mode",
            "aten.true_divide.Tensor")
def div(cx, a, b, rounding_mode=None, *_):
    """a / b; rounding_mode "trunc" or "floor" rounds the quotient."""
    x, y = operands(cx, [a, b], cx.out_dtype)
    return divide(x, y, rounding_mode)


def _small_power(x: Tensor, n: int) -> Tensor:
    """x ** n for a small integer n by multiplication (exact for negative bases)."""
    if n == 0:
        return like(x, 1)
    result = x
    for _ in range(abs(n) - 1):
        result = shlo.multiply(result, x)
    return shlo.divide(like(x, 1), result) if n < 0 else result


@translates("aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor", "aten.pow.Scalar")
def power(cx, base, exponent, *_):
    """base ** exponent; small integer exponents multiply, 0.5 and -0.5 are sqrt and rsqrt."""
    dtype = cx.out_dtype
    if isinstance(exponent, (int, float)) and not isinstance(exponent, bool) and isinstance(base, Tensor):
        x, = operands(cx, [base], dtype)
        if float(exponent).is_integer() and abs(exponent) <= 4 and (exponent >= 0 or is_float(dtype)):
            return _small_power(x, int(exponent))
        if exponent in (0.5, -0.5) and is_float(dtype):
            return shlo.sqrt(x) if exponent > 0 else shlo.rsqrt(x)
    x, y = operands(cx, [base, exponent], dtype)
    return shlo.power(x, y)


# Unary math -------------------------------------------------------------------------------------------------------

def _round_integers_unchanged(build):
    """A rounding op that leaves integer tensors as they are."""
    return lambda x: build(x) if is_float(x.dtype) else x


_LN2, _LN10 = math.log(2.0), math.log(10.0)

# aten name -> builder of one operand in the result's dtype
_UNARY = {
    "exp": shlo.exponential, "expm1": shlo.exponential_minus_one, "log": shlo.log, "log1p": shlo.log_plus_one,
    "sqrt": shlo.sqrt, "rsqrt": shlo.rsqrt, "sin": shlo.sine, "cos": shlo.cosine, "tan": shlo.tan,
    "tanh": shlo.tanh, "sigmoid": shlo.logistic, "neg": shlo.negate, "abs": shlo.abs, "sign": shlo.sign,
    "bitwise_not": shlo.not_, "reciprocal": lambda x: shlo.divide(like(x, 1), x),
    "exp2": lambda x: shlo.exponential(shlo.multiply(x, like(x, _LN2))),
    "log2": lambda x: shlo.divide(shlo.log(x), like(x, _LN2)),
    "log10": lambda x: shlo.divide(shlo.log(x), like(x, _LN10)),
    "floor": _round_integers_unchanged(shlo.floor), "ceil": _round_integers_unchanged(shlo.ceil),
    "round": _round_integers_unchanged(shlo.round_nearest_even), "trunc": trunc, "fix": trunc,
    "erf": lambda x: chlo("erf", x), "erfinv": lambda x: chlo("erf_inv", x),
    "asin": lambda x: chlo("asin", x), "acos": lambda x: chlo("acos", x), "atan": lambda x: chlo("atan", x),
    "sinh": lambda x: chlo("sinh", x), "cosh": lambda x: chlo("cosh", x), "asinh": lambda x: chlo("asinh", x),
    "acosh": lambda x: chlo("acosh", x), "atanh": lambda x: chlo("atanh", x),
    "lgamma": lambda x: chlo("lgamma", x), "digamma": lambda x: chlo("digamma", x),
    "erfc": lambda x: chlo("erfc", x), "sgn": shlo.sign, "square": lambda x: shlo.multiply(x, x),
    "frac": lambda x: shlo.subtract(x, trunc(x)),
}


# the functions torch.special spells as separate operators
_SPECIAL = {"erf", "erfc", "erfinv", "expm1", "exp2", "log1p", "digamma"}


def _unary(build):
    """The translation of a unary op computed in the result's dtype."""
    def lower(cx, a, *_):
        x, = operands(cx, [a], cx.out_dtype)
        return build(x)
    return lower


for _name, _build in _UNARY.items():
    translates(f"aten.{_name}.default", *[f"aten.special_{_name}.default" for _ in [1] if _name in _SPECIAL])(
        _unary(_build))


@translates("aten.logit.default")
def logit(cx, a, eps=None, *_):
    """log(x / (1 - x)), with x clamped to [eps, 1 - eps] when eps is given."""
    x, = operands(cx, [a], cx.out_dtype)
    if eps is not None:
        x = shlo.clamp(like(x, eps), x, like(x, 1 - eps))
    return shlo.log(shlo.divide(x, shlo.subtract(like(x, 1), x)))


@translates("aten.nan_to_num.default")
def nan_to_num(cx, a, nan=None, posinf=None, neginf=None, *_):
    """NaN and infinities replaced by finite numbers (by default 0 and the dtype's largest and lowest)."""
    x, = operands(cx, [a], cx.out_dtype)
    if not is_float(x.dtype):
        return x
    info = torch.finfo(dtype_of(x))
    x = shlo.select(shlo.compare(x, x, "NE"), like(x, 0.0 if nan is None else nan), x)
    x = shlo.select(shlo.compare(x, like(x, np.inf), "EQ"), like(x, info.max if posinf is None else posinf), x)
    return shlo.select(shlo.compare(x, like(x, -np.inf), "EQ"), like(x, info.min if neginf is None else neginf), x)


@translates("aten.threshold.default")
def threshold(cx, a, limit, value, *_):
    """x where x > limit, else value."""
    x, = operands(cx, [a], cx.out_dtype)
    return shlo.select(shlo.compare(x, like(x, limit), "GT"), x, like(x, value))


@translates("aten.hardshrink.default")
def hardshrink(cx, a, lambd=0.5, *_):
    """x where |x| > lambd, else 0."""
    x, = operands(cx, [a], cx.out_dtype)
    return shlo.select(shlo.compare(shlo.abs(x), like(x, lambd), "GT"), x, like(x, 0))


@translates("aten.softshrink.default")
def softshrink(cx, a, lambd=0.5, *_):
    """x moved toward 0 by lambd, and 0 within [-lambd, lambd]."""
    x, = operands(cx, [a], cx.out_dtype)
    shrunk = shlo.subtract(x, shlo.multiply(shlo.sign(x), like(x, lambd)))
    return shlo.select(shlo.compare(shlo.abs(x), like(x, lambd), "GT"), shrunk, like(x, 0))


@translates("aten.round.decimals")
def round_decimals(cx, a, decimals=0, *_):
    """Rounds half to even at `decimals` decimal places."""
    x, = operands(cx, [a], cx.out_dtype)
    scale = like(x, 10.0 ** decimals)
    return shlo.divide(shlo.round_nearest_even(shlo.multiply(x, scale)), scale)


# Predicates (computed on the operand's own dtype, giving bool) ----------------------------------------------------

def _is_inf(x: Tensor) -> Tensor:
    """|x| == inf."""
    return shlo.compare(shlo.abs(x), like(x, np.inf), "EQ")


# aten name -> (the test, its value for integer and boolean operands; None: apply the test to them too)
_PREDICATES = {
    "isnan": (lambda x: shlo.compare(x, x, "NE"), False),
    "isinf": (_is_inf, False),
    "isfinite": (shlo.is_finite, True),
    "isposinf": (lambda x: shlo.compare(x, like(x, np.inf), "EQ"), False),
    "isneginf": (lambda x: shlo.compare(x, like(x, -np.inf), "EQ"), False),
    "logical_not": (lambda x: shlo.not_(convert(x, "i1")), None),
}


def _predicate(test, integer_value):
    """The translation of a predicate giving bool."""
    def lower(cx, a, *_):
        if integer_value is not None and not is_float(a.dtype):
            return full(dims_of(a), integer_value, "i1")
        return test(a)
    return lower


for _name, (_test, _integer_value) in _PREDICATES.items():
    translates(f"aten.{_name}.default")(_predicate(_test, _integer_value))


# Comparisons and logic --------------------------------------------------------------------------------------------

_DIRECTIONS = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}


def _comparison(direction: str):
    """The translation of a comparison, computed in the operands' promoted dtype."""
    def lower(cx, a, b, *_):
        x, y = operands(cx, [a, b], promoted(a, b))
        return shlo.compare(x, y, direction)
    return lower


for _name, _direction in _DIRECTIONS.items():
    translates(f"aten.{_name}.Tensor", f"aten.{_name}.Scalar")(_comparison(_direction))

_LOGICAL = {"logical_and": shlo.and_, "logical_or": shlo.or_, "logical_xor": shlo.xor}


def _logical(build):
    """The translation of a logical op: operands as booleans (non-zero), result cast to torch's dtype."""
    def lower(cx, a, b, *_):
        x, y = operands(cx, [a, b], "i1")
        return convert(build(x, y), cx.out_dtype)
    return lower


for _name, _build in _LOGICAL.items():
    translates(f"aten.{_name}.default")(_logical(_build))


@translates("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther", "aten.where.Scalar")
def where(cx, condition, a, b, *_):
    """a where condition, else b."""
    c, = operands(cx, [condition], "i1")
    x, y = operands(cx, [a, b], cx.out_dtype)
    return shlo.select(c, x, y)


@translates("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def masked_fill(cx, x, mask, value, *_):
    """x with `value` where mask is true."""
    return where(cx, mask, value, x)


@translates("aten.clamp.default", "aten.clamp.Tensor", "aten.clip.default", "aten.clip.Tensor")
def clamp(cx, a, lo=None, hi=None, *_):
    """a limited to [lo, hi] (either may be None); NaN stays NaN."""
    x, = operands(cx, [a], cx.out_dtype)
    if lo is not None:
        x = shlo.maximum(x, operands(cx, [lo], cx.out_dtype)[0])
    if hi is not None:
        x = shlo.minimum(x, operands(cx, [hi], cx.out_dtype)[0])
    return x


@translates("aten.clamp_min.default", "aten.clamp_min.Tensor")
def clamp_min(cx, a, lo, *_):
    """max(a, lo)."""
    return clamp(cx, a, lo, None)


@translates("aten.clamp_max.default", "aten.clamp_max.Tensor")
def clamp_max(cx, a, hi, *_):
    """min(a, hi)."""
    return clamp(cx, a, None, hi)


@translates("aten.lerp.Scalar", "aten.lerp.Tensor")
def lerp(cx, start, end, weight, *_):
    """start + weight * (end - start)."""
    s, e, w = operands(cx, [start, end, weight], cx.out_dtype)
    return shlo.add(s, shlo.multiply(w, shlo.subtract(e, s)))


@translates("aten.addcmul.default")
def addcmul(cx, a, t1, t2, value=1, *_):
    """a + value * t1 * t2."""
    x, y, z, v = operands(cx, [a, t1, t2, value], cx.out_dtype)
    return shlo.add(x, shlo.multiply(v, shlo.multiply(y, z)))


@translates("aten.addcdiv.default")
def addcdiv(cx, a, t1, t2, value=1, *_):
    """a + value * t1 / t2."""
    x, y, z, v = operands(cx, [a, t1, t2, value], cx.out_dtype)
    return shlo.add(x, shlo.multiply(v, shlo.divide(y, z)))

