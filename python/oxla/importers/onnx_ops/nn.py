"""Neural-network ONNX operators: convolutions, pooling, normalizations, softmax.

Tensors are channels-first (N, C, spatial...), as ONNX lays them out.
Padding that depends on sizes (auto_pad SAME_*, ceil_mode) needs static
spatial sizes; the batch dimension may be dynamic.
"""

from __future__ import annotations

import itertools

import numpy as np

from oxla.builder.tensor import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import types as T
from oxla.importers.onnx_ops.core import (
    Node, OnnxImportError, add, axis_index, compare, constant, convert, dim, dims, div, lowest, mean, mul,
    operator, reduce, reshape, scalar, select, slice_, sub, sum_)


def _spatial(x: Tensor, node: Node) -> list[int]:
    """The static spatial sizes of a channels-first tensor (an error naming the node when one is dynamic)."""
    sizes = list(x.shape[2:])
    if None in sizes:
        node.fail(f"needs static spatial sizes for its padding, got {['?' if s is None else s for s in sizes]}")
    return sizes


def pads(node: Node, x: Tensor, kernel: list[int], strides: list[int], dilations: list[int]) -> list[list[int]]:
    """[low, high] padding per spatial dimension from `pads` or `auto_pad` (SAME_UPPER, SAME_LOWER, VALID)."""
    rank = len(kernel)
    auto = node.attr("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        p = node.attr("pads", [0] * (2 * rank))
        return [[p[i], p[i + rank]] for i in range(rank)]
    if auto == "VALID":
        return [[0, 0] for _ in range(rank)]
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        node.fail(f"unknown auto_pad {auto!r}")
    result = []
    for size, k, s, d in zip(_spatial(x, node), kernel, strides, dilations):
        total = max((-(-size // s) - 1) * s + (k - 1) * d + 1 - size, 0)
        small, large = total // 2, total - total // 2
        result.append([small, large] if auto == "SAME_UPPER" else [large, small])
    return result


def _window(node: Node, rank: int, kernel_name: str = "kernel_shape"):
    """(kernel, strides, dilations) attributes of a window operator with `rank` spatial dimensions."""
    kernel = node.attr(kernel_name)
    return (kernel, node.attr("strides", [1] * rank), node.attr("dilations", [1] * rank))


def _conv_numbers(rank: int) -> shlo.ConvDimensionNumbers:
    """NC[spatial] input and output, OI[spatial] kernel."""
    spatial = list(range(2, rank + 2))
    return shlo.ConvDimensionNumbers(0, 1, spatial, 1, 0, spatial, 0, 1, spatial)


def _channel(t: Tensor, rank: int) -> Tensor:
    """A per-channel vector [C] shaped [C, 1, ...] to broadcast against an (N, C, spatial...) tensor."""
    return reshape(t, [dim(t, 0)] + [1] * (rank - 2))


def _bias(node: Node, y: Tensor, index: int) -> Tensor:
    """y plus the optional per-channel bias input `index`."""
    return add(y, _channel(node.input(index), y.ndim)) if node.has(index) else y


@operator("Conv", note="1-D/2-D/3-D, group, dilations, pads and auto_pad")
def conv(n: Node) -> Tensor:
    """Convolution over channels-first input."""
    x, w = n.input(0), n.input(1)
    rank = x.ndim - 2
    kernel, strides, dilations = n.attr("kernel_shape", list(w.shape[2:])), n.attr("strides", [1] * rank), \
        n.attr("dilations", [1] * rank)
    options = dict(window_strides=strides, padding=pads(n, x, kernel, strides, dilations), rhs_dilation=dilations,
                   dimension_numbers=_conv_numbers(rank))
    return _bias(n, grouped_convolution(x, w, n.attr("group", 1), **options), 2)


def grouped_convolution(x: Tensor, w: Tensor, group: int, **options) -> Tensor:
    """A convolution with `group` feature groups; with dynamic sizes (which IREE's grouped convolution cannot
    take) one convolution per group, joined along the channels."""
    if group == 1 or None not in x.shape:
        return Tensor(shlo.convolution(x, w, feature_group_count=group, **options))
    c_in, c_out = x.shape[1] // group, w.shape[0] // group
    parts = [Tensor(shlo.convolution(slice_channels(x, g * c_in, c_in), slice_channels(w, g * c_out, c_out, 0),
                                     **options)) for g in range(group)]
    return Tensor(shlo.concatenate(parts, dimension=1))


def slice_channels(t: Tensor, start: int, count: int, axis: int = 1) -> Tensor:
    """`count` channels of `t` from `start` along `axis` (other sizes whole, dynamic ones too)."""
    starts, limits = [0] * t.ndim, list(t.shape)
    starts[axis], limits[axis] = start, start + count
    return slice_(t, starts, limits)


@operator("ConvTranspose", note="group, dilations, pads, output_padding, output_shape and auto_pad")
def conv_transpose(n: Node) -> Tensor:
    """Transposed convolution: the input dilated by the strides, convolved with the flipped kernel."""
    x, w = n.input(0), n.input(1)
    rank, group = x.ndim - 2, n.attr("group", 1)
    kernel = n.attr("kernel_shape", list(w.shape[2:]))
    strides, dilations = n.attr("strides", [1] * rank), n.attr("dilations", [1] * rank)
    low_high = _transposed_pads(n, x, kernel, strides, dilations)
    padding = [[(k - 1) * d - lo, (k - 1) * d - hi] for (lo, hi), k, d in zip(low_high, kernel, dilations)]
    c_in, c_out = w.shape[0], w.shape[1]
    # [C_in, C_out/g, k...] -> [g, C_in/g, C_out/g, k...] -> [g, C_out/g, C_in/g, k...] -> [C_out, C_in/g, k...]
    w = reshape(w, [group, c_in // group, c_out] + list(w.shape[2:]))
    w = Tensor(shlo.transpose(w, permutation=[0, 2, 1] + list(range(3, rank + 3))))
    w = reshape(w, [group * c_out, c_in // group] + list(kernel))
    w = Tensor(shlo.reverse(w, dimensions=list(range(2, rank + 2))))
    y = grouped_convolution(x, w, group, window_strides=[1] * rank, padding=padding, lhs_dilation=strides,
                            rhs_dilation=dilations, dimension_numbers=_conv_numbers(rank))
    return _bias(n, y, 2)


def _transposed_pads(n: Node, x: Tensor, kernel, strides, dilations) -> list[list[int]]:
    """The [begin, end] cropping of a transposed convolution (negative: extra output, from output_padding)."""
    rank = len(kernel)
    extra = n.attr("output_padding", [0] * rank)
    output_shape = n.attr("output_shape")
    auto = n.attr("auto_pad", "NOTSET")
    if output_shape is None and auto in ("NOTSET", "", "VALID"):
        p = n.attr("pads", [0] * (2 * rank)) if auto != "VALID" else [0] * (2 * rank)
        return [[p[i], p[i + rank] - extra[i]] for i in range(rank)]
    sizes = _spatial(x, n)
    if output_shape is None:
        output_shape = [size * s for size, s in zip(sizes, strides)]
    output_shape = list(output_shape)[-rank:]
    result = []
    for size, k, s, d, e, out in zip(sizes, kernel, strides, dilations, extra, output_shape):
        total = s * (size - 1) + e + (k - 1) * d + 1 - out
        half = total // 2  # SAME_UPPER crops less at the start; SAME_LOWER and NOTSET crop less at the end
        result.append([half, total - half] if auto == "SAME_UPPER" else [total - half, half])
    return result


# Pooling ---------------------------------------------------------------------------------------------------------

def _pool_padding(n: Node, x: Tensor, kernel, strides, dilations) -> list[list[int]]:
    """Spatial [low, high] padding, with the extra high padding ceil_mode asks for."""
    padding = pads(n, x, kernel, strides, dilations)
    if not n.attr("ceil_mode", 0):
        return padding
    for i, (size, k, s, d) in enumerate(zip(_spatial(x, n), kernel, strides, dilations)):
        lo, hi = padding[i]
        span = (k - 1) * d + 1
        out = -(-(size + lo + hi - span) // s) + 1
        if (out - 1) * s >= size + lo:  # the last window must start inside the input or the low padding
            out -= 1
        padding[i] = [lo, max(hi, (out - 1) * s + span - size - lo)]
    return padding


def _reduce_window(x: Tensor, kernel, strides, dilations, padding, combine, init) -> Tensor:
    """reduce_window over the spatial dimensions of a channels-first tensor.

    With a dynamic batch or channel size (which IREE's reduce_window cannot
    take), the padded input's strided slices, one per window tap, are
    combined element-wise instead.
    """
    if None in x.shape:
        return _combine_taps(x, kernel, strides, dilations, padding, combine, init)
    return Tensor(shlo.reduce_window(
        x, scalar(init, x), window_dimensions=[1, 1] + list(kernel), window_strides=[1, 1] + list(strides),
        window_dilations=[1, 1] + list(dilations), padding=[[0, 0], [0, 0]] + padding, body=combine))


def _combine_taps(x: Tensor, kernel, strides, dilations, padding, combine, init) -> Tensor:
    """A window reduction as the element-wise combination of one strided slice per window tap."""
    padded = Tensor(shlo.pad(x, scalar(init, x), edge_padding_low=[0, 0] + [lo for lo, _ in padding],
                             edge_padding_high=[0, 0] + [hi for _, hi in padding]))
    sizes = padded.shape[2:]
    if None in sizes:
        raise OnnxImportError("pooling needs static spatial sizes")
    outs = [(size - (k - 1) * d - 1) // s + 1 for size, k, d, s in zip(sizes, kernel, dilations, strides)]
    result = None
    for taps in itertools.product(*[range(k) for k in kernel]):
        starts = [t * d for t, d in zip(taps, dilations)]
        limits = [a + (o - 1) * s + 1 for a, o, s in zip(starts, outs, strides)]
        part = slice_(padded, [0, 0] + starts, [padded.shape[0], padded.shape[1]] + limits, [1, 1] + list(strides))
        result = part if result is None else Tensor(combine(result, part))
    return result


def _unsupported_max_pool(node) -> str | None:
    """MaxPool's Indices output is not translated."""
    return "Indices output" if len(node.output) > 1 and node.output[1] else None


@operator("MaxPool", note="pads, auto_pad, dilations, ceil_mode; not the Indices output",
          unsupported=_unsupported_max_pool)
def max_pool(n: Node) -> Tensor:
    """Maximum over windows (padding never wins)."""
    x = n.input(0)
    kernel, strides, dilations = _window(n, x.ndim - 2)
    padding = _pool_padding(n, x, kernel, strides, dilations)
    return _reduce_window(x, kernel, strides, dilations, padding, shlo.maximum, lowest(x))


@operator("AveragePool", note="pads, auto_pad, dilations, ceil_mode, count_include_pad")
def average_pool(n: Node) -> Tensor:
    """Mean over windows; padding counts only with count_include_pad (never ceil_mode's extra padding)."""
    x = n.input(0)
    kernel, strides, dilations = _window(n, x.ndim - 2)
    explicit = pads(n, x, kernel, strides, dilations)
    padding = _pool_padding(n, x, kernel, strides, dilations)
    total = _reduce_window(x, kernel, strides, dilations, padding, shlo.add, 0)
    include = bool(n.attr("count_include_pad", 0))
    counts = np.ones((), np.float64)
    for size, k, s, d, (lo, _), (elo, ehi), out in zip(_spatial(x, n), kernel, strides, dilations, padding,
                                                        explicit, total.shape[2:]):
        low, high = (-elo, size + ehi) if include else (0, size)
        starts = np.arange(out) * s - lo
        taps = starts[:, None] + np.arange(k)[None, :] * d
        counts = np.multiply.outer(counts, ((taps >= low) & (taps < high)).sum(axis=1))
    divisor = constant(counts.astype(T.to_numpy_dtype(x.element_type)))
    return div(total, divisor)


def _global(x: Tensor, combine) -> Tensor:
    """A reduction over every spatial dimension, kept as size 1."""
    return combine(x, list(range(2, x.ndim)))


@operator("GlobalAveragePool")
def global_average_pool(n: Node) -> Tensor:
    """Mean over the spatial dimensions."""
    return _global(n.input(0), lambda x, axes: mean(x, axes, keepdims=True))


@operator("GlobalMaxPool")
def global_max_pool(n: Node) -> Tensor:
    """Maximum over the spatial dimensions."""
    return _global(n.input(0), lambda x, axes: reduce(x, axes, shlo.maximum, lowest(x), keepdims=True))


# Normalization ---------------------------------------------------------------------------------------------------

def _unsupported_batch_norm(node) -> str | None:
    """Training-mode batch normalization is not translated."""
    for a in node.attribute:
        if a.name == "training_mode" and a.i:
            return "training_mode=1"
    return None


@operator("BatchNormalization", note="inference mode", unsupported=_unsupported_batch_norm)
def batch_norm(n: Node) -> Tensor:
    """(x - mean) / sqrt(var + epsilon) * scale + bias, per channel."""
    x = n.input(0)
    scale, bias, mu, var = (_channel(n.input(i), x.ndim) for i in range(1, 5))
    factor = mul(scale, Tensor(shlo.rsqrt(add(var, n.attr("epsilon", 1e-5)))))
    return add(mul(sub(x, mu), factor), bias)


def _stash(x: Tensor, stash_type: int) -> Tensor:
    """x in the type statistics are computed in: f32 for half types when stash_type is 1."""
    return convert(x, "f32") if stash_type == 1 and str(x.element_type) in ("f16", "bf16") else x


def normalize(x: Tensor, axes, epsilon: float) -> tuple[Tensor, Tensor, Tensor]:
    """(x - mean) / sqrt(var + epsilon) over `axes`, with the mean and 1/sqrt(var + epsilon) (axes kept)."""
    mu = mean(x, axes, keepdims=True)
    centered = sub(x, mu)
    inv_std = Tensor(shlo.rsqrt(add(mean(mul(centered, centered), axes, keepdims=True), epsilon)))
    return mul(centered, inv_std), mu, inv_std


@operator("LayerNormalization", note="any axis; Mean and InvStdDev outputs; stash_type")
def layer_norm(n: Node) -> list:
    """Normalization over the axes from `axis` on, then scale and bias."""
    x0 = n.input(0)
    x = _stash(x0, n.attr("stash_type", 1))
    axes = list(range(axis_index(n.attr("axis", -1), x.ndim, n), x.ndim))
    y, mu, inv_std = normalize(x, axes, n.attr("epsilon", 1e-5))
    y = mul(convert(y, x0.element_type), n.input(1))
    if n.has(2):
        y = add(y, n.input(2))
    return [y, mu, inv_std][:n.num_outputs]


@operator("InstanceNormalization")
def instance_norm(n: Node) -> Tensor:
    """Normalization over the spatial dimensions of each sample and channel, then per-channel scale and bias."""
    x = n.input(0)
    y, _, _ = normalize(x, list(range(2, x.ndim)), n.attr("epsilon", 1e-5))
    return add(mul(y, _channel(n.input(1), x.ndim)), _channel(n.input(2), x.ndim))


@operator("GroupNormalization", note="scale and bias per group (opsets 18-20) or per channel (opset 21)")
def group_norm(n: Node) -> Tensor:
    """Normalization over groups of channels (and the spatial dimensions), then scale and bias."""
    x0 = n.input(0)
    x = _stash(x0, n.attr("stash_type", 1))
    groups, channels = n.attr("num_groups"), x.shape[1]
    if channels is None or channels % groups:
        n.fail(f"needs a static channel count divisible by num_groups={groups}, got {channels}")
    grouped = reshape(x, [dim(x, 0), groups, channels // groups] + [dim(x, a) for a in range(2, x.ndim)])
    y, _, _ = normalize(grouped, list(range(2, grouped.ndim)), n.attr("epsilon", 1e-5))
    scale, bias = n.input(1), n.input(2)
    if n.opset < 21:  # opsets 18 to 20: one scale and bias per group
        shape = [groups] + [1] * (grouped.ndim - 2)
        y = add(mul(y, reshape(scale, shape)), reshape(bias, shape))
        return convert(reshape(y, dims(x)), x0.element_type)
    y = convert(reshape(y, dims(x)), x0.element_type)
    return add(mul(y, _channel(scale, x.ndim)), _channel(bias, x.ndim))


@operator("RMSNormalization", note="any axis; stash_type")
def rms_norm(n: Node) -> Tensor:
    """x / sqrt(mean(x^2) + epsilon) over the axes from `axis` on, times scale."""
    x0 = n.input(0)
    x = _stash(x0, n.attr("stash_type", 1))
    axes = list(range(axis_index(n.attr("axis", -1), x.ndim, n), x.ndim))
    inv = Tensor(shlo.rsqrt(add(mean(mul(x, x), axes, keepdims=True), n.attr("epsilon", 1e-5))))
    return mul(convert(mul(x, inv), x0.element_type), n.input(1))


@operator("MeanVarianceNormalization")
def mean_variance_norm(n: Node) -> Tensor:
    """(x - mean) / (sqrt(variance) + 1e-9) over `axes` (default: all but the channels)."""
    x = n.input(0)
    axes = [axis_index(a, x.ndim, n) for a in n.attr("axes", [0, 2, 3])]
    mu = mean(x, axes, keepdims=True)
    variance = sub(mean(mul(x, x), axes, keepdims=True), mul(mu, mu))
    return div(sub(x, mu), add(Tensor(shlo.sqrt(variance)), 1e-9))


@operator("LpNormalization", note="p = 1 or 2")
def lp_norm(n: Node) -> Tensor:
    """x / ||x||_p along `axis` (0 where the norm is 0)."""
    x = n.input(0)
    axis = axis_index(n.attr("axis", -1), x.ndim, n)
    p = n.attr("p", 2)
    if p not in (1, 2):
        n.fail(f"p={p} is not supported (1 or 2)")
    norm = sum_(Tensor(shlo.abs(x)), [axis], keepdims=True) if p == 1 else \
        Tensor(shlo.sqrt(sum_(mul(x, x), [axis], keepdims=True)))
    return select(compare(norm, 0, "EQ"), 0, div(x, norm))


# Softmax ---------------------------------------------------------------------------------------------------------

def _softmax_parts(n: Node) -> tuple[Tensor, Tensor, int]:
    """(x - max(x), sum(exp(x - max(x))), axis) along the node's axis, both kept at x's rank."""
    x = n.input(0)
    axis = axis_index(n.attr("axis", -1), x.ndim, n)
    shifted = sub(x, reduce(x, [axis], shlo.maximum, lowest(x), keepdims=True))
    return shifted, sum_(Tensor(shlo.exponential(shifted)), [axis], keepdims=True), axis


@operator("Softmax", note="opset 13 semantics (one axis)")
def softmax(n: Node) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis`, computed stably."""
    shifted, total, _ = _softmax_parts(n)
    return div(Tensor(shlo.exponential(shifted)), total)


@operator("LogSoftmax", note="opset 13 semantics (one axis)")
def log_softmax(n: Node) -> Tensor:
    """x - max(x) - log(sum(exp(x - max(x)))) along `axis`."""
    shifted, total, _ = _softmax_parts(n)
    return sub(shifted, Tensor(shlo.log(total)))
