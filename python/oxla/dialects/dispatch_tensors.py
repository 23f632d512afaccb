"""IREE's dispatch bindings: `!iree_tensor_ext.dispatch.tensor` types and their subspans.

A dispatch reads and writes its buffers through `hal.interface.binding.subspan`
ops typed `!iree_tensor_ext.dispatch.tensor<access:tensor<...>>`. oxla's
dispatch-level rewrites build such types and view a binding's bytes as another
tensor type; these helpers hold that once.
"""

from __future__ import annotations

import re

from oxla import ir
from oxla.dialects import stablehlo_build as build

# The tensor type may nest angle brackets (complex<f32>); an encoding follows a comma.
_TYPE = re.compile(r"^!iree_tensor_ext\.dispatch\.tensor<(\w+):(tensor<[^,]*>)>$")


def dispatch_tensor_type(access: str, tensor_type):
    """The binding type of `tensor_type` with `access` (readonly, writeonly, readwrite)."""
    return ir.Type.parse(f"!iree_tensor_ext.dispatch.tensor<{access}:{tensor_type}>", tensor_type.context)


def _parts(subspan) -> tuple[str, str] | None:
    """(access, tensor type text) of a subspan's binding type; None for one with an encoding."""
    found = _TYPE.match(str(subspan.results[0].type))
    return (found.group(1), found.group(2)) if found else None


def bound_tensor_type(subspan):
    """The tensor type a `hal.interface.binding.subspan` binds (None for one with an encoding)."""
    parts = _parts(subspan)
    return ir.RankedTensorType(ir.Type.parse(parts[1], context=subspan.context)) if parts else None


def binding_view(subspan, tensor_type):
    """A new subspan, just before `subspan`, of the same binding, offset and access, typed `tensor_type`:
    the same bytes seen as another shape or element type."""
    access = _parts(subspan)[0]
    with ir.InsertionPoint(subspan), subspan.location:
        return ir.Operation.create(subspan.name, results=[dispatch_tensor_type(access, tensor_type)],
                                   operands=list(subspan.operands),
                                   attributes=build.attributes(subspan)).results[0]
