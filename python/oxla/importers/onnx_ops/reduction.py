"""Reduction ONNX operators: Reduce*, ArgMax/ArgMin and CumSum."""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.builder import functions as F
from oxla.builder.tensor import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import types as T
from oxla.importers.onnx_ops.linalg import dot
from oxla.importers.onnx_ops.core import (
    Node, axis_index, broadcast_to, compare, constant, convert, count, dim, dims, div, highest, is_float, keep_dims,
    lowest, mul, operator, reduce, reshape, scalar, select, shape_tensor, slice_)

# ONNX name: (transform before, combine, initial value of the operand `t`, transform after) with None for "as is"
REDUCTIONS = {
    "ReduceSum": (None, shlo.add, lambda t: 0, None),
    "ReduceMean": (None, shlo.add, lambda t: 0, "mean"),
    "ReduceMax": (None, shlo.maximum, lowest, None),
    "ReduceMin": (None, shlo.minimum, highest, None),
    "ReduceProd": (None, shlo.multiply, lambda t: 1, None),
    "ReduceSumSquare": (lambda t: mul(t, t), shlo.add, lambda t: 0, None),
    "ReduceL1": (lambda t: Tensor(shlo.abs(t)), shlo.add, lambda t: 0, None),
    "ReduceL2": (lambda t: mul(t, t), shlo.add, lambda t: 0, lambda t: Tensor(shlo.sqrt(t))),
    "ReduceLogSum": (None, shlo.add, lambda t: 0, lambda t: Tensor(shlo.log(t))),
    "ReduceLogSumExp": ("logsumexp", shlo.add, lambda t: 0, None),
}


def reduction_axes(n: Node, rank: int) -> list[int]:
    """The axes to reduce: from the `axes` input (or attribute before opset 18), all when none are given."""
    axes = n.static_ints(1, what="axes") if n.has(1) else n.attr("axes")
    if not axes:
        return [] if n.attr("noop_with_empty_axes", 0) else list(range(rank))
    return sorted({axis_index(a, rank, n) for a in axes})


def _reduction(name: str):
    """The translation of one Reduce* operator."""
    before, combine, init, after = REDUCTIONS[name]

    def translate(n: Node) -> Tensor:
        x = n.input(0)
        axes = reduction_axes(n, x.ndim)
        if not axes:
            return x
        keep = bool(n.attr("keepdims", 1))
        if before == "logsumexp":
            return _log_sum_exp(x, axes, keep)
        t = before(x) if before else x
        y = reduce(t, axes, combine, init(t), keep)
        if after == "mean":
            return div(y, count(x, axes, y))
        return after(y) if after else y
    translate.__name__ = name
    return translate


def _log_sum_exp(x: Tensor, axes, keep: bool) -> Tensor:
    """log(sum(exp(x))) over axes, shifted by the maximum for stability."""
    peak = reduce(x, axes, shlo.maximum, lowest(x), keepdims=True)
    if is_float(x):  # an infinite maximum would make x - peak NaN
        peak = select(Tensor(shlo.is_finite(peak)), peak, scalar(0, peak))
    total = reduce(Tensor(shlo.exponential(Tensor(shlo.subtract(x, broadcast_to(peak, dims(x)))))), axes, shlo.add, 0,
                   True)
    y = Tensor(shlo.add(Tensor(shlo.log(total)), peak))
    return y if keep else _drop(y, axes)


def _drop(kept: Tensor, axes) -> Tensor:
    """A keepdims result with the reduced (size-1) axes removed."""
    return reshape(kept, [dim(kept, a) for a in range(kept.ndim) if a not in axes])


for _name in REDUCTIONS:
    operator(_name, note="axes as input (opset 18) or attribute; keepdims; noop_with_empty_axes")(_reduction(_name))


# Arg reductions --------------------------------------------------------------------------------------------------

def arg_reduce(x: Tensor, axis: int, direction: str, last: bool = False) -> Tensor:
    """The i64 index of the largest ("GT") or smallest ("LT") element along `axis` (first or last of ties)."""
    index = iota(x, axis)
    start = lowest(x) if direction == "GT" else highest(x)

    def body(a, ia, b, ib):
        better = shlo.compare(a, b, direction)
        if is_float(x):  # a NaN wins, as numpy's argmax does
            better = shlo.or_(better, shlo.compare(a, a, "NE"))
        tie = shlo.and_(shlo.compare(a, b, "EQ"), shlo.compare(ia, ib, "GT" if last else "LT"))
        pick = shlo.or_(better, tie)
        return [shlo.select(pick, a, b), shlo.select(pick, ia, ib)]

    _, indices = shlo.reduce([x, index], [scalar(start, x), scalar(0, index)], dimensions=[axis], body=body)
    return Tensor(indices)


def _arg(direction: str):
    """The translation of ArgMax ("GT") or ArgMin ("LT")."""
    def translate(n: Node) -> Tensor:
        x = n.input(0)
        axis = axis_index(n.attr("axis", 0), x.ndim, n)
        indices = arg_reduce(x, axis, direction, bool(n.attr("select_last_index", 0)))
        return keep_dims(indices, x, [axis]) if n.attr("keepdims", 1) else indices
    return translate


def iota(like: Tensor, axis: int) -> Tensor:
    """i64 positions along `axis`, of `like`'s shape (dynamic sizes read when the program runs)."""
    if None not in like.shape:
        return Tensor(shlo.iota(shape=list(like.shape), iota_dimension=axis, dtype="i64"))
    return Tensor(shlo.dynamic_iota(shape_tensor(dims(like)), iota_dimension=axis, dtype="i64",
                                    result_types=[T.tensor_type(like.shape, "i64")]))


operator("ArgMax", note="select_last_index; keepdims")(_arg("GT"))
operator("ArgMin", note="select_last_index; keepdims")(_arg("LT"))


@operator("Hardmax")
def hardmax(n: Node) -> Tensor:
    """1 at the first largest element along `axis`, 0 elsewhere."""
    x = n.input(0)
    axis = axis_index(n.attr("axis", -1), x.ndim, n)
    best = keep_dims(arg_reduce(x, axis, "GT"), x, [axis])
    return convert(compare(iota(x, axis), best, "EQ"), x.element_type)


@operator("TopK", note="largest and smallest, any axis; ties keep their order")
def top_k(n: Node) -> list[Tensor]:
    """The k largest (or smallest) elements along `axis`, sorted, and their i64 indices."""
    x = n.input(0)
    axis = axis_index(n.attr("axis", -1), x.ndim, n)
    k = n.static_ints(1, what="K")[0]
    largest = bool(n.attr("largest", 1))
    if None in x.shape:
        return _top_k_by_sort(x, axis, k, largest)
    order = [a for a in range(x.ndim) if a != axis] + [axis]
    moved = F.transpose(x, order)
    # chlo.top_k takes the largest along the last axis; negating (or inverting the bits) turns smallest into largest
    flip = (lambda t: t) if largest else (lambda t: Tensor(shlo.negate(t) if is_float(t) else shlo.not_(t)))
    shape = list(moved.shape[:-1]) + [k]
    op = ir.Operation.create("chlo.top_k", operands=[flip(moved).value],
                             attributes={"k": ir.IntegerAttr.get(T.i64(), k)},
                             results=[T.tensor_type(shape, moved.element_type), T.tensor_type(shape, "i32")])
    back = [order.index(a) for a in range(x.ndim)]
    return [F.transpose(flip(Tensor(op.results[0])), back), F.transpose(convert(Tensor(op.results[1]), "i64"), back)]


def _top_k_by_sort(x: Tensor, axis: int, k: int, largest: bool) -> list[Tensor]:
    """TopK with dynamic sizes (which oxla's chlo.top_k lowering does not take): a stable sort, cut after k."""
    direction = "GT" if largest else "LT"
    values, indices = shlo.sort([x, iota(x, axis)], dimension=axis, is_stable=True,
                                comparator=lambda a, b, ia, ib: shlo.compare(a, b, direction))
    limits = list(x.shape)
    limits[axis] = k
    return [slice_(Tensor(t), [0] * x.ndim, limits) for t in (values, indices)]


@operator("CumSum", note="exclusive and reverse; static size along the summed axis")
def cumsum(n: Node) -> Tensor:
    """Running sums along `axis` (from the end when `reverse`; shifted by one when `exclusive`)."""
    x = n.input(0)
    axis = axis_index(int(np.asarray(n.static(1, what="axis")).reshape(-1)[0]), x.ndim, n)
    size = x.shape[axis]
    if size is None:
        n.fail("needs a static size along the summed axis")
    exclusive, reverse = bool(n.attr("exclusive", 0)), bool(n.attr("reverse", 0))
    if None in x.shape:  # IREE's reduce_window takes no dynamic sizes: a product with a triangle of ones
        return _cumsum_by_dot(x, axis, exclusive, reverse)
    if reverse:
        x = Tensor(shlo.reverse(x, dimensions=[axis]))
    if exclusive:
        low, high = [0] * x.ndim, [0] * x.ndim
        low[axis], high[axis] = 1, -1
        x = Tensor(shlo.pad(x, scalar(0, x), edge_padding_low=low, edge_padding_high=high))
    window, padding = [1] * x.ndim, [[0, 0]] * x.ndim
    window[axis], padding[axis] = size, [size - 1, 0]
    y = Tensor(shlo.reduce_window(x, scalar(0, x), window_dimensions=window, padding=padding, body=shlo.add))
    return Tensor(shlo.reverse(y, dimensions=[axis])) if reverse else y


def _cumsum_by_dot(x: Tensor, axis: int, exclusive: bool, reverse: bool) -> Tensor:
    """y[j] = sum of x[i] over i <= j (i < j when exclusive; >= or > when reverse), as a dot_general."""
    i, j = np.indices((x.shape[axis],) * 2)
    taken = (i >= j if reverse else i <= j) & (i != j if exclusive else True)
    triangle = constant(taken.astype(T.to_numpy_dtype(x.element_type)))
    y = dot(x, triangle, contract=([axis], [0]))
    order = list(range(x.ndim - 1))
    order.insert(axis, x.ndim - 1)
    return Tensor(shlo.transpose(y, permutation=order))
