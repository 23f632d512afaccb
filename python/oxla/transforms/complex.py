"""oxla-split-complex-constants: build complex<f64> constants from two f64 constants.

IREE handles complex<f64> tensors but not complex<f64> constants: their
16-byte elements reach the stream dialect as i128 splats, which it rejects
or (for several elements) crashes on. `stablehlo.complex` of two f64
constants computes the same tensor without such a constant.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects.elements import constant_value
from oxla.dialects.stablehlo_build import one, replace, tensor
from oxla.transforms.registry import RewritePass, register_pass


def _f64_constant(values: np.ndarray, dims: list[int]):
    attr = ir.DenseElementsAttr.get(np.ascontiguousarray(values, dtype=np.float64),
                                    type=tensor(dims, ir.F64Type.get()))
    return one("stablehlo.constant", attr.type, value=attr)


def split(op) -> None:
    """Replaces one complex<f64> constant by `stablehlo.complex(real, imag)`."""
    value = constant_value(op)
    dims = list(value.shape)
    replace(op, lambda old: one("stablehlo.complex", old.results[0].type,
                                _f64_constant(value.real, dims), _f64_constant(value.imag, dims)))


def _is_complex_f64_constant(op) -> bool:
    return str(ir.ShapedType(op.results[0].type).element_type) == "complex<f64>"


@register_pass
class SplitComplexConstants(RewritePass):
    """Rewrites complex<f64> constants as stablehlo.complex of two f64 constants (IREE crashes on them)."""

    name = "oxla-split-complex-constants"
    roots = ("stablehlo.constant",)

    def matches(self, op) -> bool:
        return _is_complex_f64_constant(op)

    def rewrite(self, op) -> None:
        split(op)


@register_pass
class DropIdentityBitcasts(RewritePass):
    """Removes stablehlo.bitcast_convert ops whose result type is their operand's (IREE crashes on complex ones)."""

    name = "oxla-drop-identity-bitcasts"
    roots = ("stablehlo.bitcast_convert",)

    def matches(self, op) -> bool:
        return op.operands[0].type == op.results[0].type

    def rewrite(self, op) -> None:
        op.results[0].replace_all_uses_with(op.operands[0])
        op.erase()
