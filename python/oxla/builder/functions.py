"""numpy-style functions over Tensors, each building StableHLO at the insertion point.

Operands may be Tensors, `ir.Value`s, numpy arrays or Python scalars; binary
functions promote dtypes and broadcast shapes as `oxla.builder.promotion`
states. Results are always Tensors.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from oxla import ir
from oxla.builder.promotion import (
    BOOL, COMPLEX, FLOATING, INTEGER, broadcast_shapes, default_scalar_type, kind, promote, weak_scalar_type)
from oxla.builder.tensor import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import where as _where_in_user_code
from oxla.dialects.stablehlo.attributes import DotDimensionNumbers

_SCALARS = (bool, int, float, complex)


# Operands -------------------------------------------------------------------------------------------------------

def _wrap(x) -> Tensor:
    """A Tensor for a builder's result (ir.Value or Tensor)."""
    return x if isinstance(x, Tensor) else Tensor(x)


def constant(value, dtype=None) -> Tensor:
    """A constant tensor holding `value` (array or scalar) as `dtype` (default: the value's own)."""
    element = T.element_type(dtype) if dtype is not None else (
        default_scalar_type(value) if isinstance(value, _SCALARS) else None)
    array = np.asarray(value) if element is None else np.asarray(value, dtype=T.to_numpy_dtype(element))
    return _wrap(shlo.constant(array))


def as_tensor(x, dtype=None) -> Tensor:
    """`x` as a Tensor (converted to `dtype` when given): Tensors and values as they are, arrays as constants."""
    if isinstance(x, Tensor):
        t = x
    elif isinstance(x, ir.Value):
        t = Tensor(x)
    elif isinstance(x, (np.ndarray, np.generic) + _SCALARS):
        return constant(x, dtype)
    else:
        raise TypeError(f"cannot use {type(x).__name__} {x!r:.60} as a tensor")
    return t if dtype is None else astype(t, dtype)


def _is_scalar(x) -> bool:
    """A Python scalar, which takes part in promotion weakly."""
    return isinstance(x, _SCALARS)


def _common(*xs, to=None, what: str = "operands") -> list[Tensor]:
    """Operands promoted to one element type (or `to`) and broadcast to one shape."""
    tensors = [as_tensor(x) for x in xs if not _is_scalar(x)]
    try:
        if not tensors:
            raise TypeError("at least one operand must be a Tensor")
        element = tensors[0].element_type
        for t in tensors[1:]:
            element = promote(element, t.element_type)
        for x in xs:
            if _is_scalar(x):
                element = promote(element, weak_scalar_type(x, element))
        if to is not None:
            element = T.element_type(to)
        shape = broadcast_shapes(*[t.shape for t in tensors])
    except (TypeError, ValueError) as e:
        raise type(e)(f"{what} at {_where_in_user_code()}: {e} (operands {', '.join(_describe(x) for x in xs)})") from None
    out = []
    for x in xs:
        t = constant(x, element) if _is_scalar(x) else astype(as_tensor(x), element)
        out.append(broadcast_to(t, shape))
    return out


def _describe(x) -> str:
    """An operand as messages show it: a tensor's type or a scalar's value."""
    return repr(x) if _is_scalar(x) else str(as_tensor(x).type)


def _binary(build, a, b, to=None) -> Tensor:
    """A binary op on promoted, broadcast operands."""
    x, y = _common(a, b, to=to, what=build.__name__.rstrip("_"))
    return _wrap(build(x, y))


# Element-wise arithmetic ----------------------------------------------------------------------------------------

def add(a, b) -> Tensor:
    """a + b."""
    return _binary(shlo.add, a, b)


def subtract(a, b) -> Tensor:
    """a - b."""
    return _binary(shlo.subtract, a, b)


def multiply(a, b) -> Tensor:
    """a * b."""
    return _binary(shlo.multiply, a, b)


def _float_type(*xs):
    """The floating type true division and transcendental functions compute in."""
    x, = _common(*xs)[:1]
    e = x.element_type
    return e if kind(e) >= FLOATING else T.element_type("f32")


def true_divide(a, b) -> Tensor:
    """a / b; integers divide as f32 (as in JAX)."""
    return _binary(shlo.divide, a, b, to=_float_type(a, b))


def floor_divide(a, b) -> Tensor:
    """a // b, rounding toward -infinity as Python does."""
    x, y = _common(a, b)
    if kind(x.element_type) == FLOATING:
        return floor(_wrap(shlo.divide(x, y)))
    q = _wrap(shlo.divide(x, y))
    if T.is_unsigned(x.element_type):
        return q
    r = _wrap(shlo.remainder(x, y))
    adjust = (r != 0) & ((r < 0) != (y < 0))
    return where(adjust, q - 1, q)


def mod(a, b) -> Tensor:
    """a % b with the sign of b, as Python does."""
    x, y = _common(a, b)
    r = _wrap(shlo.remainder(x, y))
    if T.is_unsigned(x.element_type) or kind(x.element_type) == COMPLEX:
        return r
    adjust = (r != 0) & ((r < 0) != (y < 0))
    return where(adjust, r + y, r)


def power(a, b) -> Tensor:
    """a ** b."""
    return _binary(shlo.power, a, b)


def maximum(a, b) -> Tensor:
    """Element-wise maximum (NaN propagates)."""
    return _binary(shlo.maximum, a, b)


def minimum(a, b) -> Tensor:
    """Element-wise minimum (NaN propagates)."""
    return _binary(shlo.minimum, a, b)


def negative(x) -> Tensor:
    """-x."""
    return _wrap(shlo.negate(as_tensor(x)))


def abs(x) -> Tensor:  # noqa: A001  (numpy's name)
    """|x| (complex: the modulus)."""
    return _wrap(shlo.abs(as_tensor(x)))


# name: StableHLO builder, for functions that compute in floating point (integers become f32 first)
_FLOAT_UNARY = {
    "exp": shlo.exponential, "expm1": shlo.exponential_minus_one, "log": shlo.log, "log1p": shlo.log_plus_one,
    "sqrt": shlo.sqrt, "rsqrt": shlo.rsqrt, "cbrt": shlo.cbrt, "sin": shlo.sine, "cos": shlo.cosine,
    "tan": shlo.tan, "tanh": shlo.tanh, "sigmoid": shlo.logistic,
}
# name: StableHLO builder, for functions that keep the operand's type
_SAME_UNARY = {"floor": shlo.floor, "ceil": shlo.ceil, "round": shlo.round_nearest_even, "sign": shlo.sign}


def _float_unary(build):
    """A numpy-style function computing `build` in floating point."""
    def apply(x) -> Tensor:
        t = as_tensor(x)
        if kind(t.element_type) < FLOATING:
            t = astype(t, "f32")
        return _wrap(build(t))
    return apply


def _same_unary(build):
    """A numpy-style function applying `build` to the operand as it is."""
    return lambda x: _wrap(build(as_tensor(x)))


for _name, _build in _FLOAT_UNARY.items():
    globals()[_name] = _float_unary(_build)
    globals()[_name].__name__ = _name
    globals()[_name].__doc__ = f"Element-wise {_name} (integers compute as f32)."
for _name, _build in _SAME_UNARY.items():
    globals()[_name] = _same_unary(_build)
    globals()[_name].__name__ = _name
    globals()[_name].__doc__ = f"Element-wise {_name}."


def relu(x) -> Tensor:
    """max(x, 0)."""
    return maximum(x, 0)


def clip(x, lo=None, hi=None) -> Tensor:
    """x limited to [lo, hi] (either bound may be None)."""
    t = as_tensor(x)
    if lo is not None:
        t = maximum(t, lo)
    if hi is not None:
        t = minimum(t, hi)
    return t


def where(condition, x, y) -> Tensor:
    """x where condition is true, else y (all three broadcast together)."""
    c = as_tensor(condition)
    if c.dtype != "i1":
        c = not_equal(c, 0)
    a, b = _common(x, y)
    shape = broadcast_shapes(c.shape, a.shape)
    return _wrap(shlo.select(broadcast_to(c, shape), broadcast_to(a, shape), broadcast_to(b, shape)))


# Logic, bits and comparison -------------------------------------------------------------------------------------

def bitwise_and(a, b) -> Tensor:
    """a & b (logical for booleans)."""
    return _binary(shlo.and_, a, b)


def bitwise_or(a, b) -> Tensor:
    """a | b (logical for booleans)."""
    return _binary(shlo.or_, a, b)


def bitwise_xor(a, b) -> Tensor:
    """a ^ b (logical for booleans)."""
    return _binary(shlo.xor, a, b)


def invert(x) -> Tensor:
    """~x: bitwise NOT (logical for booleans)."""
    return _wrap(shlo.not_(as_tensor(x)))


def left_shift(a, b) -> Tensor:
    """a << b."""
    return _binary(shlo.shift_left, a, b)


def right_shift(a, b) -> Tensor:
    """a >> b: arithmetic for signed integers, logical for unsigned ones."""
    x, y = _common(a, b)
    build = shlo.shift_right_logical if T.is_unsigned(x.element_type) else shlo.shift_right_arithmetic
    return _wrap(build(x, y))


def _comparison(direction: str):
    """A numpy-style comparison giving a boolean Tensor."""
    def compare(a, b) -> Tensor:
        return _binary(lambda x, y: shlo.compare(x, y, direction), a, b)
    compare.__name__ = direction.lower()
    return compare


equal, not_equal = _comparison("EQ"), _comparison("NE")
less, less_equal = _comparison("LT"), _comparison("LE")
greater, greater_equal = _comparison("GT"), _comparison("GE")


# Types and shapes -----------------------------------------------------------------------------------------------

def astype(x, dtype) -> Tensor:
    """x converted to `dtype` (no op when it already has it)."""
    t = as_tensor(x)
    element = T.element_type(dtype)
    return t if t.element_type == element else _wrap(shlo.convert(t, element))


def broadcast_to(x, shape) -> Tensor:
    """x broadcast to `shape` with numpy's rules."""
    t = as_tensor(x)
    shape = T.normalize_shape(shape)
    if t.shape == shape:
        return t
    if broadcast_shapes(t.shape, shape) != shape:
        raise ValueError(f"cannot broadcast shape {list(t.shape)} to {list(shape)}")
    offset = len(shape) - t.ndim
    return _wrap(shlo.broadcast_in_dim(t, broadcast_dimensions=list(range(offset, len(shape))), shape=shape))


def reshape(x, shape) -> Tensor:
    """x with a new shape of the same size; one dimension may be -1."""
    t = as_tensor(x)
    shape = [int(d) for d in (shape if isinstance(shape, (list, tuple)) else [shape])]
    if shape.count(-1) > 1:
        raise ValueError(f"reshape: at most one -1 in {shape}")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        if t.size is None or known == 0 or t.size % known:
            raise ValueError(f"reshape: cannot infer -1 in {shape} for shape {list(t.shape)}")
        shape[shape.index(-1)] = t.size // known
    if tuple(shape) == t.shape:
        return t
    return _wrap(shlo.reshape(t, shape=shape))


def transpose(x, axes=None) -> Tensor:
    """x with its axes permuted (reversed when axes is None)."""
    t = as_tensor(x)
    perm = list(range(t.ndim))[::-1] if axes is None else [_axis(a, t.ndim) for a in axes]
    if perm == list(range(t.ndim)):
        return t
    return _wrap(shlo.transpose(t, permutation=perm))


def expand_dims(x, axis: int) -> Tensor:
    """x with a new size-1 axis at `axis`."""
    t = as_tensor(x)
    axis = _axis(axis, t.ndim + 1)
    return reshape(t, list(t.shape[:axis]) + [1] + list(t.shape[axis:]))


def squeeze(x, axis=None) -> Tensor:
    """x without its size-1 axes (or only those in `axis`)."""
    t = as_tensor(x)
    axes = [i for i, d in enumerate(t.shape) if d == 1] if axis is None else _axes(axis, t.ndim)
    for a in axes:
        if t.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {t.shape[a]}, not 1")
    return reshape(t, [d for i, d in enumerate(t.shape) if i not in axes])


def concatenate(xs, axis: int = 0) -> Tensor:
    """The tensors joined along `axis` (dtypes promoted)."""
    ts = [as_tensor(x) for x in xs]
    if not ts:
        raise ValueError("concatenate needs at least one tensor")
    element = ts[0].element_type
    for t in ts[1:]:
        element = promote(element, t.element_type)
    ts = [astype(t, element) for t in ts]
    return _wrap(shlo.concatenate([t for t in ts], dimension=_axis(axis, ts[0].ndim)))


def stack(xs, axis: int = 0) -> Tensor:
    """The tensors stacked along a new axis."""
    ts = [as_tensor(x) for x in xs]
    if not ts:
        raise ValueError("stack needs at least one tensor")
    return concatenate([expand_dims(t, axis) for t in ts], axis=_axis(axis, ts[0].ndim + 1))


def _axis(axis: int, rank: int) -> int:
    """A possibly negative axis as an index in [0, rank)."""
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    return axis % rank


def _axes(axis, rank: int) -> list[int]:
    """None (all), an int or a sequence of axes, as sorted unique indices."""
    if axis is None:
        return list(range(rank))
    axes = sorted({_axis(a, rank) for a in (axis if isinstance(axis, (list, tuple)) else [axis])})
    return axes


# Creation -------------------------------------------------------------------------------------------------------

def full(shape, value, dtype=None) -> Tensor:
    """A tensor of `shape` filled with `value`."""
    return broadcast_to(constant(value, dtype), shape)


def zeros(shape, dtype="f32") -> Tensor:
    """A tensor of zeros."""
    return full(shape, 0, dtype)


def ones(shape, dtype="f32") -> Tensor:
    """A tensor of ones."""
    return full(shape, 1, dtype)


def arange(n: int, dtype="i32") -> Tensor:
    """0, 1, ..., n - 1."""
    return _wrap(shlo.iota(shape=[n], iota_dimension=0, dtype=dtype))


# Indexing -------------------------------------------------------------------------------------------------------

def getitem(x, key) -> Tensor:
    """numpy basic indexing: ints, slices (any step), None, Ellipsis; and one integer Tensor index (a take)."""
    t = as_tensor(x)
    key = key if isinstance(key, tuple) else (key,)
    key = _expand_ellipsis(key, t.ndim)
    tensor_axes = [i for i, k in enumerate(k for k in key if k is not None) if isinstance(k, (Tensor, ir.Value, np.ndarray))]
    if tensor_axes:
        return _take_index(t, key, tensor_axes)
    starts, limits, strides, reversed_axes, out_shape = [], [], [], [], []
    dim = 0
    for k in key:
        if k is None:
            out_shape.append(1)
            continue
        size = t.shape[dim]
        if isinstance(k, slice):
            start, limit, stride, count, flip = _slice_bounds(k, size, dim)
            out_shape.append(count)
        else:
            start, limit, stride, flip = _int_index(k, size, dim), None, 1, False
            limit = start + 1
        starts.append(start), limits.append(limit), strides.append(stride)
        if flip:
            reversed_axes.append(dim)
        dim += 1
    result = t
    if reversed_axes:
        result = _wrap(shlo.reverse(result, dimensions=reversed_axes))
    if (starts, limits, strides) != ([0] * t.ndim, list(t.shape), [1] * t.ndim):
        if None in limits:
            raise NotImplementedError("slicing a tensor with dynamic dimensions: only full slices on every axis")
        result = _wrap(shlo.slice(result, start_indices=starts, limit_indices=limits, strides=strides))
    return result if tuple(out_shape) == result.shape else reshape(result, out_shape)


def _expand_ellipsis(key: tuple, rank: int) -> tuple:
    """The key with its Ellipsis (or the missing trailing axes) spelled out as full slices."""
    used = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > rank:
        raise IndexError(f"too many indices ({used}) for a tensor of rank {rank}")
    if builtins.sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have one Ellipsis")
    fill = (slice(None),) * (rank - used)
    for i, k in enumerate(key):
        if k is Ellipsis:
            return key[:i] + fill + key[i + 1:]
    return key + fill


def _int_index(k, size, dim: int) -> int:
    """A (possibly negative) integer index along a static dimension."""
    try:
        i = operator.index(k)
    except TypeError:
        raise TypeError(f"index {k!r} on axis {dim}: expected an int, slice, None, Ellipsis or integer Tensor") from None
    if size is None:
        raise IndexError(f"integer index on the dynamic axis {dim}")
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for axis {dim} of size {size}")
    return i % size


def _slice_bounds(k: slice, size, dim: int):
    """(start, limit, stride, count, reversed) of a slice, reversing the axis first for negative steps."""
    if size is None:
        if k != slice(None):
            raise IndexError(f"only a full slice is supported on the dynamic axis {dim}")
        return 0, None, 1, None, False
    start, stop, step = k.indices(size)
    indices = range(start, stop, step)
    count = len(indices)
    if step > 0:
        return (start, start + (count - 1) * step + 1, step, count, False) if count else (0, 0, 1, 0, False)
    if not count:
        return 0, 0, 1, 0, False
    first = size - 1 - indices[0]
    return first, first + (count - 1) * -step + 1, -step, count, True


def _take_index(t: Tensor, key: tuple, tensor_axes: list[int]) -> Tensor:
    """x[..., idx, ...] with one integer Tensor index and full slices elsewhere: a gather along that axis."""
    plain = [k for k in key if k is not None]
    if len(tensor_axes) != 1 or len(plain) != len(key) or builtins.any(
            k != slice(None) for i, k in enumerate(plain) if i != tensor_axes[0]):
        raise NotImplementedError("indexing with a Tensor supports one integer Tensor index with full slices "
                                  "elsewhere (x[idx], x[:, idx]); use take() or gather for more")
    return take(t, plain[tensor_axes[0]], axis=tensor_axes[0])


def take(x, indices, axis: int = 0) -> Tensor:
    """Elements of x at integer `indices` along `axis` (indices' shape replaces that axis), clamped in range."""
    t, idx = as_tensor(x), as_tensor(indices)
    if kind(idx.element_type) != INTEGER:
        raise TypeError(f"take: indices must be integers, got {idx.dtype}")
    axis = _axis(axis, t.ndim)
    sizes = list(t.shape)
    sizes[axis] = 1
    offset_dims = [d if d < axis else d + idx.ndim - 1 for d in range(t.ndim) if d != axis]
    numbers = shlo.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=[axis],
                                          start_index_map=[axis], index_vector_dim=idx.ndim)
    return _wrap(shlo.gather(t, idx, dimension_numbers=numbers, slice_sizes=sizes))


# Reductions -----------------------------------------------------------------------------------------------------

def _reduce(x, axis, keepdims, combine, init) -> Tensor:
    """x reduced with the scalar `combine` over `axis` from the initial value `init`."""
    t = as_tensor(x)
    axes = _axes(axis, t.ndim)
    start = constant(init, t.element_type)
    out = _wrap(shlo.reduce(t, start, dimensions=axes, body=lambda a, b: combine(a, b)))
    if keepdims:
        out = reshape(out, [1 if i in axes else d for i, d in enumerate(t.shape)])
    return out


def _integers_for_sum(x) -> Tensor:
    """Booleans sum and multiply as i32."""
    t = as_tensor(x)
    return astype(t, "i32") if kind(t.element_type) == BOOL else t


def sum(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """Sum over `axis` (all axes when None)."""
    return _reduce(_integers_for_sum(x), axis, keepdims, shlo.add, 0)


def prod(x, axis=None, keepdims=False) -> Tensor:
    """Product over `axis`."""
    return _reduce(_integers_for_sum(x), axis, keepdims, shlo.multiply, 1)


def _lowest(element):
    """The identity of maximum for an element type."""
    if kind(element) == FLOATING:
        return -np.inf
    if kind(element) == BOOL:
        return False
    return int(np.iinfo(T.to_numpy_dtype(element)).min)


def _highest(element):
    """The identity of minimum for an element type."""
    if kind(element) == FLOATING:
        return np.inf
    if kind(element) == BOOL:
        return True
    return int(np.iinfo(T.to_numpy_dtype(element)).max)


def max(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """Maximum over `axis`."""
    t = as_tensor(x)
    return _reduce(t, axis, keepdims, shlo.maximum, _lowest(t.element_type))


def min(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """Minimum over `axis`."""
    t = as_tensor(x)
    return _reduce(t, axis, keepdims, shlo.minimum, _highest(t.element_type))


def mean(x, axis=None, keepdims=False) -> Tensor:
    """Mean over `axis` (integers average as f32)."""
    t = as_tensor(x)
    if kind(t.element_type) < FLOATING:
        t = astype(t, "f32")
    count = 1
    for a in _axes(axis, t.ndim):
        if t.shape[a] is None:
            raise ValueError("mean over a dynamic axis is not supported")
        count *= t.shape[a]
    return true_divide(sum(t, axis, keepdims), float(count))


def any(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """Whether any element over `axis` is true (non-zero)."""
    return _reduce(_as_bool(x), axis, keepdims, shlo.or_, False)


def all(x, axis=None, keepdims=False) -> Tensor:  # noqa: A001
    """Whether every element over `axis` is true (non-zero)."""
    return _reduce(_as_bool(x), axis, keepdims, shlo.and_, True)


def _as_bool(x) -> Tensor:
    """x != 0 as booleans (booleans unchanged)."""
    t = as_tensor(x)
    return t if t.dtype == "i1" else not_equal(t, 0)


def softmax(x, axis: int = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis`, computed stably."""
    t = as_tensor(x)
    shifted = t - max(t, axis, keepdims=True)
    e = exp(shifted)  # noqa: F821  (defined from the table above)
    return e / sum(e, axis, keepdims=True)


# Linear algebra -------------------------------------------------------------------------------------------------

def matmul(a, b) -> Tensor:
    """numpy's matmul: 1-D vectors, matrices, and stacks of matrices with broadcast batch dimensions."""
    x, y = (as_tensor(v) for v in (a, b))
    element = promote(x.element_type, y.element_type)
    x, y = astype(x, element), astype(y, element)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError("matmul: operands must not be scalars (use *)")
    squeeze_lhs, squeeze_rhs = x.ndim == 1, y.ndim == 1
    if squeeze_lhs:
        x = reshape(x, [1, x.shape[0]])
    if squeeze_rhs:
        y = reshape(y, [y.shape[0], 1])
    if x.shape[-1] is not None and y.shape[-2] is not None and x.shape[-1] != y.shape[-2]:
        raise ValueError(f"matmul: contracting sizes differ: {list(x.shape)} @ {list(y.shape)}")
    batch = broadcast_shapes(x.shape[:-2], y.shape[:-2])
    x = broadcast_to(x, batch + x.shape[-2:])
    y = broadcast_to(y, batch + y.shape[-2:])
    nb = len(batch)
    numbers = DotDimensionNumbers(lhs_batching_dimensions=list(range(nb)), rhs_batching_dimensions=list(range(nb)),
                                  lhs_contracting_dimensions=[nb + 1], rhs_contracting_dimensions=[nb])
    out = _wrap(shlo.dot_general(x, y, dot_dimension_numbers=numbers))
    if squeeze_lhs or squeeze_rhs:
        shape = list(out.shape)
        if squeeze_rhs:
            shape.pop(-1)
        if squeeze_lhs:
            shape.pop(-2 if not squeeze_rhs else -1)
        out = reshape(out, shape)
    return out
