"""Constants: iota and data movement of splat constants become constants.

A splat holds one value whatever its shape, so moving it (broadcast,
reshape, transpose) or converting it gives a splat of the result type, at no
size cost; an iota becomes a dense constant only when small. Splats are read
and written as one element, never expanded into a full array.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.elements import parse_dense, value_text
from oxla.dialects.stablehlo.attributes import dense_text
from oxla.dialects.stablehlo.types import element_of, ranked, shape_of, to_numpy_dtype
from oxla.transforms.simplify.rule import defining, element_kind, rule, splat_of

FAMILY = "constants"

# An iota with more elements than this stays an iota: a dense constant of it costs memory and parsing time.
IOTA_LIMIT = 1000
# Splats of constants larger than this are only recognized when MLIR stores them as splats.
_EXPAND_LIMIT = 1 << 16


# Helpers shared with the other rule families -----------------------------------------------------------------------

def static_shape(value_or_type) -> tuple[int, ...] | None:
    """The static shape of a ranked tensor value or type; None when a dimension is dynamic or it is not ranked."""
    try:
        dims = shape_of(value_or_type)
    except (TypeError, ValueError):
        return None
    return None if None in dims else tuple(dims)


def splat_scalar(value):
    """The one element of a splat `stablehlo.constant` feeding `value` (a numpy 0-d array), or None.

    Read from the attribute's printed form as a 0-d literal, so a splat of any
    size is never expanded (and complex splats, which the bindings cannot
    hold, are read too); small constants whose elements happen to be equal
    count as splats as well.
    """
    op = defining(value, "stablehlo.constant")
    if op is None or element_kind(value) == "other":
        return None
    element = element_of(value)
    try:
        literal, _ = value_text(op.operation)
        return parse_dense(literal, ranked([], element))
    except (ValueError, KeyError, IndexError, TypeError):
        pass
    dims = static_shape(value)
    if dims is None or int(np.prod(dims, dtype=np.int64)) > _EXPAND_LIMIT:
        return None
    s = splat_of(value)
    return None if s is None else np.asarray(s)


def splat_constant(result_type, scalar):
    """A splat `stablehlo.constant` of `result_type` holding `scalar`, at the current insertion point and location.

    Built from its text with a one-element literal (MLIR stores it as a splat),
    so the size of the result never matters and complex elements work.
    """
    result_type = ir.RankedTensorType(result_type)
    element = result_type.element_type
    literal = dense_text(np.asarray(scalar, dtype=to_numpy_dtype(element)), element).rsplit(" : ", 1)[0]
    text = (f'"stablehlo.constant"() <{{value = {literal} : {result_type}}}> : () -> {result_type} '
            f'{ir.Location.current}')
    op = ir.Operation.parse(text, context=ir.context()).operation
    ir.InsertionPoint.current.insert(op)
    return op.results[0]


def replace_built(op, rw, make) -> bool:
    """Replaces op's single result by what `make()` builds at op (its location, just before it).

    The built value must have op's result type: a rule that builds another
    type is wrong, so this raises (the pass then declines, or fails in strict
    mode) after erasing the built op.
    """
    built = rw.build(op, make)
    value = getattr(built, "value", built)
    if value.type != op.results[0].type:
        if not isinstance(value.owner, ir.Block) and not list(value.uses):
            rw.rewriter.erase_op(value.owner.operation if hasattr(value.owner, "operation") else value.owner)
        raise ValueError(f"{op.operation.name}: a rule built {value.type} for {op.results[0].type}")
    return rw.replace(op, value)


def _splat_moved(op, rw) -> bool:
    """Replaces a data-movement op of a splat constant by the splat with the op's result type."""
    source = op.operands[0]
    scalar = splat_scalar(source)
    result = op.results[0]
    if scalar is None or static_shape(result) is None or element_of(result) != element_of(source):
        return False
    return replace_built(op, rw, lambda: splat_constant(result.type, scalar))


# Rules ------------------------------------------------------------------------------------------------------------

@rule("stablehlo.iota", family=FAMILY)
def iota_constant(op, rw) -> bool:
    """iota of at most 1,000 elements -> its dense constant (exact: declines indices the type cannot hold)."""
    result = op.results[0]
    dims = static_shape(result)
    kind = element_kind(result)
    if dims is None or kind not in ("int", "float", "complex") or not dims:
        return False
    if int(np.prod(dims, dtype=np.int64)) > IOTA_LIMIT:
        return False
    axis = op.iota_dimension
    if not 0 <= axis < len(dims):
        return False
    dtype = to_numpy_dtype(element_of(result))
    line = np.arange(dims[axis], dtype=np.int64)
    with np.errstate(all="ignore"):
        held = line.astype(dtype)
    back = held.real if kind == "complex" else held
    if line.size and not np.array_equal(back.astype(np.float64) if kind != "int" else back.astype(np.int64), line):
        return False  # an index the element type cannot hold exactly (wraps or rounds): keep the iota
    view = [1] * len(dims)
    view[axis] = dims[axis]
    values = np.ascontiguousarray(np.broadcast_to(held.reshape(view), dims))
    return replace_built(op, rw, lambda: shlo.constant(values, dtype=element_of(result)))


@rule("stablehlo.broadcast_in_dim", family=FAMILY)
def broadcast_in_dim_splat(op, rw) -> bool:
    """broadcast_in_dim of a splat (or 0-d) constant -> a splat constant of the result type (exact: one value moved)."""
    return _splat_moved(op, rw)


@rule("stablehlo.reshape", family=FAMILY)
def reshape_splat(op, rw) -> bool:
    """reshape of a splat constant -> a splat constant of the result type (exact: one value moved)."""
    return _splat_moved(op, rw)


@rule("stablehlo.transpose", family=FAMILY)
def transpose_splat(op, rw) -> bool:
    """transpose of a splat constant -> a splat constant of the result type (exact: one value moved)."""
    return _splat_moved(op, rw)


# Float narrowings numpy (and ml_dtypes) round to nearest even in one step; other inexact ones decline.
_ROUNDED = {("float64", "float32"), ("float64", "float16"), ("float32", "float16"), ("float32", "bfloat16")}


def _float_to_float(x: np.ndarray, target: np.dtype):
    """x (0-d float array, not NaN) as `target` when numpy's conversion is the spec's exact or nearest-even one."""
    with np.errstate(all="ignore"):
        y = x.astype(target)
    wide, back = x.astype(np.float64), y.astype(np.float64)
    if np.isfinite(wide) and not np.isfinite(back):
        return None  # overflow (infinity, or NaN in types without one)
    if wide == back and np.signbit(wide) == np.signbit(back):
        return y
    return y if (x.dtype.name, np.dtype(target).name) in _ROUNDED else None


def _int_to_float(v: int, target: np.dtype):
    """The integer v as the float `target`, rounded once to nearest even, or None."""
    if abs(v) <= 2 ** 24:
        return _float_to_float(np.array(v, dtype=np.float32), target)  # exact in f32
    if abs(v) <= 2 ** 53:
        return _float_to_float(np.array(v, dtype=np.float64), target)  # exact in f64
    return None


def _kind(element) -> str:
    """"bool", "int", "float" or "complex" for an MLIR element type ("other" for anything else)."""
    if isinstance(element, ir.IntegerType):
        return "bool" if ir.IntegerType(element).width == 1 else "int"
    if isinstance(element, ir.FloatType):
        return "float"
    return "complex" if isinstance(element, ir.ComplexType) else "other"


def _wrap(v: int, element) -> int:
    """The integer v modulo 2**width of an integer element type, in its signed or unsigned range."""
    t = ir.IntegerType(element)
    v %= 1 << t.width
    return v - (1 << t.width) if not t.is_unsigned and v >= 1 << (t.width - 1) else v


def _part(element) -> np.dtype:
    """The numpy dtype of a float element type, or of a complex type's parts."""
    if isinstance(element, ir.ComplexType):
        element = ir.ComplexType(element).element_type
    return to_numpy_dtype(element)


def convert_scalar(x: np.ndarray, source, target):
    """The spec's convert of the 0-d array x from element type `source` to `target` (0-d array), or None.

    Booleans: zero <-> false, anything else true (the real part, for complex). Integers wrap around;
    integers and floats go to floats exactly, or rounded once to nearest even
    where numpy does that; complex parts convert as floats, and a real value
    gets a zero imaginary part. Declines float to integer, complex to real,
    NaN, overflow to infinity, and roundings numpy would do twice.
    """
    s_kind, t_kind = _kind(source), _kind(target)
    if "other" in (s_kind, t_kind):
        return None
    dtype = to_numpy_dtype(target)
    wide = x if s_kind == "complex" else x.astype(np.float64) if s_kind == "float" else None
    if wide is not None and bool(np.isnan(wide)):
        return None
    if t_kind == "bool":  # a complex value's imaginary part is ignored, as for every complex-to-real conversion
        return np.array(bool(np.real(wide) != 0) if wide is not None else int(x) != 0)
    if s_kind == "complex" and t_kind != "complex":
        return None
    if t_kind == "int":
        return np.array(_wrap(int(x), target), dtype=dtype) if s_kind in ("bool", "int") else None
    part = _part(target)
    if s_kind in ("bool", "int"):
        v = int(x)
        y = _int_to_float(v, part)
        parts = None if y is None else (y, np.zeros((), part))
    elif s_kind == "float":
        y = _float_to_float(x, part)
        parts = None if y is None else (y, np.zeros((), part))
    else:
        re = _float_to_float(np.array(x.real), part)
        im = _float_to_float(np.array(x.imag), part)
        parts = None if re is None or im is None else (re, im)
    if parts is None:
        return None
    if t_kind == "float":
        return parts[0]
    out = np.zeros((), dtype=dtype)
    out.real, out.imag = parts
    return out


@rule("stablehlo.convert", family=FAMILY)
def convert_splat(op, rw) -> bool:
    """convert of a splat constant -> the converted splat (exact conversions, integer wrap-around, nearest-even)."""
    source, result = op.operands[0], op.results[0]
    scalar = splat_scalar(source)
    if scalar is None or static_shape(result) is None or element_kind(result) == "other":
        return False
    try:
        value = convert_scalar(np.asarray(scalar), element_of(source), element_of(result))
    except (TypeError, KeyError):
        return False
    if value is None:
        return False
    return replace_built(op, rw, lambda: splat_constant(result.type, value))
