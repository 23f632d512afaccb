"""Indexing ops: gather, dynamic_gather and scatter, with operand/start-indices batching dimensions.

gather and dynamic_gather share one rule (dynamic_gather's slice sizes are an
operand, known when a constant op made it). The rules follow the
specification's constraints in order; each message states the broken one.
"""

from __future__ import annotations

from oxla.dialects.stablehlo import attributes as A
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import REQUIRED, Attr, Operand, OpSpec, Region, export
from oxla.dialects.stablehlo.rules import (
    check_dims, compatible, constant_ints, elem, expect_element, require, same_dim, scalars, shape, tensor, unique)

FAMILY = "indexing"


def _sorted_unique(dims, what: str) -> None:
    """Dimension numbers that must be sorted and not repeat."""
    require(list(dims) == sorted(set(dims)), f"{what} must be sorted and unique, got {list(dims)}")


def _sorted_in_range(dims: list, bound: int, what: str) -> None:
    """Dimension numbers that must be sorted, unique and in [0, bound)."""
    require(dims == sorted(dims), f"{what} must be sorted, got {dims}")
    check_dims(dims, bound, what)


def _disjoint(a, b, names: str) -> None:
    """Two dimension lists that together must not repeat a dimension."""
    require(unique(list(a) + list(b)), f"{names} together must not repeat a dimension, got {list(a)} and {list(b)}")


def _index_vector(indices_shape: tuple, index_vector_dim: int, what: str) -> int:
    """Checks index_vector_dim in [0, rank(indices)]; the index vector's length (None if dynamic, 1 if implicit)."""
    require(0 <= index_vector_dim <= len(indices_shape),
            f"index_vector_dim must be in [0, rank({what}) = {len(indices_shape)}], got {index_vector_dim}")
    return indices_shape[index_vector_dim] if index_vector_dim < len(indices_shape) else 1


def _batching(operand_shape, indices_shape, operand_dims, indices_dims, index_vector_dim, names) -> None:
    """Operand and indices batching dims: unique, in range, not index_vector_dim, paired with equal sizes."""
    operand_name, indices_name, operand_dims_name, indices_dims_name = names
    require(unique(indices_dims),
            f"{indices_dims_name} must be unique, got {list(indices_dims)}")
    check_dims(indices_dims, len(indices_shape), indices_dims_name)
    require(index_vector_dim not in indices_dims,
            f"{indices_dims_name} ({list(indices_dims)}) must not include index_vector_dim ({index_vector_dim})")
    require(len(operand_dims) == len(indices_dims),
            f"{operand_dims_name} and {indices_dims_name} must have the same size, "
            f"got {list(operand_dims)} and {list(indices_dims)}")
    for i, (a, b) in enumerate(zip(operand_dims, indices_dims)):
        require(same_dim(operand_shape[a], indices_shape[b]),
                f"{operand_dims_name}[{i}] and {indices_dims_name}[{i}] must have the same size: {operand_name} "
                f"dimension {a} is {operand_shape[a]}, {indices_name} dimension {b} is {indices_shape[b]}")


def _batch_sizes(indices_shape: tuple, index_vector_dim: int) -> list:
    """The indices' dims without the index vector dimension."""
    return [d for i, d in enumerate(indices_shape) if i != index_vector_dim]


# gather, dynamic_gather ---------------------------------------------------------------------------------------------

def _gather_dims(operand, start_indices, dn: A.GatherDimensionNumbers, slice_sizes) -> list:
    """The gather result dims; `slice_sizes` may hold None for sizes not known when building."""
    expect_element(start_indices, "start_indices", "int")
    os_, ss = shape(operand), shape(start_indices)
    offset, collapsed, batching = list(dn.offset_dims), list(dn.collapsed_slice_dims), list(dn.operand_batching_dims)
    start_index_map, ivd = list(dn.start_index_map), dn.index_vector_dim
    require(len(os_) == len(offset) + len(collapsed) + len(batching),
            f"rank(operand) ({len(os_)}) must be size(offset_dims) + size(collapsed_slice_dims) + "
            f"size(operand_batching_dims) = {len(offset)} + {len(collapsed)} + {len(batching)}")
    index_size = _index_vector(ss, ivd, "start_indices")
    require(index_size is None or index_size == len(start_index_map),
            f"start_index_map ({start_index_map}) must have one entry per index of start_indices' index vector "
            f"dimension ({index_size})")
    _sorted_unique(offset, "offset_dims")
    result_rank = len(offset) + len(ss) - (1 if ivd < len(ss) else 0)
    check_dims(offset, result_rank, "offset_dims")
    _disjoint(collapsed, batching, "collapsed_slice_dims and operand_batching_dims")
    _sorted_in_range(collapsed, len(os_), "collapsed_slice_dims")
    _sorted_in_range(batching, len(os_), "operand_batching_dims")
    _batching(os_, ss, batching, dn.start_indices_batching_dims, ivd,
              ("operand", "start_indices", "operand_batching_dims", "start_indices_batching_dims"))
    _disjoint(start_index_map, batching, "start_index_map and operand_batching_dims")
    check_dims(start_index_map, len(os_), "start_index_map")
    require(len(slice_sizes) == len(os_),
            f"slice_sizes must have rank(operand) = {len(os_)} entries, got {slice_sizes}")
    for what, dims in (("collapsed_slice_dims", collapsed), ("operand_batching_dims", batching)):
        require(all(slice_sizes[d] is None or slice_sizes[d] <= 1 for d in dims),
                f"slice_sizes must be 0 or 1 in {what} {dims}, got {slice_sizes}")
    for i, (size, bound) in enumerate(zip(slice_sizes, os_)):
        require(size is None or (size >= 0 and (bound is None or size <= bound)),
                f"slice_sizes[{i}] ({size}) must be in [0, {bound}] (operand dimension {i})")
    offset_sizes = iter([s for d, s in enumerate(slice_sizes) if d not in collapsed and d not in batching])
    batch_sizes = iter(_batch_sizes(ss, ivd))
    return [next(offset_sizes) if d in offset else next(batch_sizes) for d in range(result_rank)]


def _gather(args):
    """Batch dims from start_indices (less the index vector dim), offset dims from slice_sizes (less collapsed and
    batching dims), placed at offset_dims; the operand's element type."""
    dims = _gather_dims(args.operand, args.start_indices, args.dimension_numbers, list(args.slice_sizes))
    return tensor(dims, elem(args.operand))


def _dynamic_gather(args):
    """As gather, with slice_sizes a 1-D integer operand (its values known when a constant op made it)."""
    expect_element(args.slice_sizes, "slice_sizes", "int")
    sizes_shape = shape(args.slice_sizes)
    require(len(sizes_shape) == 1 and sizes_shape[0] is not None,
            f"slice_sizes must be a 1-D tensor of static size, got shape {list(sizes_shape)}")
    values = constant_ints(args.slice_sizes)
    sizes = values if values is not None else [None] * sizes_shape[0]
    return tensor(_gather_dims(args.operand, args.start_indices, args.dimension_numbers, sizes), elem(args.operand))


_GATHER_DN = Attr("dimension_numbers", A.Canonical(A.Struct(A.GatherDimensionNumbers, "gather")), REQUIRED)

export(OpSpec("gather", (Operand("operand"), Operand("start_indices"), _GATHER_DN,
                         Attr("slice_sizes", A.I64Array(), REQUIRED), Attr("indices_are_sorted", A.Bool(), False)),
              _gather, family=FAMILY, doc="Gathers slices of operand at the offsets start_indices holds."), globals())
export(OpSpec("dynamic_gather", (Operand("operand"), Operand("start_indices"), Operand("slice_sizes"), _GATHER_DN,
                                 Attr("indices_are_sorted", A.Bool(), False)),
              _dynamic_gather, family=FAMILY, doc="gather with the slice sizes given as an operand."), globals())


# scatter ------------------------------------------------------------------------------------------------------------

def _scatter_arguments(args):
    """update_computation takes a scalar of each input's element type, then one of each update's (the same)."""
    return scalars(args.inputs) * 2


def _scatter_dimension_numbers(inputs_shape, indices_shape, updates_rank, dn: A.ScatterDimensionNumbers) -> None:
    """The constraints on scatter_dimension_numbers alone (against the operands' ranks and batching sizes)."""
    window, inserted = list(dn.update_window_dims), list(dn.inserted_window_dims)
    batching = list(dn.input_batching_dims)
    to_operand, ivd = list(dn.scatter_dims_to_operand_dims), dn.index_vector_dim
    rank = len(inputs_shape)
    require(rank == len(window) + len(inserted) + len(batching),
            f"rank(inputs[0]) ({rank}) must be size(update_window_dims) + size(inserted_window_dims) + "
            f"size(input_batching_dims) = {len(window)} + {len(inserted)} + {len(batching)}")
    _sorted_unique(window, "update_window_dims")
    check_dims(window, updates_rank, "update_window_dims")
    _disjoint(inserted, batching, "inserted_window_dims and input_batching_dims")
    _sorted_in_range(inserted, rank, "inserted_window_dims")
    _sorted_in_range(batching, rank, "input_batching_dims")
    _batching(inputs_shape, indices_shape, batching, dn.scatter_indices_batching_dims, ivd,
              ("inputs[0]", "scatter_indices", "input_batching_dims", "scatter_indices_batching_dims"))
    index_size = _index_vector(indices_shape, ivd, "scatter_indices")
    require(index_size is None or index_size == len(to_operand),
            f"scatter_dims_to_operand_dims ({to_operand}) must have one entry per index of scatter_indices' index "
            f"vector dimension ({index_size})")
    _disjoint(to_operand, batching, "scatter_dims_to_operand_dims and input_batching_dims")
    check_dims(to_operand, rank, "scatter_dims_to_operand_dims")


def _scatter_updates_shape(inputs_shape, indices_shape, updates_shape, dn: A.ScatterDimensionNumbers) -> None:
    """updates: scatter dims sized as the indices' (less the index vector dim), window dims within the inputs'."""
    window = list(dn.update_window_dims)
    scatter_sizes = _batch_sizes(indices_shape, dn.index_vector_dim)
    require(len(updates_shape) == len(scatter_sizes) + len(window),
            f"updates must have rank {len(scatter_sizes) + len(window)} (the scatter_indices' dims less the index "
            f"vector dim, plus update_window_dims), got shape {list(updates_shape)}")
    bounds = iter([d for i, d in enumerate(inputs_shape)
                   if i not in dn.inserted_window_dims and i not in dn.input_batching_dims])
    sizes = iter(scatter_sizes)
    for d, size in enumerate(updates_shape):
        if d in window:
            bound = next(bounds)
            require(size is None or bound is None or size <= bound,
                    f"updates dimension {d} ({size}) is a window dimension and must not exceed the inputs' {bound}")
        else:
            expected = next(sizes)
            require(same_dim(size, expected),
                    f"updates dimension {d} ({size}) is a scatter dimension and must equal the scatter_indices' "
                    f"{expected}")


def _scatter(args):
    """Inputs of one shape, updates of one shape fitting the indices and window; results: the inputs' shapes with the
    element types update_computation returns."""
    inputs, updates, dn = args.inputs, args.updates, args.scatter_dimension_numbers
    require(0 < len(inputs) == len(updates),
            f"scatter needs as many updates as inputs, and at least one; got {len(inputs)} and {len(updates)}")
    expect_element(args.scatter_indices, "scatter_indices", "int")
    inputs_shape, updates_shape = shape(inputs[0]), shape(updates[0])
    for i, v in enumerate(inputs):
        require(compatible(shape(v), inputs_shape),
                f"inputs must have the same shape, got {[list(shape(x)) for x in inputs]}")
        require(compatible(shape(updates[i]), updates_shape),
                f"updates must have the same shape, got {[list(shape(x)) for x in updates]}")
        require(elem(updates[i]) == elem(v), f"updates[{i}] must have the element type of inputs[{i}], "
                                             f"got {elem(updates[i])} and {elem(v)}", TypeError)
    indices_shape = shape(args.scatter_indices)
    _scatter_dimension_numbers(inputs_shape, indices_shape, len(updates_shape), dn)
    _scatter_updates_shape(inputs_shape, indices_shape, updates_shape, dn)
    returned = args.region_results[0]
    require(len(returned) == len(inputs) and all(T.is_tensor(t) and not shape(t) for t in returned),
            f"update_computation must return {len(inputs)} scalar tensor(s), one per input, got "
            f"{[str(t) for t in returned]}")
    return [tensor(shape(v), elem(t)) for v, t in zip(inputs, returned)]


export(OpSpec("scatter", (Operand("inputs", variadic=True), Operand("scatter_indices"),
                          Operand("updates", variadic=True),
                          Attr("scatter_dimension_numbers",
                               A.Canonical(A.Struct(A.ScatterDimensionNumbers, "scatter")), REQUIRED),
                          Attr("indices_are_sorted", A.Bool(), False), Attr("unique_indices", A.Bool(), False),
                          Region("update_computation", _scatter_arguments)),
              _scatter, results="variadic", family=FAMILY, infer_after_regions=True,
              doc="The inputs with slices at scatter_indices combined with updates by update_computation."), globals())
