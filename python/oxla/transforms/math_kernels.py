"""Elementwise math built from StableHLO arithmetic: the kernels of oxla-expand-math.

A kernel emits the computation of one element on 0-d tensors (the body of a
stablehlo.map) in f64 with adds, multiplies, divides, square roots, compares,
selects, bit casts and integer ops, so IREE compiles it without libm. Results
come back as double-doubles (`DD`, an unevaluated sum hi + lo) where that
keeps them within about half an ulp of f64 until the one final rounding.
Tables (words of 2/pi, atan(j/8)) are read with selects on the index bits,
never a gather, so the body stays one vectorizable loop.

Two precision tiers: "f64" kernels keep ~2^-60 relative error for f64
results; "f32" kernels keep ~2^-46 for results rounded to f32 or narrower.
The polynomial coefficients and split constants come from
tools/fit_math_polynomials.py (the generated block below); the methods:

- sin/cos/tan: Payne-Hanek reduction by 2/pi (exact products of the input
  with 26- or 28-bit words of 2/pi, summed mod 4), then minimax polynomials
  on [-pi/4, pi/4]; tan divides sin by cos in double-double.
- exp/expm1: k = round(x/ln2), r = x - k*ln2 (ln2 in two parts), a polynomial
  for expm1(r), then scaling by 2^k in two exact steps.
- log/log1p: x = 2^e * m with m in [sqrt(1/2), sqrt(2)), s = (m-1)/(m+1),
  log(m) = 2s + 2s^3/3 + s^5 * P(s^2); log1p adds the rounding error of 1+x.
- atan2: |y/x| or |x/y| into [0, 1], then atan(t) = atan(j/8) + atan(u) with
  u = (t - j/8) / (1 + t*j/8) computed in double-double, then the quadrant.
- cbrt: exponent split by 3, a polynomial start, one Halley step, one Newton
  step with an exact residual.
- pow: exp(y * log|x|) with log in double-double, and C99's special cases.

Double-double steps are error-free transformations that stay exact whether
or not LLVM contracts a multiply and an add into an FMA (IREE does on CPUs
that have FMA): products are split by masking mantissa bits, never by
Veltkamp's multiply-and-subtract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

from oxla import ir

# BEGIN GENERATED TABLES
# Written by tools/fit_math_polynomials.py; rerun it (with --write) to regenerate.
# Constants, split into double parts where one double is not precise enough.
CONSTANTS = {
    "PIO2": (1.5707963267948966, 6.123233995736766e-17),
    "PIO2_PARTS": (1.5707963267341256, 6.077100506303966e-11, 2.0222662487111665e-21, 8.4784276603689e-32),
    "PI": (3.141592653589793, 1.2246467991473532e-16),
    "LN2": (0.6931471805598903, 5.497923018708371e-14),
    "LOG2E": 1.4426950408889634,
    "LN2_F32": (0.693145751953125, 1.428606765330187e-06),
    "TWO_THIRDS": (0.6666666666666666, 3.700743415417188e-17),
    "ATAN_EIGHTHS": (
        (0.0, 0.0), (0.12435499454676144, -3.1253241424539383e-18),
        (0.24497866312686414, 1.0698755618734451e-17), (0.35877067027057225, -2.4623815582638635e-17),
        (0.4636476090008061, 2.2698777452961687e-17), (0.5585993153435624, -5.4556305485916264e-18),
        (0.6435011087932844, 1.5834785051444286e-17), (0.7188299996216245, -2.1478388444456983e-17),
        (0.7853981633974483, 3.061616997868383e-17),
    ),
    "CBRT_STEPS": (1.0, 1.2599210498948732, 1.5874010519681996),
    "TWO_OVER_PI_26": (
        42722829, 48555073, 21659401, 56087029, 13858563, 28715353, 38736100, 4324945, 26128250, 62674459,
        29957006, 37899730, 58726692, 49193117, 6588223, 35515164, 46442140, 65964067, 24988590, 54822121,
        41009306, 54917092, 5137525, 37323603, 15192690, 4585659, 58608142, 52426903, 67074070, 25231090,
        63202006, 34237727, 28629499, 15891632, 40752081, 37709470, 25143477, 55737260, 33225084, 24853767,
        15195689, 19476134, 50255852, 18845021, 2185228, 50622407, 47901436, 13614112,
    ),
    "TWO_OVER_PI_28": (170891318, 240010261, 44024437, 131200308, 232525238, 43358524, 70845471, 240214955),
}
# name -> tier -> coefficients, lowest degree first.
POLYNOMIALS = {
    # sin(r) = r + r^3 * P(r^2), |r| <= pi/4
    "sin": {
        # f64: max relative error 6.3e-18
        "f64": (
            -0.16666666666666666, 0.008333333333333323, -0.000198412698412548, 2.7557319214064735e-06,
            -2.5052104881821628e-08, 1.6058363160949393e-10, -7.57854008886814e-13,
        ),
        # f32: max relative error 5e-15
        "f32": (
            -0.1666666666663035, 0.00833333332507762, -0.0001984126372854817, 2.7555339637913763e-06,
            -2.476045320339527e-08,
        ),
    },
    # cos(r) = 1 - r^2/2 + r^4 * P(r^2), |r| <= pi/4
    "cos": {
        # f64: max relative error 1.1e-18
        "f64": (
            0.041666666666666595, -0.0013888888888873056, 2.4801587288851463e-05, -2.7557314179225187e-07,
            2.0875700832005123e-09, -1.1358535993043028e-11,
        ),
        # f32: max relative error 9.4e-17
        "f32": (
            0.04166666666659654, -0.0013888888877611602, 2.4801580707239357e-05, -2.75555230953999e-07,
            2.0645117957233163e-09,
        ),
    },
    # atan(u) = u + u^3 * P(u^2), |u| <= 1/16
    "atan": {
        # f64: max relative error 1.6e-19
        "f64": (
            -0.3333333333333316, 0.19999999999372145, -0.14285713547764367, 0.11110732431060043,
            -0.09002606945947567,
        ),
        # f32: max relative error 1.8e-16
        "f32": (-0.3333333333318501, 0.19999999632043297, -0.1428543045405832, 0.11024748719860773),
    },
    # expm1(r) = r + r^2/2 + r^3 * P(r), |r| <= log(2)/2
    "expm1": {
        # f64: max relative error 1.8e-18
        "f64": (
            0.16666666666666677, 0.041666666666666574, 0.008333333333322136, 0.001388888888894278,
            0.0001984126988501389, 2.4801587198054193e-05, 2.755724521368992e-06, 2.7557387118933355e-07,
            2.5108717251726352e-08, 2.087891237353599e-09,
        ),
        # f32: max relative error 1.4e-15
        "f32": (
            0.16666666666632796, 0.04166666666690311, 0.008333333361730946, 0.001388888880221687,
            0.0001984119710267367, 2.480166712457093e-05, 2.7630194778673413e-06, 2.756204706088813e-07,
        ),
        # f32-ops: max relative error 1.1e-09
        "f32-ops": (
            0.1666666567325592, 0.041666481643915176, 0.0083334194496274, 0.001393327722325921,
            0.00019824116316158324,
        ),
    },
    # tanh(a) = a + a^3 * P(a^2), |a| <= 0.625
    "tanh": {
        # f32-ops: max relative error 8.6e-09
        "f32-ops": (
            -0.3333328068256378, 0.13331441581249237, -0.05373971536755562, 0.0206390880048275,
            -0.005704987328499556,
        ),
    },
    # log((1+s)/(1-s)) = 2s + 2s^3/3 + s^5 * P(s^2), |s| <= 3 - 2*sqrt(2)
    "log": {
        # f64: max relative error 2.1e-20
        "f64": (
            0.40000000000002256, 0.2857142857010058, 0.22222222519775722, 0.18181784377295843,
            0.15386756979667549, 0.13256823370066043, 0.13196298903947212,
        ),
        # f32: max relative error 1.7e-18
        "f32": (
            0.3999999999978097, 0.2857142867192999, 0.22222205037307613, 0.18183257548962678,
            0.15321323430022937, 0.14727794869646096,
        ),
        # f32-ops: max relative error 1.7e-09
        "f32-ops": (0.3998842239379883, 0.29622015357017517),
    },
    # cbrt(m) ~ P(m) on [1, 2]: the start of the Newton iterations
    "cbrt": {
        # f64: max relative error 1.2e-06
        "f64": (
            0.4733306782043173, 0.8381600364837366, -0.4692287236965574, 0.2027772322481601,
            -0.05038653995826275, 0.005348547680338549,
        ),
        # f32: max relative error 1.2e-06
        "f32": (
            0.4733306782043173, 0.8381600364837366, -0.4692287236965574, 0.2027772322481601,
            -0.05038653995826275, 0.005348547680338549,
        ),
    },
}
# END GENERATED TABLES


# -- building StableHLO ---------------------------------------------------------


class Builder:
    """Emits StableHLO ops on 0-d tensors (the body of a stablehlo.map) at the current insertion point."""

    def __init__(self) -> None:
        self._constants: dict[tuple, V] = {}
        self._bits: dict[tuple, V] = {}

    @staticmethod
    def tensor(element: str):
        """The 0-d tensor type of `element` ("f64", "i64", "i1", ...)."""
        return ir.RankedTensorType.get([], ir.Type.parse(element))

    def emit(self, name: str, operands: Sequence, element: str, attributes: dict | None = None) -> "V":
        """One op with a single 0-d result of `element`."""
        values = [o.value if isinstance(o, V) else o for o in operands]
        op = ir.Operation.create(name, results=[self.tensor(element)], operands=values, attributes=attributes or {})
        return V(self, op.result, element)

    def const(self, value, element: str = "f64") -> "V":
        """A constant (cached per builder)."""
        key = (element, repr(value))
        if key not in self._constants:
            etype = ir.Type.parse(element)
            integer = element[0] in "iu"
            scalar = ir.IntegerAttr.get(etype, int(value)) if integer else ir.FloatAttr.get(etype, float(value))
            attr = ir.DenseElementsAttr.get_splat(self.tensor(element), scalar)
            self._constants[key] = self.emit("stablehlo.constant", [], element, {"value": attr})
        return self._constants[key]

    def _bit(self, index: "V", s: int) -> "V":
        """Bit s of an integer index as i1, emitted once per builder."""
        key = (index.value, s)
        if key not in self._bits:
            self._bits[key] = ((index >> s) & 1).eq(1)
        return self._bits[key]

    def window(self, tables: Sequence[Sequence[float]], index: "V", count: int) -> list[list["V"]]:
        """table[index : index + count] for each table (index in [0, len - count]), by a barrel shifter.

        One select per entry still needed at each index bit, high bits first:
        no gather, so the kernel stays one elementwise loop that LLVM vectorizes.
        """
        size = len(tables[0])
        stages = max(1, (size - count).bit_length())
        zero = self.const(0.0)
        windows = []
        for values in tables:
            entries = [self.const(v) for v in values]
            for s in reversed(range(stages)):
                shift, bit = 1 << s, self._bit(index, s)
                entries = [select(bit, entries[i + shift] if i + shift < len(entries) else zero, entries[i])
                           for i in range(min(len(entries), count + shift - 1))]
            windows.append(entries[:count])
        return windows


_COMPARE_TYPE = {"f": "FLOAT", "i": "SIGNED", "u": "UNSIGNED"}


class V:
    """One 0-d tensor value with arithmetic operators that emit StableHLO ops."""

    __slots__ = ("b", "value", "element")

    def __init__(self, builder: Builder, value, element: str) -> None:
        self.b, self.value, self.element = builder, value, element

    def _other(self, other) -> "V":
        """other as a V: Python numbers become constants of this element type."""
        return other if isinstance(other, V) else self.b.const(other, self.element)

    def _binary(self, name: str, other, swap: bool = False) -> "V":
        """A two-operand op of this element type (operands swapped for the reflected operators)."""
        lhs, rhs = (self._other(other), self) if swap else (self, self._other(other))
        return self.b.emit(name, [lhs, rhs], self.element)

    def __add__(self, o): return self._binary("stablehlo.add", o)
    def __radd__(self, o): return self._binary("stablehlo.add", o, True)
    def __sub__(self, o): return self._binary("stablehlo.subtract", o)
    def __rsub__(self, o): return self._binary("stablehlo.subtract", o, True)
    def __mul__(self, o): return self._binary("stablehlo.multiply", o)
    def __rmul__(self, o): return self._binary("stablehlo.multiply", o, True)
    def __truediv__(self, o): return self._binary("stablehlo.divide", o)
    def __rtruediv__(self, o): return self._binary("stablehlo.divide", o, True)
    def __and__(self, o): return self._binary("stablehlo.and", o)
    def __or__(self, o): return self._binary("stablehlo.or", o)
    def __lshift__(self, o): return self._binary("stablehlo.shift_left", o)
    def __rshift__(self, o): return self._binary("stablehlo.shift_right_arithmetic", o)
    def __neg__(self): return self.b.emit("stablehlo.negate", [self], self.element)
    def __invert__(self): return self.b.emit("stablehlo.not", [self], self.element)

    def div_trunc(self, o) -> "V":
        """Integer division rounding toward zero (stablehlo.divide on integers)."""
        return self._binary("stablehlo.divide", o)

    def _compare(self, direction: str, other) -> "V":
        """stablehlo.compare in `direction`, typed by this element type."""
        attrs = {"comparison_direction": ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>"),
                 "compare_type": ir.Attribute.parse(f"#stablehlo<comparison_type {_COMPARE_TYPE[self.element[0]]}>")}
        return self.b.emit("stablehlo.compare", [self, self._other(other)], "i1", attrs)

    def lt(self, o): return self._compare("LT", o)
    def le(self, o): return self._compare("LE", o)
    def gt(self, o): return self._compare("GT", o)
    def ge(self, o): return self._compare("GE", o)
    def eq(self, o): return self._compare("EQ", o)
    def ne(self, o): return self._compare("NE", o)


def unary(name: str, x: V, element: str | None = None) -> V:
    """A one-operand StableHLO op on x."""
    return x.b.emit(name, [x], element or x.element)


def select(cond: V, a, b) -> V:
    """cond ? a : b per element (a or b may be Python numbers, f64 when both are)."""
    like = a if isinstance(a, V) else b if isinstance(b, V) else cond.b.const(a)
    a, b = like._other(a), like._other(b)
    return cond.b.emit("stablehlo.select", [cond, a, b], a.element)


def floor(x: V) -> V: return unary("stablehlo.floor", x)
def round_even(x: V) -> V: return unary("stablehlo.round_nearest_even", x)
def fabs(x: V) -> V: return unary("stablehlo.abs", x)
def sqrt(x: V) -> V: return unary("stablehlo.sqrt", x)
def is_finite(x: V) -> V: return unary("stablehlo.is_finite", x, "i1")
def is_nan(x: V) -> V: return x.ne(x)
def maximum(x: V, y) -> V: return x._binary("stablehlo.maximum", y)
def minimum(x: V, y) -> V: return x._binary("stablehlo.minimum", y)
def convert(x: V, element: str) -> V: return unary("stablehlo.convert", x, element)
def bitcast(x: V, element: str) -> V: return unary("stablehlo.bitcast_convert", x, element)
def signbit(x: V) -> V: return bitcast(x, _SAME_WIDTH_INT[x.element]).lt(0)
def copysign(x: V, sign: V) -> V: return select(signbit(sign), -fabs(x), fabs(x))


def signed_like(magnitude: V, sign: V) -> V:
    """`magnitude` (sign bit clear, or NaN) with `sign`'s sign bit: two bit operations, where copysign
    takes an absolute value, a negation and a select."""
    ints = _SAME_WIDTH_INT[magnitude.element]
    sign_bit = bitcast(sign, ints) & -(1 << (_WIDTH[ints] - 1))
    return bitcast(bitcast(magnitude, ints) | sign_bit, magnitude.element)
def clamp(x: V, lo: float, hi: float) -> V: return minimum(maximum(x, lo), hi)


_SAME_WIDTH_INT = {"f64": "i64", "f32": "i32"}
_WIDTH = {"i64": 64, "i32": 32}


def pow2(n: V) -> V:
    """2^n for an integer-valued f64 (or i64) n in [-1022, 1023]."""
    n = n if n.element == "i64" else convert(n, "i64")
    return bitcast((n + 1023) << 52, "f64")


def ldexp(x: V, k: V) -> V:
    """x * 2^k for integer-valued k in [-2000, 2000], in two exact steps (one rounding if subnormal)."""
    half = floor(k * 0.5)
    return x * pow2(half) * pow2(k - half)


def horner(x: V, coeffs: Sequence[float]) -> V:
    """sum(coeffs[i] * x^i), lowest degree first."""
    acc = x.b.const(coeffs[-1], x.element)
    for c in reversed(coeffs[:-1]):
        acc = acc * x + c
    return acc


def exponent_and_mantissa(x: V) -> tuple[V, V]:
    """(e, m) with x = m * 2^e, m in [1, 2), for positive normal x (e as i64)."""
    bits = bitcast(x, "i64")
    e = ((bits >> 52) & 0x7FF) - 1023
    m = bitcast((bits & 0x000FFFFFFFFFFFFF) | (1023 << 52), "f64")
    return e, m


# -- double-double arithmetic ---------------------------------------------------


class DD(NamedTuple):
    """An unevaluated sum hi + lo of two doubles."""

    hi: V
    lo: V

    def value(self) -> V:
        """hi + lo rounded to one double."""
        return self.hi + self.lo

    def __neg__(self) -> "DD":
        return DD(-self.hi, -self.lo)

    def scale(self, factor) -> "DD":
        """Both parts times a power of two (exact)."""
        return DD(self.hi * factor, self.lo * factor)


def dd(x: V) -> DD:
    """x as a double-double."""
    return DD(x, x.b.const(0.0))


def dd_select(cond: V, a: DD, b: DD) -> DD:
    """cond ? a : b for double-doubles."""
    return DD(select(cond, a.hi, b.hi), select(cond, a.lo, b.lo))


def two_sum(a: V, b: V) -> DD:
    """a + b exactly, as (rounded sum, error) (Knuth)."""
    s = a + b
    bb = s - a
    return DD(s, (a - (s - bb)) + (b - bb))


def fast_two_sum(a: V, b) -> DD:
    """a + b exactly when |a| >= |b| (Dekker)."""
    s = a + b
    return DD(s, b - (s - a))


def split(a: V) -> DD:
    """a as hi + lo with hi holding the top 26 significant bits (masking: safe under FMA contraction)."""
    hi = bitcast(bitcast(a, "i64") & ~((1 << 27) - 1), "f64")
    return DD(hi, a - hi)


def two_prod(a: V, b: V) -> DD:
    """a * b exactly, as (rounded product, error) (Dekker, with masked splits)."""
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    return DD(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)


def normalize(x: DD) -> DD:
    """x with |lo| at most half an ulp of hi (hi must be the larger part)."""
    return fast_two_sum(x.hi, x.lo)


def dd_add(a: DD, b: DD) -> DD:
    """a + b in double-double."""
    s = two_sum(a.hi, b.hi)
    return DD(s.hi, s.lo + a.lo + b.lo)


def dd_mul(a: DD, b: DD) -> DD:
    """a * b in double-double (for normalized operands: lo * lo is below the last bit)."""
    p = two_prod(a.hi, b.hi)
    return DD(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi))


def dd_div(n: DD, d: DD) -> DD:
    """n / d in double-double: one quotient and its exact-residual correction."""
    n, d = normalize(n), normalize(d)
    q = n.hi / d.hi
    p = two_prod(q, d.hi)
    rest = ((n.hi - p.hi) - p.lo) + (n.lo - q * d.lo)
    return DD(q, rest / d.hi)


def dd_sqrt(x: DD) -> DD:
    """sqrt(x) in double-double: one root and its exact-residual correction."""
    h = sqrt(x.hi)
    p = two_prod(h, h)
    safe = select(h.gt(0.0), h, 1.0)
    return DD(h, select(h.gt(0.0), (((x.hi - p.hi) - p.lo) + x.lo) / (safe * 2.0), 0.0))


def dd_ldexp(x: DD, k: V) -> DD:
    """x * 2^k, part by part."""
    return DD(ldexp(x.hi, k), ldexp(x.lo, k))


# -- tiers ------------------------------------------------------------------------


@dataclass(frozen=True)
class Tier:
    """A precision target: which polynomials, and whether to keep double-double detail."""

    name: str

    @property
    def dd(self) -> bool:
        """Whether kernels keep double-double detail (f64 results) or may skip it."""
        return self.name == "f64"

    def poly(self, name: str) -> tuple[float, ...]:
        """The tier's coefficients of one fitted polynomial."""
        return POLYNOMIALS[name][self.name]


F64, F32 = Tier("f64"), Tier("f32")
F32_OPS = Tier("f32-ops")  # kernels that compute in f32 itself
C = CONSTANTS


# -- sin, cos, tan ----------------------------------------------------------------------


def _mod4(t: V) -> V:
    """t mod 4, exact for the products the reductions make (their ulp is >= 2^-50 when t >= 4)."""
    return t - floor(t * 0.25) * 4.0


def _sum_mod4(terms: list[V]) -> tuple[V, DD]:
    """(k mod 4 as i64, f) with sum(terms) = k + f (mod 4), |f| <= 1/2, f in double-double."""
    s, c = terms[0], terms[0].b.const(0.0)
    for t in terms[1:]:
        s, e = two_sum(s, t)
        c = c + e
    s = _mod4(s)
    k = round_even(s)
    return convert(k, "i64") & 3, two_sum(s - k, c)


def _reduce_any(a: V) -> tuple[V, DD]:
    """Payne-Hanek for any finite double a >= pi/4: a*2/pi mod 4 from eight 26-bit words of 2/pi.

    Words before `w` only add multiples of 4; a is scaled by 2^(-26w) and split
    into 26+27 bits so that each product with a word is exact. Each product is
    split again at 2^-49: the coarse parts add up exactly (mod 4), the fine
    parts (below 2^-49) in double-double, so f keeps ~2^-150 absolute even
    for the doubles closest to a multiple of pi/2.
    """
    b = a.b
    table = C["TWO_OVER_PI_26"]
    bits = bitcast(a, "i64")
    e = ((bits >> 52) & 0x7FF) - 1023
    w = minimum(maximum((e - 54).div_trunc(26), 0), len(table) - 8)
    hi, lo = split(bitcast(bits - ((w * 26) << 52), "f64"))
    words = b.window([table], w, 8)[0]
    coarse, fine, added = b.const(0.0), [], 0
    for j in range(8):
        word = words[j] * 2.0 ** (-26 * (j + 1))
        for t in (hi * word, lo * word):
            if j >= 5:  # below 2^-49 already
                fine.append(t)
                continue
            t = _mod4(t) if j <= 3 else t
            c = (t + 12.0) - 12.0  # t rounded to a multiple of 2^-49 (0 <= t <= 4)
            fine.append(t - c)
            coarse, added = coarse + c, added + 1
            if added % 2 == 0:
                coarse = _mod4(coarse)
    s, err = fine[0], b.const(0.0)
    for t in fine[1:]:
        s, e2 = two_sum(s, t)
        err = err + e2
    coarse = _mod4(coarse)
    k = round_even(coarse + s)
    f = two_sum(coarse - k, s)
    return convert(k, "i64") & 3, DD(f.hi, f.lo + err)


def _reduce_narrow(a: V) -> tuple[V, DD]:
    """Payne-Hanek for a >= pi/4 with at most 24 significant bits (f32 and narrower inputs).

    Each product with a 28-bit word of 2/pi is exact; eight words cover
    every f32 exponent with ~2^-96 to spare.
    """
    terms = []
    for j, word in enumerate(C["TWO_OVER_PI_28"]):
        t = a * (word * 2.0 ** (-28 * (j + 1)))
        terms.append(_mod4(t) if j <= 4 else t)
    return _sum_mod4(terms)


def _reduce_medium(a: V) -> tuple[V, DD]:
    """Cody-Waite for a < 2^19: a - k*pi/2 with pi/2 in four parts, the first three exact times k."""
    k = round_even(a * (2.0 / 3.141592653589793))
    p = C["PIO2_PARTS"]
    first = two_sum(a - k * p[0], -(k * p[1]))
    second = two_sum(first.hi, -(k * p[2]))
    r = two_sum(second.hi, first.lo + second.lo - k * p[3])
    return convert(k, "i64") & 3, r


def reduce_pio2(a: V, narrow: bool) -> tuple[V, DD]:
    """(k mod 4, r) with a = k*pi/2 + r, |r| <= pi/4 (r in double-double), for finite a >= 0."""
    q, f = (_reduce_narrow if narrow else _reduce_any)(a)
    r = dd_mul(f, DD(a.b.const(C["PIO2"][0]), a.b.const(C["PIO2"][1])))
    if not narrow:
        medium = a.lt(2.0 ** 19)
        qm, rm = _reduce_medium(a)
        q, r = select(medium, qm, q), dd_select(medium, rm, r)
    small = a.lt(0.785)
    return select(small, 0, q), dd_select(small, dd(a), r)


def _sin_cos_poly(r: DD, tier: Tier) -> tuple[DD, DD]:
    """(sin r, cos r) for |r| <= pi/4, as double-doubles."""
    z = r.hi * r.hi
    sin = DD(r.hi, r.hi * z * horner(z, tier.poly("sin")) + r.lo * (1.0 - z * 0.5))
    half = z * 0.5
    w = 1.0 - half
    tail = z * z * horner(z, tier.poly("cos")) - r.hi * r.lo
    if tier.dd:
        tail = tail - two_prod(r.hi, r.hi).lo * 0.5
    return sin, DD(w, ((1.0 - w) - half) + tail)


def sin_cos_quadrant(x: V, tier: Tier, narrow: bool) -> tuple[V, DD, DD]:
    """(k mod 4, sin r, cos r) for |x| = k*pi/2 + r; non-finite x gives k = 0, r = 0."""
    a = select(is_finite(x), fabs(x), 0.0)
    q, r = reduce_pio2(a, narrow)
    s, c = _sin_cos_poly(r, tier)
    return q, s, c


def sin_cos(x: V, tier: Tier, narrow: bool = False) -> tuple[DD, DD]:
    """(sin x, cos x) as double-doubles; NaN for infinite or NaN x."""
    q, s, c = sin_cos_quadrant(x, tier, narrow)
    odd = (q & 1).eq(1)
    sin = dd_select(odd, c, s)
    sin = dd_select(q.ge(2), -sin, sin)
    cos = dd_select(odd, s, c)
    cos = dd_select((q.eq(1)) | (q.eq(2)), -cos, cos)
    sin = dd_select(signbit(x), -sin, sin)
    return _nan_unless(is_finite(x), normalize(sin)), _nan_unless(is_finite(x), normalize(cos))


def _nan_unless(ok: V, x: DD) -> DD:
    """x where ok, NaN elsewhere."""
    nan = x.hi.b.const(float("nan"))
    return DD(select(ok, x.hi, nan), select(ok, x.lo, 0.0))


def sin_cos_dd(y: DD, tier: Tier) -> tuple[DD, DD]:
    """(sin, cos) of a double-double argument: those of y.hi, corrected by y.lo to first order."""
    s, c = sin_cos(y.hi, tier)
    lo = select(fabs(y.hi).lt(2.0 ** 60), y.lo, 0.0)
    return DD(s.hi, s.lo + lo * c.hi), DD(c.hi, c.lo - lo * s.hi)


def tan(x: V, tier: Tier, narrow: bool = False) -> DD:
    """tan x = sin r / cos r (or -cos r / sin r in odd quadrants), divided in double-double."""
    q, s, c = sin_cos_quadrant(x, tier, narrow)
    odd = (q & 1).eq(1)
    t = dd_div(dd_select(odd, c, s), dd_select(odd, s, c))
    t = dd_select(odd, -t, t)
    t = dd_select(signbit(x), -t, t)
    return _nan_unless(is_finite(x), t)


# -- exp, expm1 -------------------------------------------------------------------------------


def exp_parts(z: DD, tier: Tier) -> tuple[DD, V]:
    """(A, k) with exp(z) = A * 2^k, A in [0.7, 1.42] as double-double; |z| is clamped to 1100."""
    b = z.hi.b
    safe = fabs(z.hi).lt(1000.0)
    near = normalize(DD(select(safe, z.hi, 0.0), select(safe, z.lo, 0.0)))
    zs = select(safe, near.hi, clamp(select(is_nan(z.hi), 0.0, z.hi), -1100.0, 1100.0))
    zl = near.lo
    k = round_even(zs * C["LOG2E"])
    t = zs - k * C["LN2"][0]
    r = two_sum(t, -(k * C["LN2"][1]))
    rh, rl = fast_two_sum(r.hi, r.lo + zl)
    tail = rh * rh * 0.5 + (rh * rh * rh * horner(rh, tier.poly("expm1")) + rl * (1.0 + rh))
    one = fast_two_sum(b.const(1.0), rh)
    a = fast_two_sum(one.hi, tail)
    return DD(a.hi, a.lo + one.lo), k


def exp(x: V, tier: Tier) -> V:
    """e^x (NaN for NaN)."""
    a, k = exp_parts(dd(x), tier)
    return select(is_nan(x), x, ldexp(a.value(), k))


def expm1_dd(x: V, tier: Tier) -> DD:
    """e^x - 1 as a double-double: (A * 2^k) - 1 with the subtraction exact (x clamped to >= -50)."""
    a, k = exp_parts(dd(maximum(x, -50.0)), tier)
    scaled = dd_ldexp(a, k)
    s = two_sum(scaled.hi, x.b.const(-1.0))
    return DD(s.hi, select(is_finite(s.hi), s.lo + scaled.lo, 0.0))


def expm1(x: V, tier: Tier) -> V:
    """e^x - 1, keeping -0 and NaN."""
    return select(x.eq(0.0) | is_nan(x), x, expm1_dd(x, tier).value())


# 1.5 * 2^23: adding it to an f32 of magnitude below 2^22 rounds that to an integer (its ulp is 1), which the
# sum's low bits then hold too: IREE expands round_nearest_even into twenty integer ops.
_ROUNDER_F32 = 12582912.0
_ROUNDER_F32_BITS = 0x4B400000


def expm1_f32_ops(x: V) -> V:
    """expm1 of an f32 in f32 arithmetic: within an ulp of the correctly rounded result for every f32
    (tools/check_math_kernels.py checks them all).

    x = k ln2 + r with |r| <= ln2/2 kept as a pair (r_hi, r_lo), p = expm1(r) = r + r^2/2 + r^3 P(r) as a
    pair, then expm1 x = (2^k - 1) + 2^k p with both sums exact (two_sum) and the low parts added last;
    for k = 128 (x past 88.38) 2^127 (1 + p) 2, which overflows where the result does. x clamped to
    [-18, 88.8] (-1 below, +inf above); x itself below 2^-25 (-0 and subnormals kept).
    """
    a = clamp(x, -18.0, 88.8)
    shifted = a * C["LOG2E"] + _ROUNDER_F32
    k = shifted - _ROUNDER_F32
    half_scale = bitcast((bitcast(shifted, "i32") - (_ROUNDER_F32_BITS - 126)) << 23, "f32")  # 2^(k-1)
    r = two_sum(a - k * C["LN2_F32"][0], -(k * C["LN2_F32"][1]))
    half_square = r.hi * r.hi * 0.5
    p = two_sum(r.hi, half_square)
    p_lo = p.lo + (r.lo * (1.0 + r.hi) + r.hi * half_square * 2.0 * horner(r.hi, F32_OPS.poly("expm1")))
    scale = half_scale * 2.0
    minus_one = two_sum(scale, x._other(-1.0))
    total = two_sum(minus_one.hi, scale * p.hi)
    core = total.hi + (total.lo + (minus_one.lo + scale * p_lo))
    huge = ((p.hi + p_lo) + 1.0) * half_scale * 2.0
    result = select(k.ge(128.0), huge, core)
    return select(fabs(x).lt(2.0 ** -25) | is_nan(x), x, result)


# -- log, log1p -------------------------------------------------------------------------------


def log_dd(x: V, tier: Tier, precise: bool = False) -> DD:
    """log x for positive finite x, as double-double; `precise` keeps ~2^-70 (for pow)."""
    b = x.b
    sub = x.lt(2.0 ** -1022)
    e, m = exponent_and_mantissa(select(sub, x * 2.0 ** 54, x))
    e = e - select(sub, b.const(54, "i64"), 0)
    big = m.gt(2.0 ** 0.5)
    m = select(big, m * 0.5, m)
    ef = convert(e + select(big, b.const(1, "i64"), 0), "f64")
    f = m - 1.0
    d = fast_two_sum(b.const(2.0), f)
    s = f / d.hi
    p = two_prod(s, d.hi)
    s_lo = (((f - p.hi) - p.lo) - s * d.lo) / d.hi
    z = s * s
    poly = s * z * z * horner(z, tier.poly("log"))
    head = two_sum(ef * C["LN2"][0], s * 2.0)
    if precise:
        sq = two_prod(s, s)
        cube = two_prod(sq.hi, s)
        cube_lo = cube.lo + sq.lo * s + sq.hi * s_lo * 3.0
        third = two_prod(cube.hi, b.const(C["TWO_THIRDS"][0]))
        third_lo = third.lo + cube.hi * C["TWO_THIRDS"][1] + cube_lo * C["TWO_THIRDS"][0]
        head2 = two_sum(head.hi, third.hi)
        lo = head.lo + head2.lo + (s_lo * 2.0 + ef * C["LN2"][1] + third_lo + poly)
        return normalize(DD(head2.hi, lo))
    cubic = s * z * C["TWO_THIRDS"][0]
    return normalize(DD(head.hi, head.lo + (s_lo * 2.0 + ef * C["LN2"][1] + cubic + poly)))


def _log_specials(x: V, core: V) -> V:
    """log's values at 0 (-inf), below 0 (NaN), +inf and NaN (themselves)."""
    r = select(x.eq(0.0), float("-inf"), core)
    r = select(x.lt(0.0), float("nan"), r)
    return select(is_nan(x) | x.eq(float("inf")), x, r)


def log(x: V, tier: Tier) -> V:
    """log x with C's special values."""
    ok = x.gt(0.0) & is_finite(x)
    return _log_specials(x, log_dd(select(ok, x, 1.0), tier).value())


def log1p_dd(x: V, tier: Tier) -> DD:
    """log(1 + x) for finite x > -1: log of the rounded 1 + x plus its exact rounding error over it."""
    u = two_sum(x.b.const(1.0), x)
    core = log_dd(u.hi, tier)
    return DD(core.hi, core.lo + u.lo / u.hi)


def log1p(x: V, tier: Tier) -> V:
    """log(1 + x) with C's special values (-1 -> -inf, below -1 -> NaN, keeps -0)."""
    ok = x.gt(-1.0) & is_finite(x)
    core = log1p_dd(select(ok, x, 0.0), tier).value()
    r = select(x.eq(0.0), x, core)
    return _log1p_specials(x, r)


def _log1p_specials(x: V, core: V) -> V:
    """log1p's values at -1 (-inf), below -1 (NaN), +inf and NaN (themselves)."""
    r = select(x.eq(-1.0), float("-inf"), core)
    r = select(x.lt(-1.0), float("nan"), r)
    return select(is_nan(x) | x.eq(float("inf")), x, r)


# f32 bits of sqrt(2)/2: adding 1.0's bits minus these to a float's bits carries into its exponent
# exactly where its mantissa reaches sqrt(2), so the exponent field then holds k of x = 2^k m with m in
# [sqrt(2)/2, sqrt(2)).
_HALF_SQRT2_BITS = 0x3F3504F3


def log1p_f32_ops(x: V) -> V:
    """log1p of an f32 in f32 arithmetic: within an ulp of the correctly rounded result for every f32
    (tools/check_math_kernels.py checks them all).

    u = 1 + x rounded and its rounding error e (exact, two_sum); u = 2^k m with m in [sqrt(2)/2,
    sqrt(2)) from u's bits, f = m - 1 (exact) and s = f / (2 + f); then log1p x = k ln2 + f - f^2/2 +
    s (f^2/2 + R) + e / u, with R = 2s^2/3 + s^4 P(s^2), so that s's rounding only touches the small
    terms. Below 2^-24 the sum is x itself (and -0 stays -0).
    """
    ok = x.gt(-1.0) & is_finite(x)
    u = two_sum(x._other(1.0), select(ok, x, 0.0))
    shifted = bitcast(u.hi, "i32") + (0x3F800000 - _HALF_SQRT2_BITS)
    k = convert((shifted >> 23) - 127, "f32")
    f = bitcast((shifted & 0x007FFFFF) + _HALF_SQRT2_BITS, "f32") - 1.0
    s = f / (f + 2.0)
    z = s * s
    r = z * (z * horner(z, F32_OPS.poly("log")) + C["TWO_THIRDS"][0])
    half_square = f * f * 0.5
    core = k * C["LN2_F32"][0] + (f - (half_square - (s * (half_square + r) + (k * C["LN2_F32"][1] + u.lo / u.hi))))
    return _log1p_specials(x, select(x.eq(0.0), x, core))


# -- tanh, cbrt -----------------------------------------------------------------------------


def tanh(x: V, tier: Tier) -> V:
    """tanh x = e / (e + 2) with e = expm1(2|x|) in double-double; x itself below 2^-28, +-1 past 20."""
    a = minimum(select(is_nan(x), 0.0, fabs(x)), 20.0)
    e = expm1_dd(a * 2.0, tier)
    d = two_sum(e.hi, x.b.const(2.0))
    t = dd_div(e, DD(d.hi, d.lo + e.lo)).value()
    return select(fabs(x).lt(2.0 ** -28) | is_nan(x), x, copysign(t, x))


def tanh_f32_ops(x: V) -> V:
    """tanh of an f32 in f32 arithmetic: within an ulp of the correctly rounded result for every f32
    (tools/check_math_kernels.py checks them all).

    |x| < 0.625: x + x^3 P(x^2). Above: 1 - 2 / (e^2|x| + 1), with e^2|x| = 2^k (1 + expm1(r)) and
    |x| clamped to 9.5, past which every f32 tanh is +-1.
    """
    a = fabs(x)
    z = a * a
    small = a + a * z * horner(z, F32_OPS.poly("tanh"))
    twice = minimum(a, 9.5) * 2.0
    shifted = twice * C["LOG2E"] + _ROUNDER_F32  # k = round(twice / ln 2), also in the low bits
    k = shifted - _ROUNDER_F32
    scale = bitcast((bitcast(shifted, "i32") - (_ROUNDER_F32_BITS - 127)) << 23, "f32")
    r = (twice - k * C["LN2_F32"][0]) - k * C["LN2_F32"][1]
    expm1_r = r + r * r * 0.5 + r * r * r * horner(r, F32_OPS.poly("expm1"))
    large = 1.0 - 2.0 / ((expm1_r + 1.0) * scale + 1.0)
    t = signed_like(select(a.lt(0.625), small, large), x)  # NaN stays NaN on both sides
    return select(a.lt(2.0 ** -12), x, t)  # tanh x rounds to x below 2^-12 (subnormals, flushed in t, and -0)


def cbrt(x: V, tier: Tier) -> V:
    """Cube root: x = m * 2^(3q + rho), a polynomial start, Halley, then Newton with an exact residual."""
    b = x.b
    special = x.eq(0.0) | ~is_finite(x)
    a = select(special, 1.0, fabs(x))
    sub = a.lt(2.0 ** -1022)
    e, m = exponent_and_mantissa(select(sub, a * 2.0 ** 54, a))
    e = e - select(sub, b.const(54, "i64"), 0)
    q = (e + 3000).div_trunc(3) - 1000
    rho = e - q * 3
    v = bitcast(bitcast(m, "i64") + (rho << 52), "f64")
    steps = C["CBRT_STEPS"]
    y = horner(m, tier.poly("cbrt")) * select(rho.eq(2), steps[2], select(rho.eq(1), steps[1], steps[0]))
    y3 = y * y * y
    y = y * (y3 + v * 2.0) / (y3 * 2.0 + v)
    root = dd(y)
    if tier.dd:
        sq = two_prod(y, y)
        cube = two_prod(sq.hi, y)
        residual = (cube.hi - v) + (cube.lo + sq.lo * y)
        root = DD(y, -(residual / (sq.hi * 3.0)))
    result = root.value() * pow2(q)
    return select(special, x, copysign(result, x))


# -- atan2 ------------------------------------------------------------------------------------


def atan2_dd(y: V, x: V, tier: Tier) -> DD:
    """atan2(y, x) as double-double, with C's signed zeros and infinities (NaN in, NaN out)."""
    b = x.b
    ax, ay = fabs(x), fabs(y)
    swap = ay.gt(ax)
    big, small = maximum(ax, ay), minimum(ax, ay)
    both_inf = ax.eq(float("inf")) & ay.eq(float("inf"))
    # Keep the double-double steps away from overflow and from subnormal error terms.
    factor = select(big.gt(2.0 ** 1000), 2.0 ** -600, select(big.lt(2.0 ** -900), 2.0 ** 600, 1.0))
    degenerate = big.eq(0.0) | ~is_finite(big)
    big = select(degenerate, 1.0, big * factor)
    small = select(both_inf, 1.0, select(degenerate, 0.0, small * factor))
    j = round_even(small / big * 8.0)
    c = j * 0.125
    p = two_prod(c, big)
    n = two_sum(small - p.hi, -p.lo)
    q = two_prod(c, small)
    d = two_sum(big, q.hi)
    u = dd_div(n, DD(d.hi, d.lo + q.lo))
    z = u.hi * u.hi
    (t_hi,), (t_lo,) = b.window([[t[0] for t in C["ATAN_EIGHTHS"]], [t[1] for t in C["ATAN_EIGHTHS"]]],
                                convert(j, "i64"), 1)
    base = two_sum(t_hi, u.hi)
    theta = DD(base.hi, base.lo + (t_lo + u.lo + u.hi * z * horner(z, tier.poly("atan"))))
    negative_x = signbit(x)
    pio2, pi = C["PIO2"], C["PI"]
    quad_hi = select(swap, pio2[0], select(negative_x, pi[0], 0.0))
    quad_lo = select(swap, pio2[1], select(negative_x, pi[1], 0.0))
    flip = _xor(swap, negative_x)
    theta = dd_select(flip, -theta, theta)
    head = two_sum(quad_hi, theta.hi)
    phi = DD(head.hi, head.lo + quad_lo + theta.lo)
    phi = dd_select(signbit(y), -phi, phi)
    return _nan_unless(~(is_nan(x) | is_nan(y)), normalize(phi))


def _xor(a: V, b: V) -> V:
    """a != b for booleans."""
    return a.b.emit("stablehlo.xor", [a, b], a.element)


# -- pow ------------------------------------------------------------------------------------


def power(x: V, y: V, tier: Tier) -> V:
    """x^y = exp(y * log|x|) with log in double-double, and C99/IEEE pow's special cases."""
    b = x.b
    inf, nan = float("inf"), float("nan")
    ax = fabs(x)
    y_int = floor(y).eq(y) & is_finite(y)
    y_odd = y_int & floor(y * 0.5).ne(y * 0.5)
    ok = ax.gt(0.0) & is_finite(ax) & is_finite(y)
    ys = select(ok, y, 0.0)
    logx = log_dd(select(ok, ax, 1.0), tier, precise=tier.dd)
    z = two_prod(ys, logx.hi)
    zl = z.lo + ys * logx.lo
    zl = select(fabs(z.hi).lt(2.0 ** 20), zl, 0.0)
    a, k = exp_parts(DD(z.hi, zl), tier)
    magnitude = ldexp(a.value(), k)
    negative = x.lt(0.0)
    r = select(negative & y_odd, -magnitude, magnitude)
    r = select(negative & ~y_int & is_finite(x) & is_finite(y), nan, r)
    zero, x_inf, y_inf = ax.eq(0.0), ax.eq(inf), fabs(y).eq(inf)
    r = select(zero & y.lt(0.0), select(y_odd, copysign(b.const(inf), x), inf), r)
    r = select(zero & y.gt(0.0), select(y_odd, x, 0.0), r)
    r = select(x_inf & y.lt(0.0), select(y_odd & negative, -0.0, 0.0), r)
    r = select(x_inf & y.gt(0.0), select(y_odd & negative, -inf, inf), r)
    r = select(y_inf, select(ax.eq(1.0), 1.0, select(_xor(ax.lt(1.0), y.gt(0.0)), inf, 0.0)), r)
    r = select(is_nan(x) | is_nan(y), nan, r)
    return select(y.eq(0.0) | x.eq(1.0), 1.0, r)


# -- complex ------------------------------------------------------------------------------------


def sinh_cosh(a: V, tier: Tier) -> tuple[DD, DD]:
    """(sinh a, cosh a) as double-doubles: from e = expm1(|a|) below 20, from e^|a|/2 above."""
    b = a.b
    aa = select(is_nan(a), 0.0, fabs(a))
    small = minimum(aa, 20.0)
    e = expm1_dd(small, tier)
    grown = fast_two_sum(b.const(1.0), e.hi)
    grown = DD(grown.hi, grown.lo + e.lo)
    inv = dd_div(dd(b.const(1.0)), grown)
    sinh = dd_add(e, dd_div(e, grown)).scale(0.5)
    cosh = dd_add(grown, inv).scale(0.5)
    parts, k = exp_parts(dd(aa), tier)
    huge = dd_ldexp(parts, k - 1.0)
    large = aa.gt(20.0)
    sinh, cosh = dd_select(large, huge, sinh), dd_select(large, huge, cosh)
    sinh = dd_select(signbit(a), -sinh, sinh)
    nan = is_nan(a)
    return _nan_unless(~nan, sinh), _nan_unless(~nan, cosh)


def complex_exp(a: V, b: V, tier: Tier) -> tuple[V, V]:
    """e^a (cos b + i sin b), scaled by 2^k last so that large a does not overflow early."""
    parts, k = exp_parts(dd(a), tier)
    s, c = sin_cos(b, tier)
    re = ldexp(dd_mul(parts, c).value(), k)
    im = ldexp(dd_mul(parts, s).value(), k)
    real_only = b.eq(0.0)
    re = select(real_only, ldexp(parts.value(), k), re)
    im = select(real_only, b, im)
    nan = is_nan(a)
    return select(nan, a, re), select(nan & ~real_only, a, im)


def complex_expm1(a: V, b: V, tier: Tier) -> tuple[V, V]:
    """(expm1(a) cos b - 2 sin^2(b/2), e^a sin b), each in double-double."""
    e = expm1_dd(a, tier)
    s, c = sin_cos(b, tier)
    half, _ = sin_cos(b * 0.5, tier)
    re = dd_add(dd_mul(e, c), -dd_mul(half, half).scale(2.0)).value()
    parts, k = exp_parts(dd(a), tier)
    im = ldexp(dd_mul(parts, s).value(), k)
    real_only = b.eq(0.0)
    re = select(real_only, expm1(a, tier), re)
    im = select(real_only, b, im)
    return select(is_nan(a), a, re), select(is_nan(a) & ~real_only, a, im)


def _scaled_squares(a: V, b: V) -> tuple[V, DD]:
    """(j, S): max(|a|,|b|) = 2^j * M' with M' in [1, 2) and S = M'^2 + m'^2 in double-double."""
    big, small = maximum(fabs(a), fabs(b)), minimum(fabs(a), fabs(b))
    tiny = big.lt(2.0 ** -1000)
    big, small = select(tiny, big * 2.0 ** 600, big), select(tiny, small * 2.0 ** 600, small)
    j, m_big = exponent_and_mantissa(big)
    j = convert(j, "f64") - select(tiny, 600.0, 0.0)
    m_small = ldexp(small, -(j + select(tiny, 600.0, 0.0)))
    s = dd_add(two_prod(m_big, m_big), two_prod(m_small, m_small))
    return j, s


def log_abs(a: V, b: V, tier: Tier) -> DD:
    """log|a + ib| as double-double: 0.5*log1p(|z|^2 - 1) near |z| = 1, j*ln2 + 0.5*log(S) elsewhere."""
    bb = a.b
    big, small = maximum(fabs(a), fabs(b)), minimum(fabs(a), fabs(b))
    ok = big.gt(0.0) & is_finite(big)
    big, small = select(ok, big, 1.0), select(ok, small, 0.0)
    p, q = two_prod(big, big), two_prod(small, small)
    s = two_sum(p.hi, bb.const(-1.0))
    u = two_sum(s.hi, q.hi)
    u_lo = u.lo + s.lo + p.lo + q.lo
    near_one = p.hi + q.hi
    near = near_one.ge(0.5) & near_one.le(2.0) & big.lt(2.0 ** 500)
    lp = log1p_dd(select(near, u.hi, 0.0), tier)
    near_value = DD(lp.hi, lp.lo + u_lo / (1.0 + u.hi)).scale(0.5)
    j, sq = _scaled_squares(a, b)
    sj = select(ok, j, 0.0)
    ls = log_dd(select(ok, sq.hi, 1.0), tier)
    head = two_sum(sj * C["LN2"][0], ls.hi * 0.5)
    far_value = DD(head.hi, head.lo + sj * C["LN2"][1] + (ls.lo + sq.lo / sq.hi) * 0.5)
    value = normalize(dd_select(near, near_value, far_value))
    zero = fabs(a).eq(0.0) & fabs(b).eq(0.0)
    infinite = fabs(a).eq(float("inf")) | fabs(b).eq(float("inf"))
    result = dd_select(zero, dd(bb.const(float("-inf"))), value)
    result = dd_select(infinite, dd(bb.const(float("inf"))), result)
    return _nan_unless(~((is_nan(a) | is_nan(b)) & ~infinite), result)


def complex_log(a: V, b: V, tier: Tier) -> tuple[V, V]:
    """(log|z|, atan2(b, a))."""
    return log_abs(a, b, tier).value(), atan2_dd(b, a, tier).value()


def _complex_sqrt_scaled(a: V, b: V) -> tuple[DD, DD, DD, V]:
    """(re, im, |z|) of sqrt(z * 2^-2h) and h, for finite nonzero z, in the cancellation-free form."""
    big = maximum(fabs(a), fabs(b))
    ok = big.gt(0.0) & is_finite(big)
    j, _ = exponent_and_mantissa(select(ok, select(big.lt(2.0 ** -1000), big * 2.0 ** 600, big), 1.0))
    j = convert(j, "f64") - select(ok & big.lt(2.0 ** -1000), 600.0, 0.0)
    h = floor(j * 0.5)
    a2, b2 = ldexp(select(ok, a, 1.0), -(h * 2.0)), ldexp(select(ok, b, 0.0), -(h * 2.0))
    norm = dd_sqrt(dd_add(two_prod(a2, a2), two_prod(b2, b2)))
    t = dd_sqrt(dd_add(norm, dd(fabs(a2))).scale(0.5))
    other = dd_div(dd(fabs(b2)), t.scale(2.0))
    positive = ~signbit(a2)
    re = dd_select(positive, t, other)
    im = dd_select(positive, other, t)
    im = dd_select(signbit(b2), -im, im)
    return re, im, norm, h


def _sqrt_specials(a: V, b: V, re: V, im: V) -> tuple[V, V]:
    """csqrt's values at zero, infinities and NaN (C99 Annex G)."""
    inf = float("inf")
    zero = a.eq(0.0) & b.eq(0.0)
    re, im = select(zero, 0.0, re), select(zero, b, im)
    nan = is_nan(a) | is_nan(b)
    re, im = select(nan, float("nan"), re), select(nan, float("nan"), im)
    a_inf = fabs(a).eq(inf)
    re = select(a_inf & ~signbit(a), inf, select(a_inf, select(is_nan(b), float("nan"), 0.0), re))
    im = select(a_inf & ~signbit(a), select(is_nan(b), float("nan"), copysign(b.b.const(0.0), b)),
                select(a_inf, copysign(b.b.const(inf), b), im))
    b_inf = fabs(b).eq(inf)
    return select(b_inf, inf, re), select(b_inf, b, im)


def complex_sqrt(a: V, b: V, tier: Tier) -> tuple[V, V]:
    """sqrt(a + ib) without cancellation, scaled by an even power of two against overflow."""
    re, im, _, h = _complex_sqrt_scaled(a, b)
    return _sqrt_specials(a, b, ldexp(re.value(), h), ldexp(im.value(), h))


def complex_rsqrt(a: V, b: V, tier: Tier) -> tuple[V, V]:
    """1/sqrt(z) = conj(sqrt(z)) / |z|, divided in double-double."""
    re, im, norm, h = _complex_sqrt_scaled(a, b)
    re = ldexp(dd_div(re, norm).value(), -h)
    im = ldexp((-dd_div(im, norm)).value(), -h)
    inf, nan = float("inf"), float("nan")
    zero = a.eq(0.0) & b.eq(0.0)
    re, im = select(zero, inf, re), select(zero, nan, im)
    infinite = fabs(a).eq(inf) | fabs(b).eq(inf)
    re, im = select(infinite, 0.0, re), select(infinite, copysign(b.b.const(0.0), -b), im)
    bad = (is_nan(a) | is_nan(b)) & ~infinite
    return select(bad, nan, re), select(bad, nan, im)


def complex_tanh(a: V, b: V, tier: Tier) -> tuple[V, V]:
    """(sinh a cosh a + i sin b cos b) / (sinh^2 a + cos^2 b): no cancellation; e^-2|a| past 20."""
    sinh, cosh = sinh_cosh(minimum(maximum(a, -20.0), 20.0), tier)
    s, c = sin_cos(b, tier)
    den = dd_add(dd_mul(sinh, sinh), dd_mul(c, c))
    re = dd_div(dd_mul(sinh, cosh), den).value()
    sc = dd_mul(s, c)
    im = dd_div(sc, den).value()
    aa = fabs(a)
    parts, k = exp_parts(dd(select(is_nan(a), 0.0, aa) * -2.0), tier)
    im_far = ldexp(dd_mul(sc, parts).value() * 4.0, k)
    far = aa.gt(20.0)
    re = select(far, copysign(a.b.const(1.0), a), re)
    im = select(far, im_far, im)
    nan = is_nan(a)
    real_only = b.eq(0.0)
    re = select(real_only, tanh(a, tier), re)
    im = select(real_only, b, im)
    return select(nan, a, re), select(nan & ~real_only, a, im)


def complex_tan(a: V, b: V, tier: Tier) -> tuple[V, V]:
    """tan z = -i tanh(iz)."""
    re, im = complex_tanh(-b, a, tier)
    return im, -re


def complex_cos(a: V, b: V, tier: Tier) -> tuple[V, V]:
    """cos(a + ib) = cos a cosh b - i sin a sinh b."""
    s, c = sin_cos(a, tier)
    sinh, cosh = sinh_cosh(b, tier)
    return dd_mul(c, cosh).value(), (-dd_mul(s, sinh)).value()


def complex_sin(a: V, b: V, tier: Tier) -> tuple[V, V]:
    """sin(a + ib) = sin a cosh b + i cos a sinh b."""
    s, c = sin_cos(a, tier)
    sinh, cosh = sinh_cosh(b, tier)
    return dd_mul(s, cosh).value(), dd_mul(c, sinh).value()


def complex_pow(a: V, b: V, c: V, d: V, tier: Tier) -> tuple[V, V]:
    """(a + ib)^(c + id) = exp((c + id) * log(a + ib)), the product and exp in double-double."""
    lr, li = log_abs(a, b, tier), atan2_dd(b, a, tier)
    ok = is_finite(lr.hi) & is_finite(li.hi)
    lr, li = dd_select(ok, lr, dd(a.b.const(0.0))), dd_select(ok, li, dd(a.b.const(0.0)))
    x = dd_add(_dd_times(lr, c), -_dd_times(li, d))
    y = dd_add(_dd_times(li, c), _dd_times(lr, d))
    parts, k = exp_parts(x, tier)
    s, co = sin_cos_dd(y, tier)
    re = ldexp(dd_mul(parts, co).value(), k)
    im = ldexp(dd_mul(parts, s).value(), k)
    nan = float("nan")
    zero_base = a.eq(0.0) & b.eq(0.0)
    re = select(zero_base, select(c.gt(0.0), 0.0, nan), re)
    im = select(zero_base, select(c.gt(0.0), 0.0, nan), im)
    bad = ~ok & ~zero_base
    re, im = select(bad, nan, re), select(bad, nan, im)
    unit = c.eq(0.0) & d.eq(0.0)
    return select(unit, 1.0, re), select(unit, 0.0, im)


def _dd_times(x: DD, v: V) -> DD:
    """x * v for a double-double x and a double v."""
    p = two_prod(x.hi, v)
    return DD(p.hi, p.lo + x.lo * v)
