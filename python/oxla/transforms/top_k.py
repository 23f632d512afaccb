"""oxla-legalize-top-k: chlo.top_k (and JAX's `chlo.top_k` composites) with XLA's order, fast.

chlo.top_k returns the k largest elements of the last dimension and their
indices; NaN ranks above +inf (-NaN below -inf), and among equal values the
one with the lower index comes first. IREE's own top-k compares floats with
`ogt`, so it never picks a NaN, and it does not keep that order among equal
values.

For element types of 32 bits or fewer each element gets a distinct i64 key:
its value's rank in that order in the high half (a float's bits with the
magnitude bits flipped where the sign is set, which makes the total order
the signed order of integers), its position's complement in the low half.
IREE's top-k over distinct keys has no ties to get wrong, and the values are
gathered at the positions it finds. Long rows are cut
into chunks first: the k best elements lie in the chunks whose best keys are
the k best chunk maxima, so IREE's top-k, whose cost grows with the elements
it scans times k, runs over the chunk maxima and those k chunks only (256
rows of 4096 f32, k = 8, on an AVX2 Zen 3: 14.9-18.8 ms -> 2.3-4.0 ms, XLA
2.8-4.2 ms). The maxima and the candidates are cut the same way in turn
where k makes that pay (64 rows of 32000, k = 40: 14.4 -> 5.6-8.3 ms, XLA
4.9-7.1 ms), each behind an optimization barrier: IREE fused the ops that
compute them into the top-k and kept its input on the stack, past the 64
KiB limit (k = 48 or 64 over f32[64,2048], k = 40 over f32[256,1000] did
not compile).
Other element types (64-bit), and every top_k for devices without 64-bit
integers (Vulkan: `distinct-keys=false`), become a descending sort of
(value, index) pairs that breaks ties by index, followed by a slice of the
first k; JAX's composites stay IREE's there.
"""

from __future__ import annotations

import dataclasses
import math

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.registry import RewritePass, register_pass

# Marks the top-k this pass builds over distinct keys, which IREE may take as it is.
DISTINCT_KEYS = "oxla.distinct_keys"
# The i64 below every key (whose low half, a position's complement, is never 0).
_LOWEST = -(2 ** 63)
_LOW_HALF = 2 ** 32 - 1
# The shortest rows cut into chunks whatever k is.
CHUNKED_LENGTH = 2048
# The fewest steps of IREE's top-k (row length times k) for which shorter rows are cut into chunks.
MIN_CHUNKED_STEPS = 32768

# Comparison type that orders a dtype the way top_k does (NaN above +inf for floats).
_COMPARE_TYPE = {"f": "TOTALORDER", "bf": "TOTALORDER", "i": "SIGNED", "ui": "UNSIGNED"}


def _compare_type(element_type) -> str:
    name = str(element_type)
    for prefix in ("ui", "bf", "f", "i"):
        if name.startswith(prefix):
            return _COMPARE_TYPE[prefix]
    raise ValueError(f"top_k on {name} is not supported")


def _comparator(block, element_type) -> None:
    """Sort region body: a > b, or a == b and index(a) < index(b).

    The index tie-break makes the order strict, so the result does not
    depend on whether the sort that IREE emits is stable (it is not).
    """
    a, b, index_a, index_b = block.arguments
    kind = _compare_type(element_type)
    with ir.InsertionPoint(block):
        greater = build.compare(a, b, "GT", kind)
        equal = build.compare(a, b, "EQ", kind)
        earlier = build.compare(index_a, index_b, "LT", "SIGNED")
        tie = ir.Operation.create("stablehlo.and", results=[equal.type], operands=[equal, earlier]).result
        before = ir.Operation.create("stablehlo.or", results=[greater.type], operands=[greater, tie]).result
        ir.Operation.create("stablehlo.return", operands=[before])


def _sorted_top_k(values, k: int, index_element):
    """(values, indices) of top_k over `values` as iota + sort + slices, built at the insertion point."""
    values_type = ir.RankedTensorType(values.type)
    shape, element = list(values_type.shape), values_type.element_type
    index_type = ir.RankedTensorType.get(shape, index_element)
    last = len(shape) - 1
    iota = build.positions(shape, last, index_element)
    sort = ir.Operation.create(
        "stablehlo.sort", results=[values_type, index_type], operands=[values, iota],
        attributes={"dimension": ir.IntegerAttr.get(_integer(64), last),
                    # The comparator orders every pair, so no order is left for stability to keep.
                    "is_stable": ir.BoolAttr.get(False)}, regions=1)
    block = sort.regions[0].blocks.append(ir.RankedTensorType.get([], element), ir.RankedTensorType.get([], element),
                                          ir.RankedTensorType.get([], index_element),
                                          ir.RankedTensorType.get([], index_element))
    _comparator(block, element)
    # IREE turns sort-then-slice into its own top-k, which keeps only the first comparison (ties in the
    # wrong order); a barrier between the two keeps the whole comparator.
    return [build.slice_to(sorted_value, shape[:-1] + [k]) for sorted_value in build.barrier(list(sort.results))]


def legalize(op) -> None:
    """Replaces one chlo.top_k by iota + sort + slices."""
    index_element = ir.RankedTensorType(op.results[1].type).element_type
    build.replace(op, lambda o: _sorted_top_k(o.operands[0], _k_of(o), index_element))


def _integer(width: int):
    """The signless integer type of `width` bits."""
    return ir.IntegerType.get_signless(width)


def _like(value, element):
    """The tensor type of `value`'s shape with `element`."""
    return build.tensor(build.shape(value), element)


def _splat_like(value, number: int):
    """A tensor of `value`'s type filled with `number`."""
    return build.splat(number, value.type)


def _rank_key(values):
    """i32 ranks that order `values` (a float, or an integer of 32 bits or fewer) as top_k does; None for
    other element types."""
    element = build.element(values)
    i32 = _like(values, _integer(32))
    if isinstance(element, ir.FloatType) and element.width <= 32:
        bits_type = _like(values, _integer(element.width))
        bits = build.one("stablehlo.bitcast_convert", bits_type, values)
        sign = build.one("stablehlo.shift_right_arithmetic", bits_type, bits,
                         _splat_like(bits, element.width - 1))
        magnitude = build.one("stablehlo.and", bits_type, sign, _splat_like(bits, 2 ** (element.width - 1) - 1))
        return build.convert(build.one("stablehlo.xor", bits_type, bits, magnitude), _integer(32))
    if not isinstance(element, ir.IntegerType) or element.width > 32:
        return None
    if element.is_unsigned and element.width == 32:  # the unsigned order is the signed one, top bit flipped
        bits = build.one("stablehlo.bitcast_convert", i32, values)
        return build.one("stablehlo.xor", i32, bits, build.splat(-(2 ** 31), i32))
    return build.convert(values, _integer(32))


def _distinct_keys(rank):
    """i64 keys: `rank` in the high half, the position's complement along the last dimension in the low."""
    i64 = _like(rank, _integer(64))
    last = len(build.shape(rank)) - 1
    high = build.one("stablehlo.shift_left", i64, build.one("stablehlo.convert", i64, rank),
                     build.splat(32, i64))
    position = build.positions(build.shape(rank), last, _integer(64))
    # (high | 2^32 - 1) - position, not high | (2^32 - 1 - position): IREE would evaluate that constant
    # part at compile time through a program of its own (0.7 s of a 1.6 s compile).
    ones = build.one("stablehlo.or", i64, high, build.splat(_LOW_HALF, i64))
    return build.one("stablehlo.subtract", i64, ones, position)


def _best(keys, k: int):
    """The positions of the k largest of distinct keys along the last dimension, largest first (IREE's
    top-k op).

    IREE makes its top-k op only of a top-k whose values and positions are both used (else a sort of the
    whole row): the values here mark padding keys, which are never among the k largest since every
    chunk holds an element, and would point to position 0.
    """
    dims = build.shape(keys)
    found = ir.Operation.create("chlo.top_k", results=[build.tensor(dims[:-1] + [k], build.element(keys)),
                                                       build.tensor(dims[:-1] + [k], _integer(32))],
                                operands=[keys], attributes={"k": ir.IntegerAttr.get(_integer(64), k),
                                                             DISTINCT_KEYS: ir.UnitAttr.get()})
    best, positions = found.results
    padding = build.compare(best, _splat_like(best, _LOWEST), "EQ", "SIGNED")
    return build.one("stablehlo.select", positions.type, padding, _splat_like(positions, 0), positions)


def _row_maxima(keys, length: int):
    """The largest key of each run of `length` along the last dimension (whose size it divides)."""
    dims = build.shape(keys)
    runs = build.reshape(keys, dims[:-1] + [dims[-1] // length, length])
    lowest = build.splat(_LOWEST, build.tensor([], build.element(keys)))
    return build.reduce(runs, lowest, [len(dims)], "stablehlo.maximum")


def chunk_length(length: int, k: int) -> int:
    """Elements per chunk for a top-k of `k` over rows of `length`, or 0 where chunks would not pay: about
    sqrt(length / k), a power of two, so that the chunk maxima and the k chunks IREE then scans are
    together fewest. Rows of CHUNKED_LENGTH or more are cut where that scans at most a quarter of the
    row; any row (the chunk maxima and candidates of a longer one among them) where IREE's top-k would
    take MIN_CHUNKED_STEPS steps or more (each element meets up to k kept ones) and the chunks halve
    them: their dispatches take longer to compile than they save on anything less."""
    chunk = 1 << max(3, round(math.log2(max(1.0, length / k)) / 2))
    scanned = -(-length // chunk) + k * chunk
    quarter = length >= CHUNKED_LENGTH and scanned <= length // 4
    half = length * k >= MIN_CHUNKED_STEPS and scanned <= length // 2
    return chunk if quarter or half else 0


def _chunked_candidates(keys, k: int, chunk: int):
    """(the keys of the k chunks of `chunk` elements whose maxima are largest, where all the k largest keys
    are, as rows of k * chunk candidates; each candidate's position in the row)."""
    dims = build.shape(keys)
    chunks = -(-dims[-1] // chunk)
    padded = build.pad(keys, build.splat(_LOWEST, build.tensor([], build.element(keys))),
                       [(0, 0)] * (len(dims) - 1) + [(0, chunks * chunk - dims[-1])])
    taken = min(k, chunks)
    best_chunks = _top_positions(_materialized(_row_maxima(padded, chunk)), taken)
    wide = build.tensor(dims[:-1] + [taken, chunk], _integer(32))
    firsts = build.one("stablehlo.multiply", best_chunks.type, best_chunks, _splat_like(best_chunks, chunk))
    starts = build.broadcast(firsts, list(wide.shape), list(range(len(dims))))
    offsets = build.positions(list(wide.shape), len(dims))
    where = build.reshape(build.one("stablehlo.add", wide, starts, offsets), dims[:-1] + [taken * chunk])
    return build.take_along(padded, where, len(dims) - 1), where


def _materialized(value):
    """`value` behind an optimization barrier, so that IREE writes it out rather than fusing the ops that
    compute it into the top-k reading it, whose input it then keeps on the stack (over its 64 KiB limit
    for 64 rows of 256 chunk maxima)."""
    return build.barrier([value])[0]


def _top_positions(keys, k: int):
    """The positions of the k largest of distinct keys along the last dimension, largest first: IREE's
    top-k over the row, or over the candidates of its best chunks (themselves found the same way)."""
    last = len(build.shape(keys)) - 1
    chunk = chunk_length(build.shape(keys)[last], k)
    if not chunk:
        return _best(keys, k)
    candidates, where = _chunked_candidates(keys, k, chunk)
    return build.take_along(where, _top_positions(_materialized(candidates), k), last)


def keyed_top_k(values, k: int, index_element):
    """(values, indices) of top_k over `values` through distinct keys; None for element types over 32 bits."""
    rank = _rank_key(values)
    if rank is None:
        return None
    positions = _top_positions(_distinct_keys(rank), k)
    return build.take_along(values, positions, len(build.shape(values)) - 1), build.convert(positions, index_element)


def _k_of(op) -> int:
    """k of a chlo.top_k, or of a `chlo.top_k` composite (in its composite_attributes)."""
    if op.name == "chlo.top_k":
        return ir.IntegerAttr(op.attributes["k"]).value
    return ir.IntegerAttr(ir.DictAttr(op.attributes["composite_attributes"])["k"]).value


@register_pass
class LegalizeTopK(RewritePass):
    """Rewrites top_k to rank NaN and equal values as XLA does: a top-k over distinct keys, or a sort."""

    name = "oxla-legalize-top-k"
    roots = ("chlo.top_k", "stablehlo.composite")
    distinct_keys: bool = dataclasses.field(default=True, metadata={
        "help": "go through i64 keys (false for devices without 64-bit integers: chlo.top_k becomes a sort, "
                "composites stay IREE's)"})

    def matches(self, op) -> bool:
        if op.name == "stablehlo.composite":
            return (self.distinct_keys and ir.StringAttr(op.attributes["name"]).value == "chlo.top_k"
                    and len(op.operands) == 1)
        return DISTINCT_KEYS not in op.attributes

    def rewrite(self, op) -> None:
        index_element = ir.RankedTensorType(op.results[1].type).element_type
        found = None
        if self.distinct_keys:
            with ir.InsertionPoint(op), op.location:
                found = keyed_top_k(op.operands[0], _k_of(op), index_element)
        if found is None:
            legalize(op)
            return
        for old, new in zip(op.results, found):
            old.replace_all_uses_with(new)
        op.erase()
