"""Element-wise ops: unary and binary math, logic and bit ops, compare, select, clamp, conversions, map.

Unary and binary ops share a shape and are declared from tables: the op,
the element kinds its operands accept (as the specification lists them),
and how the result's element type follows from the operand's.
"""

from __future__ import annotations

from oxla.dialects.stablehlo import attributes as A
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import Attr, Operand, OpSpec, Param, Region, export
from oxla.dialects.stablehlo.rules import (
    check_dims, dtype_param, elem, expect_element, rank, require, same_shape, same_type, scalars, shape, tensor)

FAMILY = "elementwise"
_ANY = "bool|int|float|complex|quantized"
_NUMBER = "int|float|complex|quantized"
_FLOATISH = "float|complex|quantized"


def _same(e):
    """The result element type equals the operand's."""
    return e


def _part(e):
    """complex<T> -> T; other types unchanged (abs, real, imag)."""
    return T.complex_part(e) if T.is_complex(e) else e


def _bool(e):
    """Always i1 (is_finite)."""
    return T.i1()


# name: (accepted element kinds, result element from operand element, doc)
UNARY = {
    "abs": ("signed|float|complex|quantized", _part, "Absolute value; complex operands give their modulus."),
    "cbrt": (_FLOATISH, _same, "Cube root."),
    "ceil": ("float|quantized", _same, "Rounds toward +infinity."),
    "count_leading_zeros": ("int", _same, "Number of leading zero bits."),
    "cosine": (_FLOATISH, _same, "Cosine."),
    "exponential": (_FLOATISH, _same, "e to the power of the operand."),
    "exponential_minus_one": (_FLOATISH, _same, "exp(x) - 1, accurate near 0."),
    "floor": ("float|quantized", _same, "Rounds toward -infinity."),
    "imag": ("float|complex", _part, "Imaginary part (zero for real operands)."),
    "is_finite": ("float", _bool, "Whether each element is neither infinite nor NaN."),
    "log": (_FLOATISH, _same, "Natural logarithm."),
    "log_plus_one": (_FLOATISH, _same, "log(1 + x), accurate near 0."),
    "logistic": (_FLOATISH, _same, "1 / (1 + exp(-x))."),
    "negate": (_NUMBER, _same, "Negation (wraps around for integers)."),
    "not": ("bool|int", _same, "Logical or bitwise NOT."),
    "popcnt": ("int", _same, "Number of set bits."),
    "real": ("float|complex", _part, "Real part."),
    "round_nearest_afz": ("float|quantized", _same, "Rounds to nearest, ties away from zero."),
    "round_nearest_even": ("float|quantized", _same, "Rounds to nearest, ties to even."),
    "rsqrt": (_FLOATISH, _same, "1 / sqrt(x)."),
    "sign": ("signed|float|complex|quantized", _same, "-1, 0 or 1 (NaN for NaN; x/|x| for complex)."),
    "sine": (_FLOATISH, _same, "Sine."),
    "sqrt": (_FLOATISH, _same, "Square root."),
    "tan": (_FLOATISH, _same, "Tangent."),
    "tanh": (_FLOATISH, _same, "Hyperbolic tangent."),
}

# name: (accepted element kinds, doc)
BINARY = {
    "add": (_ANY, "Sum (logical OR for booleans)."),
    "and": ("bool|int", "Logical or bitwise AND."),
    "atan2": (_FLOATISH, "atan(lhs / rhs) in the quadrant of (rhs, lhs)."),
    "divide": (_NUMBER, "Quotient (integers round toward zero)."),
    "maximum": (_ANY, "Element-wise maximum (NaN wins for floats)."),
    "minimum": (_ANY, "Element-wise minimum (NaN wins for floats)."),
    "multiply": (_ANY, "Product (logical AND for booleans)."),
    "or": ("bool|int", "Logical or bitwise OR."),
    "power": (_NUMBER, "lhs to the power rhs."),
    "remainder": (_NUMBER, "Remainder with the sign of the dividend."),
    "shift_left": ("int", "Shift left; shifts of the bit width or more give 0."),
    "shift_right_arithmetic": ("int", "Arithmetic shift right."),
    "shift_right_logical": ("int", "Logical shift right."),
    "subtract": (_NUMBER, "Difference."),
    "xor": ("bool|int", "Logical or bitwise XOR."),
}


def _unary_rule(kinds, result_element):
    """Inference for a unary op: operand kinds checked, same shape, element type mapped."""
    def infer(args):
        expect_element(args.operand, "operand", kinds)
        return tensor(shape(args.operand), result_element(elem(args.operand)))
    return infer


def _binary_rule(kinds):
    """Inference for a binary op: both operands of the accepted kinds and of one type."""
    def infer(args):
        expect_element(args.lhs, "lhs", kinds)
        return same_type({"lhs": args.lhs, "rhs": args.rhs})
    return infer


for _name, (_kinds, _result, _doc) in UNARY.items():
    export(OpSpec(_name, (Operand("operand"),), _unary_rule(_kinds, _result), family=FAMILY, doc=_doc), globals())

for _name, (_kinds, _doc) in BINARY.items():
    export(OpSpec(_name, (Operand("lhs"), Operand("rhs")), _binary_rule(_kinds), family=FAMILY, doc=_doc), globals())


def _compare(args):
    """Same operand types; i1 result of their shape; comparison type fits the elements."""
    same_type({"lhs": args.lhs, "rhs": args.rhs})
    kind = args.compare_type
    e = elem(args.lhs)
    if kind in ("FLOAT", "TOTALORDER"):
        require(T.is_float(e) or T.is_complex(e), f"compare_type {kind} needs floating-point elements, got {e}", TypeError)
    elif kind == "SIGNED":
        require(T.is_integer(e) and not T.is_unsigned(e), f"compare_type SIGNED needs signed integers, got {e}", TypeError)
    elif kind == "UNSIGNED":
        require(T.is_bool(e) or T.is_unsigned(e), f"compare_type UNSIGNED needs unsigned integers or i1, got {e}", TypeError)
    return tensor(shape(args.lhs), T.i1())


export(OpSpec("compare", (Operand("lhs"), Operand("rhs"),
                          Attr("comparison_direction", A.COMPARISON_DIRECTION, "EQ"),
                          Attr("compare_type", A.COMPARISON_TYPE)),
              _compare, family=FAMILY, doc="Element-wise comparison giving i1 (direction EQ, NE, GE, GT, LE, LT)."),
       globals())


def _select(args):
    """pred is i1, a scalar or of the branches' shape; branches have one type."""
    expect_element(args.pred, "pred", "bool")
    result = same_type({"on_true": args.on_true, "on_false": args.on_false})
    if rank(args.pred):
        same_shape({"pred": args.pred, "on_true": args.on_true})
    return result


export(OpSpec("select", (Operand("pred"), Operand("on_true"), Operand("on_false")), _select, family=FAMILY,
              doc="Picks on_true where pred is true, else on_false."), globals())


def _clamp(args):
    """min and max are scalars or of operand's shape, all of the operand's element type."""
    for name in ("min", "max"):
        bound = getattr(args, name)
        require(elem(bound) == elem(args.operand), f"{name} must have the element type of operand", TypeError)
        if rank(bound):
            same_shape({name: bound, "operand": args.operand})
    return args.operand.type


export(OpSpec("clamp", (Operand("min"), Operand("operand"), Operand("max")), _clamp, family=FAMILY,
              doc="min(max(operand, min), max)."), globals())


def _complex(args):
    """Real parts of f32 or f64 give complex<f32> or complex<f64>."""
    t = same_type({"lhs": args.lhs, "rhs": args.rhs})
    e = elem(t)
    require(str(e) in ("f32", "f64"), f"lhs and rhs must be f32 or f64, got {e}", TypeError)
    return tensor(shape(t), T.complex_of(e))


export(OpSpec("complex", (Operand("lhs"), Operand("rhs")), _complex, family=FAMILY,
              doc="A complex number from real and imaginary parts."), globals())


def _convert(args):
    """Same shape, the requested element type (boolean <-> complex is not allowed)."""
    target = dtype_param(args.dtype)
    source = elem(args.operand)
    require(not ((T.is_bool(source) and T.is_complex(target)) or (T.is_complex(source) and T.is_bool(target))),
            f"cannot convert {source} to {target}", TypeError)
    return tensor(shape(args.operand), target)


export(OpSpec("convert", (Operand("operand"), Param("dtype")), _convert, family=FAMILY,
              doc="Converts elements to `dtype` (rounding floats to nearest even, wrapping integers)."), globals())


def _bitcast_convert(args):
    """Same bits: equal widths keep the shape; a narrower result adds a last dimension, a wider one removes it."""
    target, source = dtype_param(args.dtype), elem(args.operand)
    require(T.is_complex(target) == T.is_complex(source), f"cannot bitcast between real and complex: {source} to {target}",
            TypeError)
    wide, narrow = T.bit_width(source), T.bit_width(target)
    dims = shape(args.operand)
    if wide == narrow:
        return tensor(dims, target)
    if wide > narrow:
        require(wide % narrow == 0, f"cannot bitcast {source} to {target}: widths {wide} and {narrow} do not divide",
                TypeError)
        return tensor(dims + (wide // narrow,), target)
    require(narrow % wide == 0, f"cannot bitcast {source} to {target}: widths {wide} and {narrow} do not divide",
            TypeError)
    require(dims and dims[-1] in (None, narrow // wide),
            f"bitcasting {source} to the wider {target} needs a last dimension of {narrow // wide}, got shape {list(dims)}")
    return tensor(dims[:-1], target)


export(OpSpec("bitcast_convert", (Operand("operand"), Param("dtype")), _bitcast_convert, family=FAMILY,
              doc="Reinterprets the bits of each element as `dtype`."), globals())


def _reduce_precision(args):
    """Floating-point operand; at least one exponent bit and no negative mantissa bits."""
    expect_element(args.operand, "operand", "float|quantized")
    require(args.exponent_bits >= 1, f"exponent_bits must be at least 1, got {args.exponent_bits}")
    require(args.mantissa_bits >= 0, f"mantissa_bits must be at least 0, got {args.mantissa_bits}")
    return args.operand.type


export(OpSpec("reduce_precision", (Operand("operand"), Attr("exponent_bits", A.Integer(32), 8),
                                   Attr("mantissa_bits", A.Integer(32), 23)),
              _reduce_precision, family=FAMILY,
              doc="Rounds to the precision of a float with the given exponent and mantissa bits."), globals())


def _map_arguments(args):
    """The computation takes one scalar per input."""
    return scalars(args.inputs)


def _map(args):
    """Inputs of one shape, dimensions all of them in order; the result element type is what the body returns."""
    require(args.inputs, "map needs at least one input")
    dims = same_shape({f"inputs[{i}]": v for i, v in enumerate(args.inputs)})
    require(list(args.dimensions) == list(range(len(dims))),
            f"dimensions must be [0, ..., {len(dims) - 1}], got {list(args.dimensions)}")
    check_dims(args.dimensions, len(dims), "dimensions")
    returned = args.region_results[0]
    require(len(returned) == 1 and T.is_tensor(returned[0]) and not shape(returned[0]),
            "the computation must return one scalar tensor")
    return tensor(dims, elem(returned[0]))


def _all_dimensions(args):
    """Default `dimensions`: every dimension of the inputs."""
    return list(range(rank(args.inputs[0]))) if args.inputs else []


export(OpSpec("map", (Operand("inputs", variadic=True), Attr("dimensions", A.I64Array(), _all_dimensions), Region("computation", _map_arguments)),
              _map, family=FAMILY, infer_after_regions=True,
              doc="Applies the scalar computation element-wise across the inputs."), globals())
