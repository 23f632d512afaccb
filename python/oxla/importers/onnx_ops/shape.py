"""Shape and data-movement ONNX operators: reshapes, transposes, broadcasts, joins, splits, slices, creation.

Values StableHLO needs static (Slice's starts, Tile's repeats) are read
with `Node.static`, which the importer's constant propagation has computed
when they come from constants and static shapes. The shape input of
Reshape, Expand and ConstantOfShape may also be known only in part (some
sizes dynamic): its known entries stay static and the others are read when
the program runs.
"""

from __future__ import annotations

import numpy as np

from oxla.builder import functions as F
from oxla.builder.tensor import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import types as T
from oxla.importers.onnx_ops.core import (
    Node, OnnxImportError, add, as_dim, axis_index, broadcast_dims, broadcast_in_dim, broadcast_to, compare,
    constant, convert, dim, dim_product, dims, div, element_type, maximum, minimum, mul, operator, reshape, scalar,
    select, shape_tensor, slice_, sub)


# Reshapes --------------------------------------------------------------------------------------------------------

def reshape_entries(n: Node, x: Tensor, shape: list) -> list:
    """A Reshape's shape (a dimension list) resolved: 0 copies the input's size (unless allowzero) and -1 takes
    the size that keeps the element count; run-time entries may be 0 or -1 too, resolved when the program runs."""
    entries = shape if n.attr("allowzero", 0) else [_copy_zero(x, k, e) for k, e in enumerate(shape)]
    fixed = [k for k, e in enumerate(entries) if isinstance(e, int) and e == -1]
    runtime = [k for k, e in enumerate(entries) if not isinstance(e, int)]
    if len(fixed) > 1:
        n.fail(f"the shape {shape} has more than one -1")
    if not fixed and not runtime:
        return entries
    others = dim_product([_factor(e) if k in runtime else e for k, e in enumerate(entries) if k not in fixed])
    total = dim_product(dims(x))
    if isinstance(total, int) and isinstance(others, int):
        if others == 0 or total % others:
            n.fail(f"cannot reshape {list(x.shape)} to {shape}")
        inferred = total // others
    else:
        inferred = Tensor(shlo.divide(as_dim(total), as_dim(others)))
    return [inferred if k in fixed else select(compare(e, -1, "EQ"), as_dim(inferred), e) if k in runtime and
            not fixed else e for k, e in enumerate(entries)]


def _copy_zero(x: Tensor, axis: int, entry):
    """A shape entry with ONNX's 0 ("copy this dimension of the input") resolved, at run time if need be."""
    if isinstance(entry, int):
        return dim(x, axis) if entry == 0 else entry
    return _unless_zero(entry, dim(x, axis)) if axis < x.ndim else entry


def _factor(entry: Tensor) -> Tensor:
    """A run-time entry as a factor of the other sizes' product (1 where it is -1)."""
    return select(compare(entry, -1, "EQ"), 1, entry)


def _unless_zero(entry: Tensor, size) -> Tensor:
    """A run-time shape entry, or `size` where it is 0 (ONNX's "copy this dimension")."""
    return select(compare(entry, 0, "EQ"), as_dim(size), entry)


@operator("Reshape", note="0 and -1 resolved; shapes known in part at import time give dynamic reshapes")
def reshape_op(n: Node) -> Tensor:
    """x with a new shape."""
    x = n.input(0)
    return reshape(x, reshape_entries(n, x, n.shape_entries(1)))


def _axes(n: Node, rank: int, index: int = 1) -> list[int] | None:
    """The axes from input `index` (opset 13 and later) or the `axes` attribute, normalized to [0, rank)."""
    axes = n.static_ints(index, what="axes") if n.has(index) else n.attr("axes")
    return None if axes is None else sorted(axis_index(a, rank, n) for a in axes)


@operator("Squeeze")
def squeeze(n: Node) -> Tensor:
    """x without the given size-1 axes (all size-1 axes when none are given)."""
    x = n.input(0)
    axes = _axes(n, x.ndim)
    if axes is None:
        if None in x.shape:
            n.fail("squeezing without axes needs a static shape")
        axes = [i for i, s in enumerate(x.shape) if s == 1]
    for a in axes:
        if x.shape[a] not in (1, None):
            n.fail(f"axis {a} has size {x.shape[a]}, not 1")
    return reshape(x, [dim(x, a) for a in range(x.ndim) if a not in axes])


@operator("Unsqueeze")
def unsqueeze(n: Node) -> Tensor:
    """x with size-1 axes inserted at the given output positions."""
    x = n.input(0)
    given = n.static_ints(1, what="axes") if n.has(1) else n.attr("axes")
    axes = {axis_index(a, x.ndim + len(given), n) for a in given}
    source = iter(dims(x))
    return reshape(x, [1 if a in axes else next(source) for a in range(x.ndim + len(axes))])


@operator("Flatten")
def flatten(n: Node) -> Tensor:
    """x as a matrix: the axes before `axis` and those from it each multiplied together."""
    x = n.input(0)
    axis = axis_index(n.attr("axis", 1), x.ndim + 1, n)
    entries = dims(x)
    return reshape(x, [dim_product(entries[:axis]), dim_product(entries[axis:])])


@operator("Transpose")
def transpose(n: Node) -> Tensor:
    """x with its axes permuted (reversed by default)."""
    x = n.input(0)
    return F.transpose(x, n.attr("perm"))


@operator("Expand", note="static or run-time shapes (run-time sizes taken not to be broadcast 1s)")
def expand(n: Node) -> Tensor:
    """x broadcast with the shape input (numpy's rules both ways)."""
    x = n.input(0)
    return broadcast_to(x, broadcast_dims(dims(x), n.shape_entries(1)))


@operator("Tile", note="static repeats")
def tile(n: Node) -> Tensor:
    """x repeated along each axis: a broadcast to [r0, d0, r1, d1, ...] and a reshape."""
    x = n.input(0)
    repeats = n.static_ints(1, what="repeats")
    entries = dims(x)
    spread = [e for r, d in zip(repeats, entries) for e in (r, d)]
    y = broadcast_in_dim(x, spread, [2 * i + 1 for i in range(x.ndim)])
    return reshape(y, [dim_product([r, d]) for r, d in zip(repeats, entries)])


# Joins, splits and slices -----------------------------------------------------------------------------------------

@operator("Concat")
def concat(n: Node) -> Tensor:
    """The inputs joined along `axis`."""
    xs = n.inputs()
    axis = axis_index(n.attr("axis"), xs[0].ndim, n)
    xs = [x for x in xs if x.shape[axis] != 0] or xs[:1]
    return xs[0] if len(xs) == 1 else Tensor(shlo.concatenate(xs, dimension=axis))


def slice_axis(x: Tensor, axis: int, start: int, limit: int, step: int = 1) -> Tensor:
    """x[..., start:limit:step, ...] on one axis (start and limit in range, step positive)."""
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], strides[axis] = start, limit, step
    return slice_(x, starts, limits, strides)


@operator("Split", note="split sizes from the input (opset 13) or num_outputs (opset 18)")
def split(n: Node) -> list[Tensor]:
    """x cut along `axis` into pieces of the given sizes (equal pieces by default)."""
    x = n.input(0)
    axis = axis_index(n.attr("axis", 0), x.ndim, n)
    size = x.shape[axis]
    if size is None:
        n.fail("splitting a dynamic axis is not supported")
    sizes = n.static_ints(1, what="split") if n.has(1) else n.attr("split")
    if sizes is None:
        parts = n.attr("num_outputs", n.num_outputs)
        chunk = -(-size // parts)
        sizes = [min(chunk, size - i * chunk) for i in range(parts)]
    if sum(sizes) != size:
        n.fail(f"split sizes {sizes} do not add up to the axis size {size}")
    offsets = np.cumsum([0] + list(sizes))
    return [slice_axis(x, axis, int(a), int(b)) for a, b in zip(offsets[:-1], offsets[1:])]


@operator("Slice", note="static starts/ends/axes/steps (negative steps too); x[start:] on dynamic axes")
def slice_op(n: Node) -> Tensor:
    """x[starts:ends:steps] on the given axes, with numpy's clamping: one reverse (negative steps), one slice."""
    x = n.input(0)
    starts, ends = n.static_ints(1, what="starts"), n.static_ints(2, what="ends")
    axes = n.static_ints(3, list(range(len(starts))), what="axes")
    steps = n.static_ints(4, [1] * len(starts), what="steps")
    begin, limit, stride, flipped = [0] * x.ndim, list(x.shape), [1] * x.ndim, []
    for axis, start, end, step in zip(axes, starts, ends, steps):
        axis = axis_index(axis, x.ndim, n)
        size = x.shape[axis]
        if step == 0:
            n.fail("steps must not be 0")
        if size is None:
            if step != 1:
                n.fail(f"slicing the dynamic axis {axis} supports only steps of 1")
            x = _slice_dynamic_axis(x, axis, start, end)
            limit[axis] = None
            continue
        first, stop, step = slice(start, end, step).indices(size)
        count = len(range(first, stop, step))
        if step < 0:  # the same elements, read forwards from the reversed axis
            flipped.append(axis)
            first, step = size - 1 - first, -step
        if count == 0:
            first, step = 0, 1
        begin[axis], limit[axis], stride[axis] = first, first + max(count - 1, 0) * step + (count > 0), step
    if flipped:  # before the slice: IREE 3.13 miscompiles a reverse of a strided slice
        x = Tensor(shlo.reverse(x, dimensions=flipped))
    if (begin, stride) == ([0] * x.ndim, [1] * x.ndim) and limit == list(x.shape):
        return x
    return slice_(x, begin, limit, stride)


def _slice_dynamic_axis(x: Tensor, axis: int, start: int, end: int) -> Tensor:
    """x[..., start:end, ...] on a dynamic axis, the bounds clamped as numpy does when the program runs."""
    entries = dims(x)
    size = entries[axis]

    def bound(value: int, low) -> Tensor:
        """A bound counted from the end when negative, clamped to [low, size]."""
        if value >= np.iinfo(np.int32).max:
            return size
        at = add(size, value) if value < 0 else as_dim(value)
        return minimum(maximum(at, low), size)

    begin = bound(start, 0)
    starts, limits = [0] * x.ndim, list(entries)
    starts[axis], limits[axis] = begin, bound(end, begin)
    return Tensor(shlo.real_dynamic_slice(x, shape_tensor(starts), shape_tensor(limits), shape_tensor([1] * x.ndim),
                                          result_types=[T.tensor_type(x.shape, x.element_type)]))


# Shapes and creation ----------------------------------------------------------------------------------------------

@operator("Shape", note="static shapes fold to constants; dynamic ones are read when the program runs")
def shape(n: Node) -> Tensor:
    """x's shape (from `start` to `end`) as an i64 vector."""
    x = n.input(0)
    start, end = n.attr("start", 0), n.attr("end", x.ndim)
    picked = dims(x)[slice(start, end)]
    return shape_tensor(picked)


@operator("Size")
def size(n: Node) -> Tensor:
    """The element count of x as an i64 scalar."""
    x = n.input(0)
    return Tensor(shlo.reshape(shape_tensor([dim_product(dims(x))]), shape=[]))


@operator("Constant")
def constant_op(n: Node) -> np.ndarray:
    """The node's value (folded before translation; kept here for completeness)."""
    for name, dtype in (("value", None), ("value_float", np.float32), ("value_floats", np.float32),
                        ("value_int", np.int64), ("value_ints", np.int64)):
        value = n.attr(name)
        if value is not None:
            return np.asarray(value, dtype=dtype)
    n.fail("only value, value_float(s) and value_int(s) constants are supported")


@operator("ConstantOfShape", note="static or run-time shapes")
def constant_of_shape(n: Node) -> Tensor:
    """A tensor of the shape input, filled with `value` (0.0 by default)."""
    value = n.attr("value")
    value = np.zeros(1, np.float32) if value is None else np.asarray(value).reshape(-1)
    return broadcast_in_dim(F.constant(value.reshape(())), n.shape_entries(0), [])


@operator("Range", note="folded when static; run-time bounds as dynamic_iota")
def range_op(n: Node):
    """start, start + delta, ... below limit."""
    if all(n.is_static(i) for i in range(3)):
        start, limit, delta = (n.static(i) for i in range(3))
        return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)
    start, limit, delta = n.input(0), n.input(1), n.input(2)
    steps = Tensor(shlo.ceil(div(convert(sub(limit, start), "f64"), convert(delta, "f64"))))
    count = Tensor(shlo.reshape(convert(maximum(steps, 0.0), "i64"), shape=[1]))
    positions = Tensor(shlo.dynamic_iota(count, iota_dimension=0, dtype=start.element_type,
                                         result_types=[T.tensor_type([None], start.element_type)]))
    return add(mul(positions, delta), start)


@operator("EyeLike")
def eye_like(n: Node) -> Tensor:
    """Ones on diagonal k of a matrix shaped like x, zeros elsewhere (x's type unless `dtype` says)."""
    x = n.input(0)
    if None in x.shape:
        n.fail("needs a static shape")
    dtype = T.to_numpy_dtype(T.element_type(element_type(n.attr("dtype")) if n.attr("dtype") is not None
                                            else x.element_type))
    return constant(np.eye(*x.shape, k=n.attr("k", 0), dtype=dtype))


@operator("Trilu")
def trilu(n: Node) -> Tensor:
    """The upper (or lower) triangle of the last two axes from diagonal k; the rest zero."""
    x = n.input(0)
    k = n.static_ints(1, [0], what="k")[0]
    rows, cols = x.shape[-2], x.shape[-1]
    if rows is None or cols is None:
        n.fail("needs static sizes for the last two axes")
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    keep = (j - i >= k) if n.attr("upper", 1) else (j - i <= k)
    return select(constant(keep), x, scalar(0, x))


@operator("Pad", note="constant, edge, reflect and wrap modes; static pads and axes")
def pad(n: Node) -> Tensor:
    """x padded with a constant or from its own edges (negative pads crop)."""
    x = n.input(0)
    amounts = n.static_ints(1, what="pads")
    axes = _axes(n, x.ndim, 3) if n.has(3) else list(range(x.ndim))
    low, high = [0] * x.ndim, [0] * x.ndim
    for i, a in enumerate(axes):
        low[a], high[a] = amounts[i], amounts[i + len(axes)]
    mode = n.attr("mode", "constant")
    if mode == "constant":
        value = Tensor(shlo.reshape(n.input(2), shape=[])) if n.has(2) else scalar(0, x)
        return Tensor(shlo.pad(x, value, edge_padding_low=low, edge_padding_high=high))
    crop = [[-min(lo, 0), -min(hi, 0)] for lo, hi in zip(low, high)]
    if any(lo or hi for lo, hi in crop):  # negative pads crop first
        x = slice_(x, [lo for lo, _ in crop], [None if s is None else s - hi for s, (_, hi) in zip(x.shape, crop)])
    for a in range(x.ndim):
        if max(low[a], 0) or max(high[a], 0):
            if x.shape[a] is None:
                n.fail(f"mode={mode!r} needs a static size along the padded axis {a}")
            x = _pad_from_edges(x, a, max(low[a], 0), max(high[a], 0), mode)
    return x


def _pad_from_edges(x: Tensor, axis: int, low: int, high: int, mode: str) -> Tensor:
    """x extended along `axis` by `low` and `high` elements taken from its edges ("edge", "reflect", "wrap")."""
    size = x.shape[axis]
    if mode == "edge":
        before, after = [0] * low, [size - 1] * high
    elif mode == "reflect":
        before, after = [low - i for i in range(low)], [size - 2 - i for i in range(high)]
    else:  # wrap
        before, after = [(i - low) % size for i in range(low)], [i % size for i in range(high)]
    picked = np.asarray(before + list(range(size)) + after, np.int64)
    if picked.min() < 0 or picked.max() >= size:
        raise OnnxImportError(f"mode={mode!r}: padding {low}, {high} is too large for size {size}")
    return _take_along(x, picked, axis)


def _take_along(x: Tensor, indices: np.ndarray, axis: int) -> Tensor:
    """x[..., indices, ...] for constant 1-D indices, as runs of slices (reversed where the indices descend)."""
    parts, k = [], 0
    while k < len(indices):
        step = int(indices[k + 1] - indices[k]) if k + 1 < len(indices) else 1
        step = step if step in (1, -1) else 1
        end = k + 1
        while end < len(indices) and indices[end] - indices[end - 1] == step:
            end += 1
        first, last = int(indices[k]), int(indices[end - 1])
        part = slice_axis(x, axis, min(first, last), max(first, last) + 1)
        parts.append(Tensor(shlo.reverse(part, dimensions=[axis])) if step < 0 and end - k > 1 else part)
        k = end
    return parts[0] if len(parts) == 1 else Tensor(shlo.concatenate(parts, dimension=axis))


@operator("OneHot", note="static depth")
def one_hot(n: Node) -> Tensor:
    """values[1] where an index equals its position along the new axis, else values[0]."""
    indices, values = n.input(0), n.input(2)
    depth = int(np.asarray(n.static(1, what="depth")).reshape(-1)[0])
    axis = axis_index(n.attr("axis", -1), indices.ndim + 1, n)
    indices = convert(indices, "i64")
    indices = select(compare(indices, 0, "LT"), add(indices, depth), indices)
    entries = dims(indices)
    entries.insert(axis, depth)
    positions = broadcast_in_dim(F.arange(depth, "i64"), entries, [axis])
    spread = broadcast_in_dim(indices, entries, [a for a in range(len(entries)) if a != axis])
    off, on = (Tensor(shlo.reshape(slice_axis(values, 0, i, i + 1), shape=[])) for i in (0, 1))
    return select(compare(positions, spread, "EQ"), broadcast_to(on, entries), broadcast_to(off, entries))
