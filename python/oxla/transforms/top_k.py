"""oxla-legalize-top-k: chlo.top_k as a stable sort and a slice, so ties keep their order.

chlo.top_k returns the k largest elements of the last dimension and their
indices; among equal values the one with the lower index comes first. IREE's
own top-k does not keep that order. A descending sort of (value, index)
pairs that breaks ties by index, followed by a slice of the first k, does.
"""

from __future__ import annotations

from oxla import ir
from oxla.transforms.registry import RewritePass, register_pass

# Comparison type that orders a dtype the way top_k does (NaN above +inf for floats).
_COMPARE_TYPE = {"f": "TOTALORDER", "bf": "TOTALORDER", "i": "SIGNED", "ui": "UNSIGNED"}


def _compare_type(element_type) -> str:
    name = str(element_type)
    for prefix in ("ui", "bf", "f", "i"):
        if name.startswith(prefix):
            return _COMPARE_TYPE[prefix]
    raise ValueError(f"top_k on {name} is not supported")


def _compare(a, b, direction: str, kind: str):
    i1 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    return ir.Operation.create(
        "stablehlo.compare", results=[i1], operands=[a, b],
        attributes={"comparison_direction": ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>"),
                    "compare_type": ir.Attribute.parse(f"#stablehlo<comparison_type {kind}>")}).result


def _comparator(block, element_type) -> None:
    """Sort region body: a > b, or a == b and index(a) < index(b).

    The index tie-break makes the order strict, so the result does not
    depend on whether the sort that IREE emits is stable (it is not).
    """
    a, b, index_a, index_b = block.arguments
    kind = _compare_type(element_type)
    with ir.InsertionPoint(block):
        greater = _compare(a, b, "GT", kind)
        equal = _compare(a, b, "EQ", kind)
        earlier = _compare(index_a, index_b, "LT", "SIGNED")
        tie = ir.Operation.create("stablehlo.and", results=[equal.type], operands=[equal, earlier]).result
        before = ir.Operation.create("stablehlo.or", results=[greater.type], operands=[greater, tie]).result
        ir.Operation.create("stablehlo.return", operands=[before])


def legalize(op) -> None:
    """Replaces one chlo.top_k by iota + stable sort + slices."""
    values_type = ir.RankedTensorType(op.operands[0].type)
    shape, element = list(values_type.shape), values_type.element_type
    out_values, out_indices = (ir.RankedTensorType(r.type) for r in op.results)
    index_type = ir.RankedTensorType.get(shape, out_indices.element_type)
    last = len(shape) - 1
    with ir.InsertionPoint(op), op.location:
        iota = ir.Operation.create("stablehlo.iota", results=[index_type],
                                   attributes={"iota_dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), last)}).result
        sort = ir.Operation.create(
            "stablehlo.sort", results=[values_type, index_type], operands=[op.operands[0], iota],
            attributes={"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), last),
                        # The comparator orders every pair, so no order is left for stability to keep.
                        "is_stable": ir.BoolAttr.get(False)}, regions=1)
        scalar = ir.RankedTensorType.get([], element)
        index_scalar = ir.RankedTensorType.get([], out_indices.element_type)
        block = sort.regions[0].blocks.append(scalar, scalar, index_scalar, index_scalar)
        _comparator(block, element)
        # IREE turns sort-then-slice into its own top-k, which keeps only the
        # first comparison (ties in the wrong order); a barrier between the two
        # keeps the whole comparator.
        barrier = ir.Operation.create("stablehlo.optimization_barrier", results=[values_type, index_type],
                                      operands=list(sort.results))
        limits = list(out_values.shape)
        slices = [ir.Operation.create(
            "stablehlo.slice", results=[out], operands=[sorted_value],
            attributes={"start_indices": ir.DenseI64ArrayAttr.get([0] * len(shape)),
                        "limit_indices": ir.DenseI64ArrayAttr.get(limits),
                        "strides": ir.DenseI64ArrayAttr.get([1] * len(shape))}).result
            for out, sorted_value in zip((out_values, out_indices), barrier.results)]
    for old, new in zip(op.results, slices):
        old.replace_all_uses_with(new)
    op.erase()


@register_pass
class LegalizeTopK(RewritePass):
    """Rewrites chlo.top_k as a sort that breaks ties by index and slices, so equal values keep their order."""

    name = "oxla-legalize-top-k"
    roots = ("chlo.top_k",)

    def rewrite(self, op) -> None:
        legalize(op)
