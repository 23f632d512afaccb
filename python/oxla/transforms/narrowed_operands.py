"""oxla-isolate-narrowed-matmul-operands: a matmul operand narrowed from f64 goes into its own dispatch.

With f64 kept (oxla's llvm-cpu default) and data tiling on, IREE miscompiles a batched matmul whose
operand is an f64 tensor sliced and converted to f32: the dispatch that packs the operand for the tiled
matmul, into which IREE fuses the slice and the convert, gives the later matrices of the batch wrong
values (f32[2,12,12] from f64[2,12,16]: the second matrix off by about 16; plain `iree-compile` with
`--iree-input-demote-f64-to-f32=false --iree-opt-data-tiling=true` does the same, and
test_narrowed_operands.py holds the program). An optimization barrier between such an operand and its
dot_general keeps the narrowing out of that dispatch. Only programs that narrow f64 for a matmul pay
for it: the narrowed operand written and read once more.
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.registry import RewritePass, register_pass

# Ops IREE fuses into the dispatch that packs a matmul operand, through which a narrowing reaches it.
_CARRIERS = ("stablehlo.slice", "stablehlo.reshape", "stablehlo.transpose", "stablehlo.broadcast_in_dim",
             "stablehlo.convert")


def narrowed_from_f64(value) -> bool:
    """Whether `value` is converted from an f64 tensor, through slices, reshapes, transposes, broadcasts and
    converts."""
    op = ir.producer(value)
    while op is not None and op.name in _CARRIERS:
        source = op.operands[0]
        if op.name == "stablehlo.convert" and str(build.element(source)) == "f64":
            return True
        op = ir.producer(source)
    return False


@register_pass
class IsolateNarrowedMatmulOperands(RewritePass):
    """Puts an optimization barrier on dot_general operands narrowed from f64 (IREE's data tiling miscompiles them)."""

    name = "oxla-isolate-narrowed-matmul-operands"
    roots = ("stablehlo.dot_general",)

    def matches(self, op) -> bool:
        return any(narrowed_from_f64(v) for v in op.operands)

    def rewrite(self, op) -> None:
        build.barrier_operands(op, narrowed_from_f64)
