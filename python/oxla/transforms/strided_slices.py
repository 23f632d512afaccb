"""oxla-llvmcpu-strided-slice-bitcasts and oxla-llvmcpu-word-loads: every other element read as the halves of
wider words.

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

oxla-llvmcpu-word-loads, on the dispatches (after `executable-sources`):
IREE lowers the widening bitcast to a reduction over each group that
builds its word from the elements, each zero-extended, shifted left by
its position and ORed in. When the group is read from a binding, those
words are the binding's bytes read as words (little-endian), and the
pass loads them so: a view of the same binding with the word type, the
reduction gone. LLVM had vectorized the reduction as one 64-bit load
and zero-extension per two elements, shifts and shuffles, 128 bits at a
time. On an AVX2 Zen 3 (one core, medians of 15): `x[:, ::2] - x[:, 1::2]`
of f32[4096,1024] 1.49 -> 0.89 ms (XLA 1.02 ms), f32 `x[:, ::2]` 1.97 ->
0.78 ms, bf16 `x[:, ::2]` 1.88 -> 0.27 ms, int8 `x[:, 5::8]` 0.62 -> 0.10
ms.
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.dispatch_tensors import binding_view, bound_tensor_type
from oxla.transforms.cpu_tiles import loop_kinds, variant_target
from oxla.transforms.registry import Pass, RewritePass, register_pass

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


def _zero_filled(value) -> bool:
    """Whether `value` is a `linalg.fill` of a constant whose bits are all 0 (0, or +0.0)."""
    fill = ir.producer(value)
    constant = ir.producer(fill.operands[0]) if fill is not None and fill.name == "linalg.fill" else None
    if constant is None or constant.name != "arith.constant":
        return False
    attribute = constant.attributes["value"]
    if isinstance(attribute, ir.FloatAttr):
        return ir.FloatAttr(attribute).value == 0.0 and not str(attribute).startswith("-")
    return isinstance(attribute, ir.IntegerAttr) and ir.IntegerAttr(attribute).value == 0


def _produced_by(value, name: str, seen: list):
    """The op named `name` that produces `value` (added to `seen`), or None."""
    producer = ir.producer(value)
    if producer is None or producer.name != name:
        return None
    seen.append(producer)
    return producer


def _bits_of(value, seen: list):
    """`value` with an `arith.bitcast` producing it looked through (the bitcast added to `seen`)."""
    cast = _produced_by(value, "arith.bitcast", seen)
    return cast.operands[0] if cast is not None else value


def _shift_of_position(value, rank: int, bits: int, seen: list) -> bool:
    """Whether `value` is the innermost loop's index (of `rank` loops), cast to an integer, times `bits`."""
    product = _produced_by(value, "arith.muli", seen)
    if product is None:
        return False
    cast = next((c for v in product.operands if (c := _produced_by(v, "arith.index_cast", seen))), None)
    index = _produced_by(cast.operands[0], "linalg.index", seen) if cast is not None else None
    factor = next((v for v in product.operands if cast is None or v != cast.results[0]), None)
    return (index is not None and ir.IntegerAttr(index.attributes["dim"]).value == rank - 1
            and ir.constant_int(factor) == bits)


def _packs_elements(op, bits: int) -> bool:
    """Whether the generic's body yields `out | (zext(bits of in) << (bits * innermost index))` (on the
    words' bits, for float words) and nothing else."""
    element, accumulated = op.regions[0].blocks[0].arguments
    body = ir.body_ops(op)
    seen: list = []
    word = _produced_by(_bits_of(body[-1].operands[0], seen), "arith.ori", seen) if body[-1].operands else None
    if word is None:
        return False
    parts = [_bits_of(v, seen) for v in word.operands]
    if accumulated not in parts:
        return False
    shifted = _produced_by(next(v for v in parts if v != accumulated), "arith.shli", seen)
    extended = _produced_by(shifted.operands[0], "arith.extui", seen) if shifted is not None else None
    rank = len(ir.RankedTensorType(op.operands[0].type).shape)
    return (extended is not None and _bits_of(extended.operands[0], seen) == element
            and _shift_of_position(shifted.operands[1], rank, bits, seen) and len(body) == len(seen) + 1)


def word_packing_bits(op) -> int | None:
    """For a linalg.generic that builds each word of its result (an integer or a float's bits) from its
    input's innermost group of elements, element j shifted left by j times the element width and ORed
    into zeros (IREE's lowering of a widening bitcast): the element width in bits. None for any other op."""
    if op.name != "linalg.generic" or len(op.operands) != 2 or len(op.results) != 1:
        return None
    source, result = (ir.RankedTensorType(v.type) for v in (op.operands[0], op.results[0]))
    bits = _element_bits(source.element_type) if source.has_static_shape and source.rank else None
    if bits is None or source.shape[-1] * bits != _element_bits(result.element_type) \
            or list(result.shape) != list(source.shape[:-1]):
        return None
    rank = source.rank
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    with op.context:
        groups = [ir.AffineMap.get_identity(rank),
                  ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d) for d in range(rank - 1)])]
    if maps != groups or \
            loop_kinds(op) != ["parallel"] * (rank - 1) + ["reduction"]:
        return None
    return bits if _zero_filled(op.operands[1]) and _packs_elements(op, bits) else None


def _little_endian(op) -> bool:
    """Whether the CPU `op` is compiled for keeps a word's low byte first in memory (assumed so outside a
    hal.executable.variant, as for a bare dispatch function)."""
    return 'data_layout = "E' not in variant_target(op)


def _whole_group_load(op, word_bytes: int):
    """The `dispatch.tensor.load` the packing generic `op` reads when it reads whole innermost rows of a
    static binding at a byte offset that is a multiple of `word_bytes`, with static offsets and unit
    strides; else None."""
    load = ir.producer(op.operands[0])
    if load is None or load.name != "iree_tensor_ext.dispatch.tensor.load" or len(load.operands) != 1:
        return None
    subspan = ir.producer(load.operands[0])
    if subspan is None or subspan.name != "hal.interface.binding.subspan" or len(subspan.operands) != 1:
        return None
    offset = ir.constant_int(subspan.operands[0])
    bound = bound_tensor_type(subspan)
    sizes = build.i64s(load, "static_sizes", [])
    if offset is None or offset % word_bytes or bound is None or not bound.has_static_shape or \
            sizes != build.shape(op.operands[0]) or build.i64s(load, "static_offsets", [])[-1:] != [0] or \
            bound.shape[-1] != sizes[-1] or any(s != 1 for s in build.i64s(load, "static_strides", [])):
        return None
    return load


def _load_words(op, load) -> None:
    """Replaces the packing generic by a load of the same bytes through a view of the binding as words."""
    subspan = ir.producer(load.operands[0])
    word = ir.RankedTensorType(op.results[0].type)
    view = binding_view(subspan, build.tensor(bound_tensor_type(subspan).shape[:-1], word.element_type))
    attributes = build.attributes(load)
    for name in ("static_offsets", "static_sizes", "static_strides"):
        attributes[name] = build.i64_array(build.i64s(load, name, [])[:-1])
    with ir.InsertionPoint(op), op.location:
        words = ir.Operation.create(load.name, results=[word], operands=[view], attributes=attributes)
    fill = ir.producer(op.operands[1])
    op.results[0].replace_all_uses_with(words.results[0])
    op.erase()
    for dead in (fill, ir.producer(fill.operands[1]), load, subspan):
        if dead is not None and not any(list(r.uses) for r in dead.results):
            dead.erase()


@register_pass
class WordLoads(Pass):
    """Loads the words a widening bitcast builds from a binding's elements as the binding's bytes."""

    name = "oxla-llvmcpu-word-loads"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Replaces each such packing generic of the dispatches by a load of words (module docstring)."""
        for op in [o for o in ir.ops(module) if o.name == "linalg.generic"]:
            bits = word_packing_bits(op)
            load = _whole_group_load(op, _element_bits(build.element(op.results[0])) // 8) \
                if bits and _little_endian(op) else None
            if load is not None:
                _load_words(op, load)
