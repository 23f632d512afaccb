"""oxla-legalize-sort-constants: sorts never work in a constant's storage.

IREE sorts in place: a dispatch's sort writes its result into its operands'
storage. When an operand is a small dense constant (an argsort's iota that
oxla-fold-constants folded, a payload the program holds), IREE copies the
constant into the dispatch and the sort then writes into constant memory,
which its CPU code generation rejects ("write affecting operations on global
resources are restricted to workgroup distributed contexts"): `argsort` of a
f32[3,12] did not compile. An optimization_barrier between such a constant
and the sort makes IREE hand the dispatch a copy it may write. Splat
constants need none (IREE fills them in place).
"""

from __future__ import annotations

from oxla import ir
from oxla.transforms.registry import RewritePass, register_pass


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
        for index, value in enumerate(op.operands):
            if _dense_constant(value):
                with ir.InsertionPoint(op), op.location:
                    barrier = ir.Operation.create("stablehlo.optimization_barrier", results=[value.type],
                                                  operands=[value])
                op.operands[index] = barrier.result
