"""Elementwise ops: arithmetic, logic, comparisons, conversions and math functions.

Integer arithmetic wraps around (numpy's fixed-width arithmetic, and the
engine's wrap for narrow types); division by zero and overflow follow
XLA (x / 0 = -1, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0). Math functions
of f32 and narrower floats are computed in f64 and rounded once; complex64
in complex128.
"""

from __future__ import annotations

import numpy as np

from oxla.interpreter import attrs
from oxla.interpreter.core import register
from oxla.interpreter.types import info

_WIDE = {np.dtype(np.complex64): np.dtype(np.complex128), np.dtype(np.complex128): np.dtype(np.complex128),
         np.dtype(np.float64): np.dtype(np.float64)}


def wide(x: np.ndarray) -> np.ndarray:
    """x in the precision its math is computed in: f64 for real floats, complex128 for complex."""
    target = _WIDE.get(x.dtype, np.dtype(np.float64))
    return x if x.dtype == target else x.astype(target)


def width(op, index: int = 0, result: bool = False) -> int:
    """The bit width of an operand's (or result's) integer element type (i4 -> 4, i1 -> 1)."""
    t = info((op.results if result else op.operands)[index].type)
    return t.bits or (1 if t.storage == np.bool_ else t.storage.itemsize * 8)


def _simple(names: str, fn, pointwise: bool = True):
    """Registers ops whose kernel is `fn` itself, whatever the op's attributes."""
    register(*names.split(), pointwise=pointwise)(lambda op, c: fn)


def _math(name: str, real, complex_=None):
    """Registers a math function: computed in f64 (complex128) and rounded by the engine."""
    complex_ = complex_ or real

    def kernel(x):
        w = wide(x)
        return complex_(w) if w.dtype.kind == "c" else real(w)

    register(name, pointwise=True)(lambda op, c: kernel)


# -- arithmetic ---------------------------------------------------------------

_simple("stablehlo.add", np.add)
_simple("stablehlo.multiply", np.multiply)
_simple("stablehlo.negate", np.negative)
_simple("stablehlo.abs", np.abs)


@register("stablehlo.subtract", pointwise=True)
def _subtract(op, c):
    """Subtraction (for i1, which numpy refuses to subtract: xor, as in two's complement of 1 bit)."""
    return lambda x, y: np.logical_xor(x, y) if x.dtype == np.bool_ else np.subtract(x, y)


def _float_or(int_kernel, float_kernel):
    """A kernel choosing by element kind: `int_kernel` for integers and booleans, else `float_kernel`."""
    return lambda x, y: int_kernel(x, y) if x.dtype.kind in "iub" else float_kernel(x, y)


def int_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Integer division truncated toward zero; x / 0 = -1 (all ones), MIN / -1 = MIN."""
    if x.dtype == np.bool_:
        return np.where(y, x, True)
    zero = y == 0
    overflow = (y == -1) & (x == np.iinfo(x.dtype).min) if x.dtype.kind == "i" else False
    safe = np.where(zero | overflow, np.ones_like(y), y)
    q = np.floor_divide(x, safe)
    if x.dtype.kind == "i":
        q = q + ((np.remainder(x, safe) != 0) & ((x < 0) != (safe < 0)))
    q = np.where(overflow, x, q)
    return np.where(zero, np.array(-1).astype(x.dtype), q).astype(x.dtype)


def int_remainder(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Remainder with the dividend's sign; x % 0 = x, MIN % -1 = 0."""
    if x.dtype == np.bool_:
        return np.where(y, False, x)
    zero = y == 0
    safe = np.where(zero | ((y == -1) if x.dtype.kind == "i" else False), np.ones_like(y), y)
    r = np.fmod(x, safe)
    return np.where(zero, x, r).astype(x.dtype)


register("stablehlo.divide", pointwise=True)(lambda op, c: _float_or(int_divide, np.divide))
register("stablehlo.remainder", pointwise=True)(lambda op, c: _float_or(int_remainder, np.fmod))


def _complex_order(pick_first):
    """max/min of complex numbers: lexicographic on (real, imag)."""

    def kernel(x, y):
        first = (x.real > y.real) | ((x.real == y.real) & (x.imag > y.imag))
        return np.where(first if pick_first else ~first, x, y)

    return kernel


def signed_zero_extremum(result, x, y, is_max: bool):
    """Fixes max/min of +0.0 and -0.0, which numpy answers by operand order: IEEE orders -0.0 below +0.0."""
    if result.dtype.kind not in "fV" or not np.any(result == 0):
        return result
    negative = (np.signbit(x) & np.signbit(y)) if is_max else (np.signbit(x) | np.signbit(y))
    zero = np.where(negative, np.negative(np.zeros((), result.dtype)), np.zeros((), result.dtype))
    return np.where((x == 0) & (y == 0), zero, result).astype(result.dtype)


def _extremum(numpy_fn, pick_first):
    """maximum/minimum: NaN-propagating for floats (-0.0 below +0.0), lexicographic for complex."""
    ordered = _complex_order(pick_first)

    def kernel(x, y):
        if x.dtype.kind == "c":
            return ordered(x, y)
        return signed_zero_extremum(numpy_fn(x, y), x, y, pick_first)

    return kernel


register("stablehlo.maximum", pointwise=True)(lambda op, c: _extremum(np.maximum, True))
register("stablehlo.minimum", pointwise=True)(lambda op, c: _extremum(np.minimum, False))


def int_power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x ** y with wrap-around, by squaring; negative exponents give 0 except for bases 1 and -1."""
    if x.dtype == np.bool_:
        return x | ~y
    unsigned = x.dtype.kind == "u"
    base = x.astype(np.uint64 if unsigned else np.int64)
    exponent = y.astype(np.int64)
    negative = exponent < 0
    e = np.where(negative, 0, exponent)
    result = np.ones(np.broadcast_shapes(base.shape, e.shape), dtype=base.dtype)
    b = np.broadcast_to(base, result.shape).copy()
    e = np.broadcast_to(e, result.shape).copy()
    while e.any():
        result = np.where(e & 1, result * b, result)
        b = b * b
        e >>= 1
    if not unsigned:
        odd = (exponent & 1) == 1
        special = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0))
        result = np.where(negative, special, result)
    return result


register("stablehlo.power", pointwise=True)(
    lambda op, c: _float_or(int_power, lambda x, y: np.power(wide(x), wide(y))))
register("stablehlo.atan2", pointwise=True)(
    lambda op, c: lambda y, x: _complex_atan2(y, x) if y.dtype.kind == "c" else np.arctan2(wide(y), wide(x)))


def _complex_atan2(y, x):
    """atan2 of complex numbers: -i * log((x + i y) / sqrt(x^2 + y^2))."""
    y, x = wide(y), wide(x)
    return -1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y))


# -- logic and bits -----------------------------------------------------------

_simple("stablehlo.and", np.bitwise_and)
_simple("stablehlo.or", np.bitwise_or)
_simple("stablehlo.xor", np.bitwise_xor)
register("stablehlo.not", pointwise=True)(lambda op, c: lambda x: np.logical_not(x) if x.dtype == np.bool_ else np.invert(x))


def _unsigned(x: np.ndarray, bits: int) -> np.ndarray:
    """The low `bits` bits of x as uint64 (its two's complement pattern)."""
    return x.astype(np.int64).view(np.uint64) & np.uint64((1 << bits) - 1) if x.dtype.kind == "i" else (
        x.astype(np.uint64) & np.uint64((1 << bits) - 1))


def _logical_shift(shift):
    """shift_left / shift_right_logical on `width`-bit patterns; 0 once the amount (read unsigned) reaches the width."""

    def build(op, c):
        bits = width(op)

        def kernel(x, y):
            amount = _unsigned(y, bits)
            big = amount >= bits
            moved = shift(_unsigned(x, bits), np.where(big, np.uint64(0), amount))
            return _signed_view(np.where(big, np.uint64(0), moved), bits, x.dtype)

        return kernel

    return build


register("stablehlo.shift_left", pointwise=True)(_logical_shift(np.left_shift))
register("stablehlo.shift_right_logical", pointwise=True)(_logical_shift(np.right_shift))


@register("stablehlo.shift_right_arithmetic", pointwise=True)
def _shift_right_arithmetic(op, c):
    """x >> y filling with the sign bit; all sign bits once y (read unsigned) reaches the width."""
    bits = width(op)

    def kernel(x, y):
        amount = np.minimum(_unsigned(y, bits), np.uint64(bits - 1)).astype(np.int64)
        value = _signed_view(_unsigned(x, bits), bits, np.dtype(np.int64))  # the pattern sign-extended
        return _signed_view(np.asarray(value >> amount).view(np.uint64), bits, x.dtype)

    return kernel


def _signed_view(pattern: np.ndarray, bits: int, dtype: np.dtype) -> np.ndarray:
    """A `bits`-wide bit pattern (uint64) as the value of `dtype` (sign-extended for signed types)."""
    pattern = pattern & np.uint64((1 << bits) - 1) if bits < 64 else pattern
    if dtype.kind == "u" or dtype == np.bool_:
        return pattern.astype(dtype)
    signed = pattern.view(np.int64) if bits == 64 else np.where(
        pattern >= np.uint64(1 << (bits - 1)), pattern.astype(np.int64) - (1 << bits), pattern.astype(np.int64))
    return signed.astype(dtype)


@register("stablehlo.popcnt", pointwise=True)
def _popcnt(op, c):
    """The number of set bits in each element's pattern."""
    bits = width(op)
    return lambda x: np.bitwise_count(_unsigned(x, bits)).astype(x.dtype)


@register("stablehlo.count_leading_zeros", pointwise=True)
def _count_leading_zeros(op, c):
    """The number of zero bits above the highest set bit (the width for 0)."""
    bits = width(op)

    def kernel(x):
        pattern = _unsigned(x, bits)
        count = np.zeros(pattern.shape, dtype=np.int64)
        for shift in range(bits):
            count += (pattern >> np.uint64(shift)) != 0
        return (bits - count).astype(x.dtype)

    return kernel


# -- comparisons, selection -----------------------------------------------------

def total_order_key(x: np.ndarray) -> np.ndarray:
    """Integers whose order is IEEE totalOrder of the floats x (-NaN < -inf < ... < -0 < +0 < ... < NaN)."""
    signed = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[x.dtype.itemsize]
    bits = np.asarray(x).view(signed).astype(np.int64)
    return np.where(bits < 0, bits ^ np.int64((1 << (x.dtype.itemsize * 8 - 1)) - 1), bits)


_DIRECTIONS = {"EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal, "GT": np.greater,
               "LE": np.less_equal, "LT": np.less}


@register("stablehlo.compare", pointwise=True)
def _compare(op, c):
    """comparison_direction with compare_type: IEEE for FLOAT, totalOrder for TOTALORDER, complex lexicographic."""
    direction = attrs.enum(op, "comparison_direction")
    total = attrs.enum(op, "compare_type") == "TOTALORDER"
    fn = _DIRECTIONS[direction]

    def kernel(x, y):
        if x.dtype.kind == "c":
            return _lexicographic(fn, direction, x, y, total)
        if total and x.dtype.kind in "fV":
            return fn(total_order_key(x), total_order_key(y))
        return fn(x, y)

    return kernel


def _lexicographic(fn, direction: str, x, y, total: bool):
    """Complex comparison: by real parts, then imaginary parts where the real parts are equal."""
    parts = [(x.real, y.real), (x.imag, y.imag)]
    if total:
        parts = [(total_order_key(a), total_order_key(b)) for a, b in parts]
    (xr, yr), (xi, yi) = parts
    if direction in ("EQ", "NE"):
        return fn(xr, yr) & fn(xi, yi) if direction == "EQ" else fn(xr, yr) | fn(xi, yi)
    return np.where(xr == yr, fn(xi, yi), fn(xr, yr))


_simple("stablehlo.select", lambda pred, on_true, on_false: np.where(pred, on_true, on_false))
_simple("stablehlo.clamp", lambda lo, x, hi: _clamp(lo, x, hi))


def _clamp(lo, x, hi):
    """min(max(x, lo), hi), NaN-propagating; complex lexicographic."""
    if x.dtype.kind == "c":
        return _complex_order(False)(_complex_order(True)(x, lo), hi)
    return np.minimum(np.maximum(x, lo), hi)


# -- complex parts ---------------------------------------------------------------

@register("stablehlo.complex", pointwise=True)
def _complex(op, c):
    """re + i im, built part by part (keeps infinities and signed zeros exact)."""
    dtype = info(op.results[0].type).storage

    def kernel(re, im):
        out = np.empty(np.broadcast_shapes(re.shape, im.shape), dtype=dtype)
        out.real, out.imag = re, im
        return out

    return kernel


_simple("stablehlo.real", np.real)
_simple("stablehlo.imag", lambda x: np.imag(x) if x.dtype.kind == "c" else np.zeros_like(x))


# -- conversions ---------------------------------------------------------------

@register("stablehlo.convert", pointwise=True)
def _convert(op, c):
    """Element type conversion; float to integer truncates and saturates (NaN -> 0), as XLA does."""
    target = info(op.results[0].type)
    dtype = target.dtype

    def kernel(x):
        if x.dtype.kind == "c" and dtype.kind != "c":
            x = x.real
        if dtype == np.bool_:
            return x != 0
        if dtype.kind in "iu" and x.dtype.kind in "fV":
            return float_to_int(x, dtype, target.bits)
        if x.dtype.kind in "iu" and dtype.kind in "fV" and x.dtype.itemsize == 8:
            return _int64_to_float(x, dtype)
        return x

    return kernel


def float_to_int(x: np.ndarray, dtype: np.dtype, bits: int = 0) -> np.ndarray:
    """Truncates toward zero and saturates to the integer type's range; NaN becomes 0."""
    if bits:
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dtype.kind == "i" else (0, (1 << bits) - 1)
    else:
        lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    t = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0)
    if hi < 2**63 - 1:  # every bound is exact in f64
        return np.clip(t, lo, hi).astype(dtype)
    top = 2.0**63 if dtype.kind == "i" else 2.0**64
    over, under = t >= top, t < float(lo)
    inside = np.where(over | under, 0.0, t)
    if dtype.kind == "i":
        values = inside.astype(np.int64)
    else:  # uint64: values past int64's range go through an offset
        high = inside >= 2.0**63
        values = np.where(high, (inside - 2.0**63).astype(np.uint64) + np.uint64(1 << 63),
                          np.where(high, 0.0, inside).astype(np.uint64))
    return np.where(over, np.array(hi, dtype), np.where(under, np.array(lo, dtype), values)).astype(dtype)


def _int64_to_float(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """64-bit integers to floats with one rounding: past 2**53 the f64 step rounds to odd."""
    f = x.astype(np.float64)
    if dtype == np.float64 or not np.any(np.abs(f) > 2.0**53):
        return f
    residual = np.array([int(a) - int(b) for a, b in zip(x.reshape(-1).tolist(), f.reshape(-1).tolist())],
                        dtype=np.float64).reshape(x.shape)
    even = (f.view(np.uint64) & np.uint64(1)) == 0
    return np.where((residual != 0) & even, np.nextafter(f, np.copysign(np.inf, residual)), f)


@register("stablehlo.bitcast_convert", storage=True)
def _bitcast_convert(op, c):
    """Reinterprets the bits: same width keeps the shape; otherwise the last dimension splits or joins
    (element 0 holding the lowest bits; i1 elements are single bits)."""
    target, source_bits = info(op.results[0].type), width(op)
    target_bits = width(op, result=True)

    def kernel(x):
        x = np.array(x)
        if source_bits == target_bits:
            return x.view(target.storage)
        if source_bits == 1:  # bits to bytes, lowest bit first
            x = np.packbits(x, axis=-1, bitorder="little")
        if target_bits == 1:
            return np.unpackbits(x.reshape(x.shape + (1,)).view(np.uint8), axis=-1, bitorder="little").astype(bool)
        if target.storage.itemsize < x.dtype.itemsize:
            return x.reshape(x.shape + (1,)).view(target.storage)
        return x.view(target.storage).reshape(x.shape[:-1])

    return kernel


@register("stablehlo.reduce_precision", pointwise=True)
def _reduce_precision(op, c):
    """Rounds to a float format with the given exponent and mantissa bits (nearest-even), then back."""
    exponent_bits, mantissa_bits = attrs.integer(op, "exponent_bits"), attrs.integer(op, "mantissa_bits")
    return lambda x: reduce_precision(x, exponent_bits, mantissa_bits)


_FLOAT_LAYOUT = {4: (8, 23), 8: (11, 52)}  # bytes -> (exponent bits, mantissa bits)


def reduce_precision(x: np.ndarray, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """Bit-level rounding of x to (exponent_bits, mantissa_bits), keeping NaN and signs."""
    if x.dtype.itemsize <= 2:  # f16, bf16 and f8: exactly representable in f32, where the rounding happens
        return reduce_precision(x.astype(np.float32), exponent_bits, mantissa_bits).astype(x.dtype)
    src_exp, src_man = _FLOAT_LAYOUT[x.dtype.itemsize]
    utype = np.uint32 if x.dtype.itemsize == 4 else np.uint64
    one = utype(1)
    bits = np.array(x).view(utype)
    if mantissa_bits < src_man:
        shift = utype(src_man - mantissa_bits)
        last = one << shift
        bias = (last >> one) - one
        bits = (bits + ((bits & last) >> shift) + bias) & ~(last - one)
    if exponent_bits < src_exp:
        sign = one << utype(x.dtype.itemsize * 8 - 1)
        exp_mask = utype(((1 << src_exp) - 1) << src_man)
        exp_bias = (1 << (src_exp - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        overflow = exponent > utype((exp_bias + reduced_bias) << src_man)
        underflow = exponent <= utype((exp_bias - reduced_bias) << src_man)
        bits = np.where(overflow, (bits & sign) | exp_mask, np.where(underflow, bits & sign, bits))
    out = bits.view(x.dtype)
    # NaN stays NaN, except that with no mantissa bits it can only become an infinity
    return np.where(np.isnan(x), x if mantissa_bits > 0 else np.copysign(np.inf, x).astype(x.dtype), out)


# -- rounding and sign ---------------------------------------------------------------

_simple("stablehlo.floor", np.floor)
_simple("stablehlo.ceil", np.ceil)
_simple("stablehlo.round_nearest_even", np.rint)


@register("stablehlo.round_nearest_afz", pointwise=True)
def _round_nearest_afz(op, c):
    """Rounds to nearest, ties away from zero (x - trunc(x) is exact, so no double rounding)."""

    def kernel(x):
        whole = np.trunc(x)
        return whole + np.where(np.abs(x - whole) >= 0.5, np.sign(x), np.zeros_like(x))

    return kernel


@register("stablehlo.sign", pointwise=True)
def _sign(op, c):
    """-1, 0 or 1 (floats keep a zero's sign and NaN; complex: x / |x|)."""

    def kernel(x):
        if x.dtype.kind == "c":
            magnitude = np.abs(x)
            return np.where(magnitude == 0, x, x / np.where(magnitude == 0, 1, magnitude))
        if x.dtype.kind in "fV":
            return np.where((x == 0) | np.isnan(x), x, np.sign(x))
        return np.sign(x) if x.dtype.kind == "i" else (x != 0).astype(x.dtype)

    return kernel


_simple("stablehlo.is_finite", np.isfinite)


# -- math functions -----------------------------------------------------------------

def _expm1_complex(z):
    """exp(z) - 1 without cancellation: expm1(x) cos y - 2 sin^2(y/2) + i e^x sin y."""
    x, y = z.real, z.imag
    half = np.sin(y / 2)
    return (np.expm1(x) * np.cos(y) - 2 * half * half) + 1j * (np.exp(x) * np.sin(y))


def _log1p_complex(z):
    """log(1 + z) with the real part computed as log1p(2x + x^2 + y^2) / 2."""
    x, y = z.real, z.imag
    return 0.5 * np.log1p(x * (2 + x) + y * y) + 1j * np.arctan2(y, 1 + x)


_math("stablehlo.exponential", np.exp)
_math("stablehlo.exponential_minus_one", np.expm1, _expm1_complex)
_math("stablehlo.log", np.log)
_math("stablehlo.log_plus_one", np.log1p, _log1p_complex)
_math("stablehlo.sine", np.sin)
_math("stablehlo.cosine", np.cos)
_math("stablehlo.tan", np.tan)
_math("stablehlo.tanh", np.tanh)
_math("stablehlo.cbrt", np.cbrt, lambda z: np.power(z, 1 / 3))
_math("stablehlo.rsqrt", lambda x: 1 / np.sqrt(x))
_math("stablehlo.logistic", lambda x: 1 / (1 + np.exp(-x)))


@register("stablehlo.sqrt", pointwise=True)
def _sqrt(op, c):
    """Square root (IEEE sqrt is correctly rounded in every float type; complex in complex128)."""
    return lambda x: np.sqrt(wide(x)) if x.dtype.kind == "c" or x.dtype.itemsize < 4 else np.sqrt(x)
