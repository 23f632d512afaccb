"""Symbolic sizes and graph plumbing: sym_size, Python arithmetic on symbolic ints, tuple indexing, and the
assertion ops torch.export leaves in the graph (checked by torch at export time; no-ops here).
"""

from __future__ import annotations

import torch

from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import translates
from oxla.importers.torch_ops.lowering import Sym, axis


@translates("aten.sym_size.int")
def sym_size(cx, x, dim, *_):
    """The size of one dimension: an int when static, else its run-time value (get_dimension_size)."""
    ax = axis(dim, x.ndim)
    if x.shape[ax] is not None:
        return x.shape[ax]
    return Sym(shlo.convert(shlo.get_dimension_size(x, ax), "i64"))


def _symbolic_int_check(node, args):
    """Python arithmetic on sizes: integer results only (symbolic floats and booleans are not translated)."""
    value = node.meta.get("val")
    return None if isinstance(value, (int, torch.SymInt)) else f"a symbolic {type(value).__name__} result"


@translates("operator.add", "operator.sub", "operator.mul", "operator.floordiv", "operator.mod", "operator.neg",
            "operator.pow", "torch.sym_max", "torch.sym_min", "torch.sym_int", "torch.sym_sum",
            "aten.sym_numel.default", check=_symbolic_int_check, note="integer results")
def symbolic_int(cx, *_):
    """An int computed from sizes: torch's expression for it, evaluated over the input dimensions."""
    value = cx.size(cx.out)
    return value if isinstance(value, int) else Sym(value)


@translates("operator.getitem")
def getitem(cx, value, index, *_):
    """One result of a multi-result op."""
    return value[index]


@translates("aten._assert_tensor_metadata.default", "aten._assert_scalar.default", "aten.sym_constrain_range.default",
            "aten.sym_constrain_range_for_size.default", "aten._assert_async.default", "aten._assert_async.msg")
def no_op(cx, *_):
    """Checks torch made when exporting; nothing to compute."""
    return None
