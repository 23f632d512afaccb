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
from oxla.transforms.registry import Pass, register_pass


def _f64_constant(values: np.ndarray, shape: list[int]):
    attr = ir.DenseElementsAttr.get(np.ascontiguousarray(values, dtype=np.float64),
                                    type=ir.RankedTensorType.get(shape, ir.F64Type.get()))
    return ir.Operation.create("stablehlo.constant", results=[attr.type], attributes={"value": attr}).result


def split(op) -> None:
    """Replaces one complex<f64> constant by `stablehlo.complex(real, imag)`."""
    value = constant_value(op)
    shape = list(value.shape)
    with ir.InsertionPoint(op), op.location:
        real, imag = _f64_constant(value.real, shape), _f64_constant(value.imag, shape)
        joined = ir.Operation.create("stablehlo.complex", results=[op.results[0].type], operands=[real, imag])
    op.results[0].replace_all_uses_with(joined.result)
    op.erase()


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
