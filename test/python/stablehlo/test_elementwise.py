"""Builders and type inference of the element-wise ops, with the specification's examples and broken rules."""

import pytest

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import elementwise

from conftest import build, raises_rule

F32 = "tensor<2x3xf32>"
# A valid operand type for each accepted element kind, and one the op must reject.
_VALID = {"float": "tensor<2x3xf32>", "int": "tensor<2x3xi32>", "signed": "tensor<2x3xi32>",
          "bool": "tensor<2x3xi1>", "complex": "tensor<2x3xcomplex<f32>>"}
_ORDER = ["float", "signed", "int", "complex", "bool"]


def _accepted(kinds: str) -> str:
    return next(_VALID[k] for k in _ORDER if k in kinds.split("|"))


def _rejected(kinds: str):
    allowed = kinds.split("|")
    for k in _ORDER:
        t = _VALID[k]
        if k not in allowed and not (k == "signed" and "int" in allowed) and not (k == "int" and "signed" in allowed):
            return t
    return None


@pytest.mark.parametrize("name", sorted(elementwise.UNARY))
def test_unary_builds_verifies_and_round_trips(name):
    kinds, result_element, _ = elementwise.UNARY[name]
    arg = _accepted(kinds)
    b = build(lambda x: getattr(shlo, name if name != "not" else "not_")(x), arg)
    assert len(b.ops(f"stablehlo.{name}")) == 1
    assert b.result_types[0].startswith("tensor<2x3x")
    op = b.ops(f"stablehlo.{name}")[0]
    assert type(op).__name__ == "".join(p.capitalize() for p in name.split("_")) + "Op"
    assert op.operand.type == b.module.body.operations[0].regions[0].blocks[0].arguments[0].type


@pytest.mark.parametrize("name", sorted(n for n in elementwise.UNARY if _rejected(elementwise.UNARY[n][0])))
def test_unary_rejects_element_types_outside_the_rule(name):
    bad = _rejected(elementwise.UNARY[name][0])
    builder = getattr(shlo, name if name != "not" else "not_")
    with raises_rule(TypeError, f"stablehlo.{name}", "operand must have", bad):
        build(lambda x: builder(x), bad)


@pytest.mark.parametrize("name", sorted(elementwise.BINARY))
def test_binary_builds_verifies_and_round_trips(name):
    arg = _accepted(elementwise.BINARY[name][0])
    builder = getattr(shlo, name + "_" if name in ("and", "or") else name)
    b = build(lambda x, y: builder(x, y), arg, arg)
    assert b.result_types == [arg]
    op = b.ops(f"stablehlo.{name}")[0]
    assert op.lhs.type == op.rhs.type


@pytest.mark.parametrize("name", sorted(elementwise.BINARY))
def test_binary_rejects_mismatched_shapes(name):
    arg = _accepted(elementwise.BINARY[name][0])
    other = arg.replace("2x3", "3x2")
    builder = getattr(shlo, name + "_" if name in ("and", "or") else name)
    with raises_rule(ValueError, f"stablehlo.{name}", "lhs and rhs must have the same shape", arg, other):
        build(lambda x, y: builder(x, y), arg, other)


def test_binary_rejects_mixed_element_types():
    with raises_rule(TypeError, "stablehlo.add", "same element type"):
        build(lambda x, y: shlo.add(x, y), "tensor<2xf32>", "tensor<2xf16>")


def test_result_element_of_complex_abs_real_imag_is_the_part_type():
    b = build(lambda z: [shlo.abs(z), shlo.real(z), shlo.imag(z)], "tensor<2xcomplex<f64>>")
    assert b.result_types == ["tensor<2xf64>"] * 3


def test_is_finite_gives_i1():
    assert build(lambda x: shlo.is_finite(x), "tensor<2xbf16>").result_types == ["tensor<2xi1>"]


def test_dynamic_dimensions_are_kept_or_refined_by_the_other_operand():
    assert build(lambda x: shlo.add(x, x), "tensor<?x3xf32>").result_types == ["tensor<?x3xf32>"]
    b = build(lambda x, y: shlo.add(x, y), "tensor<?x3xf32>", "tensor<4x3xf32>")
    assert b.result_types == ["tensor<4x3xf32>"]


def test_compare_spec_example_and_attribute_readback():
    b = build(lambda x, y: shlo.compare(x, y, "lt", compare_type="FLOAT"), "tensor<2xf32>", "tensor<2xf32>")
    assert b.result_types == ["tensor<2xi1>"]
    op = b.ops("stablehlo.compare")[0]
    assert isinstance(op, shlo.CompareOp)
    assert (op.comparison_direction, op.compare_type) == ("LT", "FLOAT")


def test_compare_rules():
    with raises_rule(ValueError, "stablehlo.compare", "comparison_direction must be one of"):
        build(lambda x: shlo.compare(x, x, "SMALLER"), F32)
    with raises_rule(TypeError, "compare_type SIGNED"):
        build(lambda x: shlo.compare(x, x, "EQ", compare_type="SIGNED"), F32)


def test_select_with_scalar_and_full_predicates():
    b = build(lambda p, q, x, y: [shlo.select(p, x, y), shlo.select(q, x, y)],
              "tensor<i1>", "tensor<2x3xi1>", F32, F32)
    assert b.result_types == [F32, F32]


def test_select_rules():
    with raises_rule(TypeError, "stablehlo.select", "pred must have boolean elements"):
        build(lambda p, x: shlo.select(p, x, x), "tensor<i32>", F32)
    with raises_rule(ValueError, "pred and on_true must have the same shape"):
        build(lambda p, x: shlo.select(p, x, x), "tensor<3xi1>", F32)


def test_clamp_with_scalar_bounds_and_rule():
    assert build(lambda lo, x: shlo.clamp(lo, x, lo), "tensor<f32>", F32).result_types == [F32]
    with raises_rule(TypeError, "stablehlo.clamp", "min must have the element type of operand"):
        build(lambda lo, x: shlo.clamp(lo, x, lo), "tensor<i32>", F32)


def test_complex_from_parts():
    assert build(lambda x: shlo.complex(x, x), "tensor<2xf64>").result_types == ["tensor<2xcomplex<f64>>"]
    with raises_rule(TypeError, "stablehlo.complex", "must be f32 or f64"):
        build(lambda x: shlo.complex(x, x), "tensor<2xf16>")


@pytest.mark.parametrize("dtype, expected", [("f16", "tensor<2x3xf16>"), ("i64", "tensor<2x3xi64>"),
                                             ("ui8", "tensor<2x3xui8>"), ("i1", "tensor<2x3xi1>")])
def test_convert(dtype, expected):
    assert build(lambda x: shlo.convert(x, dtype), F32).result_types == [expected]


def test_convert_accepts_numpy_dtypes_and_rejects_bool_to_complex():
    import numpy as np
    assert build(lambda x: shlo.convert(x, np.float64), F32).result_types == ["tensor<2x3xf64>"]
    with raises_rule(TypeError, "stablehlo.convert", "cannot convert i1 to complex<f32>"):
        build(lambda x: shlo.convert(x, "complex<f32>"), "tensor<2xi1>")


@pytest.mark.parametrize("arg, dtype, expected", [
    ("tensor<2xf32>", "i32", "tensor<2xi32>"),
    ("tensor<2xf32>", "i8", "tensor<2x4xi8>"),
    ("tensor<2x4xi8>", "f32", "tensor<2xf32>"),
    ("tensor<3xcomplex<f64>>", "complex<f32>", "tensor<3x2xcomplex<f32>>"),
])
def test_bitcast_convert_shapes(arg, dtype, expected):
    assert build(lambda x: shlo.bitcast_convert(x, dtype), arg).result_types == [expected]


def test_bitcast_convert_rules():
    with raises_rule(ValueError, "stablehlo.bitcast_convert", "needs a last dimension of 4"):
        build(lambda x: shlo.bitcast_convert(x, "f32"), "tensor<2x3xi8>")
    with raises_rule(TypeError, "cannot bitcast between real and complex"):
        build(lambda x: shlo.bitcast_convert(x, "complex<f32>"), "tensor<3xf64>")


def test_reduce_precision():
    b = build(lambda x: shlo.reduce_precision(x, exponent_bits=5, mantissa_bits=10), F32)
    op = b.ops("stablehlo.reduce_precision")[0]
    assert (op.exponent_bits, op.mantissa_bits) == (5, 10)
    with raises_rule(ValueError, "exponent_bits must be at least 1"):
        build(lambda x: shlo.reduce_precision(x, exponent_bits=0, mantissa_bits=10), F32)


def test_map_builds_body_from_a_callable_and_infers_the_element_type():
    b = build(lambda x, y: shlo.map([x, y], computation=lambda a, c: shlo.compare(a, c, "GT")), F32, F32)
    assert b.result_types == ["tensor<2x3xi1>"]
    op = b.ops("stablehlo.map")[0]
    assert op.dimensions == [0, 1]
    assert [str(a.type) for a in op.computation.blocks[0].arguments] == ["tensor<f32>", "tensor<f32>"]


def test_map_rules():
    with raises_rule(ValueError, "stablehlo.map", "dimensions must be [0, ..., 1]"):
        build(lambda x: shlo.map([x], [1, 0], lambda a: a), F32)


def test_builder_argument_errors_are_python_errors():
    with pytest.raises(TypeError, match="missing required argument 'rhs'"):
        build(lambda x: shlo.add(x), F32)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        build(lambda x: shlo.add(x, x, bogus=1), F32)
    with raises_rule(TypeError, "stablehlo.add", "operand rhs: expected an MLIR value"):
        build(lambda x: shlo.add(x, 1.0), F32)


def test_ops_carry_the_callers_line_as_location():
    b = build(lambda x: shlo.negate(x), F32)
    loc = str(b.ops("stablehlo.negate")[0].location)
    assert "unknown" in loc  # an active location wins over the caller's line
    with ir.context():
        module = ir.Module.create(ir.Location.unknown())
        with ir.InsertionPoint(module.body):
            from iree.compiler.dialects import func
            with ir.Location.unknown():
                fn = func.FuncOp("f", ([ir.Type.parse("tensor<2xf32>")], []))
                block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            y = shlo.negate(block.arguments[0])
        assert "test_elementwise.py" in str(y.owner.location)


def test_parsed_ops_come_back_as_their_classes():
    with ir.context():
        m = ir.parse("func.func @f(%a: tensor<2xf32>) -> tensor<2xi1> {\n"
                     "  %0 = stablehlo.compare NE, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
                     "  return %0 : tensor<2xi1>\n}")
        op = m.body.operations[0].regions[0].blocks[0].operations[0]
        assert isinstance(op, shlo.CompareOp) and op.comparison_direction == "NE"


def test_explicit_result_types_are_checked():
    assert build(lambda x: shlo.negate(x, result_types=["tensor<2x3xf32>"]), F32).result_types == [F32]
    with raises_rule(TypeError, "stablehlo.negate", "result_types: not an MLIR type: 'tensor<2x3xfloat>'"):
        build(lambda x: shlo.negate(x, result_types="tensor<2x3xfloat>"), F32)
    with raises_rule(ValueError, "stablehlo.negate", "does not verify"):
        build(lambda x: shlo.negate(x, result_types="tensor<3x2xf32>"), F32)
