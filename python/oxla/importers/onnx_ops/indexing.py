"""Indexing ONNX operators: Gather, GatherElements, GatherND, ScatterElements and ScatterND.

ONNX indices may be negative (counted from the end); they are wrapped once
here, at import time when they are constants. Element-wise gathers and
scatters spell out the full coordinate of every element by concatenating
iotas for the other axes with the given indices.
"""

from __future__ import annotations

import numpy as np

from oxla.builder import functions as F
from oxla.builder.tensor import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.onnx_ops.core import (
    Node, add, axis_index, compare, convert, dims, operator, reshape, select, slice_)


def wrap_indices(n: Node, index: int, sizes) -> Tensor:
    """Input `index` (integer indices) as i64 with negative entries counted from the end of `sizes`.

    `sizes` is the size of the indexed axis, or a list of sizes along the
    indices' last axis (GatherND).
    """
    if n.is_static(index):
        values = np.asarray(n.static(index), np.int64)
        if None not in np.atleast_1d(sizes):
            return F.constant(np.where(values < 0, values + np.asarray(sizes, np.int64), values))
    indices = convert(n.input(index), "i64")
    bound = sizes if np.ndim(sizes) == 0 else F.constant(np.asarray(sizes, np.int64))
    if bound is None or (np.ndim(sizes) and None in sizes):
        n.fail("negative indices into a dynamic axis are not supported")
    return select(compare(indices, 0, "LT"), add(indices, bound), indices)


@operator("Gather")
def gather(n: Node) -> Tensor:
    """Slices of data along `axis` at the given indices (the indices' shape replaces that axis)."""
    data = n.input(0)
    axis = axis_index(n.attr("axis", 0), data.ndim, n)
    if None not in data.shape[:axis] + data.shape[axis + 1:]:
        return F.take(data, wrap_indices(n, 1, data.shape[axis]), axis=axis)
    if not n.is_static(1) or data.shape[axis] is None:
        n.fail("gathering from data with dynamic sizes outside the gathered axis needs constant indices "
               "along a static axis")
    indices = np.asarray(n.static(1), np.int64) % data.shape[axis]
    return _take_constant(data, indices, axis)


def _take_constant(data: Tensor, indices: np.ndarray, axis: int) -> Tensor:
    """data[..., indices, ...] for constant indices: slices along `axis` (other sizes may be dynamic)."""
    entries = dims(data)
    parts = []
    for i in indices.reshape(-1):
        starts, limits = [0] * data.ndim, list(data.shape)
        starts[axis], limits[axis] = int(i), int(i) + 1
        parts.append(slice_(data, starts, limits))
    joined = parts[0] if len(parts) == 1 else Tensor(shlo.concatenate(parts, dimension=axis))
    return reshape(joined, entries[:axis] + list(indices.shape) + entries[axis + 1:])


def _coordinates(indices: Tensor, axis: int, rank: int) -> Tensor:
    """Full coordinates [..., rank] of each element of `indices`: iotas for the other axes, indices on `axis`."""
    if None in indices.shape:
        raise ValueError("element-wise indices need a static shape")
    parts = []
    for a in range(rank):
        part = indices if a == axis else Tensor(shlo.iota(shape=list(indices.shape), iota_dimension=a, dtype="i64"))
        parts.append(reshape(part, list(indices.shape) + [1]))
    return Tensor(shlo.concatenate(parts, dimension=rank))


def _point_gather(data: Tensor, coordinates: Tensor) -> Tensor:
    """One element of data per coordinate vector (the last axis of `coordinates`)."""
    rank = data.ndim
    numbers = shlo.GatherDimensionNumbers(offset_dims=[], collapsed_slice_dims=list(range(rank)),
                                          start_index_map=list(range(rank)), index_vector_dim=coordinates.ndim - 1)
    return Tensor(shlo.gather(data, coordinates, dimension_numbers=numbers, slice_sizes=[1] * rank))


@operator("GatherElements", note="static index shapes")
def gather_elements(n: Node) -> Tensor:
    """out[i][j] = data[indices[i][j]][j] (for axis 0), and so on for each axis."""
    data = n.input(0)
    axis = axis_index(n.attr("axis", 0), data.ndim, n)
    indices = wrap_indices(n, 1, data.shape[axis])
    try:
        return _point_gather(data, _coordinates(indices, axis, data.ndim))
    except ValueError as e:
        n.fail(str(e))


@operator("GatherND", note="batch_dims too")
def gather_nd(n: Node) -> Tensor:
    """Slices of data at the index vectors of the last axis of indices, after `batch_dims` shared axes."""
    data = n.input(0)
    b = n.attr("batch_dims", 0)
    depth = n.input(1).shape[-1]
    if depth is None or None in data.shape:
        n.fail("needs a static index depth and static data sizes")
    indices = wrap_indices(n, 1, list(data.shape[b:b + depth]))
    if b:
        indices = _with_batch_coordinates(indices, b)
    lead = b + depth
    numbers = shlo.GatherDimensionNumbers(
        offset_dims=list(range(indices.ndim - 1, indices.ndim - 1 + data.ndim - lead)),
        collapsed_slice_dims=list(range(lead)), start_index_map=list(range(lead)),
        index_vector_dim=indices.ndim - 1)
    sizes = [1] * lead + list(data.shape[lead:])
    return Tensor(shlo.gather(data, indices, dimension_numbers=numbers, slice_sizes=sizes))


def _with_batch_coordinates(indices: Tensor, b: int) -> Tensor:
    """Index vectors with the coordinates of their first `b` (batch) axes put in front."""
    if None in indices.shape:
        raise ValueError("batch_dims needs static index sizes")
    shape = list(indices.shape[:-1]) + [1]
    parts = [Tensor(shlo.iota(shape=shape, iota_dimension=a, dtype="i64")) for a in range(b)]
    return Tensor(shlo.concatenate(parts + [indices], dimension=indices.ndim - 1))


# Scatters --------------------------------------------------------------------------------------------------------

# ONNX reduction attribute: how an update combines with the element it lands on
COMBINE = {"none": lambda old, new: new, "add": shlo.add, "mul": shlo.multiply, "max": shlo.maximum,
           "min": shlo.minimum}


def _combine(n: Node):
    """The scatter's update computation for the node's `reduction`."""
    reduction = n.attr("reduction", "none")
    if reduction not in COMBINE:
        n.fail(f"unknown reduction {reduction!r}")
    return COMBINE[reduction]


def _point_scatter(data: Tensor, coordinates: Tensor, updates: Tensor, combine) -> Tensor:
    """data with one update per coordinate vector (the last axis of `coordinates`) combined in."""
    rank = data.ndim
    numbers = shlo.ScatterDimensionNumbers(
        update_window_dims=[], inserted_window_dims=list(range(rank)),
        scatter_dims_to_operand_dims=list(range(rank)), index_vector_dim=coordinates.ndim - 1)
    return Tensor(shlo.scatter(data, coordinates, updates, scatter_dimension_numbers=numbers,
                               update_computation=combine))


@operator("ScatterElements", note="reduction none/add/mul/max/min; static index shapes")
def scatter_elements(n: Node) -> Tensor:
    """data with updates[i][j] written to data[indices[i][j]][j] (for axis 0), and so on."""
    data = n.input(0)
    axis = axis_index(n.attr("axis", 0), data.ndim, n)
    indices = wrap_indices(n, 1, data.shape[axis])
    try:
        coordinates = _coordinates(indices, axis, data.ndim)
    except ValueError as e:
        n.fail(str(e))
    return _point_scatter(data, coordinates, n.input(2), _combine(n))


@operator("ScatterND", note="reduction none/add/mul/max/min")
def scatter_nd(n: Node) -> Tensor:
    """data with update slices written at the index vectors of the last axis of indices."""
    data, updates = n.input(0), n.input(2)
    depth = n.input(1).shape[-1]
    if depth is None or None in data.shape:
        n.fail("needs a static index depth and static data sizes")
    indices = wrap_indices(n, 1, list(data.shape[:depth]))
    batch = indices.ndim - 1
    numbers = shlo.ScatterDimensionNumbers(
        update_window_dims=list(range(batch, updates.ndim)), inserted_window_dims=list(range(depth)),
        scatter_dims_to_operand_dims=list(range(depth)), index_vector_dim=batch)
    return Tensor(shlo.scatter(data, indices, updates, scatter_dimension_numbers=numbers,
                               update_computation=_combine(n)))
