"""Quantization ops: uniform_quantize (float or quantized to quantized) and uniform_dequantize.

Quantized element types are written as MLIR spells them, for example
"!quant.uniform<i8:f32, 0.5:-1>" (per-tensor: storage type, expressed type,
scale and zero point) or "!quant.uniform<i8:f32:0, {0.1:-30, 0.5:-20}>"
(per-axis along dimension 0). The helpers below read a quantized type's
storage and expressed types and its quantization dimension from that text.
"""

from __future__ import annotations

import re

from oxla import ir
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import Operand, OpSpec, Param, export
from oxla.dialects.stablehlo.rules import elem, expect_element, fail, require, shape, tensor

FAMILY = "quantization"


def _fields(e) -> list[str]:
    """The top-level ':'- or ','-separated fields inside a `!quant.uniform<...>` type's brackets."""
    text = str(e)
    body = text[text.index("<") + 1:-1]
    fields, depth, start = [], 0, 0
    for i, c in enumerate(body):
        depth += c in "<{("
        depth -= c in ">})"
        if c in ":," and depth == 0:
            fields.append(body[start:i].strip())
            start = i + 1
    return fields + [body[start:].strip()]


def storage_type(e) -> ir.Type:
    """The integer type a quantized element type stores its values in (i8 for !quant.uniform<i8:f32, ...>)."""
    storage = re.sub(r"<.*", "", _fields(e)[0])
    return ir.Type.parse(storage, ir.context())


def expressed_type(e) -> ir.Type:
    """The floating-point type a quantized element type expresses (f32 for !quant.uniform<i8:f32, ...>)."""
    return ir.Type.parse(_fields(e)[1], ir.context())


def quantization_dimension(e) -> int | None:
    """The quantized dimension of a per-axis quantized type, None for a per-tensor one."""
    fields = _fields(e)
    return int(fields[2]) if len(fields) > 3 and fields[2].lstrip("-").isdigit() and fields[3].startswith("{") \
        else None


def _scales(e) -> int:
    """The number of (scale, zero point) entries of a per-axis quantized type."""
    block = _fields(e)[-1]
    return len([s for s in block.strip("{}").split(",") if s.strip()])


def _check_per_axis(dims, e, what: str) -> None:
    """A per-axis quantized type names a dimension of the tensor and has one scale per element of it."""
    d = quantization_dimension(e)
    if d is None:
        return
    require(0 <= d < len(dims), f"{what}'s quantization dimension {d} must be in [0, {len(dims)})")
    require(dims[d] is None or dims[d] == _scales(e),
            f"{what} needs one scale per element of dimension {d} ({dims[d]}), got {_scales(e)}")


def _uniform_quantize(args):
    """Same shape (C1); a quantized result expressing the operand's float type or expressed type (C2)."""
    expect_element(args.operand, "operand", "float|quantized")
    try:
        target = T.element_type(args.dtype)
    except TypeError as e:
        fail(str(e), TypeError)
    require(T.is_quantized(target) and str(target).startswith("!quant.uniform<"),
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
