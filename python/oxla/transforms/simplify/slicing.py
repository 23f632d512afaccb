"""Slicing: slices, concatenations, pads, dynamic slices and reverses that select or move fewer elements.

Every rule here only moves elements, so each is exact for every element
type; they decline dynamic shapes and quantized types.
"""

from __future__ import annotations

from oxla.dialects import stablehlo as shlo
from oxla.transforms.simplify.constants import replace_built, static_shape
from oxla.transforms.simplify.rule import constant_of, defining, element_kind, rule

FAMILY = "slicing"


def _movable(*values) -> bool:
    """Whether the values are statically shaped tensors of plain (not quantized) elements."""
    return all(static_shape(v) is not None and element_kind(v) != "other" for v in values)


def _use(op, rw, value) -> bool:
    """Replaces op's result by an existing value when their types are equal."""
    return value.type == op.results[0].type and rw.replace(op, value)


@rule("stablehlo.slice", family=FAMILY)
def slice_full(op, rw) -> bool:
    """slice from 0 to each dimension's size with unit strides -> its operand (exact: the same elements)."""
    x = op.operand
    dims = static_shape(x)
    if dims is None or list(op.start_indices) != [0] * len(dims) or list(op.strides) != [1] * len(dims):
        return False
    return list(op.limit_indices) == list(dims) and _use(op, rw, x)


@rule("stablehlo.slice", family=FAMILY)
def slice_of_slice(op, rw) -> bool:
    """slice of a slice -> one slice with composed starts and strides (exact: the same elements)."""
    inner = defining(op.operand, "stablehlo.slice")
    if inner is None or not _movable(inner.operand, op.results[0]):
        return False
    dims, out = static_shape(inner.operand), static_shape(op.results[0])
    starts, limits, strides = [], [], []
    for d, n in enumerate(out):
        first, step = inner.start_indices[d], inner.strides[d]
        start = first + op.start_indices[d] * step
        stride = step * op.strides[d] if n > 1 else 1
        if n == 0:
            start = min(start, dims[d])
        starts.append(start)
        limits.append(start + (n - 1) * stride + 1 if n else start)
        strides.append(stride)
    return replace_built(op, rw, lambda: shlo.slice(inner.operand, start_indices=starts, limit_indices=limits,
                                                    strides=strides))


@rule("stablehlo.slice", family=FAMILY)
def slice_of_concatenate(op, rw) -> bool:
    """slice of a concatenate -> a slice of the operand(s) it reads, when that drops operands (exact)."""
    cat = defining(op.operand, "stablehlo.concatenate")
    if cat is None:
        return False
    inputs = list(cat.inputs)
    if not _movable(*inputs, op.results[0]):
        return False
    axis = cat.dimension
    n = static_shape(op.results[0])[axis]
    if n == 0:
        return False
    first = op.start_indices[axis]
    last = first + (n - 1) * op.strides[axis]
    offsets, at = [], 0
    for v in inputs:
        offsets.append(at)
        at += static_shape(v)[axis]
    # The operands holding the first and the last element read (zero-size operands hold none).
    lo = max(i for i, o in enumerate(offsets) if o <= first and static_shape(inputs[i])[axis] > 0)
    hi = max(i for i, o in enumerate(offsets) if o <= last and static_shape(inputs[i])[axis] > 0)
    used = [v for v in inputs[lo:hi + 1] if static_shape(v)[axis] > 0]
    if len(used) == len(inputs):
        return False
    starts, limits, strides = list(op.start_indices), list(op.limit_indices), list(op.strides)
    starts[axis] = first - offsets[lo]
    limits[axis] = last - offsets[lo] + 1
    if n == 1:
        strides[axis] = 1

    def make():
        source = used[0] if len(used) == 1 else shlo.concatenate(used, dimension=axis)
        return shlo.slice(source, start_indices=starts, limit_indices=limits, strides=strides)

    return replace_built(op, rw, make)


@rule("stablehlo.concatenate", family=FAMILY)
def concatenate_single(op, rw) -> bool:
    """concatenate of one operand -> that operand (exact: nothing is joined)."""
    inputs = list(op.inputs)
    return len(inputs) == 1 and _use(op, rw, inputs[0])


@rule("stablehlo.concatenate", family=FAMILY)
def concatenate_drop_empty(op, rw) -> bool:
    """concatenate without its operands of size 0 along the joined dimension (exact: they add no elements)."""
    inputs = list(op.inputs)
    if len(inputs) < 2 or not _movable(*inputs, op.results[0]):
        return False
    axis = op.dimension
    kept = [v for v in inputs if static_shape(v)[axis] != 0] or inputs[:1]
    if len(kept) == len(inputs):
        return False
    if len(kept) == 1:
        return _use(op, rw, kept[0])
    return replace_built(op, rw, lambda: shlo.concatenate(kept, dimension=axis))


@rule("stablehlo.concatenate", family=FAMILY)
def concatenate_of_concatenate(op, rw) -> bool:
    """concatenate of a concatenate along the same dimension that nothing else reads -> one concatenate of
    all their operands (exact: the same elements in the same order; the inner result is not written out
    and copied again, as IREE does for each concatenate)."""
    inputs = list(op.inputs)
    axis = op.dimension
    spliced, changed = [], False
    for v in inputs:
        inner = defining(v, "stablehlo.concatenate")
        if inner is not None and inner.dimension == axis and len(list(v.uses)) == 1:
            spliced.extend(inner.inputs)
            changed = True
        else:
            spliced.append(v)
    if not changed or not _movable(*spliced, op.results[0]):
        return False
    return replace_built(op, rw, lambda: shlo.concatenate(spliced, dimension=axis))


@rule("stablehlo.pad", family=FAMILY)
def pad_zero(op, rw) -> bool:
    """pad with no edge or interior padding -> its operand (exact: no element added or removed)."""
    rank = len(op.edge_padding_low)
    if any(list(p) != [0] * rank for p in (op.edge_padding_low, op.edge_padding_high, op.interior_padding)):
        return False
    return _use(op, rw, op.operand)


@rule("stablehlo.dynamic_slice", family=FAMILY)
def dynamic_slice_constant(op, rw) -> bool:
    """dynamic_slice at constant indices -> slice at the indices clamped to [0, size - slice size], as the spec does."""
    x = op.operand
    if not _movable(x, op.results[0]):
        return False
    dims, sizes = static_shape(x), list(op.slice_sizes)
    indices = list(op.start_indices)
    if not dims or len(indices) != len(dims):
        return False
    starts = []
    for v, n, size in zip(indices, dims, sizes):
        c = constant_of(v)
        if c is None or c.shape != () or c.dtype.kind not in "iu":
            return False
        starts.append(min(max(int(c), 0), n - size))
    limits = [s + size for s, size in zip(starts, sizes)]
    return replace_built(op, rw, lambda: shlo.slice(x, start_indices=starts, limit_indices=limits,
                                                    strides=[1] * len(dims)))


@rule("stablehlo.dynamic_update_slice", family=FAMILY)
def dynamic_update_slice_full(op, rw) -> bool:
    """dynamic_update_slice of an operand-sized update -> the update (exact: indices clamp to 0, all is replaced)."""
    if not _movable(op.operand, op.update) or static_shape(op.operand) != static_shape(op.update):
        return False
    return _use(op, rw, op.update)


@rule("stablehlo.reverse", family=FAMILY)
def reverse_of_reverse(op, rw) -> bool:
    """reverse of a reverse -> one reverse of the dimensions reversed once, or the operand (exact)."""
    inner = defining(op.operand, "stablehlo.reverse")
    if inner is None or element_kind(op.operand) == "other":
        return False
    once = sorted(set(inner.dimensions) ^ set(op.dimensions))
    if not once:
        return _use(op, rw, inner.operand)
    return replace_built(op, rw, lambda: shlo.reverse(inner.operand, dimensions=once))


@rule("stablehlo.reverse", family=FAMILY)
def reverse_unit_dims(op, rw) -> bool:
    """reverse without its dimensions of size 0 or 1 -> fewer reversed dimensions, or the operand (exact)."""
    x = op.operand
    if element_kind(x) == "other":
        return False
    dims = list(x.type.shape)
    kept = [d for d in op.dimensions if dims[d] < 0 or dims[d] > 1]  # dynamic sizes (negative) stay reversed
    if len(kept) == len(op.dimensions):
        return False
    if not kept:
        return _use(op, rw, x)
    return replace_built(op, rw, lambda: shlo.reverse(x, dimensions=kept))
