"""Convolutions IREE's CPU code runs slowly, rewritten into forms it runs well.

oxla-llvmcpu-phase-convolutions: input-dilated convolutions as one convolution per output phase.

A transposed convolution (lax.conv_transpose, a decoder's upsampling, the
gradient of a strided convolution with respect to its input) is a
stablehlo.convolution whose `lhs_dilation` s puts s - 1 zeros between input
elements. IREE builds the dilated input and multiplies every zero: a 3x3
transposed convolution of stride 2 does four times the work it needs (f32
[1,28,28,128] to 64 features on an AVX2 Zen 3: 6.7 ms, XLA 2.2 ms).

Along a dilated dimension the outputs u = s*v + r of one phase r only ever
meet the kernel taps k = k0 + s*m with k0 = (low - r) mod s, and those taps
meet input v + m + c with c = (r + k0 - low) / s. So each phase is an
ordinary convolution of the undilated input with every s-th tap of the
kernel (a strided slice), padded or cropped by c; the phases' outputs are
then interleaved (a concatenate and a reshape per dimension); a phase with
a 2x1 or 1x2 kernel then goes to oxla-llvmcpu-unfold-strip-convolutions
(IREE's own code for it is slow; it runs before that pass). Every product
the original computes with a non-zero input is computed once, in the same
order of taps, so the sums are the same but for the zero terms left out.

oxla-llvmcpu-split-grouped-convolutions: a grouped convolution
(feature_group_count G > 1: ResNeXt's and RegNet's 3x3s) as G ordinary ones,
one per group, concatenated along the output features. IREE turns a grouped
convolution into a linalg.generic it does not vectorize, and runs it one
element at a time: 3x3 over f32[1,28,28,256] to 256 features on an AVX2
Zen 3, 4 groups of 64 channels: 84 ms (XLA 22 ms); 16 groups of 16: 29 ms
(XLA 5.1). Per group (its slice of the input's and the kernel's features):
5.0 ms and 1.2 ms. Each group is a dispatch of its own, compiled apart: 16
groups took 6.4 s to compile instead of 1.0, so the pass takes at most
MAX_SPLIT_GROUPS groups; depthwise convolutions (one channel per group,
which IREE vectorizes) and groups under MIN_GROUP_CHANNELS channels stay
IREE's. The products and their order of taps and channels are the group's
own, so the results are the same.

oxla-llvmcpu-unfold-strip-convolutions: NHWC convolutions whose kernel is
one tap wide along one spatial dimension and longer along the other (7x1,
1x7, 3x1) as one matmul over the input's taps side by side. IREE's code for
them is slow, for a kernel one tap wide along the width most of all
(f32[1,17,17,192] to 192 features, 7x1: 65 ms, 1x7: 8 ms, XLA 2.7-2.8 ms;
28x28x64, 3x1: 4.5-9 ms, XLA 0.6-0.8 ms on an AVX2 Zen 3). The taps along
the long dimension are strided slices of the padded input, concatenated
along the features ([N, OH, OW, K*C]); the kernel reshaped to [K*C, F]
multiplies them. It runs after oxla-llvmcpu-matmul-kernel, which takes the
convolutions with constant kernels and enough channels itself.
"""

from __future__ import annotations

import math

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.stablehlo import ConvolutionOp
from oxla.transforms.registry import RewritePass, register_pass

# The dimension numbers the unfolding takes: input [b, 0, 1, f], kernel [0, 1, i, o], output [b, 0, 1, f].
_NHWC_HWIO = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"


def _spatial(conv) -> tuple[list[int], list[int], list[int]]:
    """The spatial dimensions of the input, the kernel and the output."""
    numbers = conv.dimension_numbers
    return (list(numbers.input_spatial_dimensions), list(numbers.kernel_spatial_dimensions),
            list(numbers.output_spatial_dimensions))


def phased(op) -> bool:
    """Whether the pass rewrites `op`: a convolution with input dilation, static shapes, no stride, window
    dilation, reversal or grouping, over float or integer elements."""
    if op.name != "stablehlo.convolution":
        return False
    conv = ConvolutionOp(op)
    rank = len(_spatial(conv)[0])
    values = [conv.lhs, conv.rhs, op.results[0]]
    if not all(ir.RankedTensorType(v.type).has_static_shape for v in values):
        return False
    element = build.element(op.results[0])
    return (any(d > 1 for d in conv.lhs_dilation or [1] * rank)
            and all(d == 1 for d in (conv.window_strides or [1] * rank) + (conv.rhs_dilation or [1] * rank))
            and not any(conv.window_reversal or ()) and conv.feature_group_count == 1
            and conv.batch_group_count == 1 and isinstance(element, (ir.FloatType, ir.IntegerType)))


def _phase(tap_count: int, low: int, dilation: int, outputs: int, phase: int):
    """(first tap, taps, input offset c, outputs) of one output phase along one dimension."""
    first = (low - phase) % dilation
    taps = len(range(first, tap_count, dilation))
    return first, taps, (phase + first - low) // dilation, len(range(phase, outputs, dilation))


def _phase_convolution(op, phases: list[int]):
    """The outputs of `op` at positions s*v + phase along each spatial dimension (v = 0, 1, ...), and their
    shape; None for the value where no tap meets an input."""
    conv = ConvolutionOp(op)
    x_dims, k_dims, y_dims = _spatial(conv)
    x_shape, k_shape, y_shape = build.shape(conv.lhs), build.shape(conv.rhs), build.shape(op.results[0])
    padding = conv.padding or [[0, 0]] * len(x_dims)
    starts, limits, strides = [0] * len(k_shape), list(k_shape), [1] * len(k_shape)
    crop = [(0, 0)] * len(x_shape)
    pads, out_shape = [], list(y_shape)
    for j, phase in enumerate(phases):
        s = conv.lhs_dilation[j]
        first, taps, offset, outputs = _phase(k_shape[k_dims[j]], padding[j][0], s, y_shape[y_dims[j]], phase)
        out_shape[y_dims[j]] = outputs
        if taps == 0 or outputs == 0:
            return None, out_shape
        starts[k_dims[j]], strides[k_dims[j]] = first, s
        low, high = -offset, (outputs - 1) + (taps - 1) + offset - (x_shape[x_dims[j]] - 1)
        crop[x_dims[j]] = (min(low, 0), min(high, 0))
        pads.append([max(low, 0), max(high, 0)])
    kernel = build.strided_slice(conv.rhs, starts, limits, strides)
    source = _padded(conv.lhs, crop)
    attributes = build.attributes(op)
    attributes["lhs_dilation"] = build.i64_array([1] * len(x_dims))
    attributes["padding"] = ir.Attribute.parse(f"dense<{pads}> : tensor<{len(pads)}x2xi64>")
    return build.one(op.name, build.tensor(out_shape, build.element(op.results[0])), source, kernel,
                     **attributes), out_shape


def _padded(value, padding: list[tuple[int, int]]):
    """`value` with zeros added (or elements cropped, for negative amounts); itself when nothing changes."""
    if all(p == (0, 0) for p in padding):
        return value
    return build.pad(value, build.splat(0, build.tensor([], build.element(value))), padding)


def _interleaved(parts: list, dim: int, size: int):
    """Outputs of the phases 0..s-1 along `dim` (each [.., V_r, ..]) interleaved into [.., size, ..]."""
    if len(parts) == 1:
        return parts[0]
    rows = math.ceil(size / len(parts))
    stacked = []
    for part in parts:
        dims = build.shape(part)
        padded = _padded(part, [(0, rows - n) if d == dim else (0, 0) for d, n in enumerate(dims)])
        dims[dim] = rows
        stacked.append(build.reshape(padded, dims[:dim + 1] + [1] + dims[dim + 1:]))
    dims = build.shape(stacked[0])
    dims[dim + 1] = len(parts)
    joined = build.one("stablehlo.concatenate", build.tensor(dims, build.element(stacked[0])), *stacked,
                       dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim + 1))
    whole = build.reshape(joined, dims[:dim] + [rows * len(parts)] + dims[dim + 2:])
    return build.slice_to(whole, [size if d == dim else n for d, n in enumerate(build.shape(whole))])


def _split(op):
    """`op` as the interleaved outputs of its phase convolutions."""
    conv = ConvolutionOp(op)
    y_dims = _spatial(conv)[2]
    y_shape = build.shape(op.results[0])

    def assemble(phases: list[int]):
        j = len(phases)
        if j == len(y_dims):
            value, dims = _phase_convolution(op, phases)
            return value if value is not None else build.splat(0, build.tensor(dims, build.element(op.results[0])))
        parts = [assemble(phases + [r]) for r in range(conv.lhs_dilation[j])]
        return _interleaved(parts, y_dims[j], y_shape[y_dims[j]])

    return assemble([])


@register_pass
class PhaseConvolutions(RewritePass):
    """Runs input-dilated (transposed) convolutions as one convolution per output phase, without the zeros."""

    name = "oxla-llvmcpu-phase-convolutions"
    anchor = "builtin.module"
    roots = ("stablehlo.convolution",)

    def matches(self, op) -> bool:
        return phased(op)

    def rewrite(self, op) -> None:
        """Replaces the convolution by its phases, interleaved (module docstring)."""
        build.replace(op, _split)


# Most groups the split takes: each is a dispatch LLVM compiles apart (0.3-0.4 s each; 32 groups of 8
# channels ran in 2.3 ms instead of 14-28, XLA 4-5 ms, but compiled in 12.9 s).
MAX_SPLIT_GROUPS = 16
# Fewest input channels per group the split takes (a depthwise convolution has one, which IREE runs well).
MIN_GROUP_CHANNELS = 8


def grouped(op) -> bool:
    """Whether the split takes `op`: a convolution of static float shapes with 2..MAX_SPLIT_GROUPS feature
    groups of MIN_GROUP_CHANNELS input channels or more, and no batch groups."""
    if op.name != "stablehlo.convolution":
        return False
    conv = ConvolutionOp(op)
    if not all(ir.RankedTensorType(v.type).has_static_shape for v in (conv.lhs, conv.rhs, op.results[0])):
        return False
    groups = conv.feature_group_count
    channels = build.shape(conv.lhs)[conv.dimension_numbers.input_feature_dimension]
    return (1 < groups <= MAX_SPLIT_GROUPS and conv.batch_group_count == 1 and channels // groups >= MIN_GROUP_CHANNELS
            and isinstance(build.element(op.results[0]), ir.FloatType))


def _feature_slice(value, dim: int, group: int, size: int):
    """The `group`-th block of `size` elements of `value` along `dim`."""
    dims = build.shape(value)
    starts = [group * size if d == dim else 0 for d in range(len(dims))]
    limits = [start + size if d == dim else n for d, (start, n) in enumerate(zip(starts, dims))]
    return build.strided_slice(value, starts, limits, [1] * len(dims))


def _per_group(op):
    """`op` as one convolution per feature group, their outputs concatenated along the output features."""
    conv = ConvolutionOp(op)
    numbers = conv.dimension_numbers
    groups = conv.feature_group_count
    channels = build.shape(conv.lhs)[numbers.input_feature_dimension] // groups
    features = build.shape(conv.rhs)[numbers.kernel_output_feature_dimension] // groups
    out_dims = build.shape(op.results[0])
    out_dims[numbers.output_feature_dimension] = features
    attributes = build.attributes(op)
    attributes["feature_group_count"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)
    parts = [build.one(op.name, build.tensor(out_dims, build.element(op.results[0])),
                       _feature_slice(conv.lhs, numbers.input_feature_dimension, g, channels),
                       _feature_slice(conv.rhs, numbers.kernel_output_feature_dimension, g, features), **attributes)
             for g in range(groups)]
    return build.one("stablehlo.concatenate", op.results[0].type, *parts,
                     dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), numbers.output_feature_dimension))


@register_pass
class SplitGroupedConvolutions(RewritePass):
    """Runs grouped convolutions as one ordinary convolution per group, which IREE vectorizes (it does not the grouped one)."""

    name = "oxla-llvmcpu-split-grouped-convolutions"
    anchor = "builtin.module"
    roots = ("stablehlo.convolution",)

    def matches(self, op) -> bool:
        return grouped(op)

    def rewrite(self, op) -> None:
        """Replaces the convolution by its groups' (module docstring)."""
        build.replace(op, _per_group)


def strip(op) -> int | None:
    """The spatial dimension (0: height, 1: width) along which `op`'s kernel is longer than one tap when it
    is one tap along the other: an NHWC/HWIO convolution with static shapes and no dilation, reversal or
    grouping; None for any other op."""
    if op.name != "stablehlo.convolution" or _NHWC_HWIO not in str(op.attributes["dimension_numbers"]):
        return None
    conv = ConvolutionOp(op)
    if not all(ir.RankedTensorType(v.type).has_static_shape for v in (conv.lhs, conv.rhs, op.results[0])):
        return None
    if any(d != 1 for d in (conv.lhs_dilation or [1, 1]) + (conv.rhs_dilation or [1, 1])) or any(
            conv.window_reversal or ()) or conv.feature_group_count != 1 or conv.batch_group_count != 1:
        return None
    taps = build.shape(conv.rhs)[:2]
    if sorted(taps)[0] != 1 or max(taps) == 1:
        return None
    return taps.index(max(taps))


def _unfolded(op):
    """`op` as the matmul of its input's taps, side by side along the features, with its kernel."""
    conv = ConvolutionOp(op)
    long = strip(op)
    x, kernel = conv.lhs, conv.rhs
    batch, _, _, channels = build.shape(x)
    taps, features = build.shape(kernel)[long], build.shape(kernel)[3]
    out = build.shape(op.results[0])
    strides = list(conv.window_strides or [1, 1])
    padding = conv.padding or [[0, 0], [0, 0]]
    padded = _padded(x, [(0, 0), *[tuple(p) for p in padding], (0, 0)])
    pieces = []
    for tap in range(taps):
        starts = [0, tap if long == 0 else 0, tap if long == 1 else 0, 0]
        limits = [batch] + [starts[1 + d] + (out[1 + d] - 1) * strides[d] + 1 for d in range(2)] + [channels]
        pieces.append(build.strided_slice(padded, starts, limits, [1, *strides, 1]))
    side_by_side = build.one("stablehlo.concatenate", build.tensor(out[:3] + [taps * channels], build.element(x)),
                             *pieces, dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 3))
    matrix = build.reshape(kernel, [taps * channels, features])
    numbers = "#stablehlo.dot<lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [0]>"
    extra = {"precision_config": op.attributes["precision_config"]} if "precision_config" in op.attributes else {}
    return build.one("stablehlo.dot_general", op.results[0].type, side_by_side, matrix,
                     dot_dimension_numbers=numbers, **extra)


@register_pass
class UnfoldStripConvolutions(RewritePass):
    """Runs NHWC convolutions with 7x1, 1x7-like kernels as a matmul over the input's taps side by side."""

    name = "oxla-llvmcpu-unfold-strip-convolutions"
    anchor = "builtin.module"
    roots = ("stablehlo.convolution",)

    def matches(self, op) -> bool:
        return strip(op) is not None

    def rewrite(self, op) -> None:
        """Replaces the convolution by the matmul (module docstring)."""
        build.replace(op, _unfolded)
