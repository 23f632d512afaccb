"""oxla-legalize-select-and-scatter: decompose stablehlo.select_and_scatter as XLA does.

IREE does not lower select_and_scatter. The same result comes from two ops
it does lower:

1. a variadic reduce_window over (operand value, flat operand index) pairs
   picks, for each window, the element the `select` region chooses;
2. a scatter (with the op's `scatter` region) of the source values at those
   flat indices into a tensor filled with init_value.

Ties follow the StableHLO reference scan: of two candidates, the earlier one
in the operand (the smaller flat index, hence the earlier in window order) is
the current selection, and the later one replaces it only when `select`
rejects the current one. Padding is never selected: padded positions carry
the index `size` (one past the operand), which loses to any real element
and, for windows of padding only, is scattered into an extra element that is
sliced off.

The op builders at the top of this module are shared with the other input
legalizations.
"""

from __future__ import annotations

import math

from oxla import ir
from oxla.dialects.stablehlo_build import (
    element, i64_array, i64s, one, pad, padding_of, positions, replace, shape, slice_to, splat, tensor,
)
from oxla.transforms.registry import RewritePass, register_pass


def _index_type(size: int):
    """i32 flat indices while they fit (IREE favours 32-bit), else i64."""
    return ir.IntegerType.get_signless(32 if size < 2**31 - 1 else 64)


def _flat_iota(dims: list[int], index):
    """The row-major flat index of every element of a tensor of shape `dims`."""
    flat = positions([math.prod(dims)], 0, index)
    return one("stablehlo.reshape", tensor(dims, index), flat)


def _compare(direction: str, lhs, rhs):
    """A scalar stablehlo.compare (i1 result)."""
    return one("stablehlo.compare", tensor([], ir.IntegerType.get_signless(1)), lhs, rhs,
               comparison_direction=f"#stablehlo<comparison_direction {direction}>")


def _select(pred, on_true, on_false):
    """A scalar stablehlo.select."""
    return one("stablehlo.select", on_true.type, pred, on_true, on_false)


def _pick_body(block, select_block, sentinel) -> None:
    """Fills the reduce_window body (v0, i0, v1, i1) -> the pair the scan keeps.

    The select region's ops move in, applied to (earlier, later); the earlier
    pair is kept when `select` accepts it or the later one is padding.
    """
    v0, i0, v1, i1 = block.arguments
    with ir.InsertionPoint(block):
        first = _compare("LT", i0, i1)
        earlier_v, earlier_i = _select(first, v0, v1), _select(first, i0, i1)
        later_v, later_i = _select(first, v1, v0), _select(first, i1, i0)
        anchor = later_i.owner
    a, b = select_block.arguments
    terminator = select_block.operations[len(select_block.operations) - 1]
    for op in list(select_block.operations)[:-1]:
        op.move_after(anchor)
        anchor = op
    a.replace_all_uses_with(earlier_v)
    b.replace_all_uses_with(later_v)
    accepted = terminator.operands[0]
    with ir.InsertionPoint(block):
        keep = one("stablehlo.or", accepted.type, accepted, _compare("EQ", later_i, sentinel))
        ir.Operation.create("stablehlo.return", operands=[_select(keep, earlier_v, later_v),
                                                          _select(keep, earlier_i, later_i)])


def _window_attrs(op) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    """window_dimensions, window_strides and padding of the op, defaults filled in."""
    rank = len(shape(op.operands[0]))
    return (i64s(op, "window_dimensions", [1] * rank), i64s(op, "window_strides", [1] * rank),
            padding_of(op, rank))


def _selected_indices(op, index, size: int):
    """reduce_window over (operand, flat index): the flat index each window selects."""
    operand, source, init = op.operands
    window, strides, padding = _window_attrs(op)
    used = [(n - 1) * s + w if n else 0 for n, s, w in zip(shape(source), strides, window)]
    sentinel = splat(size, tensor([], index))
    # IREE's reduce_window lowering rejects padding on unsigned types and
    # miscomputes shapes when strided windows leave a remainder: pad and
    # slice explicitly instead.
    inputs = [slice_to(pad(operand, init, padding), used),
              slice_to(pad(_flat_iota(shape(operand), index), sentinel, padding), used)]
    scalar = tensor([], element(operand))
    reduce = ir.Operation.create(
        "stablehlo.reduce_window", results=[tensor(shape(source), element(v)) for v in inputs],
        operands=[*inputs, init, sentinel],
        attributes={"window_dimensions": i64_array(window), "window_strides": i64_array(strides)}, regions=1)
    body = reduce.regions[0].blocks.append(scalar, sentinel.type, scalar, sentinel.type)
    _pick_body(body, op.regions[0].blocks[0], sentinel)
    return reduce.results[1]


def _scatter_at(op, indices, size: int):
    """Combines source values into init_value at flat `indices`; one spare slot for padding-only windows."""
    _, source, init = op.operands
    count, kind = math.prod(shape(source)), element(source)
    base = one("stablehlo.broadcast_in_dim", tensor([size + 1], kind), init, broadcast_dimensions=i64_array([]))
    scatter = ir.Operation.create(
        "stablehlo.scatter", results=[base.type],
        operands=[base, one("stablehlo.reshape", tensor([count, 1], element(indices)), indices),
                  one("stablehlo.reshape", tensor([count], kind), source)],
        attributes={"scatter_dimension_numbers": ir.Attribute.parse(
            "#stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>")},
        regions=1)
    op.regions[1].blocks[0].append_to(scatter.regions[0])
    return one("stablehlo.reshape", op.results[0].type, slice_to(scatter.result, [size]))


def decompose(op):
    """The select_and_scatter's result from reduce_window + scatter."""
    size = math.prod(shape(op.operands[0]))
    return _scatter_at(op, _selected_indices(op, _index_type(size + 1), size), size)


@register_pass
class LegalizeSelectAndScatter(RewritePass):
    """Rewrites stablehlo.select_and_scatter (which IREE does not lower) as reduce_window + scatter."""

    name = "oxla-legalize-select-and-scatter"
    roots = ("stablehlo.select_and_scatter",)

    def rewrite(self, op) -> None:
        replace(op, decompose)
