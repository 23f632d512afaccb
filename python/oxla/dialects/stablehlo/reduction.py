"""Reductions: reduce, reduce_window, select_and_scatter and the batch normalization ops.

The reducing ops take a body callable whose block arguments are 0-d tensors
of the init values' element types, the accumulators first and then the
elements, as the specification's `body` signature orders them. Their result
element types are what the body returns, so the rules read the built body
(`infer_after_regions`) and state any mismatch as the specification's
constraint. Window shapes follow the specification's `num_windows` formula,
with a dynamic input dimension giving a dynamic result dimension.
"""

from __future__ import annotations

from oxla.dialects.stablehlo import attributes as A
from oxla.dialects.stablehlo import quant_types as QT
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import REQUIRED, Attr, Operand, OpSpec, Region, export
from oxla.dialects.stablehlo.rules import (
    check_dims, compatible, elem, expect_element, num_windows, padded_size, rank, require, same_shape, scalars, shape,
    tensor)

FAMILY = "reduction"


# Shared checks ----------------------------------------------------------------------------------------------------

def _reducer_arguments(check):
    """The body's block arguments after `check` (the op's operand and attribute rules, so that a broken one is
    reported before the body runs): accumulators, then elements, 0-d tensors of the init values' types."""
    def arguments(args) -> list:
        check(args)
        return scalars(args.init_values) * 2
    return arguments


def _check_inputs_and_inits(args) -> tuple:
    """Checks the common input rules of reduce and reduce_window; returns the inputs' merged shape."""
    inputs, inits = args.inputs, args.init_values
    require(inputs, "there must be at least one input (N > 0)")
    require(len(inputs) == len(inits),
            f"inputs and init_values must have the same size, got {len(inputs)} and {len(inits)}")
    dims = same_shape({f"inputs[{i}]": v for i, v in enumerate(inputs)})
    for i, (v, init) in enumerate(zip(inputs, inits)):
        require(T.is_tensor(init.type) and not shape(init), f"init_values[{i}] must be a 0-d tensor, got {init.type}")
        require(elem(v) == elem(init), f"inputs[{i}] and init_values[{i}] must have the same element type, "
                f"got {elem(v)} and {elem(init)}", TypeError)
    return dims


def _check_body(returned: list, expected: list, what: str) -> None:
    """Checks that a reducer body returns exactly the 0-d tensors `expected` (its accumulator types)."""
    require(len(returned) == len(expected),
            f"{what} must return {len(expected)} value(s), one per input, got {len(returned)}")
    for i, (got, want) in enumerate(zip(returned, expected)):
        require(got == want, f"{what} must return {want} at position {i} (the accumulator's type), got {got}",
                TypeError)


def _reduced_results(args, dims) -> list:
    """reduce's and reduce_window's results: `dims` of each element type the body returns (checked first)."""
    _check_body(args.region_results[0], scalars(args.init_values), "body")
    return [tensor(dims, elem(t)) for t in args.region_results[0]]


def _check_window_attribute(values, n: int, name: str) -> list:
    """Checks that a window attribute has one positive entry per dimension; ones if absent."""
    if values is None:
        return [1] * n
    require(len(values) == n, f"size of {name} must equal the rank of the input ({n}), got {list(values)}")
    require(all(v > 0 for v in values), f"{name} must be positive, got {list(values)}")
    return list(values)


def _check_padding(padding, n: int) -> list:
    """Checks padding's shape [rank, 2]; zeros if absent."""
    if padding is None:
        return [[0, 0]] * n
    require(len(padding) == n, f"padding must have shape [{n}, 2] (one [low, high] pair per dimension), "
            f"got {len(padding)} rows")
    return [list(p) for p in padding]


def _windows(dims, window, strides, padding, base_dilations=None, window_dilations=None) -> tuple:
    """The number of windows per dimension of the padded, base-dilated input (None where the input's is dynamic)."""
    n = len(dims)
    base_dilations = base_dilations or [1] * n
    window_dilations = window_dilations or [1] * n
    out = []
    for d, w, s, (lo, hi), bd, wd in zip(dims, window, strides, padding, base_dilations, window_dilations):
        padded = padded_size(d, lo, hi, bd - 1)
        require(padded is None or padded >= 0, f"padding leaves a negative size ({padded}) in a dimension of size {d}")
        out.append(num_windows(padded, w, s, wd))
    return tuple(out)


# reduce -----------------------------------------------------------------------------------------------------------

def _check_reduce_operands(args) -> list:
    """Inputs of one shape with their scalar inits, unique dimensions in range; returns the kept dimensions."""
    dims = _check_inputs_and_inits(args)
    check_dims(args.dimensions, len(dims), "dimensions")
    return [d for i, d in enumerate(dims) if i not in set(args.dimensions)]


def _reduce(args):
    """The result drops `dimensions` from the inputs' shape; its element types are what the body returns."""
    return _reduced_results(args, _check_reduce_operands(args))


export(OpSpec("reduce", (Operand("inputs", variadic=True), Operand("init_values", variadic=True),
                         Attr("dimensions", A.I64Array(), REQUIRED),
                         Region("body", _reducer_arguments(_check_reduce_operands))),
              _reduce, results="variadic", family=FAMILY, infer_after_regions=True,
              doc="Reduces the inputs along `dimensions` with the body, starting from the init values."), globals())


# reduce_window ----------------------------------------------------------------------------------------------------

def _check_reduce_window_operands(args) -> tuple:
    """Inputs with their scalar inits and one window entry per dimension; returns the number of windows."""
    dims = _check_inputs_and_inits(args)
    n = len(dims)
    window = _check_window_attribute(args.window_dimensions, n, "window_dimensions")
    strides = _check_window_attribute(args.window_strides, n, "window_strides")
    base = _check_window_attribute(args.base_dilations, n, "base_dilations")
    dilations = _check_window_attribute(args.window_dilations, n, "window_dilations")
    padding = _check_padding(args.padding, n)
    return _windows(dims, window, strides, padding, base, dilations)


def _reduce_window(args):
    """Windows of the inputs reduced by the body; the result shape is the number of windows per dimension."""
    return _reduced_results(args, _check_reduce_window_operands(args))


export(OpSpec("reduce_window", (Operand("inputs", variadic=True), Operand("init_values", variadic=True),
                                Attr("window_dimensions", A.I64Array(), REQUIRED),
                                Attr("window_strides", A.I64Array()), Attr("base_dilations", A.I64Array()),
                                Attr("window_dilations", A.I64Array()), Attr("padding", A.I64Matrix(2)),
                                Region("body", _reducer_arguments(_check_reduce_window_operands))),
              _reduce_window, results="variadic", family=FAMILY, infer_after_regions=True,
              doc="Reduces each window of the inputs with the body (strides, dilations and padding default to "
                  "1, 1 and 0 when absent)."), globals())


# select_and_scatter -----------------------------------------------------------------------------------------------

def _check_select_and_scatter_operands(args) -> tuple:
    """Checks the operand and window rules of select_and_scatter; returns the operand's shape."""
    operand, source, init = args.operand, args.source, args.init_value
    e = elem(operand)
    require(elem(source) == e, f"operand and source must have the same element type, got {e} and {elem(source)}",
            TypeError)
    require(not shape(init), f"init_value must be a 0-d tensor, got {init.type}")
    require(elem(init) == e, f"init_value must have the element type of operand, got {elem(init)} and {e}", TypeError)
    dims = shape(operand)
    n = len(dims)
    window = _check_window_attribute(args.window_dimensions, n, "window_dimensions")
    strides = _check_window_attribute(args.window_strides, n, "window_strides")
    padding = _check_padding(args.padding, n)
    windows = _windows(dims, window, strides, padding)
    require(compatible(windows, shape(source)),
            f"source must have the shape of the operand's windows {list(windows)}, got {list(shape(source))}")
    return dims


def _select_arguments(args) -> list:
    """select compares two elements of the operand: two 0-d tensors of its element type (operand rules first)."""
    _check_select_and_scatter_operands(args)
    return scalars([args.operand]) * 2


def _scatter_arguments(args) -> list:
    """scatter combines two values: 0-d tensors of the init value's element type."""
    return scalars([args.init_value]) * 2


def _select_and_scatter(args):
    """The source has one element per window of the operand; select gives i1; the result has the operand's shape."""
    dims = _check_select_and_scatter_operands(args)
    selected, scattered = args.region_results
    require(len(selected) == 1 and selected[0] == tensor((), T.i1()),
            f"select must return one tensor<i1>, got ({', '.join(map(str, selected))})", TypeError)
    _check_body(scattered, scalars([args.init_value]), "scatter")
    return tensor(dims, elem(scattered[0]))


export(OpSpec("select_and_scatter", (Operand("operand"), Operand("source"), Operand("init_value"),
                                     Attr("window_dimensions", A.I64Array(), REQUIRED),
                                     Attr("window_strides", A.I64Array()), Attr("padding", A.I64Matrix(2)),
                                     Region("select", _select_arguments), Region("scatter", _scatter_arguments)),
              _select_and_scatter, family=FAMILY, infer_after_regions=True,
              doc="Scatters each source element, with scatter, onto the operand element that select picks in "
                  "its window."), globals())


# batch normalization ----------------------------------------------------------------------------------------------

def _check_batch_norm(args, multi: list, single: list) -> int | None:
    """The batch norm rules: float elements, one baseline element type, 1-D per-feature operands sized to the
    feature dimension; returns that dimension's size."""
    first = multi[0]
    operand = getattr(args, first)
    expect_element(operand, first, "float|quantized")
    for name in multi[1:] + single:
        require(QT.baseline(elem(getattr(args, name))) == QT.baseline(elem(operand)),
                f"{name} and {first} must have the same element type, got {elem(getattr(args, name))} "
                f"and {elem(operand)}", TypeError)
    if len(multi) > 1:
        same_shape({name: getattr(args, name) for name in multi})
    dims = shape(operand)
    feature = args.feature_index
    require(0 <= feature < len(dims), f"feature_index must be in [0, {len(dims)}), got {feature}")
    for name in single:
        require(rank(getattr(args, name)) == 1, f"{name} must be 1-dimensional, got {getattr(args, name).type}")
        require(compatible(shape(getattr(args, name)), (dims[feature],)),
                f"size of {name} must equal dim({first}, feature_index) = {dims[feature]}, "
                f"got {shape(getattr(args, name))[0]}")
    return dims[feature]


def _per_feature(args, first: str):
    """The type of a per-feature result: [dim(operand, feature_index)] of the operand's element type."""
    operand = getattr(args, first)
    return tensor((shape(operand)[args.feature_index],), elem(operand))


def _batch_norm_inference(args):
    """Normalizes with the given mean and variance; the result has the operand's type."""
    _check_batch_norm(args, ["operand"], ["scale", "offset", "mean", "variance"])
    return args.operand.type


def _batch_norm_training(args):
    """Normalizes with the batch statistics; output as the operand, batch_mean and batch_var per feature."""
    _check_batch_norm(args, ["operand"], ["scale", "offset"])
    return [args.operand.type, _per_feature(args, "operand"), _per_feature(args, "operand")]


def _batch_norm_grad(args):
    """Gradients: grad_operand as the operand, grad_scale and grad_offset per feature."""
    _check_batch_norm(args, ["operand", "grad_output"], ["scale", "mean", "variance"])
    return [args.operand.type, _per_feature(args, "operand"), _per_feature(args, "operand")]


_EPSILON = Attr("epsilon", A.Float(), REQUIRED)
_FEATURE = Attr("feature_index", A.Integer(64), REQUIRED)

# name: (operands, result names, rule, doc)
BATCH_NORM = {
    "batch_norm_inference": (("operand", "scale", "offset", "mean", "variance"), (), _batch_norm_inference,
                             "Normalizes the operand across all but the feature dimension with the given mean and "
                             "variance, then scales and offsets it."),
    "batch_norm_training": (("operand", "scale", "offset"), ("output", "batch_mean", "batch_var"), _batch_norm_training,
                            "Normalizes the operand with the batch's own mean and variance, which it also returns."),
    "batch_norm_grad": (("operand", "scale", "mean", "variance", "grad_output"),
                        ("grad_operand", "grad_scale", "grad_offset"), _batch_norm_grad,
                        "Gradients of batch_norm_training with respect to operand, scale and offset."),
}

for _name, (_operands, _results, _rule, _doc) in BATCH_NORM.items():
    export(OpSpec(_name, tuple(Operand(o) for o in _operands) + (_EPSILON, _FEATURE), _rule,
                  results="variadic" if _results else "one", result_names=_results, family=FAMILY, doc=_doc), globals())
