"""oxla-canonicalize-scatter: put every stablehlo.scatter in the one form IREE lowers.

IREE's scatter lowering accepts scatters whose indices are [batch, depth]
(one batch dim, the index vector last), whose indexed operand dims lead,
and whose updates are [batch, slice of the operand]. Any other valid
scatter (no batch dim or several, the index vector first, indexed dims in
the middle, inserted window dims, window dims before scatter dims) is
rewritten into that form with transposes and reshapes; the result is the
same tensor.

oxla-guard-scatter-indices: an update whose window does not fit in the
operand at its index is left out (XLA's semantics, which JAX's `x.at[i]`
relies on: an out-of-range `i` is dropped). IREE's scatter writes it at the
index as given, outside the operand: `x.at[i].add(v)` with `i` past the end
crashed the process. The pass, after the canonicalization, keeps such
updates inside: a scatter that adds, into an operand larger than its
updates, gets them as zeros at index 0; any other gets its operands padded
by one window along the first indexed dimension, the updates sent there,
and the results cut back. The guard costs time: a segment sum of 65536 rows
of 64 into 1000 (JAX's segment_sum, whose out-of-range ids must drop) took
12-14 ms instead of 9-10 on an AVX2 Zen 3 (zeroing its 16 MB of updates
instead: 17-21 ms, hence the size test).
"""

from __future__ import annotations

import math

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.stablehlo_build import dimension_numbers, reshape, shape, transpose
from oxla.transforms.registry import RewritePass, register_pass


def _format(fields: dict) -> str:
    parts = []
    for name in ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                 "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"):
        if fields.get(name):
            parts.append(f"{name} = [{', '.join(map(str, fields[name]))}]")
    parts.append(f"index_vector_dim = {fields['index_vector_dim']}")
    return f"#stablehlo.scatter<{', '.join(parts)}>"


def is_canonical(op) -> bool:
    """True when the scatter already has IREE's form (or uses batching dims, left alone)."""
    dims = dimension_numbers(op.attributes["scatter_dimension_numbers"])
    if dims.get("input_batching_dims"):
        return True
    n = (len(op.operands) - 1) // 2
    rank, depth = len(shape(op.operands[0])), len(dims.get("scatter_dims_to_operand_dims", []))
    inserted = dims.get("inserted_window_dims", [])
    return (len(shape(op.operands[n])) == 2 and dims["index_vector_dim"] == 1
            and inserted == list(range(len(inserted))) and len(inserted) <= depth
            and dims.get("update_window_dims", []) == list(range(1, rank - len(inserted) + 1))
            and dims.get("scatter_dims_to_operand_dims", []) == list(range(depth)))


def _indices_as_matrix(indices, ivd: int):
    """Indices as [count, depth]: the index vector last, all batch dims folded into one."""
    rank = len(shape(indices))
    if ivd == rank:
        indices = reshape(indices, shape(indices) + [1])
        rank += 1
    indices = transpose(indices, [d for d in range(rank) if d != ivd] + [ivd])
    batch, depth = shape(indices)[:-1], shape(indices)[-1]
    return reshape(indices, [math.prod(batch), depth])


def _updates_as_windows(updates, window: list[int], inserted: list[int], perm: list[int], count: int,
                        collapsed: int):
    """Updates as [count, operand dims in `perm` order minus the first `collapsed`].

    Each remaining operand dim takes its window from the updates, or size 1
    where it was an inserted dim; at most one transpose and one reshape.
    """
    dims = shape(updates)
    scatter_dims = [d for d in range(len(dims)) if d not in window]
    window_of = dict(zip([d for d in range(len(window) + len(inserted)) if d not in inserted], window))
    kept = perm[collapsed:]
    moved = transpose(updates, scatter_dims + [window_of[d] for d in kept if d in window_of])
    return reshape(moved, [count] + [dims[window_of[d]] if d in window_of else 1 for d in kept])


def canonicalize(op):
    """Replaces one scatter by the same scatter in IREE's form; returns the new result values.

    The operands are transposed so that the indexed dims come first; the
    leading indexed dims that were inserted stay collapsed, every other dim is
    a window dim (size 1 where it was inserted); results are transposed back.
    """
    dims = dimension_numbers(op.attributes["scatter_dimension_numbers"])
    n = (len(op.operands) - 1) // 2
    sdod = dims.get("scatter_dims_to_operand_dims", [])
    rank = len(shape(op.operands[0]))
    perm = sdod + [d for d in range(rank) if d not in sdod]
    inverse = [perm.index(d) for d in range(rank)]
    inserted = dims.get("inserted_window_dims", [])
    collapsed = next((i for i, d in enumerate(sdod) if d not in inserted), len(sdod))
    with ir.InsertionPoint(op), op.location:
        indices = _indices_as_matrix(op.operands[n], dims["index_vector_dim"])
        count = shape(indices)[0]
        inputs = [transpose(op.operands[i], perm) for i in range(n)]
        updates = [_updates_as_windows(op.operands[n + 1 + i], dims.get("update_window_dims", []),
                                       inserted, perm, count, collapsed) for i in range(n)]
        new_dims = {"update_window_dims": list(range(1, rank - collapsed + 1)),
                    "inserted_window_dims": list(range(collapsed)),
                    "scatter_dims_to_operand_dims": list(range(len(sdod))), "index_vector_dim": 1}
        attrs = {op.attributes[i].name: op.attributes[i].attr for i in range(len(op.attributes))}
        attrs["scatter_dimension_numbers"] = ir.Attribute.parse(_format(new_dims))
        new = ir.Operation.create("stablehlo.scatter", results=[v.type for v in inputs],
                                  operands=[*inputs, indices, *updates], attributes=attrs, regions=1)
        op.regions[0].blocks[0].append_to(new.regions[0])
        results = [transpose(r, inverse) for r in new.results]
    for old, replacement in zip(op.results, results):
        old.replace_all_uses_with(replacement)
    op.erase()
    return results


@register_pass
class CanonicalizeScatter(RewritePass):
    """Rewrites stablehlo.scatter into the [batch, index] / [batch, window...] form IREE lowers."""

    name = "oxla-canonicalize-scatter"
    roots = ("stablehlo.scatter",)

    def matches(self, op) -> bool:
        return not is_canonical(op)

    def rewrite(self, op) -> None:
        canonicalize(op)


def window_bounds(op) -> list[int] | None:
    """For a canonical scatter of static shapes without batching dims: the largest index along each
    indexed dimension at which the update window still fits (dimension less window size); else None."""
    dims = dimension_numbers(op.attributes["scatter_dimension_numbers"])
    n = (len(op.operands) - 1) // 2
    values = [op.operands[n], op.operands[0], op.operands[n + 1]]
    if dims.get("input_batching_dims") or not is_canonical(op) or not all(
            ir.RankedTensorType(v.type).has_static_shape for v in values):
        return None
    if not isinstance(build.element(op.operands[n]), ir.IntegerType):
        return None
    operand, updates = shape(op.operands[0]), shape(op.operands[n + 1])
    inserted = len(dims.get("inserted_window_dims", []))
    depth = shape(op.operands[n])[1]
    windows = [1 if d < inserted else updates[1 + d - inserted] for d in range(depth)]
    return [operand[d] - windows[d] for d in range(depth)]


def _adds(op) -> bool:
    """Whether the scatter's body adds the update to the operand (one operand)."""
    if len(op.operands) != 3:
        return False
    block = op.regions[0].blocks[0]
    body = [nested for nested in ir.ops(op) if nested != op]
    if [nested.name for nested in body] != ["stablehlo.add", "stablehlo.return"]:
        return False
    add, done = body
    (a, b), (x, y) = list(add.operands), list(block.arguments)
    return ((a == x and b == y) or (a == y and b == x)) and done.operands[0] == add.results[0]


def _fitting(indices, bounds: list[int]):
    """i1[count]: whether each index row lies within [0, bounds] entry by entry."""
    count, depth = shape(indices)
    kind = build.element(indices)
    signed = "UNSIGNED" if ir.IntegerType(kind).is_unsigned else "SIGNED"
    table = build.one("stablehlo.constant", build.tensor([depth], kind), value=f"dense<{bounds}> : tensor<{depth}x{kind}>")
    high = build.broadcast(table, [count, depth], [1])
    low = build.splat(0, build.tensor([count, depth], kind))
    both = build.one("stablehlo.and", build.tensor([count, depth], ir.IntegerType.get_signless(1)),
                     build.compare(indices, low, "GE", signed), build.compare(indices, high, "LE", signed))
    true = build.one("stablehlo.constant", build.tensor([], ir.IntegerType.get_signless(1)), value="dense<true> : tensor<i1>")
    return build.reduce(both, true, [1], "stablehlo.and")


def _where(keep, value, other):
    """select(keep broadcast along value's leading dimension, value, other)."""
    mask = build.broadcast(keep, shape(value), [0])
    return build.one("stablehlo.select", value.type, mask, value, other)


def _guarded(op):
    """The scatter with updates out of the operand kept inside it (module docstring), its results."""
    n = (len(op.operands) - 1) // 2
    bounds = window_bounds(op)
    indices = op.operands[n]
    kind = build.element(indices)
    keep = _fitting(indices, bounds)
    inputs, updates = list(op.operands[:n]), list(op.operands[n + 1:])
    if _adds(op) and math.prod(shape(updates[0])) < math.prod(shape(inputs[0])):
        indices = _where(keep, indices, build.splat(0, indices.type))
        updates = [_where(keep, u, build.splat(0, u.type)) for u in updates]
        return list(_scatter_like(op, inputs, indices, updates))
    rows = shape(op.operands[0])[0]
    spare = rows - bounds[0]  # the window's size along the first indexed dimension
    depth = len(bounds)
    trash = build.one("stablehlo.constant", build.tensor([depth], kind),
                      value=f"dense<{[rows] + [0] * (depth - 1)}> : tensor<{depth}x{kind}>")
    indices = _where(keep, indices, build.broadcast(trash, shape(indices), [1]))
    padding = [(0, spare)] + [(0, 0)] * (len(shape(op.operands[0])) - 1)
    padded = [build.pad(v, build.splat(0, build.tensor([], build.element(v))), padding) for v in inputs]
    return [build.slice_to(r, shape(v)) for r, v in zip(_scatter_like(op, padded, indices, updates), inputs)]


def _scatter_like(op, inputs: list, indices, updates: list):
    """A scatter with `op`'s attributes and body (moved from `op`) over new operands; its results."""
    attributes = build.attributes(op)
    if "unique_indices" in attributes:  # dropped updates may now share an index
        attributes["unique_indices"] = ir.BoolAttr.get(False)
    new = ir.Operation.create(op.name, results=[v.type for v in inputs], operands=[*inputs, indices, *updates],
                              attributes=attributes, regions=1)
    op.regions[0].blocks[0].append_to(new.regions[0])
    return new.results


@register_pass
class GuardScatterIndices(RewritePass):
    """Keeps scatter updates whose window falls outside the operand from being written (XLA drops them)."""

    name = "oxla-guard-scatter-indices"
    roots = ("stablehlo.scatter",)

    def matches(self, op) -> bool:
        return window_bounds(op) is not None

    def rewrite(self, op) -> None:
        """Replaces the scatter by its guarded form (module docstring)."""
        build.replace(op, _guarded)
