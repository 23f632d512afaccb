"""Data movement ops: constants, iota, broadcasts, reshapes, slices, pads, concatenation, sort and tuples.

(The module defines builders named `tuple` and `slice`, which hide the
builtins here: the rules below do not call either.)

Shapes the op cannot take from its operands (a broadcast's or reshape's
result, an iota's) are Python-only parameters of the builders; attributes
are plain lists and ints. `constant` takes numpy arrays and Python values
of every element type, complex ones included, and `ConstantOp.value` reads
the value back as a numpy array.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects.elements import constant_value, parse_dense, value_text
from oxla.dialects.stablehlo import attributes as A
from oxla.dialects.stablehlo import quant_types as QT
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import (
    BUILDERS, CLASSES, OPS, REQUIRED, Attr, Builder, Operand, OpSpec, Param, Region, _as_types, build_error,
    export)
from oxla.dialects.stablehlo.rules import (
    bounded, bounds_of, check_dims, check_permutation, compatible, dtype_param, elem, expect_element, fail, merge,
    padded_size, per_tensor_only, rank, require, same_shape, scalars, shape, size_of, static_shape_param, tensor)

FAMILY = "data_movement"


# Rules that dynamism's shape-operand forms of these ops share ------------------------------------------------------

def reshaped_quantized_axis(element, before: tuple, after: tuple) -> ir.Type:
    """The element type of a reshape's result: a per-axis quantized dimension must survive the reshape (C3)."""
    axis = QT.quantization_dimension(element)
    if axis is None:
        return element
    lead = size_of(before[:axis])
    for d in range(len(after)):
        if after[d] == before[axis] and size_of(after[:d]) == lead and lead is not None:
            return QT.with_axis(element, d)
    fail(f"the quantization dimension {axis} of operand (size {before[axis]}) must stay a dimension of the result "
         f"with the same number of elements before and after it; shape {list(after)} has none")


def check_broadcast(operand_dims, broadcast_dimensions, result_dims) -> None:
    """broadcast_in_dim C2-C5: one result dimension per operand dimension, unique, in range, sizes 1 or equal."""
    require(len(broadcast_dimensions) == len(operand_dims),
            f"broadcast_dimensions must have one entry per operand dimension ({len(operand_dims)}), "
            f"got {list(broadcast_dimensions)}")
    check_dims(broadcast_dimensions, len(result_dims), "broadcast_dimensions")
    for d, (size, target) in enumerate(zip(operand_dims, broadcast_dimensions)):
        require(size in (1, None) or result_dims[target] in (size, None),
                f"operand dimension {d} (size {size}) must be 1 or the size of result dimension {target} "
                f"({result_dims[target]})")


def broadcast_element(operand, broadcast_dimensions, result_dims) -> ir.Type:
    """broadcast_in_dim C1/C6: the operand's element type, a per-axis quantization moved to its result dimension."""
    e = elem(operand)
    axis = QT.quantization_dimension(e)
    if axis is None:
        return e
    d = broadcast_dimensions[axis]
    grows = shape(operand)[axis] == 1 and result_dims[d] is not None
    return QT.with_axis(e, d, result_dims[d] if grows else None)


def check_padding_value(args) -> None:
    """pad: a tensor operand (not per-axis quantized) and a 0-d padding_value of its element type (C1)."""
    per_tensor_only(args.operand, "operand")
    require(elem(args.padding_value) == elem(args.operand),
            f"padding_value must have the element type of operand, got {elem(args.padding_value)}", TypeError)
    require(rank(args.padding_value) == 0,
            f"padding_value must be a 0-dimensional tensor, got {args.padding_value.type}")


def padded_dims(dims, bounds, low, high, interior) -> tuple[list, list]:
    """pad's result dimensions and their bounds (C4), each checked non-negative; None stays None."""
    result = [padded_size(*a) for a in zip(dims, low, high, interior)]
    result_bounds = [padded_size(*a) for a in zip(bounds, low, high, interior)]
    for d, (size, bound) in enumerate(zip(result, result_bounds)):
        require(size is None or size >= 0, f"padding makes dimension {d} negative ({size})")
        require(bound is None or bound >= 0, f"padding makes the bound of dimension {d} negative ({bound})")
    return result, result_bounds


def sliced_dims(dims, start, limit, strides) -> list:
    """slice's result dimensions: 0 <= start <= limit <= size (C3) and positive strides (C4) per dimension."""
    result = []
    for d, (size, a, b, s) in enumerate(zip(dims, start, limit, strides)):
        require(0 <= a <= b and (size is None or b <= size),
                f"dimension {d} needs 0 <= start_indices <= limit_indices <= {size if size is not None else 'its size'}"
                f", got start {a} and limit {b}")
        require(s > 0, f"strides must be positive, got {list(strides)}")
        result.append(-(-(b - a) // s))
    return result


def _one_per_dimension(n: int, lists: dict) -> None:
    """Each named attribute list has one entry per operand dimension."""
    for name, values in lists.items():
        require(len(values) == n, f"{name} must have one entry per operand dimension ({n}), got {list(values)}")


# constant ---------------------------------------------------------------------------------------------------------

def _constant(args):
    """The value's type: its shape, and its dtype or the given one (which must hold the values exactly)."""
    if isinstance(args.value, ir.Attribute):
        require(isinstance(args.value, ir.DenseElementsAttr), f"value must be a dense elements attribute, got {args.value}",
                TypeError)
        return args.value.type
    source = np.asarray(args.value)
    if args.dtype is None:
        element = dtype_param(source.dtype)
    else:
        element = dtype_param(args.dtype)
    require(T.is_complex(element) or source.dtype.kind != "c", f"complex values need a complex dtype, got {element}",
            TypeError)
    if (T.is_integer(element) or T.is_bool(element)) and source.dtype.kind in "iufb" and source.size:
        lo, hi = _integer_range(element)
        require((source.dtype.kind != "f" or np.array_equal(np.trunc(source), source))
                and lo <= int(source.min()) and int(source.max()) <= hi,
                f"values must be integers in [{lo}, {hi}] to fit in {element}")
    try:
        args.text = A.dense_text(source, element)
    except OverflowError:
        fail(f"value does not fit in {element}")
    except (TypeError, ValueError) as e:
        fail(f"value cannot be held as {element}: {e}", TypeError)
    return T.ranked(source.shape, element)


def _integer_range(element) -> tuple[int, int]:
    """The smallest and largest value of an integer (or boolean) element type."""
    width = ir.IntegerType(element).width
    if T.is_bool(element) or T.is_unsigned(element):
        return 0, 2 ** width - 1
    return -2 ** (width - 1), 2 ** (width - 1) - 1


class ConstantBuilder(Builder):
    """constant's builder: the value converts once its dtype is known, and goes into the op through its text.

    The bindings cannot hold complex elements attributes, so every constant is
    created by parsing the op's generic form (with the builder's location) and
    inserting it at the insertion point; a given `ir.Attribute` is used as is.
    """

    @staticmethod
    def _attribute(p, value, attrs):
        """The value stays a Python value for the rule; an ir.Attribute is stored unchanged."""
        if p.name != "value":
            return Builder._attribute(p, value, attrs)
        if value is REQUIRED or value is None:
            raise TypeError("attribute value is required")
        if isinstance(value, ir.Attribute):
            attrs["value"] = value
        return value

    def _create(self, args, flat, attrs, result_types, loc, ip):
        """Creates the constant from its generic text (or the given attribute); the rule always converts the value."""
        inferred = self._infer(args)
        types = inferred if result_types is None else _as_types(result_types)
        if "value" in attrs:
            return ir.Operation.create(self.spec.full_name, results=types, attributes=attrs, loc=loc, ip=ip)
        text = f'"{self.spec.full_name}"() <{{value = {args.text}}}> : () -> {types[0]} {loc}'
        try:
            op = ir.Operation.parse(text, context=ir.context()).operation
        except ir.MLIRError as e:  # the parser already checks the result type against the value's
            messages = "; ".join(d.message for d in e.error_diagnostics) or str(e)
            raise build_error(self.spec, ValueError, f"the op does not verify: {messages}", args) from None
        ip.insert(op)
        return op


def _constant_value_property(self) -> np.ndarray:
    """The constant's value as a numpy array (complex and narrow element types included)."""
    try:
        return constant_value(self.operation)
    except (KeyError, TypeError):  # a quantized result: read the value with its own (storage) type
        literal, value_type = value_text(self.operation)
        return parse_dense(literal, ir.ShapedType(ir.Type.parse(value_type, ir.context())))


export(OpSpec("constant", (Attr("value", A.Elements(), REQUIRED), Param("dtype", None)), _constant, family=FAMILY,
              result_names=("output",),
              doc="A tensor constant from a numpy array or Python value (dtype from the value unless given)."),
       globals())
constant = BUILDERS["stablehlo.constant"] = ConstantBuilder(OPS["stablehlo.constant"])
constant.__module__ = __name__
CLASSES["stablehlo.constant"].value = property(_constant_value_property, doc=_constant_value_property.__doc__)


# iota -------------------------------------------------------------------------------------------------------------

def check_iota_element(element) -> None:
    """iota's result holds integers, floats, complex numbers or quantized values (not booleans)."""
    require(not T.is_bool(element) and (T.is_integer(element) or T.is_float(element) or T.is_complex(element)
                                        or T.is_quantized(element)),
            f"the result must have integer, floating-point, complex or quantized elements, got {element}", TypeError)


def _iota(args):
    """Static shape of rank >= 1; 0 <= iota_dimension < rank (C1); any numeric dtype."""
    dims = static_shape_param(args.shape)
    element = dtype_param(args.dtype)
    check_iota_element(element)
    require(dims, "the result must have rank >= 1 (iota of a scalar is not defined)")
    require(0 <= args.iota_dimension < len(dims),
            f"iota_dimension must be in [0, {len(dims)}), got {args.iota_dimension}")
    return tensor(dims, element)


export(OpSpec("iota", (Param("shape"), Attr("iota_dimension", A.Integer(), REQUIRED), Param("dtype")), _iota,
              family=FAMILY, result_names=("output",),
              doc="A tensor of the given shape counting 0, 1, 2, ... along iota_dimension."), globals())


# Broadcasts -------------------------------------------------------------------------------------------------------

def _broadcast_in_dim(args):
    """Static result shape; broadcast_dimensions map operand dims to result dims of size 1-compatible (C1-C6)."""
    dims = static_shape_param(args.shape)
    check_broadcast(shape(args.operand), args.broadcast_dimensions, dims)
    return tensor(dims, broadcast_element(args.operand, args.broadcast_dimensions, dims))


export(OpSpec("broadcast_in_dim", (Operand("operand"), Attr("broadcast_dimensions", A.I64Array(), REQUIRED),
                                   Param("shape")),
              _broadcast_in_dim, family=FAMILY,
              doc="Broadcasts operand to `shape`, operand dimension i becoming result dimension "
                  "broadcast_dimensions[i]."), globals())


def _broadcast(args):
    """Non-negative broadcast_sizes become the leading dimensions of the result."""
    per_tensor_only(args.operand, "operand")
    require(all(s >= 0 for s in args.broadcast_sizes),
            f"broadcast_sizes must be non-negative, got {list(args.broadcast_sizes)}")
    return tensor(list(args.broadcast_sizes) + list(shape(args.operand)), elem(args.operand))


export(OpSpec("broadcast", (Operand("operand"), Attr("broadcast_sizes", A.I64Array(), REQUIRED)), _broadcast,
              family=FAMILY, doc="Deprecated: prepends broadcast_sizes dimensions (use broadcast_in_dim)."),
       globals())


# Reshapes and permutations ----------------------------------------------------------------------------------------

def _reshape(args):
    """Static result shape with as many elements as the operand (C2); per-axis quantization follows (C1, C3)."""
    dims = static_shape_param(args.shape)
    before = shape(args.operand)
    n = size_of(before)
    require(n is None or n == size_of(dims),
            f"the result must have as many elements as the operand: {list(before)} has {n}, "
            f"{list(dims)} has {size_of(dims)}")
    return tensor(dims, reshaped_quantized_axis(elem(args.operand), before, dims))


export(OpSpec("reshape", (Operand("operand"), Param("shape")), _reshape, family=FAMILY,
              doc="The operand's elements, in order, in a tensor of another static shape."), globals())


def _transpose(args):
    """permutation is a permutation of the operand's dimensions (C2); result dims permuted (C3, C4)."""
    dims = shape(args.operand)
    perm = list(args.permutation)
    check_permutation(perm, len(dims), "permutation")
    e = elem(args.operand)
    axis = QT.quantization_dimension(e)
    if axis is not None:
        e = QT.with_axis(e, perm.index(axis))
    bounds = bounds_of(args.operand.type)
    return bounded([dims[p] for p in perm], e, [bounds[p] for p in perm] if bounds else [])


export(OpSpec("transpose", (Operand("operand"), Attr("permutation", A.I64Array(), REQUIRED)), _transpose,
              family=FAMILY, doc="Permutes dimensions: result dimension d is operand dimension permutation[d]."),
       globals())


def _reverse(args):
    """dimensions are unique (C2) and in [0, rank) (C3); the type is unchanged (C1)."""
    per_tensor_only(args.operand, "operand")
    check_dims(args.dimensions, rank(args.operand), "dimensions")
    return args.operand.type


export(OpSpec("reverse", (Operand("operand"), Attr("dimensions", A.I64Array(), REQUIRED)), _reverse, family=FAMILY,
              doc="Reverses the order of elements along the given dimensions."), globals())


# Concatenate and pad ----------------------------------------------------------------------------------------------

def _concatenate(args):
    """Inputs of one element type and rank, equal but for `dimension`, whose sizes add up (C1-C6)."""
    inputs = args.inputs
    require(inputs, "concatenate needs at least one input")
    for i, v in enumerate(inputs):
        per_tensor_only(v, f"inputs[{i}]")
        require(elem(v) == elem(inputs[0]), f"inputs must have the same element type: inputs[0] has "
                f"{elem(inputs[0])}, inputs[{i}] has {elem(v)}", TypeError)
    r, d = rank(inputs[0]), args.dimension
    require(r > 0, "inputs must have rank >= 1")
    require(0 <= d < r, f"dimension must be in [0, {r}), got {d}")
    dims, bounds = [None] * r, [None] * r
    dims[d] = 0
    for i, v in enumerate(inputs):
        s, b = shape(v), bounds_of(v.type) or [None] * len(shape(v))
        require(len(s) == r and compatible(s[:d] + s[d + 1:], shape(inputs[0])[:d] + shape(inputs[0])[d + 1:]),
                f"inputs must have the same shape except in dimension {d}: inputs[0] is {list(shape(inputs[0]))}, "
                f"inputs[{i}] is {list(s)}")
        for k in range(r):
            dims[k], bounds[k] = (_concatenated if k == d else _merged)(dims[k], s[k], bounds[k], b[k], k)
    return bounded(dims, elem(inputs[0]), bounds)


def _concatenated(size, other, bound, other_bound, k):
    """(size, bound) of two dimensions joined end to end: a sum of sizes, else of sizes or bounds."""
    if size is not None and other is not None:
        return size + other, None
    a, b = (size if size is not None else bound), (other if other is not None else other_bound)
    return None, (a + b if a is not None and b is not None else None)


def _merged(size, other, bound, other_bound, k):
    """(size, bound) of two dimensions that must be equal: the static size, else the tighter bound."""
    if size is not None or other is not None:
        require(size is None or other is None or size == other,
                f"inputs must have the same shape except in the concatenated dimension; dimension {k} is {size} "
                f"and {other}")
        known = size if size is not None else other
        limit = bound if bound is not None else other_bound
        require(limit is None or known <= limit, f"inputs' dimension {k} has size {known} beyond its bound {limit}")
        return known, None
    return None, (min(bound, other_bound) if None not in (bound, other_bound) else
                  bound if bound is not None else other_bound)


export(OpSpec("concatenate", (Operand("inputs", variadic=True), Attr("dimension", A.Integer(), REQUIRED)),
              _concatenate, family=FAMILY, doc="Joins the inputs, in order, along `dimension`."), globals())


def _no_interior(args):
    """Default interior_padding: none in every dimension."""
    return [0] * rank(args.operand)


def _pad(args):
    """padding_value is a scalar of operand's element type (C1); one padding per dim (C2), interior >= 0 (C3)."""
    check_padding_value(args)
    dims = shape(args.operand)
    low, high, interior = args.edge_padding_low, args.edge_padding_high, args.interior_padding
    _one_per_dimension(len(dims), {"edge_padding_low": low, "edge_padding_high": high, "interior_padding": interior})
    require(all(i >= 0 for i in interior), f"interior_padding must be non-negative, got {list(interior)}")
    result, bounds = padded_dims(dims, bounds_of(args.operand.type) or [None] * len(dims), low, high, interior)
    return bounded(result, elem(args.operand), bounds)


export(OpSpec("pad", (Operand("operand"), Operand("padding_value"), Attr("edge_padding_low", A.I64Array(), REQUIRED),
                      Attr("edge_padding_high", A.I64Array(), REQUIRED),
                      Attr("interior_padding", A.I64Array(), _no_interior)),
              _pad, family=FAMILY,
              doc="Pads with padding_value at both edges (negative edges crop) and between elements."), globals())


# Slices -----------------------------------------------------------------------------------------------------------

def _unit_strides(args):
    """Default strides: 1 in every dimension."""
    return [1] * rank(args.operand)


def _slice(args):
    """One start/limit/stride per dimension (C2), 0 <= start <= limit <= size (C3), strides > 0 (C4)."""
    per_tensor_only(args.operand, "operand")
    dims = shape(args.operand)
    start, limit, strides = args.start_indices, args.limit_indices, args.strides
    _one_per_dimension(len(dims), {"start_indices": start, "limit_indices": limit, "strides": strides})
    return tensor(sliced_dims(dims, start, limit, strides), elem(args.operand))


export(OpSpec("slice", (Operand("operand"), Attr("start_indices", A.I64Array(), REQUIRED),
                        Attr("limit_indices", A.I64Array(), REQUIRED), Attr("strides", A.I64Array(), _unit_strides)),
              _slice, family=FAMILY, doc="Elements from start_indices up to limit_indices (exclusive) every strides."),
       globals())


def check_start_indices(indices, n: int) -> None:
    """dynamic slices: one 0-d integer index per operand dimension, all of one type."""
    require(len(indices) == n, f"start_indices must have one index per operand dimension ({n}), got {len(indices)}")
    for i, v in enumerate(indices):
        expect_element(v, f"start_indices[{i}]", "int")
        require(rank(v) == 0, f"start_indices[{i}] must be a 0-dimensional tensor, got {v.type}")
        require(v.type == indices[0].type, f"start_indices must have the same type: start_indices[0] is "
                f"{indices[0].type}, start_indices[{i}] is {v.type}", TypeError)


def _dynamic_slice(args):
    """One start index per dimension (C2, C3); 0 <= slice_sizes <= operand's shape (C4); the result is that shape."""
    per_tensor_only(args.operand, "operand")
    dims = shape(args.operand)
    sizes = list(args.slice_sizes)
    _one_per_dimension(len(dims), {"slice_sizes": sizes})
    check_start_indices(args.start_indices, len(dims))
    for d, (size, s) in enumerate(zip(dims, sizes)):
        require(0 <= s and (size is None or s <= size),
                f"slice_sizes must be in [0, operand size] per dimension; dimension {d} has size {size}, got {s}")
    return tensor(sizes, elem(args.operand))


export(OpSpec("dynamic_slice", (Operand("operand"), Operand("start_indices", variadic=True),
                                Attr("slice_sizes", A.I64Array(), REQUIRED)),
              _dynamic_slice, family=FAMILY,
              doc="A slice_sizes slice at run-time start indices (clamped to stay inside the operand)."), globals())


def _dynamic_update_slice(args):
    """update has operand's element type (C2) and rank (C3), fits inside it (C6); indices per dim (C4, C5)."""
    per_tensor_only(args.operand, "operand")
    require(elem(args.update) == elem(args.operand),
            f"update must have the element type of operand, got {elem(args.update)}", TypeError)
    dims, update = shape(args.operand), shape(args.update)
    require(len(update) == len(dims), f"update must have the rank of operand ({len(dims)}), got {args.update.type}")
    check_start_indices(args.start_indices, len(dims))
    for d, (size, u) in enumerate(zip(dims, update)):
        require(u is None or size is None or u <= size,
                f"update must fit in operand: dimension {d} of update is {u}, of operand {size}")
    return args.operand.type


export(OpSpec("dynamic_update_slice", (Operand("operand"), Operand("update"), Operand("start_indices", variadic=True)),
              _dynamic_update_slice, family=FAMILY,
              doc="operand with the slice at run-time start indices (clamped) replaced by update."), globals())


# Sort -------------------------------------------------------------------------------------------------------------

def _check_sort_inputs(args) -> None:
    """Inputs of one shape (C1, C3); -rank <= dimension < rank (C4)."""
    require(args.inputs, "sort needs at least one input")
    for i, v in enumerate(args.inputs):
        per_tensor_only(v, f"inputs[{i}]")
    same_shape({f"inputs[{i}]": v for i, v in enumerate(args.inputs)})
    r = rank(args.inputs[0])
    require(-r <= args.dimension < r, f"dimension must be in [{-r}, {r}), got {args.dimension}")


def _sort_arguments(args):
    """The comparator takes two scalars (lhs, rhs) per input (checked before the comparator is built)."""
    _check_sort_inputs(args)
    return [t for t in scalars(args.inputs) for _ in range(2)]


def _sort(args):
    """The inputs' rules (C1-C4); the comparator returns one tensor<i1> (C5); results have the inputs' types (C2)."""
    _check_sort_inputs(args)
    returned = args.region_results[0]
    require(len(returned) == 1 and T.is_tensor(returned[0]) and str(returned[0]) == "tensor<i1>",
            f"the comparator must return one tensor<i1>, got ({', '.join(map(str, returned))})", TypeError)
    return [v.type for v in args.inputs]


export(OpSpec("sort", (Operand("inputs", variadic=True), Attr("dimension", A.Integer(), -1),
                       Attr("is_stable", A.Bool(), False), Region("comparator", _sort_arguments)),
              _sort, results="variadic", family=FAMILY, infer_after_regions=True,
              doc="Sorts the inputs together along `dimension` (-1: the last) by the comparator's less-than."),
       globals())


# Tuples -----------------------------------------------------------------------------------------------------------

def _tuple(args):
    """A tuple of the operands' types (C1)."""
    return T.tuple_type([v.type for v in args.val])


export(OpSpec("tuple", (Operand("val", variadic=True),), _tuple, family=FAMILY,
              doc="Deprecated: a tuple of the values."), globals())


def _get_tuple_element(args):
    """operand is a tuple (I1); 0 <= index < its size (C1); the result is that element's type (C2)."""
    t = args.operand.type
    require(isinstance(t, ir.TupleType), f"operand must be a tuple, got {t}", TypeError)
    t = ir.TupleType(t)
    require(0 <= args.index < t.num_types, f"index must be in [0, {t.num_types}), got {args.index}")
    return t.get_type(args.index)


export(OpSpec("get_tuple_element", (Operand("operand"), Attr("index", A.Integer(32), REQUIRED)), _get_tuple_element,
              family=FAMILY, doc="Deprecated: element `index` of a tuple."), globals())


# torch_index_select -----------------------------------------------------------------------------------------------

def _torch_index_select(args):
    """Integer index; 0 <= batch_dims <= dim < rank(operand), leading batch dims shared; index dims replace dim."""
    expect_element(args.index, "index", "int")
    dims, index = shape(args.operand), shape(args.index)
    b, d = args.batch_dims, args.dim
    require(0 <= b <= len(index), f"batch_dims must be in [0, rank(index) = {len(index)}], got {b}")
    require(b <= d < len(dims), f"dim must be in [batch_dims, rank(operand)) = [{b}, {len(dims)}), got {d}")
    require(compatible(dims[:b], index[:b]),
            f"the first batch_dims ({b}) dimensions of operand and index must be equal: {list(dims)} and {list(index)}")
    return tensor(merge(dims[:b], index[:b]) + dims[b:d] + index[b:] + dims[d + 1:], elem(args.operand))


def _no_batch_dims(args):
    """Default batch_dims: none."""
    return 0


export(OpSpec("torch_index_select", (Operand("operand"), Operand("index"), Attr("dim", A.Integer(), REQUIRED),
                                     Attr("batch_dims", A.Integer(), _no_batch_dims)),
              _torch_index_select, family=FAMILY,
              doc="Deprecated: PyTorch's index_select along `dim`, with leading batch dimensions."), globals())
