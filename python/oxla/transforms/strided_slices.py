"""oxla-llvmcpu-strided-slice-bitcasts: every other element read as the halves of wider words.

`x[:, ::2]` (a stablehlo.slice with a stride along the innermost dimension)
is a strided read IREE's CPU vectorizer builds one lane at a time: each
vector of the result is eight broadcasts, compares and blends. Over
f32[4096,1024] that took 4.9-7.1 ms on an AVX2 Zen 3, XLA 3.9-5.3 ms.

When the stride s times the element's width is 16, 32 or 64 bits, the s
elements of each group are one integer of that width in memory (CPU
targets are little-endian: the first element is the low bits). A slice
that takes one element of every group of whole rows is then read as
those words, in order: the tensor reshaped to [..., groups, s] and
bitcast to one word per group (views, no copy), shifted right by the
picked element's position, truncated to the element's width and bitcast
back. All of it element-wise over contiguous memory, which IREE
vectorizes with packing shuffles: 2.3-2.5 ms for the slices above (bf16
`x[:, ::2]` 17.1 -> 2.9 ms, int8 `x[:, 5::8]` 3.9 -> 0.8 ms), the same bits
(NaNs and negative zeros included).

Slices of parts of rows, or of values IREE would compute in the slice's
own dispatch (an element-wise producer), are left alone: cutting whole
groups first, or keeping the producer out of the dispatch, made them
slower (`x[:, 3:1001:2]` 6.4 -> 10.2 ms, `jnp.exp(x)[:, ::2]` 8.7 -> 13.3
ms).
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.registry import RewritePass, register_pass

# Word widths the groups are read as.
_WORD_BITS = (16, 32, 64)
# Ops whose results IREE writes to memory rather than fusing into a consumer's dispatch.
_MATERIALIZED = ("stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution", "stablehlo.reduce",
                 "stablehlo.reduce_window", "stablehlo.sort", "stablehlo.scatter", "stablehlo.gather",
                 "stablehlo.while", "stablehlo.case", "stablehlo.if", "stablehlo.fft", "stablehlo.custom_call",
                 "stablehlo.optimization_barrier")


def _element_bits(element_type) -> int | None:
    """The width of an integer (not i1) or float element type; None for others."""
    if isinstance(element_type, ir.IntegerType) and element_type.width > 1:
        return element_type.width
    if isinstance(element_type, ir.FloatType):
        return element_type.width
    return None


def _materialized(value) -> bool:
    """Whether `value` is in memory before the slice reads it whatever the slice becomes: an argument, or
    the result of an op IREE does not fuse into its consumers. The bitcasts keep an element-wise producer
    out of the slice's dispatch (`jnp.exp(x)[:, ::2]`: 8.7 -> 13.3 ms)."""
    producer = ir.producer(value)
    return producer is None or producer.name in _MATERIALIZED


def _words(op) -> tuple[int, int, int] | None:
    """(element bits, stride, position in the group) for a static slice of a materialized tensor that
    takes every stride-th element of each innermost row, whole (the groups being the whole rows), and
    nothing else; None for other slices."""
    operand = op.operands[0]
    if not ir.RankedTensorType(operand.type).has_static_shape or not _materialized(operand):
        return None
    dims, strides = build.shape(operand), build.i64s(op, "strides", [])
    starts, limits = build.i64s(op, "start_indices", []), build.i64s(op, "limit_indices", [])
    bits = _element_bits(build.element(operand))
    if not strides or bits is None or strides[-1] < 2 or strides[-1] * bits not in _WORD_BITS:
        return None
    stride, start = strides[-1], starts[-1]
    whole_rows = (starts[:-1] == [0] * (len(dims) - 1) and limits[:-1] == dims[:-1]
                  and strides[:-1] == [1] * (len(dims) - 1))
    if not whole_rows or start >= stride or dims[-1] % stride or build.shape(op.results[0])[-1] * stride != dims[-1]:
        return None
    return bits, stride, start


def _as_words(op):
    """The slice read as words (module docstring)."""
    bits, stride, position = _words(op)
    operand = op.operands[0]
    grouped = build.reshape(operand, build.shape(operand)[:-1] + [build.shape(operand)[-1] // stride, stride])
    dims = build.shape(grouped)[:-1]
    word = ir.IntegerType.get_signless(stride * bits)
    words = build.one("stablehlo.bitcast_convert", build.tensor(dims, word), grouped)
    if position:
        shift = build.splat(position * bits, build.tensor(dims, word))
        words = build.one("stablehlo.shift_right_logical", words.type, words, shift)
    low = build.convert(words, ir.IntegerType.get_signless(bits))
    result = op.results[0].type
    return low if low.type == result else build.one("stablehlo.bitcast_convert", result, low)


@register_pass
class StridedSliceBitcasts(RewritePass):
    """Reads slices strided along their innermost dimension as words of a group of elements each."""

    name = "oxla-llvmcpu-strided-slice-bitcasts"
    anchor = "builtin.module"
    roots = ("stablehlo.slice",)

    def matches(self, op) -> bool:
        return _words(op) is not None

    def rewrite(self, op) -> None:
        """Replaces the slice by its words' bits (module docstring)."""
        build.replace(op, _as_words)
