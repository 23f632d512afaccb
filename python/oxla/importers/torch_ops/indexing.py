"""Indexing: embedding, index (advanced indexing), index_select, gather, scatter (and its reductions), index_put,
index_add/index_copy, slice_scatter, select_scatter, diagonal, one_hot.

Integer index tensors become StableHLO gathers and scatters; negative indices
count from the end where torch allows them (advanced indexing, index_put).
Boolean mask indices are rejected before lowering: their result size
depends on the data.
"""

from __future__ import annotations

import numpy as np
import torch

from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import types as T
from oxla.importers.torch_ops import translates
from oxla.importers.torch_ops.lowering import (
    REDUCERS, axis, broadcast, constant, convert, dims_of, full, is_static, iota, reshape, scalar, shape_tensor,
    slice_axis, static, transpose)
from oxla.importers.torch_ops.shape import slice_start


def _wrap_negative(idx: Tensor, size) -> Tensor:
    """Indices with negative ones counted from the end of a dimension of `size`."""
    idx = convert(idx, "i64")
    zero = broadcast(constant(0, "i64"), dims_of(idx))
    return shlo.select(shlo.compare(idx, zero, "LT"), shlo.add(idx, broadcast(scalar(size, "i64"), dims_of(idx))), idx)


def _broadcast_dims(shapes: list[list]) -> list:
    """numpy's broadcast of several dimension lists (ints or run-time values)."""
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        sizes = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        pick = next((d for d in sizes if not isinstance(d, int)), None)
        static_sizes = [d for d in sizes if isinstance(d, int) and d != 1]
        out.append(static_sizes[0] if static_sizes else pick if pick is not None else 1)
    return out


class _Advanced:
    """The layout of x[indices] (advanced indexing): which axes are indexed and where the index dimensions go."""

    def __init__(self, x: Tensor, indices: list):
        self.positions = [i for i, t in enumerate(indices) if t is not None]
        adjacent = self.positions == list(range(self.positions[0], self.positions[-1] + 1))
        self.first = self.positions[0] if adjacent else 0  # where the index dimensions go in the result
        x_dims = dims_of(x)
        tensors = [indices[i] for i in self.positions]
        self.batch = _broadcast_dims([dims_of(t) for t in tensors])
        nb = len(self.batch)
        stacked = [reshape(broadcast(_wrap_negative(t, x_dims[i]), self.batch), self.batch + [1])
                   for i, t in zip(self.positions, tensors)]
        self.indices = stacked[0] if len(stacked) == 1 else shlo.concatenate(stacked, dimension=nb)
        self.remaining = [d for d in range(x.ndim) if d not in self.positions]
        n_rest = len(self.remaining)
        # result positions of the dimensions x keeps: those before the indexed ones, then after the index dims
        self.window = list(range(self.first)) + list(range(self.first + nb, nb + n_rest))
        kept = [x_dims[d] for d in self.remaining]
        self.result_dims = kept[:self.first] + self.batch + kept[self.first:]


def gather_slices(x: Tensor, layout: _Advanced, result_dims) -> Tensor:
    """x gathered at the layout's index vectors: whole slices along the dimensions x keeps."""
    numbers = shlo.GatherDimensionNumbers(offset_dims=layout.window, collapsed_slice_dims=layout.positions,
                                          start_index_map=layout.positions, index_vector_dim=len(layout.batch))
    sizes = [1 if d in layout.positions else s for d, s in enumerate(dims_of(x))]
    result = [T.tensor_type(static(result_dims), x.dtype)]
    if is_static(sizes):
        return shlo.gather(x, layout.indices, dimension_numbers=numbers, slice_sizes=sizes, result_types=result)
    return shlo.dynamic_gather(x, layout.indices, shape_tensor(sizes), dimension_numbers=numbers, result_types=result)


def _mask_check(node, args):
    """Advanced indexing with integer tensors only (a boolean mask's result size depends on the data)."""
    for t in args[1]:
        if t is not None and t.meta["val"].dtype in (torch.bool, torch.uint8):
            return "a boolean mask index: the result's size depends on the data"
    return None


@translates("aten.index.Tensor", "aten._unsafe_index.Tensor", check=_mask_check, note="integer index tensors")
def index(cx, x, indices, *_):
    """x[indices] with torch's (numpy's) advanced indexing rules; None entries keep a whole dimension."""
    return gather_slices(x, _Advanced(x, list(indices)), cx.out_dims())


def take(cx, x: Tensor, ax: int, idx: Tensor) -> Tensor:
    """x at integer `idx` along `ax` (idx's dimensions replace that axis)."""
    indices = [None] * ax + [idx]
    layout = _Advanced(x, indices)
    return gather_slices(x, layout, layout.result_dims)


@translates("aten.diagonal.default", "aten.diagonal_copy.default")
def diagonal(cx, x, offset=0, dim1=0, dim2=1, *_):
    """The `offset`-th diagonal of the (dim1, dim2) planes, as a new last dimension."""
    a, b = axis(dim1, x.ndim), axis(dim2, x.ndim)
    y = transpose(x, [d for d in range(x.ndim) if d not in (a, b)] + [a, b])
    n = cx.out.shape[-1]
    rows = iota([n], 0)
    cols = rows
    if offset > 0:
        cols = shlo.add(rows, broadcast(constant(offset, "i64"), [n]))
    elif offset < 0:
        rows = shlo.add(rows, broadcast(constant(-offset, "i64"), [n]))
    return index(cx, y, [None] * (y.ndim - 2) + [rows, cols])


@translates("aten.embedding.default")
def embedding(cx, weight, indices, *_):
    """Rows of `weight` at `indices`."""
    return take(cx, weight, 0, indices)


@translates("aten.index_select.default")
def index_select(cx, x, dim, idx, *_):
    """x at the 1-D `idx` along `dim`."""
    ax = axis(dim, x.ndim)
    if idx.ndim == 0:
        idx = reshape(idx, [1])
    return take(cx, x, ax, idx)


def _coordinates(x: Tensor, ax: int, idx: Tensor) -> Tensor:
    """Full index vectors for torch.gather/scatter: idx along `ax`, each element's own position elsewhere."""
    dims = dims_of(idx)
    parts = []
    for d in range(x.ndim):
        part = _wrap_negative(idx, dims_of(x)[ax]) if d == ax else iota(dims, d)
        parts.append(reshape(part, dims + [1]))
    return parts[0] if len(parts) == 1 else shlo.concatenate(parts, dimension=idx.ndim)


@translates("aten.gather.default")
def gather(cx, x, dim, idx, *_):
    """out[i][j] = x[idx[i][j]][j] (for dim 0): elements picked along `dim`."""
    ax = axis(dim, x.ndim)
    rank = x.ndim
    numbers = shlo.GatherDimensionNumbers(offset_dims=[], collapsed_slice_dims=list(range(rank)),
                                          start_index_map=list(range(rank)), index_vector_dim=idx.ndim)
    return shlo.gather(x, _coordinates(x, ax, idx), dimension_numbers=numbers, slice_sizes=[1] * rank,
                       result_types=[T.tensor_type(static(cx.out_dims()), x.dtype)])


# scatter ----------------------------------------------------------------------------------------------------------

def _combiner(reduce: str | None):
    """The scatter update computation: replace, or combine with the reduction's op."""
    names = {None: None, "add": "sum", "sum": "sum", "multiply": "prod", "prod": "prod", "amax": "max",
             "amin": "min"}
    kind = names[reduce]
    if kind is None:
        return lambda old, new: new
    combine = REDUCERS[kind][0]
    return lambda old, new: combine(old, new)


def _scatter(x: Tensor, indices: Tensor, updates: Tensor, numbers, reduce=None) -> Tensor:
    """stablehlo.scatter of updates into x."""
    return shlo.scatter(x, indices, updates, scatter_dimension_numbers=numbers,
                        update_computation=_combiner(reduce))


def _elementwise_scatter(x: Tensor, ax: int, idx: Tensor, src, reduce=None, include_self=True) -> Tensor:
    """torch.scatter: x with src[i][j] put at x[idx[i][j]][j] (for dim 0), combined by `reduce`."""
    rank = x.ndim
    idx_dims = dims_of(idx)
    if isinstance(src, Tensor):
        updates = convert(src, x.dtype)
        for d in range(rank):
            if updates.shape[d] != idx.shape[d]:
                updates = slice_axis(updates, d, 0, idx_dims[d])
    else:
        updates = full(idx_dims, src, x.dtype)
    coords = _coordinates(x, ax, idx)
    numbers = shlo.ScatterDimensionNumbers(update_window_dims=[], inserted_window_dims=list(range(rank)),
                                           scatter_dims_to_operand_dims=list(range(rank)), index_vector_dim=idx.ndim)
    if reduce is not None and not include_self:
        identity = {"sum": 0, "prod": 1}.get(reduce, None)
        if identity is None:
            identity = REDUCERS["max" if reduce == "amax" else "min"][1](x.dtype)
        x = _scatter(x, coords, full(idx_dims, identity, x.dtype), numbers)
    return _scatter(x, coords, updates, numbers, reduce)


@translates("aten.scatter.src", "aten.scatter.value")
def scatter(cx, x, dim, idx, src, *_):
    """x with src (a tensor or a scalar) written at idx along `dim`."""
    return _elementwise_scatter(convert(x, cx.out_dtype), axis(dim, x.ndim), idx, src)


@translates("aten.scatter.reduce", "aten.scatter.value_reduce")
def scatter_reduce_legacy(cx, x, dim, idx, src, reduce, *_):
    """scatter combining with "add" or "multiply"."""
    return _elementwise_scatter(convert(x, cx.out_dtype), axis(dim, x.ndim), idx, src, reduce)


@translates("aten.scatter_add.default")
def scatter_add(cx, x, dim, idx, src, *_):
    """x with src added at idx along `dim`."""
    return _elementwise_scatter(convert(x, cx.out_dtype), axis(dim, x.ndim), idx, src, "sum")


def _scatter_reduce_check(node, args):
    """scatter_reduce: sum, prod, amax, amin (not mean)."""
    return None if args[4] in ("sum", "prod", "amax", "amin") else f"reduce={args[4]!r}"


@translates("aten.scatter_reduce.two", check=_scatter_reduce_check, note="sum, prod, amax, amin")
def scatter_reduce(cx, x, dim, idx, src, reduce, include_self=True, *_):
    """x combined with src at idx along `dim` by the reduction (optionally ignoring x's own values there)."""
    return _elementwise_scatter(convert(x, cx.out_dtype), axis(dim, x.ndim), idx, src, reduce, include_self)


@translates("aten.index_put.default", "aten._unsafe_index_put.default", check=_mask_check,
            note="integer index tensors")
def index_put(cx, x, indices, values, accumulate=False, *_):
    """x[indices] = values (or += with accumulate), with advanced indexing rules."""
    x = convert(x, cx.out_dtype)
    layout = _Advanced(x, list(indices))
    updates = broadcast(convert(values, x.dtype), layout.result_dims)
    numbers = shlo.ScatterDimensionNumbers(update_window_dims=layout.window, inserted_window_dims=layout.positions,
                                           scatter_dims_to_operand_dims=layout.positions,
                                           index_vector_dim=len(layout.batch))
    return _scatter(x, layout.indices, updates, numbers, "sum" if accumulate else None)


def _index_along(cx, x, dim, idx, source, reduce, alpha=1):
    """x with the slices of `source` written (or added) at positions `idx` along `dim`."""
    x = convert(x, cx.out_dtype)
    ax = axis(dim, x.ndim)
    updates = convert(source, x.dtype)
    if alpha != 1:
        updates = shlo.multiply(updates, broadcast(scalar(alpha, x.dtype), dims_of(updates)))
    indices = reshape(_wrap_negative(idx, dims_of(x)[ax]), [dims_of(idx)[0] if idx.ndim else 1, 1])
    if updates.ndim == 0:
        updates = reshape(updates, [1])
    numbers = shlo.ScatterDimensionNumbers(update_window_dims=[d for d in range(x.ndim) if d != ax],
                                           inserted_window_dims=[ax], scatter_dims_to_operand_dims=[ax],
                                           index_vector_dim=1)
    return _scatter(x, indices, updates, numbers, reduce)


@translates("aten.index_add.default")
def index_add(cx, x, dim, idx, source, alpha=1, *_):
    """x with alpha * source's slices added at `idx` along `dim`."""
    return _index_along(cx, x, dim, idx, source, "sum", alpha)


@translates("aten.index_copy.default")
def index_copy(cx, x, dim, idx, source, *_):
    """x with source's slices written at `idx` along `dim`."""
    return _index_along(cx, x, dim, idx, source, None)


# slice_scatter, select_scatter ------------------------------------------------------------------------------------

def _update_at(x: Tensor, update: Tensor, ax: int, start) -> Tensor:
    """x with `update` written from `start` along `ax` (0 along the other axes)."""
    starts = [scalar(start, "i64") if d == ax else constant(0, "i64") for d in range(x.ndim)]
    return shlo.dynamic_update_slice(x, update, starts)


@translates("aten.slice_scatter.default")
def slice_scatter(cx, x, src, dim=0, start=None, end=None, step=1, *_):
    """x with src written into x[..., start:end:step, ...]."""
    x = convert(x, cx.out_dtype)
    ax = axis(dim, x.ndim)
    src = convert(src, x.dtype)
    first = slice_start(x, ax, start)
    if step == 1:
        return _update_at(x, src, ax, first)
    size, n = x.shape[ax], src.shape[ax]
    last = first + (n - 1) * step
    low, high, interior = [0] * x.ndim, [0] * x.ndim, [0] * x.ndim
    low[ax], high[ax], interior[ax] = first, size - last - 1, step - 1
    spread = shlo.pad(src, scalar(0, x.dtype), edge_padding_low=low, edge_padding_high=high, interior_padding=interior)
    hit = np.zeros([size], bool)
    hit[first:last + 1:step] = True
    return shlo.select(broadcast(constant(hit, "i1"), dims_of(x), [ax]), spread, x)


@translates("aten.select_scatter.default")
def select_scatter(cx, x, src, dim, index, *_):
    """x with src written at `index` along `dim`."""
    x = convert(x, cx.out_dtype)
    ax = axis(dim, x.ndim)
    d = dims_of(src)
    return _update_at(x, reshape(convert(src, x.dtype), d[:ax] + [1] + d[ax:]), ax, slice_start(x, ax, index))


def _one_hot_check(node, args):
    """one_hot with an explicit number of classes (-1 would take it from the data)."""
    return "num_classes=-1 (the size would depend on the data)" if args[1] == -1 else None


@translates("aten.one_hot.default", check=_one_hot_check, note="explicit num_classes")
def one_hot(cx, x, num_classes=-1, *_):
    """1 where the last index equals the class, else 0 (int64)."""
    dims = cx.out_dims()
    classes = iota(dims, len(dims) - 1)
    hit = shlo.compare(broadcast(convert(x, "i64"), dims, list(range(x.ndim))), classes, "EQ")
    return convert(hit, cx.out_dtype)
