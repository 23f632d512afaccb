"""Builders and type inference of rng and rng_bit_generator, with the specification's examples and broken rules."""

import numpy as np

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import random as R

from conftest import build, constant, raises_rule


# rng --------------------------------------------------------------------------------------------------------------

def test_rng_spec_example_reads_a_constant_shape():
    b = build(lambda a, c: R.rng(a, c, constant([3, 3], "tensor<2xi64>"), "UNIFORM"), "tensor<i32>", "tensor<i32>")
    assert b.result_types == ["tensor<3x3xi32>"]
    op = b.ops("stablehlo.rng")[0]
    assert isinstance(op, shlo.RngOp) and op.rng_distribution == "UNIFORM"
    assert str(op.shape.type) == "tensor<2xi64>"


def test_rng_shape_from_arith_constant_or_unknown_values():
    b = build(lambda a, c: R.rng(a, c, constant([2, 0, 5], "tensor<3xindex>", "arith"), "normal"), "tensor<f32>",
              "tensor<f32>")
    assert b.result_types == ["tensor<2x0x5xf32>"]
    assert b.ops("stablehlo.rng")[0].rng_distribution == "NORMAL"
    b = build(lambda a, c, s: R.rng(a, c, s, "UNIFORM"), "tensor<i1>", "tensor<i1>", "tensor<3xi32>")
    assert b.result_types == ["tensor<?x?x?xi1>"]


def test_rng_rules():
    with raises_rule(TypeError, "stablehlo.rng", "rng_distribution NORMAL needs floating-point a and b, got i32"):
        build(lambda a, c, s: R.rng(a, c, s, "NORMAL"), "tensor<i32>", "tensor<i32>", "tensor<2xi64>")
    with raises_rule(ValueError, "a must be a 0-d tensor, got tensor<1xf32>"):
        build(lambda a, c, s: R.rng(a, c, s, "UNIFORM"), "tensor<1xf32>", "tensor<f32>", "tensor<2xi64>")
    with raises_rule(TypeError, "a and b must have the same element type, got f32 and f16"):
        build(lambda a, c, s: R.rng(a, c, s, "UNIFORM"), "tensor<f32>", "tensor<f16>", "tensor<2xi64>")
    with raises_rule(TypeError, "b must have boolean, integer, floating-point elements, got complex<f32>"):
        build(lambda a, c, s: R.rng(a, c, s, "UNIFORM"), "tensor<f32>", "tensor<complex<f32>>", "tensor<2xi64>")
    with raises_rule(ValueError, "shape must be a static 1-D tensor, got tensor<2x2xi64>"):
        build(lambda a, c, s: R.rng(a, c, s, "UNIFORM"), "tensor<f32>", "tensor<f32>", "tensor<2x2xi64>")
    with raises_rule(TypeError, "shape must have integer or index elements"):
        build(lambda a, c, s: R.rng(a, c, s, "UNIFORM"), "tensor<f32>", "tensor<f32>", "tensor<2xf32>")
    with raises_rule(ValueError, "shape must hold sizes >= 0, got [2, -1]"):
        build(lambda a, c: R.rng(a, c, constant([2, -1], "tensor<2xi64>"), "UNIFORM"), "tensor<f32>", "tensor<f32>")
    with raises_rule(ValueError, "attribute rng_distribution: rng_distribution must be one of UNIFORM, NORMAL"):
        build(lambda a, c, s: R.rng(a, c, s, "GAUSSIAN"), "tensor<f32>", "tensor<f32>", "tensor<2xi64>")


# rng_bit_generator ------------------------------------------------------------------------------------------------

def test_rng_bit_generator_spec_example_and_named_results():
    def body(state):
        output_state, output = R.rng_bit_generator("THREE_FRY", state, [2, 2])
        return [output_state, output]
    b = build(body, "tensor<2xui64>")
    assert b.result_types == ["tensor<2xui64>", "tensor<2x2xui64>"]
    op = b.ops("stablehlo.rng_bit_generator")[0]
    assert isinstance(op, shlo.RngBitGeneratorOp) and op.rng_algorithm == "THREE_FRY"
    assert (str(op.output_state.type), str(op.output.type)) == ("tensor<2xui64>", "tensor<2x2xui64>")


def test_rng_bit_generator_dtypes_and_algorithms():
    b = build(lambda s: list(R.rng_bit_generator("philox", s, (4,), np.float32)), "tensor<3xui64>")
    assert b.result_types == ["tensor<3xui64>", "tensor<4xf32>"]
    assert b.ops("stablehlo.rng_bit_generator")[0].rng_algorithm == "PHILOX"
    b = build(lambda s: list(R.rng_bit_generator("DEFAULT", s, [], "ui8")), "tensor<5xui64>")
    assert b.result_types == ["tensor<5xui64>", "tensor<ui8>"]


def test_rng_bit_generator_rules():
    with raises_rule(ValueError, "stablehlo.rng_bit_generator", "THREE_FRY must have 2 elements, got 3"):
        build(lambda s: list(R.rng_bit_generator("THREE_FRY", s, [2])), "tensor<3xui64>")
    with raises_rule(ValueError, "initial_state of PHILOX must have 2 or 3 elements, got 4"):
        build(lambda s: list(R.rng_bit_generator("PHILOX", s, [2])), "tensor<4xui64>")
    with raises_rule(TypeError, "initial_state must be a tensor of ui64, got tensor<2xi64>"):
        build(lambda s: list(R.rng_bit_generator("DEFAULT", s, [2])), "tensor<2xi64>")
    with raises_rule(ValueError, "initial_state must be 1-D"):
        build(lambda s: list(R.rng_bit_generator("DEFAULT", s, [2])), "tensor<1x2xui64>")
    with raises_rule(ValueError, "the output shape must be static"):
        build(lambda s: list(R.rng_bit_generator("DEFAULT", s, [None, 2])), "tensor<2xui64>")
    with raises_rule(TypeError, "dtype must be an integer or floating-point type, got i1"):
        build(lambda s: list(R.rng_bit_generator("DEFAULT", s, [2], "i1")), "tensor<2xui64>")
    with raises_rule(ValueError, "shape: not a dimension size: -3"):
        build(lambda s: list(R.rng_bit_generator("DEFAULT", s, [-3])), "tensor<2xui64>")


def test_parsed_rng_ops_come_back_as_their_classes():
    text = ("func.func @f(%a: tensor<f32>, %s: tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>) {\n"
            "  %c = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n"
            "  %0 = stablehlo.rng %a, %a, %c, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> "
            "tensor<2x3xf32>\n"
            "  %1:2 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> "
            "(tensor<2xui64>, tensor<4xui32>)\n"
            "  return %1#0, %1#1 : tensor<2xui64>, tensor<4xui32>\n}")
    with ir.context():
        module = ir.parse(text)
        ops = [op.opview for op in ir.ops(module) if op.operation.name.startswith("stablehlo.rng")]
        assert [type(op).__name__ for op in ops] == ["RngOp", "RngBitGeneratorOp"]
        assert (ops[0].rng_distribution, ops[1].rng_algorithm) == ("NORMAL", "PHILOX")
        assert str(ops[1].output.type) == "tensor<4xui32>"
