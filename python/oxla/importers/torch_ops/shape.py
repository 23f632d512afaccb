"""Shape and layout: view/reshape, permute/transpose, expand, cat/stack, split/chunk/unbind, slice/select,
squeeze/unsqueeze/flatten, repeat, flip, roll, padding, and the copies and aliases that are no-ops on values
(clone, contiguous, detach, dropout in eval mode).

Result shapes come from what torch traced (`cx.out_dims()`), so `-1`s and
symbolic sizes need no re-derivation here.
"""

from __future__ import annotations

from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import translates
from oxla.importers.torch_ops.lowering import (
    axes, axis, broadcast, constant, convert, dim_product, dims_of, full, reshape, scalar, slice_axis, transpose)


@translates("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.view_copy.default",
            "aten.flatten.using_ints", "aten.unflatten.int", "aten.squeeze.default", "aten.squeeze.dim",
            "aten.squeeze.dims", "aten.unsqueeze.default", "aten.squeeze_copy.dim", "aten.unsqueeze_copy.default",
            "aten._reshape_alias.default")
def view(cx, x, *_):
    """The same elements in the result's shape."""
    return reshape(x, cx.out_dims())


@translates("aten.permute.default", "aten.permute_copy.default")
def permute(cx, x, dims, *_):
    """Axes permuted."""
    return transpose(x, [axis(d, x.ndim) for d in dims])


@translates("aten.transpose.int", "aten.transpose_copy.int")
def transpose_op(cx, x, dim0, dim1, *_):
    """Two axes swapped."""
    perm = list(range(x.ndim))
    a, b = axis(dim0, x.ndim), axis(dim1, x.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


@translates("aten.mT.default", "aten.swapaxes.default", "aten.swapdims.default")
def swap_last(cx, x, dim0=-2, dim1=-1, *_):
    """Two axes swapped (the last two for mT)."""
    return transpose_op(cx, x, dim0, dim1)


@translates("aten.numpy_T.default")
def numpy_t(cx, x, *_):
    """All axes reversed."""
    return transpose(x, list(range(x.ndim))[::-1])


@translates("aten.movedim.int", "aten.movedim.intlist")
def movedim(cx, x, source, destination, *_):
    """Axes moved from `source` to `destination`, the others keeping their order."""
    source = [axis(d, x.ndim) for d in (source if isinstance(source, (list, tuple)) else [source])]
    destination = [axis(d, x.ndim) for d in (destination if isinstance(destination, (list, tuple)) else [destination])]
    rest = iter(d for d in range(x.ndim) if d not in source)
    placed = dict(zip(destination, source))
    return transpose(x, [placed[i] if i in placed else next(rest) for i in range(x.ndim)])


@translates("aten.t.default", "aten.t_copy.default")
def t(cx, x, *_):
    """The transpose of a matrix (vectors and scalars unchanged)."""
    return transpose(x, [1, 0]) if x.ndim == 2 else x


@translates("aten.expand.default", "aten.expand_copy.default", "aten.broadcast_to.default", "aten.expand_as.default")
def expand(cx, x, *_):
    """x broadcast to the result's shape."""
    return broadcast(x, cx.out_dims())


@translates("aten.cat.default", "aten.concat.default", "aten.concatenate.default")
def cat(cx, tensors, dim=0, *_):
    """Tensors joined along `dim` (dtypes promoted; legacy empty 1-D tensors skipped)."""
    rank = len(cx.out.shape)
    xs = [convert(t, cx.out_dtype) for t in tensors if not (t.ndim == 1 and t.shape[0] == 0 and rank != 1)]
    if not xs:
        return full(cx.out_dims(), 0, cx.out_dtype)
    return xs[0] if len(xs) == 1 else shlo.concatenate(xs, dimension=axis(dim, rank))


@translates("aten.stack.default")
def stack(cx, tensors, dim=0, *_):
    """Tensors stacked along a new axis `dim`."""
    ax = axis(dim, len(cx.out.shape))
    parts = []
    for t in tensors:
        d = dims_of(t)
        parts.append(reshape(convert(t, cx.out_dtype), d[:ax] + [1] + d[ax:]))
    return parts[0] if len(parts) == 1 else shlo.concatenate(parts, dimension=ax)


def _pieces(cx, x: Tensor, ax: int) -> tuple:
    """x cut along `ax` into the pieces torch traced (their sizes along `ax` must be static)."""
    out, start = [], 0
    for piece in cx.out:
        size = int(piece.shape[ax])
        out.append(slice_axis(x, ax, start, start + size))
        start += size
    return tuple(out)


@translates("aten.split.Tensor", "aten.split_with_sizes.default", "aten.chunk.default", "aten.split_copy.Tensor",
            "aten.split_with_sizes_copy.default", "aten.tensor_split.sections", "aten.unsafe_split.Tensor",
            "aten.unsafe_split_with_sizes.default", "aten.unsafe_chunk.default")
def split(cx, x, sizes, dim=0, *_):
    """Consecutive pieces along `dim`."""
    return _pieces(cx, x, axis(dim, x.ndim))


@translates("aten.unbind.int", "aten.unbind_copy.int")
def unbind(cx, x, dim=0, *_):
    """Every index along `dim`, each without that axis."""
    ax = axis(dim, x.ndim)
    return tuple(reshape(slice_axis(x, ax, k, k + 1), cx.dims(o.shape)) for k, o in enumerate(cx.out))


def slice_start(x: Tensor, ax: int, start):
    """A slice start as torch reads it (negative counts from the end, clamped into range): int or 0-d value."""
    size = x.shape[ax]
    if start is None:
        return 0
    if isinstance(start, int):
        if size is not None:
            return min(max(start + size if start < 0 else start, 0), size)
        if start >= 0:
            return start
    value = scalar(start, "i64")
    size_value = dims_of(x)[ax] if size is None else constant(size, "i64")
    zero = constant(0, "i64")
    value = shlo.select(shlo.compare(value, zero, "LT"), shlo.add(value, size_value), value)
    return shlo.clamp(zero, value, size_value)


@translates("aten.slice.Tensor", "aten.slice_copy.Tensor")
def slice_op(cx, x, dim=0, start=None, end=None, step=1, *_):
    """x[..., start:end:step, ...] along `dim`; the length is the one torch traced."""
    ax = axis(dim, x.ndim)
    first = slice_start(x, ax, start)
    length = cx.out_dims()[ax]
    if isinstance(first, int) and isinstance(length, int):
        return slice_axis(x, ax, first, first + (length - 1) * step + 1 if length else first, step)
    first, n = scalar(first, "i64"), scalar(length, "i64")
    limit = shlo.add(first, shlo.add(shlo.multiply(shlo.subtract(n, constant(1, "i64")), constant(step, "i64")),
                                     constant(1, "i64")))
    return slice_axis(x, ax, first, shlo.maximum(limit, first), step)


@translates("aten.narrow.default", "aten.narrow_copy.default")
def narrow(cx, x, dim, start, length, *_):
    """x[..., start:start+length, ...] along `dim`."""
    return slice_op(cx, x, dim, start, None, 1)


@translates("aten.select.int", "aten.select_copy.int")
def select(cx, x, dim, index, *_):
    """x at `index` along `dim`, without that axis."""
    ax = axis(dim, x.ndim)
    first = slice_start(x, ax, index)
    limit = first + 1 if isinstance(first, int) else shlo.add(first, constant(1, "i64"))
    return reshape(slice_axis(x, ax, first, limit), cx.out_dims())


@translates("aten.repeat.default", "aten.tile.default")
def repeat(cx, x, repeats, *_):
    """x tiled `repeats` times along each dimension (leading new dimensions when repeats is longer; tile pads
    a shorter `repeats` with leading ones)."""
    repeats = [1] * (x.ndim - len(repeats)) + list(repeats)
    pad = len(repeats) - x.ndim
    padded = [1] * pad + dims_of(x)
    interleaved = [d for pair in zip(repeats, padded) for d in pair]
    spread = broadcast(x, interleaved, [2 * i + 1 for i in range(pad, len(repeats))])
    return reshape(spread, cx.out_dims())


def _repeat_interleave_check(node, args):
    """repeat_interleave with an int count (a tensor of counts gives a data-dependent size)."""
    return None if isinstance(args[1], int) else "a tensor of repeat counts"


@translates("aten.repeat_interleave.self_int", check=_repeat_interleave_check, note="int repeats only")
def repeat_interleave(cx, x, repeats, dim=None, *_):
    """Each element repeated `repeats` times along `dim` (along the flattened tensor when dim is None)."""
    if dim is None:
        x, ax = reshape(x, [_numel(x)]), 0
    else:
        ax = axis(dim, x.ndim)
    d = dims_of(x)
    spread = broadcast(x, d[:ax + 1] + [repeats] + d[ax + 1:], list(range(ax + 1)) + list(range(ax + 2, x.ndim + 1)))
    return reshape(spread, cx.out_dims())


def _numel(x: Tensor):
    """The number of elements of x (an int, or a 0-d value when dynamic)."""
    return dim_product(dims_of(x))


@translates("aten.pixel_shuffle.default")
def pixel_shuffle(cx, x, r, *_):
    """(..., C*r*r, H, W) -> (..., C, H*r, W*r): each channel block spread over an r x r neighbourhood."""
    d = dims_of(x)
    lead, (c, h, w) = d[:-3], d[-3:]
    n = len(lead)
    y = reshape(x, lead + [c // (r * r), r, r, h, w])
    y = transpose(y, list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return reshape(y, cx.out_dims())


@translates("aten.pixel_unshuffle.default")
def pixel_unshuffle(cx, x, r, *_):
    """(..., C, H*r, W*r) -> (..., C*r*r, H, W): the inverse of pixel_shuffle."""
    d = dims_of(x)
    lead, (c, h, w) = d[:-3], d[-3:]
    n = len(lead)
    y = reshape(x, lead + [c, h // r, r, w // r, r])
    y = transpose(y, list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return reshape(y, cx.out_dims())


@translates("aten.flip.default")
def flip(cx, x, dims, *_):
    """x reversed along `dims`."""
    return shlo.reverse(x, dimensions=axes(dims, x.ndim)) if dims else x


@translates("aten.roll.default")
def roll(cx, x, shifts, dims=(), *_):
    """x rotated by `shifts` along `dims` (along the flattened tensor when dims is empty)."""
    if not dims:
        return reshape(roll(cx, reshape(x, [_numel(x)]), shifts, [0]), dims_of(x))
    for shift, d in zip(shifts, dims):
        ax = axis(d, x.ndim)
        size = x.shape[ax]
        k = shift % size
        if k:
            x = shlo.concatenate([slice_axis(x, ax, size - k, size), slice_axis(x, ax, 0, size - k)], dimension=ax)
    return x


# Padding ----------------------------------------------------------------------------------------------------------

def _pad_pairs(x: Tensor, pad) -> list[tuple[int, int]]:
    """torch's flat pad list (last dimension first) as (low, high) per dimension of x."""
    pairs = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        pairs[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return pairs


@translates("aten.constant_pad_nd.default")
def constant_pad(cx, x, pad, value=0, *_):
    """x padded with `value` (negative padding crops)."""
    pairs = _pad_pairs(x, pad)
    return shlo.pad(x, scalar(value, x.dtype), edge_padding_low=[lo for lo, _ in pairs],
                    edge_padding_high=[hi for _, hi in pairs], interior_padding=[0] * x.ndim)


def _edges(x: Tensor, ax: int, lo: int, hi: int, mode: str) -> Tensor:
    """x extended along `ax` by reflecting, replicating or wrapping its edges."""
    size = x.shape[ax]
    parts = []
    if mode == "reflect":
        if lo:
            parts.append(shlo.reverse(slice_axis(x, ax, 1, lo + 1), dimensions=[ax]))
        parts.append(x)
        if hi:
            parts.append(shlo.reverse(slice_axis(x, ax, size - hi - 1, size - 1), dimensions=[ax]))
    elif mode == "replicate":
        def edge(i, n):
            e = slice_axis(x, ax, i, i + 1)
            d = dims_of(e)
            d[ax] = n
            return broadcast(e, d, list(range(x.ndim)))
        parts = ([edge(0, lo)] if lo else []) + [x] + ([edge(size - 1, hi)] if hi else [])
    else:  # circular
        parts = ([slice_axis(x, ax, size - lo, size)] if lo else []) + [x] + ([slice_axis(x, ax, 0, hi)] if hi else [])
    return parts[0] if len(parts) == 1 else shlo.concatenate(parts, dimension=ax)


def _pad_mode(mode: str):
    """The translation of a reflect/replicate/circular padding op."""
    def lower(cx, x, pad, *_):
        for ax, (lo, hi) in enumerate(_pad_pairs(x, pad)):
            if lo or hi:
                x = _edges(x, ax, lo, hi, mode)
        return x
    return lower


for _n in (1, 2, 3):
    translates(f"aten.reflection_pad{_n}d.default")(_pad_mode("reflect"))
    translates(f"aten.replication_pad{_n}d.default")(_pad_mode("replicate"))


def _pad_check(node, args):
    """F.pad modes: constant, reflect, replicate, circular with non-negative padding."""
    mode = args[2]
    if mode not in ("constant", "reflect", "replicate", "circular"):
        return f"mode {mode!r}"
    if mode != "constant" and any(p < 0 for p in args[1]):
        return f"negative padding in mode {mode!r}"
    return None


@translates("aten.pad.default", check=_pad_check, note="modes constant, reflect, replicate, circular")
def pad(cx, x, pad, mode="constant", value=None, *_):
    """F.pad in any of its modes."""
    if mode == "constant":
        return constant_pad(cx, x, pad, 0 if value is None else value)
    return _pad_mode(mode)(cx, x, pad)


# Copies, aliases, dropout in eval mode ----------------------------------------------------------------------------

@translates("aten.clone.default", "aten.contiguous.default", "aten.alias.default", "aten.detach.default",
            "aten.lift_fresh_copy.default", "aten.alias_copy.default", "aten.detach_copy.default",
            "aten.lift_fresh.default")
def identity(cx, x, *_):
    """The value itself: copies and aliases do not change values."""
    return x


def _dropout_check(node, args):
    """Dropout translates only in eval mode (train=False), where it is the identity."""
    return "training mode: call model.eval() before exporting" if args[2] else None


@translates("aten.dropout.default", "aten.feature_dropout.default", "aten.alpha_dropout.default",
            "aten.feature_alpha_dropout.default", check=_dropout_check, note="eval mode (the identity)")
def dropout(cx, x, p, train, *_):
    """Dropout in eval mode: x unchanged."""
    return x


def _native_dropout_check(node, args):
    """native_dropout is the identity only with train=False (None means training)."""
    return None if args[2] is False else "training mode: call model.eval() before exporting"


@translates("aten.native_dropout.default", check=_native_dropout_check, note="eval mode (the identity)")
def native_dropout(cx, x, p, train, *_):
    """(x, a mask of ones) in eval mode."""
    return x, full(dims_of(x), True, "i1")


@translates("aten.copy.default")
def copy(cx, x, src, *_):
    """src converted to x's dtype and broadcast to its shape."""
    return broadcast(convert(src, x.dtype), dims_of(x))

