"""Dynamism ops: the shape-as-operand forms of broadcast, iota, pad, reshape and slice, and dimension sizes.

A shape operand is a static 1-D tensor of integers or indices. Its size
gives the result's rank; where it comes from a constant op its values give
the result's dimensions, and otherwise those dimensions are dynamic (unless
another rule fixes them). An explicit `result_types=` is always accepted.
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects.stablehlo import attributes as A
from oxla.dialects.stablehlo import quant_types as QT
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import REQUIRED, Attr, Operand, OpSpec, Param, export
from oxla.dialects.stablehlo.data_movement import (
    broadcast_element, check_broadcast, check_iota_element, check_padding_value, padded_dims, reshaped_quantized_axis,
    sliced_dims)
from oxla.dialects.stablehlo.rules import (
    bounded, bounds_of, check_dims, constant_ints, dtype_param, elem, rank, require, shape, size_of, tensor, unique)

FAMILY = "dynamism"


def shape_operand(value, name: str, size: int | None = None) -> int:
    """Checks a shape operand (a static 1-D tensor of integers or indices, of `size` entries); its size."""
    e = elem(value)
    require(T.is_integer(e) or isinstance(e, ir.IndexType),
            f"{name} must have integer or index elements, got {e}", TypeError)
    dims = shape(value)
    require(len(dims) == 1 and dims[0] is not None, f"{name} must be a static 1-dimensional tensor, got {value.type}")
    require(size is None or dims[0] == size, f"{name} must have {size} entries (one per operand dimension), "
            f"got {value.type}")
    return dims[0]


def shape_values(value, name: str) -> list | None:
    """The dimension sizes a constant shape operand holds (checked non-negative), or None when not a constant."""
    values = constant_ints(value)
    if values is not None:
        require(all(v >= 0 for v in values), f"{name} must hold non-negative sizes, got {values}")
    return values


def index_operands(args, names: tuple, n: int) -> list:
    """Checks shape operands of `n` entries and one type; their values (None for each that is not a constant)."""
    first = getattr(args, names[0]).type
    for name in names:
        v = getattr(args, name)
        shape_operand(v, name, n)
        require(v.type == first, f"{', '.join(names[:-1])} and {names[-1]} must have the same type, got {first} and "
                f"{v.type}", TypeError)
    return [constant_ints(getattr(args, name)) for name in names]


# dynamic_broadcast_in_dim -----------------------------------------------------------------------------------------

def _check_expansion_hints(args, n: int) -> None:
    """known_(non)expanding_dimensions: operand dimensions (C9, C10), none listed twice (C8)."""
    hints = list(args.known_expanding_dimensions or []) + list(args.known_nonexpanding_dimensions or [])
    require(unique(hints), f"known_expanding_dimensions and known_nonexpanding_dimensions must not "
            f"share or repeat dimensions, got {hints}")
    check_dims(hints, n, "known_expanding_dimensions and known_nonexpanding_dimensions")


def _dynamic_broadcast_in_dim(args):
    """Rank from output_dimensions (C7); dims from its constant values, else the operand's non-1 sizes (C5)."""
    operand = shape(args.operand)
    n = shape_operand(args.output_dimensions, "output_dimensions")
    require(n >= len(operand), f"the result rank ({n}) must be at least the operand rank ({len(operand)})")
    dims = shape_values(args.output_dimensions, "output_dimensions")
    if dims is None:
        dims = [None] * n
        for size, target in zip(operand, args.broadcast_dimensions):
            if size not in (1, None) and 0 <= target < n:
                dims[target] = size  # C5: a dimension that does not expand keeps its size
    check_broadcast(operand, args.broadcast_dimensions, dims)
    _check_expansion_hints(args, len(operand))
    return tensor(dims, broadcast_element(args.operand, args.broadcast_dimensions, dims))


export(OpSpec("dynamic_broadcast_in_dim", (
    Operand("operand"), Operand("output_dimensions"), Attr("broadcast_dimensions", A.I64Array(), REQUIRED),
    Attr("known_expanding_dimensions", A.I64Array()), Attr("known_nonexpanding_dimensions", A.I64Array())),
    _dynamic_broadcast_in_dim, family=FAMILY,
    doc="broadcast_in_dim to the run-time shape output_dimensions."), globals())


# dynamic_iota -----------------------------------------------------------------------------------------------------

def _dynamic_iota(args):
    """Rank from output_shape (C2); 0 <= iota_dimension < rank (C1); dims from its constant values."""
    n = shape_operand(args.output_shape, "output_shape")
    element = dtype_param(args.dtype)
    check_iota_element(element)
    require(0 <= args.iota_dimension < n, f"iota_dimension must be in [0, {n}), got {args.iota_dimension}")
    dims = shape_values(args.output_shape, "output_shape")
    return tensor(dims if dims is not None else [None] * n, element)


export(OpSpec("dynamic_iota", (Operand("output_shape"), Attr("iota_dimension", A.Integer(), REQUIRED),
                               Param("dtype")),
              _dynamic_iota, family=FAMILY, doc="iota of the run-time shape output_shape."), globals())


# dynamic_pad ------------------------------------------------------------------------------------------------------

def _dynamic_pad(args):
    """Scalar padding_value of operand's element type (C1); paddings of one type, one per dim (C2), interior >= 0 (C3)."""
    check_padding_value(args)
    dims = shape(args.operand)
    low, high, interior = index_operands(args, ("edge_padding_low", "edge_padding_high", "interior_padding"), len(dims))
    if interior is not None:
        require(all(i >= 0 for i in interior), f"interior_padding must be non-negative, got {interior}")
    if low is None or high is None or interior is None:
        return tensor([None] * len(dims), elem(args.operand))
    result, _ = padded_dims(dims, [None] * len(dims), low, high, interior)
    return tensor(result, elem(args.operand))


export(OpSpec("dynamic_pad", (Operand("operand"), Operand("padding_value"), Operand("edge_padding_low"),
                              Operand("edge_padding_high"), Operand("interior_padding")),
              _dynamic_pad, family=FAMILY, doc="pad with run-time edge and interior paddings."), globals())


# dynamic_reshape --------------------------------------------------------------------------------------------------

def _dynamic_reshape(args):
    """Rank from output_shape (C4); from a constant shape, as many elements as the operand (C2)."""
    n = shape_operand(args.output_shape, "output_shape")
    dims = shape_values(args.output_shape, "output_shape")
    before = shape(args.operand)
    e = elem(args.operand)
    if dims is None:
        require(QT.quantization_dimension(e) is None,
                "reshaping a per-axis quantized operand needs a constant output_shape")
        return tensor([None] * n, e)
    count = size_of(before)
    require(count is None or count == size_of(dims),
            f"the result must have as many elements as the operand: {list(before)} has {count}, {dims} has "
            f"{size_of(dims)}")
    return tensor(dims, reshaped_quantized_axis(e, before, tuple(dims)))


export(OpSpec("dynamic_reshape", (Operand("operand"), Operand("output_shape")), _dynamic_reshape, family=FAMILY,
              doc="reshape to the run-time shape output_shape."), globals())


# Dimension sizes --------------------------------------------------------------------------------------------------

def _get_dimension_size(args):
    """0 <= dimension < rank(operand) (C1); the size as a tensor<i32>."""
    r = rank(args.operand)
    require(0 <= args.dimension < r, f"dimension must be in [0, {r}), got {args.dimension}")
    return tensor((), ir.IntegerType.get_signless(32))


export(OpSpec("get_dimension_size", (Operand("operand"), Attr("dimension", A.Integer(), REQUIRED)),
              _get_dimension_size, family=FAMILY, doc="The size of one dimension of operand, as a tensor<i32>."),
       globals())


def _set_dimension_size(args):
    """size is a tensor<i32>; 0 <= dimension < rank; the dimension becomes dynamic, bounded by its old size."""
    require(str(args.size.type) == "tensor<i32>", f"size must be a tensor<i32>, got {args.size.type}", TypeError)
    dims = list(shape(args.operand))
    d = args.dimension
    require(0 <= d < len(dims), f"dimension must be in [0, {len(dims)}), got {d}")
    bounds = bounds_of(args.operand.type) or [None] * len(dims)
    if dims[d] is not None:
        bounds[d] = dims[d]
    dims[d] = None
    size = constant_ints(args.size)
    if size is not None and bounds[d] is not None and size[0] == bounds[d]:
        dims[d], bounds[d] = size[0], None  # set to its own bound: the size stays static
    return bounded(dims, elem(args.operand), bounds)


export(OpSpec("set_dimension_size", (Operand("operand"), Operand("size"), Attr("dimension", A.Integer(), REQUIRED)),
              _set_dimension_size, family=FAMILY,
              doc="operand with a run-time size for one dimension (bounded by its static size)."), globals())


# real_dynamic_slice -----------------------------------------------------------------------------------------------

def _real_dynamic_slice(args):
    """Indices of one type, one per dimension; from constants: 0 <= start <= limit <= size, strides > 0."""
    dims = shape(args.operand)
    start, limit, strides = index_operands(args, ("start_indices", "limit_indices", "strides"), len(dims))
    if strides is not None:
        require(all(s > 0 for s in strides), f"strides must be positive, got {strides}")
    if start is None or limit is None or strides is None:
        return tensor([None] * len(dims), elem(args.operand))
    return tensor(sliced_dims(dims, start, limit, strides), elem(args.operand))


export(OpSpec("real_dynamic_slice", (Operand("operand"), Operand("start_indices"), Operand("limit_indices"),
                                     Operand("strides")),
              _real_dynamic_slice, family=FAMILY, doc="slice with run-time start, limit and stride tensors."),
       globals())
