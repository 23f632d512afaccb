"""Chains: data movement and conversions that undo each other or combine into one op.

Reshapes, transposes and broadcasts only move or copy elements, so composing
them is exact for every element type; conversions compose only when the
middle type holds every value of the source. The rules take static shapes
and plain (not quantized) element types, and decline anything else.
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo.types import shape_of
from oxla.transforms.simplify.rule import defining, element_kind, rule

FAMILY = "chains"


def _ranked(*values) -> bool:
    """Whether every value is a ranked tensor of integers, booleans, floats or complex numbers."""
    return all(isinstance(v.type, ir.RankedTensorType) and element_kind(v) != "other" for v in values)


def _plain(*values) -> bool:
    """Whether every value is a statically shaped tensor of integers, booleans, floats or complex numbers."""
    return _ranked(*values) and all(None not in shape_of(v) for v in values)


def _replace_or_build(op, rw, x, make) -> bool:
    """Replaces `op` by `x` when `x` already has its result type, else by the op `make()` builds."""
    if x.type == op.result.type:
        return rw.replace(op, x)
    return rw.replace(op, rw.build(op, make))


def _is_identity(permutation, rank: int) -> bool:
    """Whether a list of dimension numbers is 0, 1, ..., rank - 1."""
    return list(permutation) == list(range(rank))


# -- convert ----------------------------------------------------------------------------------------------------

# Float formats: (significand bits with the implicit one, largest exponent, smallest normal exponent,
# has infinities, has -0.0). Formats not listed (tf32, f4, f6 and the other f8 types) make rules decline.
_FLOATS = {
    "f64": (53, 1023, -1022, True, True),
    "f32": (24, 127, -126, True, True),
    "bf16": (8, 127, -126, True, True),
    "f16": (11, 15, -14, True, True),
    "f8E5M2": (3, 15, -14, True, True),
    "f8E4M3FN": (4, 8, -6, False, True),
    "f8E5M2FNUZ": (3, 15, -15, False, False),
    "f8E4M3FNUZ": (4, 7, -7, False, False),
    "f8E4M3B11FNUZ": (4, 4, -10, False, False),
}


def _format(e: ir.Type):
    """An element type as ("bool",), ("int", width, signed), ("float", *_FLOATS entry), ("complex", part); or None."""
    if isinstance(e, ir.IntegerType):
        e = ir.IntegerType(e)
        if e.width == 1:
            return ("bool",)
        return ("int", e.width, not e.is_unsigned)
    if isinstance(e, ir.ComplexType):
        part = _format(ir.ComplexType(e).element_type)
        return ("complex", part) if part is not None and part[0] == "float" else None
    if str(e) in _FLOATS:
        return ("float",) + _FLOATS[str(e)]
    return None


def _holds(a, b) -> bool:
    """Whether format `b` represents every value of format `a` exactly (NaN, infinities and -0.0 included)."""
    if a == b:
        return True
    if b[0] == "complex" and a[0] != "complex":
        return _holds(a, b[1])
    if a[0] == "bool":
        return b[0] == "float" or (b[0] == "int" and (b[1] >= 2 or not b[2]))
    if a[0] == "int":
        _, width, signed = a
        if b[0] == "int":
            return b[1] >= width if signed == b[2] else (not signed and b[2] and b[1] > width)
        if b[0] == "float":
            # Signed: magnitudes below 2^(w-1), and 2^(w-1) itself; unsigned: up to 2^w - 1.
            return b[1] >= (width - 1 if signed else width) and b[2] >= width - 1
        return False
    if a[0] == "float":
        if b[0] != "float":
            return False
        _, p, emax, emin, inf, negzero = a
        _, pb, emaxb, eminb, infb, negzerob = b
        return pb >= p and emaxb >= emax and eminb <= emin and (infb or not inf) and (negzerob or not negzero)
    if a[0] == "complex":
        return b[0] == "complex" and _holds(a[1], b[1])
    return False


@rule("stablehlo.convert", family=FAMILY)
def convert_same_type(op, rw) -> bool:
    """convert(x) to x's own type -> x (the identity conversion)."""
    x = op.operand
    return x.type == op.result.type and element_kind(x) != "other" and rw.replace(op, x)


@rule("stablehlo.convert", family=FAMILY)
def convert_convert(op, rw) -> bool:
    """convert(convert(x: A): B): C -> convert(x): C when B holds every value of A (then A -> B changes nothing)."""
    inner = defining(op.operand, "stablehlo.convert")
    if inner is None:
        return False
    x = inner.operand
    if not _ranked(x, inner.result, op.result):
        return False
    a, b, c = (_format(ir.ShapedType(v.type).element_type) for v in (x, inner.result, op.result))
    if a is None or b is None or c is None or not _holds(a, b):
        return False
    if b[0] == "complex" and c[0] != "complex":
        return False  # complex to real conversion: left to the ops as written
    if a[0] in ("bool", "int") and b[0] in ("float", "complex") and c[0] == "int" and not _holds(a, c):
        return False  # float to integer saturates where integer to integer wraps around
    c_type = ir.ShapedType(op.result.type).element_type
    return _replace_or_build(op, rw, x, lambda: shlo.convert(x, c_type, result_types=[op.result.type]))


# -- reshape ----------------------------------------------------------------------------------------------------

@rule("stablehlo.reshape", family=FAMILY)
def reshape_same_shape(op, rw) -> bool:
    """reshape(x) to x's own shape -> x (row-major order keeps every element in place)."""
    x = op.operand
    return x.type == op.result.type and _plain(x) and rw.replace(op, x)


@rule("stablehlo.reshape", family=FAMILY)
def reshape_reshape(op, rw) -> bool:
    """reshape(reshape(x)) -> reshape(x) (both keep row-major element order, so only the last shape matters)."""
    inner = defining(op.operand, "stablehlo.reshape")
    if inner is None:
        return False
    x = inner.operand
    if not _plain(x, op.result):
        return False
    shape = list(shape_of(op.result))
    return _replace_or_build(op, rw, x, lambda: shlo.reshape(x, shape=shape, result_types=[op.result.type]))


@rule("stablehlo.reshape", family=FAMILY)
def reshape_broadcast_in_dim(op, rw) -> bool:
    """reshape(broadcast_in_dim(x)) -> broadcast_in_dim(x) when the reshape only adds or removes size-1 dimensions."""
    inner = defining(op.operand, "stablehlo.broadcast_in_dim")
    if inner is None:
        return False
    x = inner.operand
    if not _plain(x, inner.result, op.result):
        return False
    x_shape, middle, out = shape_of(x), shape_of(inner.result), shape_of(op.result)
    middle_big = [d for d, n in enumerate(middle) if n != 1]
    out_big = [d for d, n in enumerate(out) if n != 1]
    if [middle[d] for d in middle_big] != [out[d] for d in out_big]:
        return False  # the reshape splits or merges dimensions
    to_out = dict(zip(middle_big, out_big))
    dims = [to_out.get(d) for d in inner.broadcast_dimensions]
    # Size-1 operand dimensions landing on removed size-1 dimensions take unused result dimensions, in order.
    free = [d for d in range(len(out)) if d not in dims]
    free.sort(key=lambda d: out[d] != 1)
    lonely = sorted((inner.broadcast_dimensions[i], i) for i, d in enumerate(dims) if d is None)
    if len(lonely) > len(free):
        return False  # more operand dimensions than the result has room for
    for (_, i), d in zip(lonely, sorted(free[:len(lonely)])):
        if x_shape[i] != 1:
            return False
        dims[i] = d
    shape = list(out)
    return rw.replace(op, rw.build(op, lambda: shlo.broadcast_in_dim(
        x, broadcast_dimensions=dims, shape=shape, result_types=[op.result.type])))


# -- transpose --------------------------------------------------------------------------------------------------

@rule("stablehlo.transpose", family=FAMILY)
def transpose_identity(op, rw) -> bool:
    """transpose(x, [0, 1, ..., n-1]) -> x (every element stays in place)."""
    x = op.operand
    if not _ranked(x) or not _is_identity(op.permutation, len(shape_of(x))):
        return False
    return x.type == op.result.type and rw.replace(op, x)


@rule("stablehlo.transpose", family=FAMILY)
def transpose_transpose(op, rw) -> bool:
    """transpose(transpose(x, p), q) -> transpose(x, [p[q[i]]]), or x when that is the identity."""
    inner = defining(op.operand, "stablehlo.transpose")
    if inner is None:
        return False
    x = inner.operand
    if not _ranked(x, op.result):
        return False
    p, q = list(inner.permutation), list(op.permutation)
    composed = [p[d] for d in q]
    if _is_identity(composed, len(composed)):
        return x.type == op.result.type and rw.replace(op, x)
    if not _plain(x, op.result):
        return False  # a new transpose only for static shapes
    return rw.replace(op, rw.build(op, lambda: shlo.transpose(
        x, permutation=composed, result_types=[op.result.type])))


# -- broadcast_in_dim -------------------------------------------------------------------------------------------

@rule("stablehlo.broadcast_in_dim", family=FAMILY)
def broadcast_in_dim_identity(op, rw) -> bool:
    """broadcast_in_dim(x, [0, 1, ..., n-1]) to x's own shape -> x (nothing is copied or moved)."""
    x = op.operand
    if not _plain(x) or not _is_identity(op.broadcast_dimensions, len(shape_of(x))):
        return False
    return x.type == op.result.type and rw.replace(op, x)


@rule("stablehlo.broadcast_in_dim", family=FAMILY)
def broadcast_in_dim_broadcast_in_dim(op, rw) -> bool:
    """broadcast_in_dim(broadcast_in_dim(x, a), b) -> broadcast_in_dim(x, [b[a[i]]]) (copies of copies)."""
    inner = defining(op.operand, "stablehlo.broadcast_in_dim")
    if inner is None:
        return False
    x = inner.operand
    if not _plain(x, inner.result, op.result):
        return False
    a, b = list(inner.broadcast_dimensions), list(op.broadcast_dimensions)
    composed = [b[d] for d in a]
    shape = list(shape_of(op.result))
    if _is_identity(composed, len(shape)) and x.type == op.result.type:
        return rw.replace(op, x)
    return rw.replace(op, rw.build(op, lambda: shlo.broadcast_in_dim(
        x, broadcast_dimensions=composed, shape=shape, result_types=[op.result.type])))
