"""Builders and type inference of the reductions, with the specification's examples and broken rules."""

import numpy as np
import pytest

from oxla import ir
from oxla.dialects import stablehlo as shlo

from conftest import add_body, build, conformance_ops, needs_conformance, parse_ops, raises_rule


# reduce -----------------------------------------------------------------------------------------------------------

def test_reduce_spec_example_and_readback():
    b = build(lambda x, init: shlo.reduce(x, init, [1], add_body), "tensor<1x6xi64>", "tensor<i64>")
    assert b.result_types == ["tensor<1xi64>"]
    op = b.ops("stablehlo.reduce")[0]
    assert isinstance(op, shlo.ReduceOp)
    assert op.dimensions == [1]
    assert [str(a.type) for a in op.body.blocks[0].arguments] == ["tensor<i64>", "tensor<i64>"]
    assert op.inputs[0].type == op.operation.operands[0].type and len(op.init_values) == 1


def test_reduce_variadic_returns_a_tuple_with_accumulators_then_elements():
    seen = []

    def body(acc_v, acc_i, v, i):
        seen.extend(str(a.type) for a in (acc_v, acc_i, v, i))
        return shlo.maximum(acc_v, v), shlo.maximum(acc_i, i)

    b = build(lambda x, idx, x0, i0: shlo.reduce([x, idx], [x0, i0], [0], body),
              "tensor<4x3xf32>", "tensor<4x3xi32>", "tensor<f32>", "tensor<i32>")
    assert b.result_types == ["tensor<3xf32>", "tensor<3xi32>"]
    assert seen == ["tensor<f32>", "tensor<i32>", "tensor<f32>", "tensor<i32>"]
    op = b.ops("stablehlo.reduce")[0]
    assert [str(v.type) for v in op.init_values] == ["tensor<f32>", "tensor<i32>"]


def test_reduce_result_arity_follows_how_the_inputs_were_given():
    def body(x, init):
        single = shlo.reduce(x, init, [0, 1], add_body)
        listed = shlo.reduce([x], [init], [0], add_body)
        assert isinstance(single, ir.Value) and isinstance(listed, tuple) and len(listed) == 1
        return [single, *listed]
    assert build(body, "tensor<2x3xf32>", "tensor<f32>").result_types == ["tensor<f32>", "tensor<3xf32>"]


def test_reduce_keeps_dynamic_dimensions_and_may_use_outer_values_in_its_body():
    b = build(lambda x, init, scale: shlo.reduce(x, init, [1], lambda a, c: shlo.add(a, shlo.multiply(c, scale))),
              "tensor<?x5xf32>", "tensor<f32>", "tensor<f32>")
    assert b.result_types == ["tensor<?xf32>"]


def test_reduce_rules():
    f = "tensor<2x3xf32>"
    with raises_rule(ValueError, "stablehlo.reduce", "at least one input"):
        build(lambda x: shlo.reduce([], [], [0], lambda: []), f)
    with raises_rule(ValueError, "stablehlo.reduce", "inputs and init_values must have the same size"):
        build(lambda x, i: shlo.reduce([x, x], [i], [0], lambda a, b, c, d: [a, b]), f, "tensor<f32>")
    with raises_rule(ValueError, "stablehlo.reduce", "must have the same shape"):
        build(lambda x, y, i: shlo.reduce([x, y], [i, i], [0], lambda a, b, c, d: [a, b]), f, "tensor<3x2xf32>",
              "tensor<f32>")
    with raises_rule(TypeError, "stablehlo.reduce", "inputs[0] and init_values[0] must have the same element type"):
        build(lambda x, i: shlo.reduce(x, i, [0], add_body), f, "tensor<f16>")
    with raises_rule(ValueError, "stablehlo.reduce", "init_values[0] must be a 0-d tensor"):
        build(lambda x, i: shlo.reduce(x, i, [0], lambda a, b: a), f,
              "tensor<1xf32>")
    with raises_rule(ValueError, "stablehlo.reduce", "dimensions must be in [0, 2)"):
        build(lambda x, i: shlo.reduce(x, i, [2], add_body), f, "tensor<f32>")
    with raises_rule(ValueError, "stablehlo.reduce", "dimensions must be unique"):
        build(lambda x, i: shlo.reduce(x, i, [1, 1], add_body), f, "tensor<f32>")


def test_reduce_body_rules():
    f = "tensor<2x3xf32>"
    with raises_rule(ValueError, "stablehlo.reduce", "body must return 1 value(s), one per input, got 2"):
        build(lambda x, i: shlo.reduce(x, i, [0], lambda a, b: [a, b]), f, "tensor<f32>")
    with raises_rule(TypeError, "stablehlo.reduce", "body must return tensor<f32> at position 0", "tensor<i1>"):
        build(lambda x, i: shlo.reduce(x, i, [0], lambda a, b: shlo.compare(a, b, "LT")), f, "tensor<f32>")


def test_reduce_leaves_nothing_behind_when_a_rule_fails():
    with ir.context(), ir.Location.unknown():
        from iree.compiler.dialects import func
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("f", ([ir.Type.parse("tensor<2xf32>"), ir.Type.parse("tensor<f32>")], []))
            block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            with pytest.raises(ValueError, match="dimensions must be in"):
                shlo.reduce(block.arguments[0], block.arguments[1], [3], add_body)
        assert len(block.operations) == 0


# reduce_window ----------------------------------------------------------------------------------------------------

def test_reduce_window_spec_example_and_readback():
    b = build(lambda x, i: shlo.reduce_window(x, i, window_dimensions=[2, 1], window_strides=[4, 1],
                                              base_dilations=[2, 1], window_dilations=[3, 1],
                                              padding=[[2, 1], [0, 0]], body=add_body),
              "tensor<3x2xi64>", "tensor<i64>")
    assert b.result_types == ["tensor<2x2xi64>"]
    op = b.ops("stablehlo.reduce_window")[0]
    assert isinstance(op, shlo.ReduceWindowOp)
    assert (op.window_dimensions, op.window_strides, op.base_dilations, op.window_dilations, op.padding) == \
        ([2, 1], [4, 1], [2, 1], [3, 1], [[2, 1], [0, 0]])


def test_reduce_window_example_with_a_larger_window():
    b = build(lambda x, i: shlo.reduce_window(x, i, [3, 1], [4, 1], [2, 1], [3, 1], np.array([[2, 1], [0, 0]]),
                                              add_body),
              "tensor<3x2xi64>", "tensor<i64>")
    assert b.result_types == ["tensor<1x2xi64>"]


def test_reduce_window_defaults_are_left_out_and_read_back_as_none():
    b = build(lambda x, i: shlo.reduce_window(x, i, [2, 2], body=lambda a, c: shlo.maximum(a, c)),
              "tensor<4x6xf32>", "tensor<f32>")
    assert b.result_types == ["tensor<3x5xf32>"]
    op = b.ops("stablehlo.reduce_window")[0]
    assert op.window_strides is None and op.padding is None and op.base_dilations is None
    assert "window_strides" not in b.text


@pytest.mark.parametrize("arg, window, strides, padding, expected", [
    ("tensor<4x6xf32>", [2, 2], [2, 2], None, "tensor<2x3xf32>"),
    ("tensor<4x6xf32>", [5, 1], [1, 1], None, "tensor<0x6xf32>"),          # window larger than the input
    ("tensor<4x6xf32>", [3, 3], [1, 1], [[1, 1], [1, 1]], "tensor<4x6xf32>"),  # "same" padding
    ("tensor<?x6xf32>", [2, 2], [1, 2], None, "tensor<?x3xf32>"),
    ("tensor<0x6xf32>", [1, 1], [1, 1], None, "tensor<0x6xf32>"),
])
def test_reduce_window_shapes(arg, window, strides, padding, expected):
    b = build(lambda x, i: shlo.reduce_window(x, i, window, strides, padding=padding, body=add_body), arg,
              "tensor<f32>")
    assert b.result_types == [expected]


def test_reduce_window_variadic():
    b = build(lambda x, y, i, j: shlo.reduce_window([x, y], [i, j], [2], body=lambda a, b, c, d: [
        shlo.add(a, c), shlo.maximum(b, d)]), "tensor<5xf32>", "tensor<5xi32>", "tensor<f32>", "tensor<i32>")
    assert b.result_types == ["tensor<4xf32>", "tensor<4xi32>"]


@pytest.mark.parametrize("keywords, fragment", [
    (dict(window_dimensions=[2]), "size of window_dimensions must equal the rank of the input (2)"),
    (dict(window_dimensions=[0, 1]), "window_dimensions must be positive"),
    (dict(window_dimensions=[1, 1], window_strides=[1]), "size of window_strides must equal the rank"),
    (dict(window_dimensions=[1, 1], window_strides=[1, 0]), "window_strides must be positive"),
    (dict(window_dimensions=[1, 1], base_dilations=[1, 1, 1]), "size of base_dilations must equal the rank"),
    (dict(window_dimensions=[1, 1], base_dilations=[0, 1]), "base_dilations must be positive"),
    (dict(window_dimensions=[1, 1], window_dilations=[2]), "size of window_dilations must equal the rank"),
    (dict(window_dimensions=[1, 1], window_dilations=[1, -1]), "window_dilations must be positive"),
    (dict(window_dimensions=[1, 1], padding=[[0, 0]]), "padding must have shape [2, 2]"),
    (dict(window_dimensions=[1, 1], padding=[[0, 0, 0], [0, 0, 0]]), "attribute padding: expected a [N, 2]"),
    (dict(window_dimensions=[1, 1], padding=[[-3, -2], [0, 0]]), "padding leaves a negative size"),
])
def test_reduce_window_attribute_rules(keywords, fragment):
    with raises_rule(ValueError, "stablehlo.reduce_window", fragment):
        build(lambda x, i: shlo.reduce_window(x, i, body=add_body, **keywords), "tensor<4x6xf32>", "tensor<f32>")


def test_reduce_window_operand_and_body_rules():
    with raises_rule(TypeError, "stablehlo.reduce_window", "inputs[0] and init_values[0] must have the same element"):
        build(lambda x, i: shlo.reduce_window(x, i, [1], body=add_body), "tensor<4xf32>", "tensor<i32>")
    with raises_rule(ValueError, "stablehlo.reduce_window", "inputs and init_values must have the same size"):
        build(lambda x, i: shlo.reduce_window([x], [i, i], [1], body=lambda a, b, c, d: [a, b]),
              "tensor<4xf32>", "tensor<f32>")
    with raises_rule(ValueError, "stablehlo.reduce_window", "inputs[0] and inputs[1] must have the same shape"):
        build(lambda x, y, i: shlo.reduce_window([x, y], [i, i], [1], body=lambda a, b, c, d: [a, b]),
              "tensor<4xf32>", "tensor<5xf32>", "tensor<f32>")
    with raises_rule(TypeError, "stablehlo.reduce_window", "body must return tensor<f32> at position 0"):
        build(lambda x, i: shlo.reduce_window(x, i, [1], body=lambda a, b: shlo.convert(a, "f16")),
              "tensor<4xf32>", "tensor<f32>")


# select_and_scatter -----------------------------------------------------------------------------------------------

def _ge(a, b):
    return shlo.compare(a, b, "GE")


def test_select_and_scatter_spec_example_and_readback():
    b = build(lambda x, s, i: shlo.select_and_scatter(x, s, i, [3, 1], [2, 1], [[0, 1], [0, 0]], _ge, add_body),
              "tensor<4x2xi64>", "tensor<2x2xi64>", "tensor<i64>")
    assert b.result_types == ["tensor<4x2xi64>"]
    op = b.ops("stablehlo.select_and_scatter")[0]
    assert isinstance(op, shlo.SelectAndScatterOp)
    assert (op.window_dimensions, op.window_strides, op.padding) == ([3, 1], [2, 1], [[0, 1], [0, 0]])
    assert [str(a.type) for a in op.select.blocks[0].arguments] == ["tensor<i64>"] * 2
    assert [str(a.type) for a in op.scatter.blocks[0].arguments] == ["tensor<i64>"] * 2
    assert str(op.source.type) == "tensor<2x2xi64>" and str(op.init_value.type) == "tensor<i64>"


def test_select_and_scatter_max_pool_gradient():
    b = build(lambda x, s, i: shlo.select_and_scatter(x, s, i, [1, 2, 2, 1], [1, 2, 2, 1], select=_ge,
                                                      scatter=add_body),
              "tensor<1x4x6x3xf32>", "tensor<1x2x3x3xf32>", "tensor<f32>")
    assert b.result_types == ["tensor<1x4x6x3xf32>"]


@pytest.mark.parametrize("args, exc, fragment", [
    (("tensor<4xf32>", "tensor<2xi32>", "tensor<f32>"), TypeError, "operand and source must have the same element"),
    (("tensor<4xf32>", "tensor<2xf32>", "tensor<i1>"), TypeError, "init_value must have the element type of operand"),
    (("tensor<4xf32>", "tensor<2xf32>", "tensor<1xf32>"), ValueError, "init_value must be a 0-d tensor"),
    (("tensor<4xf32>", "tensor<3xf32>", "tensor<f32>"), ValueError, "source must have the shape of the operand's "
                                                                    "windows [2], got [3]"),
])
def test_select_and_scatter_operand_rules(args, exc, fragment):
    with raises_rule(exc, "stablehlo.select_and_scatter", fragment):
        build(lambda x, s, i: shlo.select_and_scatter(x, s, i, [2], [2], select=_ge, scatter=add_body), *args)


@pytest.mark.parametrize("keywords, fragment", [
    (dict(window_dimensions=[2, 2]), "size of window_dimensions must equal the rank of the input (1)"),
    (dict(window_dimensions=[0]), "window_dimensions must be positive"),
    (dict(window_dimensions=[2], window_strides=[2, 2]), "size of window_strides must equal the rank"),
    (dict(window_dimensions=[2], window_strides=[0]), "window_strides must be positive"),
    (dict(window_dimensions=[2], window_strides=[2], padding=[[0, 0], [0, 0]]), "padding must have shape [1, 2]"),
])
def test_select_and_scatter_attribute_rules(keywords, fragment):
    with raises_rule(ValueError, "stablehlo.select_and_scatter", fragment):
        build(lambda x, s, i: shlo.select_and_scatter(x, s, i, select=_ge, scatter=add_body, **keywords),
              "tensor<4xf32>", "tensor<2xf32>", "tensor<f32>")


def test_select_and_scatter_region_rules():
    args = ("tensor<4xf32>", "tensor<2xf32>", "tensor<f32>")
    with raises_rule(TypeError, "stablehlo.select_and_scatter", "select must return one tensor<i1>, got (tensor<f32>)"):
        build(lambda x, s, i: shlo.select_and_scatter(x, s, i, [2], [2], select=add_body, scatter=add_body), *args)
    with raises_rule(TypeError, "stablehlo.select_and_scatter", "scatter must return tensor<f32> at position 0"):
        build(lambda x, s, i: shlo.select_and_scatter(x, s, i, [2], [2], select=_ge, scatter=_ge), *args)
    with raises_rule(ValueError, "stablehlo.select_and_scatter", "scatter must return 1 value(s)"):
        build(lambda x, s, i: shlo.select_and_scatter(x, s, i, [2], [2], select=_ge, scatter=lambda a, b: [a, b]),
              *args)


# batch normalization ----------------------------------------------------------------------------------------------

X, V = "tensor<2x2x2xf64>", "tensor<2xf64>"


def test_batch_norm_inference_spec_example_and_readback():
    b = build(lambda x, s, o, m, v: shlo.batch_norm_inference(x, s, o, m, v, epsilon=0.0, feature_index=2),
              X, V, V, V, V)
    assert b.result_types == [X]
    op = b.ops("stablehlo.batch_norm_inference")[0]
    assert isinstance(op, shlo.BatchNormInferenceOp)
    assert (op.epsilon, op.feature_index) == (0.0, 2)
    assert str(op.variance.type) == V


def test_batch_norm_training_spec_example_and_result_names():
    b = build(lambda x, s, o: shlo.batch_norm_training(x, s, o, 1e-3, 2), X, V, V)
    assert b.result_types == [X, V, V]
    op = b.ops("stablehlo.batch_norm_training")[0]
    assert abs(op.epsilon - 1e-3) < 1e-9 and op.feature_index == 2
    assert (str(op.output.type), str(op.batch_mean.type), str(op.batch_var.type)) == (X, V, V)
    assert "%output, %batch_mean, %batch_var" in b.text


def test_batch_norm_grad_spec_example_and_result_names():
    b = build(lambda x, s, m, v, g: shlo.batch_norm_grad(x, s, m, v, g, epsilon=0.0, feature_index=2), X, V, V, V, X)
    assert b.result_types == [X, V, V]
    op = b.ops("stablehlo.batch_norm_grad")[0]
    assert [str(r.type) for r in (op.grad_operand, op.grad_scale, op.grad_offset)] == [X, V, V]
    assert str(op.grad_output.type) == X


def test_batch_norm_per_feature_results_follow_the_feature_dimension():
    b = build(lambda x, s: shlo.batch_norm_training(x, s, s, 0.1, 1), "tensor<8x?x4xbf16>", "tensor<3xbf16>")
    assert b.result_types == ["tensor<8x?x4xbf16>", "tensor<?xbf16>", "tensor<?xbf16>"]


def test_batch_norm_rules():
    with raises_rule(ValueError, "stablehlo.batch_norm_training", "feature_index must be in [0, 3), got 3"):
        build(lambda x, s: shlo.batch_norm_training(x, s, s, 0.0, 3), X, V)
    with raises_rule(TypeError, "stablehlo.batch_norm_training", "operand must have floating-point"):
        build(lambda x, s: shlo.batch_norm_training(x, s, s, 0.0, 0), "tensor<2x2xi32>", "tensor<2xi32>")
    with raises_rule(TypeError, "stablehlo.batch_norm_inference", "offset and operand must have the same element"):
        build(lambda x, s, o: shlo.batch_norm_inference(x, s, o, s, s, 0.0, 2), X, V, "tensor<2xf32>")
    with raises_rule(ValueError, "stablehlo.batch_norm_inference", "size of mean must equal dim(operand, "
                     "feature_index) = 2, got 3"):
        build(lambda x, s, m: shlo.batch_norm_inference(x, s, s, m, s, 0.0, 2), X, V, "tensor<3xf64>")
    with raises_rule(ValueError, "stablehlo.batch_norm_training", "scale must be 1-dimensional"):
        build(lambda x, s, o: shlo.batch_norm_training(x, s, o, 0.0, 2), X, "tensor<1x2xf64>", V)
    with raises_rule(ValueError, "stablehlo.batch_norm_grad", "operand and grad_output must have the same shape"):
        build(lambda x, s, g: shlo.batch_norm_grad(x, s, s, s, g, 0.0, 2), X, V, "tensor<2x2x3xf64>")
    with raises_rule(ValueError, "stablehlo.batch_norm_grad", "size of variance must equal"):
        build(lambda x, s, v: shlo.batch_norm_grad(x, s, s, v, x, 0.0, 2), X, V, "tensor<4xf64>")
    with pytest.raises(TypeError, match="missing required argument 'epsilon'"):
        build(lambda x, s: shlo.batch_norm_training(x, s, s, feature_index=0), X, V)


def test_quantized_reduce_and_batch_norm_compare_baseline_element_types():
    q, q2 = "!quant.uniform<i8:f32, 0.5:3>", "!quant.uniform<i8:f32, 0.25:1>"
    b = build(lambda x, i: shlo.reduce(x, i, [0], shlo.add), f"tensor<4x{q}>", f"tensor<{q}>")
    assert b.result_types == ["tensor<!quant.uniform<i8:f32, 5.000000e-01:3>>"]
    b = build(lambda x, s: shlo.batch_norm_inference(x, s, s, s, s, 0.1, 1), f"tensor<2x3x{q}>", f"tensor<3x{q2}>")
    assert b.result_types == ["tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>"]
    with raises_rule(TypeError, "stablehlo.batch_norm_inference", "scale and operand must have the same element type"):
        build(lambda x, s: shlo.batch_norm_inference(x, s, s, s, s, 0.1, 1), f"tensor<2x3x{q}>",
              "tensor<3x!quant.uniform<i16:f32, 0.5>>")


# Parsed text ------------------------------------------------------------------------------------------------------

@needs_conformance
def test_conformance_reduce_window_and_select_and_scatter_parse_as_op_classes():
    with ir.context():
        windows = conformance_ops("interpret/reduce_window.mlir", "stablehlo.reduce_window")
        assert [type(op) for op in windows] == [shlo.ReduceWindowOp] * 2
        assert [op.window_dimensions for op in windows] == [[2, 1], [3, 1]]
        assert all(op.padding == [[2, 1], [0, 0]] and op.base_dilations == [2, 1] for op in windows)
        assert all(op.window_strides == [4, 1] and op.window_dilations == [3, 1] for op in windows)
        (sas,) = conformance_ops("interpret/select_and_scatter.mlir", "stablehlo.select_and_scatter")
        assert isinstance(sas, shlo.SelectAndScatterOp)
        assert (sas.window_dimensions, sas.window_strides, sas.padding) == ([3, 1], [2, 1], [[0, 1], [0, 0]])
        (reduce,) = conformance_ops("interpret/reduce.mlir", "stablehlo.reduce")
        assert isinstance(reduce, shlo.ReduceOp) and reduce.dimensions == [1]


def test_spec_batch_norm_text_parses_as_op_classes():
    text = """func.func @f(%x: tensor<2x2x2xf64>, %v: tensor<2xf64>) -> tensor<2x2x2xf64> {
      %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%x, %v, %v) {
        epsilon = 0.5 : f32, feature_index = 2 : i64
      } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
      return %output : tensor<2x2x2xf64>
    }"""
    with ir.context():
        (bn,) = parse_ops(text, "stablehlo.batch_norm_training")
        assert isinstance(bn, shlo.BatchNormTrainingOp)
        assert (bn.epsilon, bn.feature_index) == (0.5, 2)
        assert str(bn.batch_var.type) == "tensor<2xf64>"
