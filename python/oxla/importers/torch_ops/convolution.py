"""Convolution (grouped, dilated, padded, transposed), pooling (max, average, adaptive) and upsampling.

torch keeps channels at dimension 1 and the spatial dimensions last (NCHW);
unbatched inputs (CHW) work too, as every window covers only the trailing
spatial dimensions. Interpolation, and adaptive average pooling whose
windows do not tile the input evenly, are separable: each spatial dimension
is contracted with a constant matrix of weights.
"""

from __future__ import annotations

import math

import numpy as np

from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import output_unused, translates
from oxla.importers.torch_ops.linalg import dot
from oxla.importers.torch_ops.lowering import (
    broadcast, constant, convert, dims_of, mean, reshape, scalar, transpose, REDUCERS)


def _per_dim(value, n: int) -> list[int]:
    """A torch int-or-list window parameter as one entry per spatial dimension."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    return values * n if len(values) == 1 else values


def _conv_numbers(n: int) -> shlo.ConvDimensionNumbers:
    """NC+spatial input and output, OI+spatial kernel, for `n` spatial dimensions."""
    spatial = list(range(2, n + 2))
    return shlo.ConvDimensionNumbers(
        input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=spatial,
        kernel_output_feature_dimension=0, kernel_input_feature_dimension=1, kernel_spatial_dimensions=spatial,
        output_batch_dimension=0, output_feature_dimension=1, output_spatial_dimensions=spatial)


def _transposed_kernel(w: Tensor, groups: int) -> Tensor:
    """A conv_transpose weight (in, out/groups, k...) as a forward kernel (out, in/groups, k...), flipped."""
    dims = list(w.shape)
    cin, cout_g, spatial = dims[0], dims[1], dims[2:]
    w = reshape(w, [groups, cin // groups, cout_g] + spatial)
    w = transpose(w, [0, 2, 1] + list(range(3, w.ndim)))
    w = reshape(w, [groups * cout_g, cin // groups] + spatial)
    return shlo.reverse(w, dimensions=list(range(2, w.ndim)))


def _bias(y: Tensor, bias) -> Tensor:
    """y plus a per-channel bias (channel dimension 1)."""
    if bias is None:
        return y
    return shlo.add(y, broadcast(convert(bias, y.dtype), dims_of(y), [1]))


@translates("aten.convolution.default")
def convolution(cx, x, weight, bias, stride, padding, dilation, transposed, output_padding, groups, *_):
    """N-d convolution or transposed convolution of an NC... input (an unbatched C... input works too)."""
    dtype = cx.out_dtype
    x, w = convert(x, dtype), convert(weight, dtype)
    n = w.ndim - 2
    unbatched = x.ndim == n + 1
    if unbatched:
        x = reshape(x, [1] + dims_of(x))
    stride, dilation = _per_dim(stride, n), _per_dim(dilation, n)
    if isinstance(padding, str):
        padding = _string_padding(padding, list(w.shape[2:]), dilation)
    else:
        padding = [(p, p) for p in _per_dim(padding, n)]
    lhs_dilation = [1] * n
    if transposed:
        output_padding = _per_dim(output_padding, n)
        k = list(w.shape[2:])
        padding = [(d * (kk - 1) - lo, d * (kk - 1) - hi + op)
                   for kk, d, (lo, hi), op in zip(k, dilation, padding, output_padding)]
        lhs_dilation, stride = stride, [1] * n
        w = _transposed_kernel(w, groups)
    y = shlo.convolution(x, w, window_strides=stride, padding=[list(p) for p in padding], lhs_dilation=lhs_dilation,
                         rhs_dilation=dilation, dimension_numbers=_conv_numbers(n), feature_group_count=groups)
    y = _bias(y, bias)
    return reshape(y, dims_of(y)[1:]) if unbatched else y


def _string_padding(mode: str, kernel: list[int], dilation: list[int]) -> list[tuple[int, int]]:
    """padding="valid" or "same" (extra padding on the high side, as torch puts it)."""
    if mode == "valid":
        return [(0, 0)] * len(kernel)
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return [(t // 2, t - t // 2) for t in total]


@translates("aten.conv1d.default", "aten.conv2d.default", "aten.conv3d.default", "aten.conv1d.padding",
            "aten.conv2d.padding", "aten.conv3d.padding")
def conv(cx, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *_):
    """Forward convolution (padding may be "same" or "valid")."""
    return convolution(cx, x, weight, bias, stride, padding, dilation, False, 0, groups)


@translates("aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input")
def conv_transpose(cx, x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, *_):
    """Transposed convolution."""
    return convolution(cx, x, weight, bias, stride, padding, dilation, True, output_padding, groups)


# Pooling ----------------------------------------------------------------------------------------------------------

def _window(x: Tensor, n: int, kind: str, kernel, stride, padding, dilation, out_spatial) -> Tensor:
    """reduce_window over the last `n` dimensions; the high padding grows so that torch's output size comes out."""
    lead = x.ndim - n
    kernel = _per_dim(kernel, n)
    stride = _per_dim(stride, n) if stride else kernel  # torch passes [] for "the kernel size"
    padding, dilation = _per_dim(padding, n), _per_dim(dilation, n)
    pads = [[0, 0]] * lead
    for size, k, s, p, d, out in zip(x.shape[lead:], kernel, stride, padding, dilation, out_spatial):
        high = (out - 1) * s + d * (k - 1) + 1 - size - p
        pads.append([p, max(high, p)])
    combine, identity = REDUCERS[kind]
    return shlo.reduce_window(x, scalar(identity(x.dtype), x.dtype), window_dimensions=[1] * lead + kernel,
                              window_strides=[1] * lead + stride, window_dilations=[1] * lead + dilation,
                              padding=pads, body=lambda a, b: combine(a, b))


def _max_pool(n: int):
    """max_pool{n}d: the maximum over each window (padding counts as -inf)."""
    def lower(cx, x, kernel, stride=(), padding=0, dilation=1, ceil_mode=False, *_):
        out = cx.out[0] if isinstance(cx.out, (tuple, list)) else cx.out
        values = _window(x, n, "max", kernel, stride, padding, dilation, list(out.shape[-n:]))
        if isinstance(cx.out, (tuple, list)):
            return values, None  # the indices: rejected before lowering when anything uses them
        return values
    return lower


_indices_unused = output_unused(1, "indices")


for _n in (1, 2, 3):
    translates(f"aten.max_pool{_n}d.default")(_max_pool(_n))
    translates(f"aten.max_pool{_n}d_with_indices.default", note="the values only; the indices are not computed",
               check=_indices_unused)(_max_pool(_n))


def _window_counts(size: int, out: int, k: int, s: int, p: int, include_pad: bool) -> np.ndarray:
    """How many elements each average-pooling window covers along one dimension (torch's rule)."""
    counts = []
    for o in range(out):
        start = o * s - p
        end = min(start + k, size + p)
        if not include_pad:
            start, end = max(start, 0), min(end, size)
        counts.append(end - start)
    return np.asarray(counts)


def _avg_pool(n: int):
    """avg_pool{n}d: window sums over the number of elements torch divides by."""
    def lower(cx, x, kernel, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None,
              *_):
        x = convert(x, cx.out_dtype)
        out_spatial = list(cx.out.shape[-n:])
        sums = _window(x, n, "sum", kernel, stride, padding, 1, out_spatial)
        if divisor_override:
            divisor = np.asarray(divisor_override)
        else:
            kernel_ = _per_dim(kernel, n)
            stride_ = _per_dim(stride, n) if stride else kernel_
            per_dim = [_window_counts(size, out, k, s, p, count_include_pad) for size, out, k, s, p in
                       zip(x.shape[-n:], out_spatial, kernel_, stride_, _per_dim(padding, n))]
            divisor = per_dim[0]
            for c in per_dim[1:]:
                divisor = np.multiply.outer(divisor, c)
        d = constant(divisor, sums.dtype)
        return shlo.divide(sums, broadcast(d, dims_of(sums)))
    return lower


for _n in (1, 2, 3):
    translates(f"aten.avg_pool{_n}d.default")(_avg_pool(_n))


def _contract_spatial(x: Tensor, matrices: list[np.ndarray]) -> Tensor:
    """x with each of its last len(matrices) dimensions contracted with a (new size, old size) matrix."""
    ax = x.ndim - len(matrices)  # the next spatial dimension is always here: each contraction moves one to the end
    for m in matrices:
        x = dot(x, constant(m, x.dtype), [ax], [1])
    return x


def _adaptive_matrix(size: int, out: int) -> np.ndarray:
    """Averaging weights of adaptive pooling: window o covers [floor(o*size/out), ceil((o+1)*size/out))."""
    m = np.zeros([out, size])
    for o in range(out):
        start, end = (o * size) // out, -(-((o + 1) * size) // out)
        m[o, start:end] = 1.0 / (end - start)
    return m


def _adaptive_avg_pool(n: int):
    """adaptive_avg_pool{n}d: an average pool where the windows tile the input evenly, else contractions with
    averaging matrices."""
    def lower(cx, x, output_size, *_):
        x = convert(x, cx.out_dtype)
        sizes, out = list(x.shape[-n:]), list(cx.out.shape[-n:])
        if out == [1] * n:  # global pooling: a mean (also where IREE has no dynamic-shape reduce_window)
            return mean(x, list(range(x.ndim - n, x.ndim)), keepdim=True)
        if all(s % o == 0 for s, o in zip(sizes, out)):
            kernel = [s // o for s, o in zip(sizes, out)]
            sums = _window(x, n, "sum", kernel, kernel, 0, 1, out)
            return shlo.divide(sums, broadcast(scalar(float(np.prod(kernel)), sums.dtype), dims_of(sums)))
        return _contract_spatial(x, [_adaptive_matrix(s, o) for s, o in zip(sizes, out)])
    return lower


for _n in (1, 2, 3):
    _names = [f"aten.adaptive_avg_pool{_n}d.default"] + ([f"aten._adaptive_avg_pool{_n}d.default"] if _n > 1 else [])
    translates(*_names)(_adaptive_avg_pool(_n))


def _adaptive_max_check(node, args):
    """adaptive max pooling: input sizes divisible by the output sizes, indices unused."""
    n = len(args[1])
    x, out = args[0].meta["val"], node.meta["val"][0]
    if any(int(s) % int(o) for s, o in zip(x.shape[-n:], out.shape[-n:])):
        return "input size not divisible by the output size"
    return _indices_unused(node, args)


def _adaptive_max_pool(n: int):
    """adaptive_max_pool{n}d where the windows tile the input evenly: a max pool."""
    def lower(cx, x, output_size, *_):
        out = list(cx.out[0].shape[-n:])
        kernel = [int(s) // int(o) for s, o in zip(x.shape[-n:], out)]
        return _window(x, n, "max", kernel, kernel, 0, 1, out), None
    return lower


for _n in (1, 2):
    translates(f"aten.adaptive_max_pool{_n}d.default", note="input sizes divisible by the output sizes; values only",
               check=_adaptive_max_check)(_adaptive_max_pool(_n))


# Upsampling -------------------------------------------------------------------------------------------------------

def _source_scale(size: int, out: int, align_corners: bool, scale) -> float:
    """torch's ratio from output to input coordinates."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    return 1.0 / scale if scale else size / out


def _nearest_matrix(size: int, out: int, scale) -> np.ndarray:
    """One-hot rows picking the nearest input element (torch's "nearest": floor(o * in / out))."""
    ratio = _source_scale(size, out, False, scale)
    m = np.zeros([out, size])
    for o in range(out):
        src = min(int(math.floor(o * ratio)), size - 1)
        m[o, src] = 1.0
    return m


def _linear_matrix(size: int, out: int, align_corners: bool, scale) -> np.ndarray:
    """Linear interpolation weights (torch's bilinear/trilinear/linear modes)."""
    ratio = _source_scale(size, out, align_corners, scale)
    m = np.zeros([out, size])
    for o in range(out):
        src = ratio * o if align_corners else max(ratio * (o + 0.5) - 0.5, 0.0)
        i0 = min(int(math.floor(src)), size - 1)
        i1 = i0 + 1 if i0 < size - 1 else i0
        frac = src - i0
        m[o, i0] += 1.0 - frac
        m[o, i1] += frac
    return m


def _scale_args(rest, n: int) -> list:
    """Per-dimension scale factors from `.vec`'s list or `.default`'s per-dimension floats (None: from sizes)."""
    if len(rest) == 1 and isinstance(rest[0], (list, tuple)):
        return _per_dim(rest[0], n)
    return (list(rest[:n]) + [None] * n)[:n]


def _upsample(n: int, mode: str):
    """upsample_{mode}{n}d: .vec (output_size or scale_factors) and .default (sizes, per-dimension scales)."""
    def lower(cx, x, output_size, *rest):
        x = convert(x, cx.out_dtype)
        out = list(cx.out.shape[-n:])
        if mode == "nearest":
            mats = [_nearest_matrix(s, o, sc) for s, o, sc in zip(x.shape[-n:], out, _scale_args(rest, n))]
        else:
            align_corners, scales = rest[0], _scale_args(rest[1:], n)
            mats = [_linear_matrix(s, o, align_corners, sc) for s, o, sc in zip(x.shape[-n:], out, scales)]
        return _contract_spatial(x, mats)
    return lower


for _n, _mode, _names in ((1, "nearest", ("aten.upsample_nearest1d.vec", "aten.upsample_nearest1d.default")),
                          (2, "nearest", ("aten.upsample_nearest2d.vec", "aten.upsample_nearest2d.default")),
                          (3, "nearest", ("aten.upsample_nearest3d.vec", "aten.upsample_nearest3d.default")),
                          (1, "linear", ("aten.upsample_linear1d.vec", "aten.upsample_linear1d.default")),
                          (2, "linear", ("aten.upsample_bilinear2d.vec", "aten.upsample_bilinear2d.default")),
                          (3, "linear", ("aten.upsample_trilinear3d.vec", "aten.upsample_trilinear3d.default"))):
    translates(*_names)(_upsample(_n, _mode))
