"""Ops that create or rearrange tensors without arithmetic: constant, iota, broadcasts, reshape,
transpose, slice, concatenate, pad, reverse.

They work on stored values, so quantized tensors move as their integers.
Results may be numpy views of their operands: no kernel ever writes into
an array it did not create.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects.elements import constant_value, parse_dense, value_text
from oxla.interpreter import attrs
from oxla.interpreter.core import register
from oxla.interpreter.types import DYNAMIC, info


@register("stablehlo.constant", pointwise=True, storage=True)
def _constant(op, c):
    """The op's value, read once."""
    value = value_attribute(op, op.results[0].type)
    return lambda: value


def value_attribute(op, type_) -> np.ndarray:
    """The dense `value` attribute of an op (a constant, a check op), stored as `type_` stores it.

    Read from the op's printed form: the bindings cannot hand complex dense
    attributes to Python, and quantized ones are read as their integers.
    """
    t = info(type_)
    if t.quant is None and op.name == "stablehlo.constant":
        return t.store(constant_value(op))
    literal, _ = value_text(op)
    if t.quant is None:
        return t.store(parse_dense(literal, ir.ShapedType(type_)))
    width = t.quant.storage.itemsize * 8
    with op.context, ir.Location.unknown():
        storage = ir.IntegerType.get_signless(width) if t.quant.storage.kind == "i" else ir.IntegerType.get_unsigned(width)
        shaped = ir.RankedTensorType.get(list(t.shape), storage)
    return parse_dense(literal, shaped).astype(t.storage)


def static_shape(op, index: int = 0) -> tuple[int, ...]:
    """A result's shape, which must be static (UnsupportedOp-worthy ValueError otherwise)."""
    shape = info(op.results[index].type).shape
    if shape is None or DYNAMIC in shape:
        raise NotImplementedError(f"{op.name} with a dynamic result shape needs its dynamic_ form")
    return shape


def iota(shape, dimension: int, dtype: np.dtype) -> np.ndarray:
    """0, 1, 2... along `dimension`, broadcast over the other dimensions."""
    line = np.arange(shape[dimension]).astype(dtype if dtype.kind != "V" else np.float64)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return np.broadcast_to(line.reshape(view), tuple(shape))


@register("stablehlo.iota")
def _iota(op, c):
    shape, dimension = static_shape(op), attrs.integer(op, "iota_dimension")
    value = info(op.results[0].type).finish(iota(shape, dimension, info(op.results[0].type).dtype))
    return lambda: value


def broadcast_in_dim(x: np.ndarray, shape, dims: list[int]) -> np.ndarray:
    """x broadcast to `shape`, its dimension i becoming dimension dims[i] (size-1 dims stretch)."""
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    x = np.transpose(x, order) if order != list(range(len(dims))) else x
    view = [1] * len(shape)
    for i, d in enumerate(sorted(dims)):
        view[d] = x.shape[i]
    return np.broadcast_to(x.reshape(view), tuple(shape))


@register("stablehlo.broadcast_in_dim", storage=True)
def _broadcast_in_dim(op, c):
    shape, dims = static_shape(op), attrs.ints(op, "broadcast_dimensions")
    return lambda x: broadcast_in_dim(x, shape, dims)


@register("stablehlo.broadcast", storage=True)
def _broadcast(op, c):
    """The legacy form: `broadcast_sizes` dimensions added in front."""
    sizes = tuple(attrs.ints(op, "broadcast_sizes"))
    return lambda x: np.broadcast_to(x, sizes + x.shape)


@register("stablehlo.reshape", storage=True)
def _reshape(op, c):
    """Row-major reshape to the result type's shape (one dynamic dimension may be inferred)."""
    shape = tuple(-1 if d == DYNAMIC else d for d in info(op.results[0].type).shape)
    return lambda x: np.reshape(x, shape)


@register("stablehlo.transpose", storage=True)
def _transpose(op, c):
    permutation = attrs.ints(op, "permutation")
    return lambda x: np.transpose(x, permutation)


@register("stablehlo.slice", storage=True)
def _slice(op, c):
    starts, limits = attrs.ints(op, "start_indices"), attrs.ints(op, "limit_indices")
    strides = attrs.ints(op, "strides", [1] * len(starts))
    index = tuple(slice(s, l, st) for s, l, st in zip(starts, limits, strides))
    return lambda x: x[index]


@register("stablehlo.concatenate", storage=True)
def _concatenate(op, c):
    dimension = attrs.integer(op, "dimension")
    return lambda *xs: np.concatenate(xs, axis=dimension)


def pad(x: np.ndarray, value, low: list[int], high: list[int], interior: list[int]) -> np.ndarray:
    """x with `interior` elements between neighbours and `low`/`high` (possibly negative) at the edges."""
    dilated = [(n - 1) * (i + 1) + 1 if n else 0 for n, i in zip(x.shape, interior)]
    grown = [max(lo, 0) + d + max(hi, 0) for lo, d, hi in zip(low, dilated, high)]
    out = np.full(grown, value, dtype=x.dtype)
    out[tuple(slice(max(lo, 0), max(lo, 0) + d, i + 1) for lo, d, i in zip(low, dilated, interior))] = x
    return out[tuple(slice(-min(lo, 0), g + min(hi, 0)) for lo, hi, g in zip(low, high, grown))]


@register("stablehlo.pad", storage=True)
def _pad(op, c):
    low, high = attrs.ints(op, "edge_padding_low"), attrs.ints(op, "edge_padding_high")
    interior = attrs.ints(op, "interior_padding", [0] * len(low))
    return lambda x, value: pad(x, value[()], low, high, interior)


@register("stablehlo.reverse", storage=True)
def _reverse(op, c):
    dims = tuple(attrs.ints(op, "dimensions"))
    return lambda x: np.flip(x, axis=dims) if dims else x
