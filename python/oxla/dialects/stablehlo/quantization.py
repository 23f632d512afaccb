"""Quantization ops: uniform_quantize (float or quantized to quantized) and uniform_dequantize.

Quantized element types are written as MLIR spells them, for example
"!quant.uniform<i8:f32, 0.5:-1>" (per-tensor: storage type, expressed type,
scale and zero point) or "!quant.uniform<i8:f32:0, {0.1:-30, 0.5:-20}>"
(per-axis along dimension 0). `quant_types` reads their fields; its
`storage_type`, `expressed_type` and `quantization_dimension` are also
importable from here.
"""

from __future__ import annotations

from oxla.dialects.stablehlo import quant_types as QT
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import Operand, OpSpec, Param, export
from oxla.dialects.stablehlo.quant_types import expressed_type, quantization_dimension, storage_type  # noqa: F401
from oxla.dialects.stablehlo.rules import dtype_param, elem, expect_element, require, shape, tensor

FAMILY = "quantization"


def _check_per_axis(dims, e, what: str) -> None:
    """A per-axis quantized type names a dimension of the tensor and has one scale per element of it."""
    q = QT.parse(e)
    if q is None or q.axis is None:
        return
    d, scales = q.axis, len(q.scales)
    require(0 <= d < len(dims), f"{what}'s quantization dimension {d} must be in [0, {len(dims)})")
    require(dims[d] is None or dims[d] == scales,
            f"{what} needs one scale per element of dimension {d} ({dims[d]}), got {scales}")


def _uniform_quantize(args):
    """Same shape (C1); a quantized result expressing the operand's float type or expressed type (C2)."""
    expect_element(args.operand, "operand", "float|quantized")
    target = dtype_param(args.dtype)
    require(QT.parse(target) is not None,
            f"dtype must be a uniform quantized type such as \"!quant.uniform<i8:f32, 0.5:-1>\", got {target}",
            TypeError)
    source = elem(args.operand)
    want = source if T.is_float(source) else expressed_type(source)
    require(expressed_type(target) == want,
            f"the result's expressed type must be {want} "
            f"(the operand's {'type' if T.is_float(source) else 'expressed type'}), "
            f"got {expressed_type(target)} in {target}", TypeError)
    dims = shape(args.operand)
    _check_per_axis(dims, target, "dtype")
    return tensor(dims, target)


export(OpSpec("uniform_quantize", (Operand("operand"), Param("dtype")), _uniform_quantize, family=FAMILY,
              doc="Quantizes a float tensor, or requantizes a quantized one, to the quantized type `dtype`."),
       globals())


def _uniform_dequantize(args):
    """Same shape (C1), the operand's expressed type (C2)."""
    expect_element(args.operand, "operand", "quantized")
    e = elem(args.operand)
    return tensor(shape(args.operand), expressed_type(e))


export(OpSpec("uniform_dequantize", (Operand("operand"),), _uniform_dequantize, family=FAMILY,
              doc="Converts a quantized tensor to its expressed floating-point type."), globals())
