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
from oxla.transforms.registry import Pass, register_pass


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
    return op.name == "stablehlo.constant" and str(ir.ShapedType(op.results[0].type).element_type) == "complex<f64>"


@register_pass
class SplitComplexConstants(Pass):
    """Rewrites complex<f64> constants as stablehlo.complex of two f64 constants (IREE crashes on them)."""

    name = "oxla-split-complex-constants"
    anchor = None

    def run(self, op) -> None:
        for child in [c for c in ir.ops(op) if _is_complex_f64_constant(c)]:
            split(child)


@register_pass
class DropIdentityBitcasts(Pass):
    """Removes stablehlo.bitcast_convert ops whose result type is their operand's (IREE crashes on complex ones)."""

    name = "oxla-drop-identity-bitcasts"
    anchor = None

    def run(self, op) -> None:
        for child in [c for c in ir.ops(op) if c.name == "stablehlo.bitcast_convert"]:
            if child.operands[0].type == child.results[0].type:
                child.results[0].replace_all_uses_with(child.operands[0])
                child.erase()
