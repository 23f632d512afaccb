"""oxla's sort passes: what IREE's `iree_linalg_ext.sort` gets wrong or does slowly.

- oxla-legalize-sort-constants: IREE sorts in its operands' storage. A dense
  constant of a few hundred bytes is copied into the dispatch, so the sort
  then writes constant memory, which IREE's CPU code generation rejects
  ("write affecting operations on global resources are restricted to
  workgroup distributed contexts"): an argsort of f32[3,12], whose iota
  oxla-fold-constants folds, did not compile. An optimization_barrier
  between such a constant and the sort makes IREE hand the dispatch a copy.
- oxla-legalize-stable-sorts: IREE's sort is not stable, `is_stable` or
  not, so an argsort put equal keys' positions in another order than
  XLA's, and jnp.sort (whose comparator holds -0.0 and 0.0 equal) their
  zeros. Stable sorts carry each element's position as a last key, except
  sorts of one operand by a comparison that tells all values apart.
- oxla-llvmcpu-sort-networks: IREE sorts a row of n by comparing
  neighbours, n^2 / 2 steps one element at a time (f32[16384]: 0.6 s). A
  bitonic network compares fixed pairs instead: log2(n) * (log2(n) + 1) / 2
  rounds, each element-wise over all rows at once, in a stablehlo.while so
  that one dispatch serves every round. The comparator is applied to whole
  tensors, ties go by position (the network is stable), and rows are padded
  to a power of two with elements that go last.

The comparator's ops must act element by element (so they apply to tensors);
sorts whose comparators hold anything else are left alone.
"""

from __future__ import annotations

import dataclasses
import math

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.stablehlo import elementwise
from oxla.transforms.registry import RewritePass, register_pass

# Ops a comparator may hold for the network to apply it to tensors: they act element by element.
_ELEMENTWISE_OPS = frozenset(f"stablehlo.{name}" for name in (
    *elementwise.UNARY, *elementwise.BINARY, "compare", "select", "clamp", "convert"))

# Costs on an AVX2 Zen 3 core (jnp.sort of f32 [rows, n], 4x64 to 256x4096): IREE's sort takes about
# BUBBLE_STEP_NS per compare of its n^2 / 2 per row; a round of the network ROUND_NS plus
# ROUND_ELEMENT_NS per element. The network replaces a sort only where it costs less.
BUBBLE_STEP_NS = 6.0
ROUND_NS = 11_000.0
ROUND_ELEMENT_NS = 3.0


def _static_sort(op) -> tuple[list[int], int] | None:
    """(shape, dimension) of a sort whose operands share one static shape; None otherwise."""
    try:
        dims = build.shape(op.operands[0])
    except ValueError:
        return None
    if any(d < 0 for d in dims) or not all(build.shape(v) == dims for v in op.operands):
        return None
    return dims, ir.IntegerAttr(op.attributes["dimension"]).value


def _takes_a_prefix(op) -> bool:
    """Whether every use of the sort's results is a slice of its first elements along the sort dimension
    (a top-k, which IREE turns into its own top-k op)."""
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    uses = [use.owner for result in op.results for use in result.uses]
    return bool(uses) and all(u.name == "stablehlo.slice" and build.i64s(u, "start_indices", [])[dim] == 0
                              for u in uses)


def _elementwise_comparator(region) -> bool:
    """Whether every op of a sort's comparator acts element by element (so it applies to tensors)."""
    for view in region.blocks[0].operations:
        op = view.operation
        if op.name in ("stablehlo.constant", "stablehlo.return"):
            continue
        if op.name == "stablehlo.bitcast_convert":
            source, target = (ir.RankedTensorType(v.type).element_type for v in (op.operands[0], op.results[0]))
            if source.width != target.width:
                return False
            continue
        if op.name not in _ELEMENTWISE_OPS:
            return False
    return True


def _i32(dims: list[int]):
    """The i32 tensor type of `dims` (positions, round numbers)."""
    return build.tensor(dims, ir.IntegerType.get_signless(32))


def _apply_comparator(region, lhs: list, rhs: list):
    """The sort's comparator applied element by element to tensors: true where `lhs` goes before `rhs`."""
    block = region.blocks[0]
    if 2 * len(lhs) != len(block.arguments) or len(lhs) != len(rhs):
        raise ValueError(f"a comparator of {len(block.arguments)} arguments applied to {len(lhs)} and {len(rhs)}")
    dims = build.shape(lhs[0])
    values = {}
    for i, (left, right) in enumerate(zip(lhs, rhs)):
        values[block.arguments[2 * i]] = left
        values[block.arguments[2 * i + 1]] = right
    for view in block.operations:
        op = view.operation
        if op.name == "stablehlo.return":
            return _wide(values, op.operands[0], dims)
        result = op.results[0]
        wide = build.tensor(dims, ir.RankedTensorType(result.type).element_type)
        if op.name == "stablehlo.constant":
            scalar = build.one("stablehlo.constant", result.type, value=op.attributes["value"])
            values[result] = _wide({}, scalar, dims)
        else:
            operands = [_wide(values, v, dims) for v in op.operands]
            values[result] = build.one(op.name, wide, *operands, **build.attributes(op))
    raise ValueError("a sort comparator without stablehlo.return")


def _wide(values: dict, value, dims: list[int]):
    """The tensor of `dims` that a comparator's scalar `value` stands for: one computed so far, or a
    scalar from outside the comparator, broadcast."""
    if not dims:
        return values.get(value, value)
    if value not in values:
        values[value] = build.broadcast(value, dims, [])
    return values[value]


def _before(region, x: list, y: list, length: int, padded: int):
    """Where `x`'s elements go before `y`'s: the comparator (on the lists' first operands), ties by
    position (the last operand of each list), and padding (positions from `length` on) after everything
    else."""
    x_at, y_at = x[-1], y[-1]
    dims = build.shape(x_at)
    boolean = build.tensor(dims, ir.IntegerType.get_signless(1))
    earlier = build.compare(x_at, y_at, "LT", "SIGNED")
    compared = len(region.blocks[0].arguments) // 2  # the positions too, where the sort carries them
    x_first = _apply_comparator(region, x[:compared], y[:compared])
    y_first = _apply_comparator(region, y[:compared], x[:compared])
    tie = build.one("stablehlo.and", boolean, build.one("stablehlo.not", boolean, y_first), earlier)
    ordered = build.one("stablehlo.or", boolean, x_first, tie)
    if padded == length:
        return ordered
    last = build.one("stablehlo.maximum", x_at.type, x_at, y_at)
    padding = build.compare(last, build.splat(length, _i32(dims)), "GE", "SIGNED")
    return build.one("stablehlo.select", boolean, padding, earlier, ordered)


# oxla-legalize-sort-constants

def _dense_constant(value) -> bool:
    """Whether `value` is the result of a stablehlo.constant that is not a splat."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return False
    op = owner.operation
    if op.name != "stablehlo.constant":
        return False
    attr = op.attributes["value"]
    return not (isinstance(attr, ir.DenseElementsAttr) and attr.is_splat)


@register_pass
class LegalizeSortConstants(RewritePass):
    """Passes the dense constant operands of each stablehlo.sort through an optimization_barrier."""

    name = "oxla-legalize-sort-constants"
    roots = ("stablehlo.sort",)

    def matches(self, op) -> bool:
        return any(_dense_constant(v) for v in op.operands)

    def rewrite(self, op) -> None:
        build.barrier_operands(op, _dense_constant)


# oxla-legalize-stable-sorts

# Comparisons that tell every two distinct values apart.
_TOTAL_COMPARISONS = frozenset({"TOTALORDER", "SIGNED", "UNSIGNED"})


def _total_order(op) -> bool:
    """Whether a sort of one operand compares with a single LT or GT that tells every two distinct values
    apart: then equal elements are the same bits, and no order among them shows."""
    ops = [view.operation for view in op.regions[0].blocks[0].operations]
    if len(op.operands) != 1 or len(ops) != 2 or ops[0].name != "stablehlo.compare":
        return False
    compare = ops[0]
    kinds = (build.enum_name(compare, "comparison_direction"),
             build.enum_name(compare, "compare_type") if "compare_type" in compare.attributes else "")
    return kinds[0] in ("LT", "GT") and kinds[1] in _TOTAL_COMPARISONS


def _is_position(value, dim: int) -> bool:
    """Whether `value` is an i32 stablehlo.iota along `dim`: each element's position (an argsort's, or one
    oxla-legalize-stable-sorts adds)."""
    owner = value.owner
    return (not isinstance(owner, ir.Block) and owner.operation.name == "stablehlo.iota"
            and ir.IntegerAttr(owner.operation.attributes["iota_dimension"]).value == dim
            and build.element(value) == ir.IntegerType.get_signless(32))


def stabilized(op) -> list:
    """The results of stablehlo.sort `op` from a sort that orders equal elements by position: by an
    operand that holds the positions already (an argsort's iota), else by one added for it."""
    dims, dim = _static_sort(op)
    operands = list(op.operands)
    held = next((i for i, v in enumerate(operands) if _is_position(v, dim)), None)
    if held is None:
        operands.append(build.positions(dims, dim))
    sort = ir.Operation.create("stablehlo.sort", results=[v.type for v in operands], operands=operands,
                               attributes=build.attributes(op), regions=1)
    scalars = [build.tensor([], build.element(v)) for v in operands]
    block = sort.regions[0].blocks.append(*[t for scalar in scalars for t in (scalar, scalar)])
    with ir.InsertionPoint(block):
        lhs, rhs = list(block.arguments)[0::2], list(block.arguments)[1::2]
        if held is not None:  # the comparator takes every operand; the positions come again, last
            lhs, rhs = lhs + [lhs[held]], rhs + [rhs[held]]
        ir.Operation.create("stablehlo.return", operands=[_before(op.regions[0], lhs, rhs, dims[dim], dims[dim])])
    return list(sort.results)[:len(op.results)]


@register_pass
class LegalizeStableSorts(RewritePass):
    """Orders equal elements of stable sorts by position (IREE's sort is not stable)."""

    name = "oxla-legalize-stable-sorts"
    roots = ("stablehlo.sort",)

    def matches(self, op) -> bool:
        return (build.flag(op, "is_stable") and _static_sort(op) is not None and not _takes_a_prefix(op)
                and not _total_order(op) and _elementwise_comparator(op.regions[0]))

    def rewrite(self, op) -> None:
        build.replace(op, stabilized)


# oxla-llvmcpu-sort-networks

def _rounds(padded: int) -> list[tuple[int, int]]:
    """The bitonic network's rounds for `padded` (a power of two) elements: (distance, mirror) each.

    A round pairs position i with i ^ distance, or, in the first round of each merge (mirror 1), with
    its mirror image in the run of 2 * distance around it, i ^ (2 * distance - 1); the lower position
    of each pair takes the element that goes first. Runs of 2, 4, ... elements are merged in turn.
    """
    rounds, run = [], 2
    while run <= padded:
        rounds.append((run // 2, 1))
        distance = run // 4
        while distance >= 1:
            rounds.append((distance, 0))
            distance //= 2
        run *= 2
    return rounds


def _scalar_of(table, row, column: int):
    """table[row, column] of an i32 [R, 2] table, as a 0-d tensor."""
    column_at = build.splat(column, _i32([]))
    element = build.one("stablehlo.dynamic_slice", _i32([1, 1]), table, row, column_at,
                        slice_sizes=build.i64_array([1, 1]))
    return build.reshape(element, [])


def _round(region, state: list, table, dim: int, length: int) -> list:
    """One round of the network on the loop's state (the round number, the operands, their positions)."""
    counter, values = state[0], state[1:]
    dims = build.shape(values[0])
    distance = build.broadcast(_scalar_of(table, counter, 0), dims, [])
    mirror = build.broadcast(_scalar_of(table, counter, 1), dims, [])
    position = build.positions(dims, dim)
    one = build.splat(1, _i32(dims))
    span = build.one("stablehlo.subtract", _i32(dims), build.one("stablehlo.add", _i32(dims), distance, distance), one)
    mirrored = build.compare(mirror, build.splat(0, _i32(dims)), "NE", "SIGNED")
    partner = build.one("stablehlo.select", _i32(dims), mirrored,
                        build.one("stablehlo.xor", _i32(dims), position, span),
                        build.one("stablehlo.xor", _i32(dims), position, distance))
    theirs = [build.take_along(v, partner, dim) for v in values]
    lower = build.compare(position, partner, "LT", "SIGNED")
    mine_first = _before(region, values, theirs, length, dims[dim])
    keep = build.one("stablehlo.not", lower.type, build.one("stablehlo.xor", lower.type, lower, mine_first))
    kept = [build.one("stablehlo.select", v.type, keep, v, t) for v, t in zip(values, theirs)]
    return [build.one("stablehlo.add", counter.type, counter, build.splat(1, _i32([])))] + kept


def sort_network(op) -> list:
    """The results of stablehlo.sort `op`, computed by a bitonic network: a stablehlo.while whose every
    round is element-wise over all rows (with a gather of each element's partner)."""
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    dims = build.shape(op.operands[0])
    length = dims[dim]
    padded = 1 << (length - 1).bit_length()
    wide = dims[:dim] + [padded] + dims[dim + 1:]
    # A last operand that holds positions already (a stabilized sort's) serves as the network's own.
    carried = _is_position(op.operands[-1], dim)
    values = []
    for value in list(op.operands)[:-1] if carried else op.operands:
        fill = build.splat(0, build.tensor([], build.element(value)))
        values.append(build.pad(value, fill, [(0, padded - length if d == dim else 0) for d in range(len(dims))]))
    values.append(build.positions(wide, dim))
    rounds = _rounds(padded)
    state = [build.splat(0, _i32([]))] + values
    types = [v.type for v in state]
    loop = ir.Operation.create("stablehlo.while", results=types, operands=state, regions=2)
    check = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(check):
        more = build.compare(check.arguments[0], build.splat(len(rounds), _i32([])), "LT", "SIGNED")
        ir.Operation.create("stablehlo.return", operands=[more])
    body = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body):
        table = build.one("stablehlo.constant", _i32([len(rounds), 2]),
                          value=f"dense<{[list(r) for r in rounds]}> : tensor<{len(rounds)}x2xi32>")
        ir.Operation.create("stablehlo.return", operands=_round(op.regions[0], list(body.arguments), table, dim,
                                                                length))
    results = [build.slice_to(v, dims) for v in list(loop.results)[1:]]
    return results if carried else results[:-1]


def network_is_cheaper(dims: list[int], dim: int) -> bool:
    """Whether the network sorts a tensor of `dims` along `dim` faster than IREE's bubble sort does, by
    the cost model above."""
    length = dims[dim]
    if length < 2:
        return False
    padded = 1 << (length - 1).bit_length()
    elements = math.prod(dims)
    bubble = elements * length / 2 * BUBBLE_STEP_NS
    network = len(_rounds(padded)) * (ROUND_NS + elements // length * padded * ROUND_ELEMENT_NS)
    return network < bubble


def _worth_a_network(op, always: bool) -> bool:
    """Whether `op` is a statically shaped sort that the network runs faster (or `always`), with a
    comparator that acts element by element."""
    static = _static_sort(op)
    if static is None:
        return False
    dims, dim = static
    cheaper = dims[dim] > 1 and (always or network_is_cheaper(dims, dim))
    return cheaper and _elementwise_comparator(op.regions[0])


@register_pass
class SortNetworks(RewritePass):
    """Runs stablehlo.sorts as bitonic networks of element-wise rounds where they beat IREE's bubble sort."""

    name = "oxla-llvmcpu-sort-networks"
    roots = ("stablehlo.sort",)
    always: bool = dataclasses.field(default=False, metadata={
        "help": "rewrite every sort the network can take, whether or not the cost model favours it"})

    def matches(self, op) -> bool:
        return _worth_a_network(op, self.always) and not _takes_a_prefix(op)

    def rewrite(self, op) -> None:
        build.replace(op, sort_network)
