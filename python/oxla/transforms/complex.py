"""oxla-split-complex-constants and oxla-split-complex-pads: no complex<f64> splats for IREE.

IREE handles complex<f64> tensors but not complex<f64> constants: their
16-byte elements reach the stream dialect as i128 splats, which it rejects
or (for several elements) crashes on. `stablehlo.complex` of two f64
constants computes the same tensor without such a constant. A pad of a
complex<f64> tensor (`jnp.pad`) fills its result with the padding value,
the same i128 splat; padding the real and imaginary parts apart, as f64
tensors, and joining them does not.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects.elements import constant_value
from oxla.dialects.stablehlo_build import attributes, complex_parts, element, one, replace, shape, tensor
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


def _complex_f64_result(op) -> bool:
    """Whether the op's (first) result holds complex<f64> elements."""
    return str(ir.ShapedType(op.results[0].type).element_type) == "complex<f64>"


@register_pass
class SplitComplexConstants(RewritePass):
    """Rewrites complex<f64> constants as stablehlo.complex of two f64 constants (IREE crashes on them)."""

    name = "oxla-split-complex-constants"
    roots = ("stablehlo.constant",)

    def matches(self, op) -> bool:
        return _complex_f64_result(op)

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


def _value_parts(value) -> tuple:
    """The real and imaginary parts of a complex<f64> scalar; a real value converted (`jnp.pad`'s 0) gives
    that value as f64 and a zero, with no complex<f64> scalar left for IREE (which failed on one)."""
    source = ir.producer(value)
    if source is not None and source.name == "stablehlo.convert" \
            and not isinstance(element(source.operands[0]), ir.ComplexType):
        real = tensor([], ir.F64Type.get())
        return one("stablehlo.convert", real, source.operands[0]), _f64_constant(np.zeros(()), [])
    return complex_parts(value)


@register_pass
class SplitComplexPads(RewritePass):
    """Pads complex<f64> tensors as their real and imaginary parts (IREE rejects the complex<f64> fill)."""

    name = "oxla-split-complex-pads"
    roots = ("stablehlo.pad",)

    def matches(self, op) -> bool:
        return _complex_f64_result(op)

    def rewrite(self, op) -> None:
        """complex(pad(real x, real v), pad(imag x, imag v)) with the op's edges and interior padding."""
        def padded(old):
            part = tensor(shape(old.results[0]), ir.F64Type.get())
            parts = zip(complex_parts(old.operands[0]), _value_parts(old.operands[1]))
            pads = [one("stablehlo.pad", part, x, v, **attributes(old)) for x, v in parts]
            return one("stablehlo.complex", old.results[0].type, *pads)

        replace(op, padded)
