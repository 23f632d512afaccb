"""oxla-canonicalize-scatter: put every stablehlo.scatter in the one form IREE lowers.

IREE's scatter lowering accepts scatters whose indices are [batch, depth]
(one batch dim, the index vector last), whose indexed operand dims lead,
and whose updates are [batch, slice of the operand]. Any other valid
scatter (no batch dim or several, the index vector first, indexed dims in
the middle, inserted window dims, window dims before scatter dims) is
rewritten into that form with transposes and reshapes; the result is the
same tensor.
"""

from __future__ import annotations

import math
import re

from oxla import ir
from oxla.dialects.stablehlo_build import reshape, shape, transpose
from oxla.transforms.registry import RewritePass, register_pass

_FIELD = re.compile(r"(\w+) = (\[[^\]]*\]|\d+)")


def dimension_numbers(attr) -> dict[str, list[int] | int]:
    """The fields of a `#stablehlo.scatter<...>` attribute (index_vector_dim defaults to 0)."""
    fields: dict[str, list[int] | int] = {"index_vector_dim": 0}
    for name, value in _FIELD.findall(str(attr)):
        fields[name] = [int(v) for v in value.strip("[]").split(",") if v.strip()] if value.startswith("[") else int(value)
    return fields


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
