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

oxla-llvmcpu-grouped-convolution-taps: the grouped convolutions the split
leaves (more than MAX_SPLIT_GROUPS groups, or groups of 2 to 7 channels:
ResNeXt 32x4d's and 32x8d's) as a sum over the kernel's taps. For each tap,
the strided window of the padded input it meets, as [N, spatial..., G, C],
times the tap's kernel [G, C, O], summed over C: a reduction IREE
vectorizes along O, one dispatch per tap plus one that adds them. 3x3 over
f32[1,28,28,256] in 32 groups of 8 on an AVX2 Zen 3: 16-25 ms -> 1.1-1.4
ms (XLA 4.0-4.5 ms); f32[1,56,56,128] in 32 groups of 4: 21 -> 3.3 ms (XLA
14-15 ms); f32[1,7,7,1024] in 32 groups of 32: 15 -> 1.7 ms (XLA 1.3 ms).
Each tap's dispatch compiles apart (a 3x3 kernel: 2-4 s instead of 1-1.6
s), so kernels of more than MAX_GROUP_TAPS taps stay IREE's. bf16 and f16
sum in f32 and round once.

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

oxla-llvmcpu-widen-1d-convolutions: convolutions over one spatial dimension
(a 1-D convolution: audio, text, a temporal block) as 2-D ones over a unit
height. IREE lowers a 1-D convolution to a linalg.generic it does not
vectorize: a kernel of 5 taps over f32[8,1024,128] to 128 features took 89
ms on an AVX-512 Xeon (XLA 9 ms). Its 2-D form, a 1x5 kernel, goes on to
oxla's convolution kernel (oxla/transforms/cpu_kernels.py: 7.7 ms) or,
where that does not take it, the unfolding above. Reshapes add and drop
the unit dimensions, so the products and their order are the same.

oxla-llvmcpu-channels-last-convolutions: convolutions in any other layout
(PyTorch's and ONNX's NCHW with OIHW kernels, NCW) as channels-last ones
([b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]) between transposes. IREE's code
for a channels-first convolution runs far from the vector units: a 3x3 over
f32[1,64,56,56] to 64 features took 110 ms on an AVX-512 Xeon (XLA 1.9 ms),
a 5-tap NCW one over f32[8,128,1024] 618 ms (XLA 9.8). The transposes of a
constant kernel fold while compiling; the input's and the result's are one
copy each, and the channels-last passes above then apply. The products and
their order are the convolution's own.
"""

from __future__ import annotations

import itertools
import math

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.stablehlo import ConvolutionOp
from oxla.transforms.registry import RewritePass, register_pass
from oxla.transforms.simplify.rule import defining

# The dimension numbers the unfolding takes: input [b, 0, 1, f], kernel [0, 1, i, o], output [b, 0, 1, f].
_NHWC_HWIO = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"


def _spatial(conv) -> tuple[list[int], list[int], list[int]]:
    """The spatial dimensions of the input, the kernel and the output."""
    numbers = conv.dimension_numbers
    return (list(numbers.input_spatial_dimensions), list(numbers.kernel_spatial_dimensions),
            list(numbers.output_spatial_dimensions))


def _static(conv: ConvolutionOp) -> bool:
    """Whether a convolution's input, kernel and result all have static shapes."""
    return all(ir.RankedTensorType(v.type).has_static_shape for v in (conv.lhs, conv.rhs, conv.operation.results[0]))


def phased(op) -> bool:
    """Whether the pass rewrites `op`: a convolution with input dilation, static shapes, no stride, window
    dilation, reversal or grouping, over float or integer elements."""
    if op.name != "stablehlo.convolution":
        return False
    conv = ConvolutionOp(op)
    rank = len(_spatial(conv)[0])
    if not _static(conv):
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


def _groups(op) -> tuple[int, int] | None:
    """(feature groups, input channels per group) of a grouped convolution of static float shapes with no
    batch groups; None for any other op."""
    if op.name != "stablehlo.convolution":
        return None
    conv = ConvolutionOp(op)
    if not _static(conv):
        return None
    groups = conv.feature_group_count
    if groups < 2 or conv.batch_group_count != 1 or not isinstance(build.element(op.results[0]), ir.FloatType):
        return None
    return groups, build.shape(conv.lhs)[conv.dimension_numbers.input_feature_dimension] // groups


def grouped(op) -> bool:
    """Whether the split takes `op`: a grouped convolution (`_groups`) of at most MAX_SPLIT_GROUPS groups of
    MIN_GROUP_CHANNELS input channels or more."""
    shape = _groups(op)
    return shape is not None and shape[0] <= MAX_SPLIT_GROUPS and shape[1] >= MIN_GROUP_CHANNELS


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


# Most kernel taps the tap sums take: each tap is a dispatch of its own (a 3x3 kernel: ten dispatches,
# 2-3 s to compile).
MAX_GROUP_TAPS = 9


def tapped(op) -> bool:
    """Whether oxla-llvmcpu-grouped-convolution-taps takes `op`: a grouped convolution (`_groups`) with two
    input channels per group or more that the split leaves, no input dilation or window reversal, and at
    most MAX_GROUP_TAPS kernel taps."""
    shape = _groups(op)
    if shape is None or shape[1] < 2 or grouped(op):
        return False
    conv = ConvolutionOp(op)
    _, kernel_spatial, _ = _spatial(conv)
    return (all(d == 1 for d in conv.lhs_dilation or []) and not any(conv.window_reversal or ())
            and math.prod(build.shape(conv.rhs)[d] for d in kernel_spatial) <= MAX_GROUP_TAPS)


def _tap_sums(op):
    """`op` as the sum over its kernel taps of each tap's products summed over the group's channels."""
    conv = ConvolutionOp(op)
    numbers = conv.dimension_numbers
    in_spatial, kernel_spatial, out_spatial = _spatial(conv)
    rank = len(in_spatial)
    groups, channels = _groups(op)
    result = op.results[0]
    wide = build.summing_type(build.element(result))
    x = build.convert(build.transpose(conv.lhs, [numbers.input_batch_dimension, *in_spatial,
                                                 numbers.input_feature_dimension]), wide)
    zero = build.splat(0, build.tensor([], wide))
    x = build.pad(x, zero, [(0, 0), *build.padding_of(op, rank), (0, 0)])
    kernel = build.transpose(conv.rhs, [*kernel_spatial, numbers.kernel_input_feature_dimension,
                                        numbers.kernel_output_feature_dimension])
    taps = build.shape(kernel)[:rank]
    features = build.shape(kernel)[-1] // groups
    kernel = build.convert(build.reshape(kernel, [*taps, channels, groups, features]), wide)
    kernel = build.transpose(kernel, [*range(rank), rank + 1, rank, rank + 2])  # [taps..., G, C, O]
    out = [build.shape(result)[d] for d in (numbers.output_batch_dimension, *out_spatial)]
    strides = list(conv.window_strides or [1] * rank)
    dilation = list(conv.rhs_dilation or [1] * rank)
    products = out + [groups, channels, features]
    total = None
    for tap in itertools.product(*map(range, taps)):
        starts = [0, *(t * d for t, d in zip(tap, dilation)), 0]
        limits = [out[0], *(a + (n - 1) * s + 1 for a, n, s in zip(starts[1:], out[1:], strides)),
                  groups * channels]
        window = build.reshape(build.strided_slice(x, starts, limits, [1, *strides, 1]), out + [groups, channels])
        weights = build.reshape(build.strided_slice(kernel, [*tap, 0, 0, 0], [*(t + 1 for t in tap),
                                                                              groups, channels, features],
                                                    [1] * (rank + 3)), [groups, channels, features])
        product = build.one("stablehlo.multiply", build.tensor(products, wide),
                            build.broadcast(window, products, list(range(rank + 3))),
                            build.broadcast(weights, products, [rank + 1, rank + 2, rank + 3]))
        summed = build.reduce(product, zero, [rank + 2], "stablehlo.add")
        total = summed if total is None else build.one("stablehlo.add", summed.type, total, summed)
    total = build.reshape(total, out + [groups * features])
    order = [0] * (rank + 2)
    for position, dim in enumerate([numbers.output_batch_dimension, *out_spatial, numbers.output_feature_dimension]):
        order[dim] = position
    return build.convert(build.transpose(total, order), build.element(result))


@register_pass
class GroupedConvolutionTaps(RewritePass):
    """Runs the grouped convolutions the split leaves as one channel reduction per kernel tap, which IREE vectorizes."""

    name = "oxla-llvmcpu-grouped-convolution-taps"
    anchor = "builtin.module"
    roots = ("stablehlo.convolution",)

    def matches(self, op) -> bool:
        return tapped(op)

    def rewrite(self, op) -> None:
        """Replaces the convolution by its tap sums (module docstring)."""
        build.replace(op, _tap_sums)


def strip(op) -> int | None:
    """The spatial dimension (0: height, 1: width) along which `op`'s kernel is longer than one tap when it
    is one tap along the other: an NHWC/HWIO convolution with static shapes and no dilation, reversal or
    grouping; None for any other op."""
    if op.name != "stablehlo.convolution" or _NHWC_HWIO not in str(op.attributes["dimension_numbers"]):
        return None
    conv = ConvolutionOp(op)
    if not _static(conv):
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


def one_dimensional(op) -> bool:
    """Whether `op` is a convolution over one spatial dimension with static shapes."""
    if op.name != "stablehlo.convolution":
        return False
    conv = ConvolutionOp(op)
    return len(_spatial(conv)[0]) == 1 and _static(conv)


def _with_unit(value, dim: int):
    """`value` reshaped with a dimension of size 1 inserted at `dim`."""
    dims = build.shape(value)
    return build.reshape(value, dims[:dim] + [1] + dims[dim:])


def _layout(spatial: int, named: dict[int, str]) -> str:
    """The dimension-numbers layout of an operand whose one spatial dimension `spatial` gains a unit
    dimension before it (the new '0'; the old one becomes '1'), its other dimensions `named` as before."""
    moved = {d + (d >= spatial): name for d, name in named.items()}
    moved.update({spatial: "0", spatial + 1: "1"})
    return "[" + ", ".join(moved[d] for d in range(len(moved))) + "]"


def _widened(op):
    """A 1-D convolution `op` as a 2-D one over a unit height, between reshapes."""
    conv = ConvolutionOp(op)
    n = conv.dimension_numbers
    (x,), (k,), (y,) = _spatial(conv)
    lhs = _layout(x, {n.input_batch_dimension: "b", n.input_feature_dimension: "f"})
    rhs = _layout(k, {n.kernel_output_feature_dimension: "o", n.kernel_input_feature_dimension: "i"})
    out = _layout(y, {n.output_batch_dimension: "b", n.output_feature_dimension: "f"})
    attributes = build.attributes(op)
    attributes["dimension_numbers"] = ir.Attribute.parse(f"#stablehlo.conv<{lhs}x{rhs}->{out}>")
    for name in ("window_strides", "lhs_dilation", "rhs_dilation"):
        if name in attributes:
            attributes[name] = build.i64_array([1, *getattr(conv, name)])
    if "padding" in attributes:
        (low, high), = conv.padding
        attributes["padding"] = ir.Attribute.parse(f"dense<[[0, 0], [{low}, {high}]]> : tensor<2x2xi64>")
    if "window_reversal" in attributes:
        attributes["window_reversal"] = ir.DenseBoolArrayAttr.get([False, bool(conv.window_reversal[0])])
    result = build.shape(op.results[0])
    wide = build.one(op.name, build.tensor(result[:y] + [1] + result[y:], build.element(op.results[0])),
                     _with_unit(conv.lhs, x), _with_unit(conv.rhs, k), **attributes)
    return build.reshape(wide, result)


@register_pass
class WidenOneDimensionalConvolutions(RewritePass):
    """Runs 1-D convolutions as 2-D ones over a unit height, which IREE vectorizes."""

    name = "oxla-llvmcpu-widen-1d-convolutions"
    anchor = "builtin.module"
    roots = ("stablehlo.convolution",)

    def matches(self, op) -> bool:
        return one_dimensional(op)

    def rewrite(self, op) -> None:
        """Replaces the convolution by its 2-D form (module docstring)."""
        build.replace(op, _widened)


def _channels_last(spatial: int) -> str:
    """The channels-last dimension numbers of a convolution over `spatial` dimensions."""
    dims = ", ".join(str(d) for d in range(spatial))
    return f"[b, {dims}, f]x[{dims}, i, o]->[b, {dims}, f]"


def channels_first(op) -> bool:
    """Whether `op` is a convolution with static shapes in another layout than channels-last."""
    if op.name != "stablehlo.convolution":
        return False
    conv = ConvolutionOp(op)
    return _static(conv) and _channels_last(len(_spatial(conv)[0])) not in str(op.attributes["dimension_numbers"])


def _to_channels_last(op):
    """`op` as a channels-last convolution of its transposed operands, its result transposed back."""
    conv = ConvolutionOp(op)
    n = conv.dimension_numbers
    x, k, y = _spatial(conv)
    lhs = build.transpose(conv.lhs, [n.input_batch_dimension, *x, n.input_feature_dimension])
    rhs = build.transpose(conv.rhs, [*k, n.kernel_input_feature_dimension, n.kernel_output_feature_dimension])
    if rhs != conv.rhs and defining(conv.rhs, "stablehlo.constant") is None:  # IREE folds a constant's transpose
        rhs, = build.barrier([rhs])  # else IREE fuses the transpose into the convolution's loads
    out_order = [n.output_batch_dimension, *y, n.output_feature_dimension]
    result = build.shape(op.results[0])
    attributes = build.attributes(op)
    attributes["dimension_numbers"] = ir.Attribute.parse(f"#stablehlo.conv<{_channels_last(len(x))}>")
    last = build.one(op.name, build.tensor([result[d] for d in out_order], build.element(op.results[0])), lhs, rhs,
                     **attributes)
    return build.transpose(last, [out_order.index(d) for d in range(len(result))])


@register_pass
class ChannelsLastConvolutions(RewritePass):
    """Runs convolutions of other layouts (NCHW) as channels-last ones between transposes."""

    name = "oxla-llvmcpu-channels-last-convolutions"
    anchor = "builtin.module"
    roots = ("stablehlo.convolution",)

    def matches(self, op) -> bool:
        return channels_first(op)

    def rewrite(self, op) -> None:
        """Replaces the convolution by its channels-last form (module docstring)."""
        build.replace(op, _to_channels_last)
