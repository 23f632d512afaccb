"""Creation and conversion: arange, full/zeros/ones/empty and their *_like and new_* forms, scalar_tensor, fill,
tril/triu, eye, and dtype conversions (_to_copy, to, type_as).

Shapes and dtypes are the ones torch traced for the result; `empty` tensors
are zeros.
"""

from __future__ import annotations

from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import translates
from oxla.importers.torch_ops.lowering import (
    broadcast, convert, dims_of, full, iota, is_float, scalar)


def _filled(value_at: int | None, value=0):
    """The translation of a creation op: the traced shape and dtype, filled with the argument at `value_at`
    (or with `value` when None)."""
    def lower(cx, *args):
        fill = value if value_at is None else args[value_at]
        return full(cx.out_dims(), fill, cx.out_dtype)
    return lower


translates("aten.zeros.default", "aten.zeros_like.default", "aten.new_zeros.default", "aten.empty.memory_format",
           "aten.empty_like.default", "aten.new_empty.default", "aten.empty_strided.default",
           "aten.new_empty_strided.default", "aten.empty_permuted.default", "aten.zero.default")(_filled(None, 0))
translates("aten.ones.default", "aten.ones_like.default", "aten.new_ones.default")(_filled(None, 1))
translates("aten.full.default", "aten.full_like.default", "aten.fill.Scalar", "aten.fill.Tensor")(_filled(1))
translates("aten.new_full.default")(_filled(2))
translates("aten.scalar_tensor.default", "prims.scalar_tensor.default")(_filled(0))


def _arange(cx, start, end, step):
    """start, start + step, ... (as many as torch traced), in the result's dtype."""
    dtype = cx.out_dtype
    dims = cx.out_dims()
    work = dtype if is_float(dtype) else "i64"
    values = convert(iota(dims, 0, "i64"), work)
    if step != 1:
        values = shlo.multiply(values, broadcast(scalar(step, work), dims))
    if not (isinstance(start, int) and start == 0):
        values = shlo.add(values, broadcast(scalar(start, work), dims))
    return convert(values, dtype)


@translates("aten.arange.default")
def arange(cx, end, *_):
    """0, 1, ..., end - 1."""
    return _arange(cx, 0, end, 1)


@translates("aten.arange.start")
def arange_start(cx, start, end, *_):
    """start, start + 1, ..., end - 1."""
    return _arange(cx, start, end, 1)


@translates("aten.arange.start_step")
def arange_start_step(cx, start, end, step=1, *_):
    """start, start + step, ... below end."""
    return _arange(cx, start, end, step)


@translates("aten.linspace.default")
def linspace(cx, start, end, steps, *_):
    """`steps` evenly spaced values from start to end, computed from both ends as torch does."""
    dtype = cx.out_dtype
    work = dtype if is_float(dtype) else "f32"
    dims = cx.out_dims()
    if steps == 1:
        return convert(full(dims, start, work), dtype)
    step = (end - start) / (steps - 1)
    i = convert(iota(dims, 0, "i64"), work)

    def value(v):
        return broadcast(scalar(v, work), dims)
    from_start = shlo.add(value(start), shlo.multiply(i, value(step)))
    from_end = shlo.subtract(value(end), shlo.multiply(shlo.subtract(value(steps - 1), i), value(step)))
    first_half = shlo.compare(i, value(steps // 2), "LT")
    return convert(shlo.select(first_half, from_start, from_end), dtype)


def _triangle(lower_part: bool):
    """tril / triu: elements on one side of the `diagonal`-th diagonal of the last two dimensions, else 0."""
    def lower(cx, x, diagonal=0, *_):
        dims = dims_of(x)
        square = dims[-2:]
        rows, cols = iota(square, 0), iota(square, 1)
        offset = shlo.subtract(cols, rows)
        keep = shlo.compare(offset, broadcast(scalar(diagonal, "i64"), square), "LE" if lower_part else "GE")
        keep = broadcast(keep, dims, [x.ndim - 2, x.ndim - 1])
        return shlo.select(keep, x, full(dims, 0, x.dtype))
    return lower


translates("aten.tril.default")(_triangle(True))
translates("aten.triu.default")(_triangle(False))


@translates("aten.eye.default", "aten.eye.m")
def eye(cx, *_):
    """Ones on the diagonal."""
    dims = cx.out_dims()
    return convert(shlo.compare(iota(dims, 0), iota(dims, 1), "EQ"), cx.out_dtype)


@translates("aten._to_copy.default", "aten.to.dtype", "aten.to.dtype_layout", "aten.to.device", "aten.to.other",
            "aten.type_as.default", "prims.convert_element_type.default")
def to(cx, x, *_):
    """x converted to the result's dtype (devices, layouts and memory formats do not matter here)."""
    return convert(x, cx.out_dtype)

