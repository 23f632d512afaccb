"""Ops whose indices or shapes are runtime values: dynamic_slice, dynamic_update_slice,
get_dimension_size and the dynamic_* forms of broadcast, reshape, iota, pad, gather, conv,
plus real_dynamic_slice."""

from __future__ import annotations

import numpy as np

from oxla.interpreter import attrs
from oxla.interpreter.core import register
from oxla.interpreter.data_movement import broadcast_in_dim, iota, pad
from oxla.interpreter.gather_scatter import gather
from oxla.interpreter.linalg import conv_dimensions, convolution
from oxla.interpreter.types import info


def _clamped_starts(starts, shape, sizes) -> list[int]:
    """Start indices clamped so that a block of `sizes` fits in `shape`."""
    return [int(min(max(int(s[()]), 0), max(n - k, 0))) for s, n, k in zip(starts, shape, sizes)]


def _shape(values) -> tuple[int, ...]:
    """A 1-d shape tensor as a tuple of Python ints."""
    return tuple(int(v) for v in np.asarray(values).reshape(-1))


@register("stablehlo.dynamic_slice", storage=True)
def _dynamic_slice(op, c):
    sizes = attrs.ints(op, "slice_sizes")

    def kernel(x, *starts):
        begin = _clamped_starts(starts, x.shape, sizes)
        return x[tuple(slice(b, b + k) for b, k in zip(begin, sizes))]

    return kernel


@register("stablehlo.dynamic_update_slice", storage=True)
def _dynamic_update_slice(op, c):
    def kernel(x, update, *starts):
        begin = _clamped_starts(starts, x.shape, update.shape)
        out = np.array(x)
        out[tuple(slice(b, b + k) for b, k in zip(begin, update.shape))] = update
        return out

    return kernel


@register("stablehlo.get_dimension_size")
def _get_dimension_size(op, c):
    dimension = attrs.integer(op, "dimension")
    return lambda x: np.array(x.shape[dimension], dtype=np.int32)


@register("stablehlo.dynamic_broadcast_in_dim", storage=True)
def _dynamic_broadcast_in_dim(op, c):
    dims = attrs.ints(op, "broadcast_dimensions")
    return lambda x, shape: broadcast_in_dim(x, _shape(shape), dims)


@register("stablehlo.dynamic_reshape", storage=True)
def _dynamic_reshape(op, c):
    return lambda x, shape: np.reshape(x, _shape(shape))


@register("stablehlo.dynamic_iota")
def _dynamic_iota(op, c):
    dimension, dtype = attrs.integer(op, "iota_dimension"), info(op.results[0].type).dtype
    return lambda shape: iota(_shape(shape), dimension, dtype)


@register("stablehlo.dynamic_pad", storage=True)
def _dynamic_pad(op, c):
    return lambda x, value, low, high, interior: pad(x, value[()], list(_shape(low)), list(_shape(high)),
                                                      list(_shape(interior)))


@register("stablehlo.dynamic_gather", storage=True)
def _dynamic_gather(op, c):
    numbers = attrs.struct(op, "dimension_numbers")
    return lambda operand, indices, sizes: gather(operand, indices, numbers, list(_shape(sizes)))


@register("stablehlo.real_dynamic_slice", storage=True)
def _real_dynamic_slice(op, c):
    def kernel(x, starts, limits, strides):
        bounds = list(zip(_shape(starts), _shape(limits), _shape(strides)))
        if any(not 0 <= s <= l <= n or st <= 0 for (s, l, st), n in zip(bounds, x.shape)):
            raise ValueError(f"slice bounds {bounds} do not fit the operand's shape {x.shape}")
        return x[tuple(slice(s, l, st) for s, l, st in bounds)]

    return kernel


@register("stablehlo.dynamic_conv")
def _dynamic_conv(op, c):
    """A convolution whose padding is an operand."""
    dims = conv_dimensions(op)
    spatial = len(dims["input_spatial_dimensions"])
    strides = attrs.ints(op, "window_strides", [1] * spatial)
    lhs_dilation = attrs.ints(op, "lhs_dilation", [1] * spatial)
    rhs_dilation = attrs.ints(op, "rhs_dilation", [1] * spatial)
    reversal = attrs.bools(op, "window_reversal", [False] * spatial)
    groups, batch_groups = attrs.integer(op, "feature_group_count", 1), attrs.integer(op, "batch_group_count", 1)
    dtype = info(op.results[0].type).dtype

    def kernel(lhs, rhs, padding):
        pairs = [tuple(int(v) for v in row) for row in np.asarray(padding).reshape(spatial, 2)]
        return convolution(lhs, rhs, dims, strides, pairs, lhs_dilation, rhs_dilation, reversal, groups,
                           batch_groups, dtype)

    return kernel
