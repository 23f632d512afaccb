"""Quantized element types: the fields of a `!quant.uniform` type, read from the text MLIR prints.

The bindings give no access to a quantized type's parameters, so every rule
reads them here, from the printed form: per-tensor
"!quant.uniform<i8:f32, 5.000000e-01:-1>" (storage type, expressed type,
scale and zero point) or per-axis
"!quant.uniform<i8<-127:127>:f16:1, {1.000000e-01:-3,2.000000e-01}>"
(storage range, quantization dimension, one scale and zero point per
element of that dimension; a missing zero point is 0).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from oxla import ir

_UNIFORM = re.compile(r"^!quant\.uniform<(?P<storage>[^:<>]+)(?:<(?P<min>-?\d+):(?P<max>-?\d+)>)?"
                      r":(?P<expressed>[^:,]+)(?::(?P<axis>\d+))?,\s*(?P<params>\{[^{}]*\}|[^{}]*)>$")


@dataclass(frozen=True)
class QuantizedType:
    """A per-tensor or per-axis uniform quantized element type, field by field (axis None: per-tensor)."""

    storage: str  # "i8", without the range
    storage_min: int | None
    storage_max: int | None
    expressed: str  # "f32"
    axis: int | None
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]

    def __str__(self) -> str:
        storage = self.storage if self.storage_min is None else f"{self.storage}<{self.storage_min}:{self.storage_max}>"
        params = ",".join(f"{s:.16e}:{z}" for s, z in zip(self.scales, self.zero_points))
        if self.axis is None:
            return f"!quant.uniform<{storage}:{self.expressed}, {params}>"
        return f"!quant.uniform<{storage}:{self.expressed}:{self.axis}, {{{params}}}>"


def parse(element) -> QuantizedType | None:
    """The fields of a per-tensor or per-axis `!quant.uniform` element type; None for every other type."""
    match = _UNIFORM.match(str(element))
    if match is None:
        return None
    pairs = [p.split(":") for p in match.group("params").strip("{}").split(",")]
    bounds = [None if match.group(k) is None else int(match.group(k)) for k in ("min", "max")]
    axis = match.group("axis")
    return QuantizedType(match.group("storage"), *bounds, match.group("expressed"), None if axis is None else int(axis),
                         tuple(float(p[0]) for p in pairs), tuple(int(p[1]) if len(p) > 1 else 0 for p in pairs))


def _uniform(element) -> QuantizedType:
    """The fields of a uniform quantized element type (TypeError for any other type)."""
    q = parse(element)
    if q is None:
        raise TypeError(f"expected a per-tensor or per-axis !quant.uniform type, got {element}")
    return q


def storage_type(element) -> ir.Type:
    """The integer type a quantized element type stores its values in (i8 for !quant.uniform<i8:f32, ...>)."""
    return ir.Type.parse(_uniform(element).storage, ir.context())


def expressed_type(element) -> ir.Type:
    """The floating-point type a quantized element type expresses (f32 for !quant.uniform<i8:f32, ...>)."""
    return ir.Type.parse(_uniform(element).expressed, ir.context())


def quantization_dimension(element) -> int | None:
    """The quantization dimension of a per-axis quantized element type; None for every other type."""
    q = parse(element)
    return None if q is None else q.axis


def with_axis(element, axis: int, size: int | None = None) -> ir.Type:
    """A per-axis quantized element type moved to dimension `axis`; one scale is repeated to `size` when given."""
    q = parse(element)
    n = size if size is not None and len(q.scales) == 1 else 1
    return ir.Type.parse(str(dataclasses.replace(q, axis=axis, scales=q.scales * n, zero_points=q.zero_points * n)),
                         ir.context())


def baseline(element):
    """A quantized element type without its scales and zero points, for comparisons; other types as they are."""
    q = parse(element)
    return element if q is None else dataclasses.replace(q, scales=(), zero_points=())
