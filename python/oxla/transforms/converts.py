"""oxla-legalize-bf16-converts: integers and booleans become bf16 through f32.

IREE's llvm-cpu code converts an integer (or i1) straight to bf16, which
LLVM lowers to a call of `__truncsfbf2` that no library IREE links
provides: `x.astype(jnp.bfloat16)` of an int32 array failed to link, and so
did a constant such a conversion computes (IREE's constant evaluation
compiles it too). XLA converts to f32, then rounds the f32 to bf16 (to
nearest, ties to even; twice rounded for integers beyond 2^24). This pass
does the same, the second rounding in integer arithmetic on the f32's
bits: written as f32 -> bf16 converts, IREE folded the pair back into the
direct conversion.
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects.stablehlo_build import convert, element, one, replace, shape, splat, tensor
from oxla.transforms.registry import RewritePass, register_pass


@register_pass
class LegalizeBf16Converts(RewritePass):
    """Converts integers and booleans to bf16 through f32 (IREE's direct conversion does not link)."""

    name = "oxla-legalize-bf16-converts"
    roots = ("stablehlo.convert",)

    def matches(self, op) -> bool:
        return isinstance(element(op.results[0]), ir.BF16Type) and isinstance(element(op.operands[0]), ir.IntegerType)

    def rewrite(self, op) -> None:
        replace(op, lambda old: rounded_to_bf16(convert(old.operands[0], ir.F32Type.get())))


def rounded_to_bf16(value):
    """An f32 tensor without NaNs rounded to bf16 (to nearest, ties to even) by integer ops on its bits:
    the bits plus 0x7FFF plus the kept part's lowest bit, shifted right by 16."""
    dims = shape(value)
    i32, i16 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(16)
    bits = one("stablehlo.bitcast_convert", tensor(dims, i32), value)
    sixteen = splat(16, bits.type)
    lowest = one("stablehlo.and", bits.type, one("stablehlo.shift_right_logical", bits.type, bits, sixteen),
                 splat(1, bits.type))
    rounded = one("stablehlo.add", bits.type, one("stablehlo.add", bits.type, bits, splat(0x7FFF, bits.type)), lowest)
    kept = convert(one("stablehlo.shift_right_logical", bits.type, rounded, sixteen), i16)
    return one("stablehlo.bitcast_convert", tensor(dims, ir.BF16Type.get()), kept)
