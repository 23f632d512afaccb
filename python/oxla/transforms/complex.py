"""oxla-split-complex-constants, oxla-split-complex-pads, oxla-pad-complex-windows,
oxla-split-complex-selects: complex values in forms IREE lowers.

IREE handles complex<f64> tensors but not complex<f64> constants: their
16-byte elements reach the stream dialect as i128 splats, which it rejects
or (for several elements) crashes on. `stablehlo.complex` of two f64
constants computes the same tensor without such a constant. A pad of a
complex<f64> tensor (`jnp.pad`) fills its result with the padding value,
the same i128 splat, and a complex<f32> pad IREE does not fuse into a
consumer crashed its compiler (a linalg.fill of a complex value); padding
the real and imaginary parts apart and joining them avoids both. A
complex reduce_window with padding (a sum pool with 'SAME' padding)
crashed IREE's compiler the same way: its inputs are padded with the
initial values first (by stablehlo.pad, as the spec defines the window's
padding, then split as above), and the windows have none. Cumulative
windows (jnp.cumsum, cumprod) stay: IREE runs them as scans, which have no
fill, in O(n) rather than the padded window's O(n^2). IREE's SPIR-V code
generation has no select of complex values (`arith.select` on complex<f32>
failed to legalize, so no complex QR or eigendecomposition compiled for
Vulkan): a complex select chooses the real and imaginary parts apart.

These run after the input legalizations that build complex ops of their own
(the LAPACK routines' pads and selects).
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects.elements import constant_value
from oxla.dialects.stablehlo_build import (
    attributes, complex_parts, element, i64s, one, pad, padding_of, replace, shape, tensor)
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
class SplitComplexSelects(RewritePass):
    """Selects complex values by their real and imaginary parts (IREE's SPIR-V code has no complex select)."""

    name = "oxla-split-complex-selects"
    roots = ("stablehlo.select",)

    def matches(self, op) -> bool:
        return isinstance(element(op.results[0]), ir.ComplexType)

    def rewrite(self, op) -> None:
        """complex(select(p, real a, real b), select(p, imag a, imag b))."""
        def chosen(old):
            mask, parts = old.operands[0], zip(complex_parts(old.operands[1]), complex_parts(old.operands[2]))
            return one("stablehlo.complex", old.results[0].type,
                       *(one("stablehlo.select", a.type, mask, a, b) for a, b in parts))

        replace(op, chosen)


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
    """The real and imaginary parts of a complex scalar; a real value converted (`jnp.pad`'s 0) gives that
    value converted to the part type and a zero, with no complex scalar left for IREE (which failed on a
    complex<f64> one)."""
    part = ir.ComplexType(element(value)).element_type
    source = ir.producer(value)
    if source is not None and source.name == "stablehlo.convert" \
            and not isinstance(element(source.operands[0]), ir.ComplexType):
        zero = ir.DenseElementsAttr.get_splat(tensor([], part), ir.FloatAttr.get(part, 0.0))
        return (one("stablehlo.convert", tensor([], part), source.operands[0]),
                one("stablehlo.constant", zero.type, value=zero))
    return complex_parts(value)


@register_pass
class SplitComplexPads(RewritePass):
    """Pads complex tensors as their real and imaginary parts (IREE rejects or crashes on complex fills)."""

    name = "oxla-split-complex-pads"
    roots = ("stablehlo.pad",)

    def matches(self, op) -> bool:
        return isinstance(element(op.results[0]), ir.ComplexType)

    def rewrite(self, op) -> None:
        """complex(pad(real x, real v), pad(imag x, imag v)) with the op's edges and interior padding."""
        def padded(old):
            part = tensor(shape(old.results[0]), ir.ComplexType(element(old.results[0])).element_type)
            parts = zip(complex_parts(old.operands[0]), _value_parts(old.operands[1]))
            pads = [one("stablehlo.pad", part, x, v, **attributes(old)) for x, v in parts]
            return one("stablehlo.complex", old.results[0].type, *pads)

        replace(op, padded)


def _window_padding(op) -> tuple[list[tuple[int, int]], list[int]] | None:
    """The (low, high) edge padding per dimension and the interior padding (base dilation d pads d - 1
    between elements) of a reduce_window's inputs, or None when it has none."""
    rank = len(shape(op.operands[0]))
    edges = padding_of(op, rank)
    interior = [d - 1 for d in i64s(op, "base_dilations", [1] * rank)]
    if all(e == (0, 0) for e in edges) and not any(interior):
        return None
    return edges, interior


def _cumulative(op) -> bool:
    """Whether a reduce_window is a cumulative reduction (jnp.cumsum, cumprod, forward or reverse): one
    dimension's window spans it with all but one element padded on one side, every other window is one
    element, nothing strided or dilated. IREE runs these as a scan, without the fill it crashed on, in
    O(n) where the padded window would take O(n^2)."""
    dims = shape(op.operands[0])
    rank = len(dims)
    windows = i64s(op, "window_dimensions", [1] * rank)
    if any(i64s(op, name, [1] * rank) != [1] * rank
           for name in ("window_strides", "base_dilations", "window_dilations")):
        return False
    spanned = [d for d in range(rank) if windows[d] != 1]
    if len(spanned) != 1 or windows[spanned[0]] != dims[spanned[0]]:
        return False
    edges = padding_of(op, rank)
    along = dims[spanned[0]] - 1
    return edges[spanned[0]] in ((along, 0), (0, along)) and all(
        edges[d] == (0, 0) for d in range(rank) if d != spanned[0])


@register_pass
class PadComplexWindows(RewritePass):
    """Pads the inputs of complex reduce_windows with padding explicitly (IREE crashed on the window's)."""

    name = "oxla-pad-complex-windows"
    roots = ("stablehlo.reduce_window",)

    def matches(self, op) -> bool:
        return any(isinstance(element(v), ir.ComplexType) for v in op.operands) \
            and _window_padding(op) is not None and not _cumulative(op)

    def rewrite(self, op) -> None:
        """reduce_window(pad(inputs, inits), inits) with the op's windows, strides and window dilations."""
        count = len(op.operands) // 2
        inputs, inits = list(op.operands)[:count], list(op.operands)[count:]
        edges, interior = _window_padding(op)
        kept = {name: op.attributes[name] for name in ("window_dimensions", "window_strides", "window_dilations")
                if name in op.attributes}
        with ir.InsertionPoint(op), op.location:
            padded = [pad(x, v, edges, interior) for x, v in zip(inputs, inits)]
            new = ir.Operation.create("stablehlo.reduce_window", results=[r.type for r in op.results],
                                      operands=padded + inits, attributes=kept, regions=1)
        op.regions[0].blocks[0].append_to(new.regions[0])
        for old, result in zip(op.results, new.results):
            old.replace_all_uses_with(result)
        op.erase()
