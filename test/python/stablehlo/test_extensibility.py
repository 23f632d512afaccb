"""Builders of custom_call and composite: result types from the caller or the decomposition, and their rules."""

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import extensibility as E
from oxla.dialects.stablehlo.attributes import OutputOperandAlias

from conftest import build, conformance_ops, needs_conformance, raises_rule
F32 = "tensor<2x3xf32>"


# custom_call ------------------------------------------------------------------------------------------------------

def test_custom_call_typed_ffi_example_and_attributes():
    b = build(lambda x: E.custom_call("foo", x, backend_config={"bar": 42}, api_version=4,
                                      called_computations=["main"], result_types=[x.type]), "tensor<f64>")
    assert b.result_types == ["tensor<f64>"]
    op = b.ops("stablehlo.custom_call")[0]
    assert isinstance(op, shlo.CustomCallOp)
    assert (op.call_target_name, op.backend_config, op.api_version) == ("foo", {"bar": 42}, "API_VERSION_TYPED_FFI")
    assert (op.called_computations, op.has_side_effect, op.output_operand_aliases) == (["main"], False, [])


def test_custom_call_string_config_side_effect_and_no_results():
    b = build(lambda x: E.custom_call("check.expect_eq", [x, x], has_side_effect=True, backend_config="opaque",
                                      result_types=[]), F32)
    assert b.result_types == []
    op = b.ops("stablehlo.custom_call")[0]
    assert (op.has_side_effect, op.backend_config, op.api_version) == (True, "opaque", "API_VERSION_ORIGINAL")
    assert len(op.inputs) == 2


def test_custom_call_results_come_in_the_forms_result_types_takes():
    b = build(lambda x: E.custom_call("f", x, api_version="API_VERSION_STATUS_RETURNING",
                                      result_types=["tensor<4xi8>", shlo.TensorSpec.of((2,), "f16"), x.type]), F32)
    assert b.result_types == ["tensor<4xi8>", "tensor<2xf16>", F32]
    assert b.ops("stablehlo.custom_call")[0].api_version == "API_VERSION_STATUS_RETURNING"


def test_custom_call_layouts_aliases_and_tilings_read_back():
    alias = OutputOperandAlias([], 0, [])
    b = build(lambda x: E.custom_call("f", x, operand_layouts=[[1, 0]], result_layouts=[[0, 1]],
                                      output_operand_aliases=[alias], result_tilings=[[[8, 128]]],
                                      result_types=[F32]), F32)
    op = b.ops("stablehlo.custom_call")[0]
    assert (op.operand_layouts, op.result_layouts, op.output_operand_aliases) == ([[1, 0]], [[0, 1]], [alias])
    assert op.result_tilings == [[[8, 128]]]


def test_custom_call_needs_result_types():
    with raises_rule(TypeError, "stablehlo.custom_call", "cannot infer its results: pass result_types="):
        build(lambda x: E.custom_call("foo", x), F32)


def test_custom_call_backend_config_rules():
    with raises_rule(ValueError, "stablehlo.custom_call", "backend_config must be a string for api_version"):
        build(lambda x: E.custom_call("foo", x, backend_config={"a": 1}, result_types=[F32]), F32)
    with raises_rule(ValueError, "backend_config must be a dict for api_version 4"):
        build(lambda x: E.custom_call("foo", x, backend_config="s", api_version=4, result_types=[F32]), F32)
    with raises_rule(TypeError, "attribute backend_config: expected a string or a dict"):
        build(lambda x: E.custom_call("foo", x, backend_config=3, result_types=[F32]), F32)
    with raises_rule(ValueError, "attribute api_version: must be one of"):
        build(lambda x: E.custom_call("foo", x, api_version=9, result_types=[F32]), F32)


def test_custom_call_layout_rules():
    with raises_rule(ValueError, "stablehlo.custom_call", "operand_layouts and result_layouts must be given together"):
        build(lambda x: E.custom_call("f", x, operand_layouts=[[1, 0]], result_types=[F32]), F32)
    with raises_rule(ValueError, "operand_layouts must have one layout per operand (1), got 2"):
        build(lambda x: E.custom_call("f", x, operand_layouts=[[1, 0], [0, 1]], result_layouts=[[0, 1]],
                                      result_types=[F32]), F32)
    with raises_rule(ValueError, "result_layouts[0] must be a permutation of 0..1"):
        build(lambda x: E.custom_call("f", x, operand_layouts=[[1, 0]], result_layouts=[[0, 0]],
                                      result_types=[F32]), F32)
    with raises_rule(ValueError, "must be empty for the non-tensor !stablehlo.token"):
        build(lambda x: E.custom_call("f", x, operand_layouts=[[1, 0]], result_layouts=[[0]],
                                      result_types=["!stablehlo.token"]), F32)


def test_custom_call_alias_rules():
    with raises_rule(ValueError, "stablehlo.custom_call", "operand_index must be in [0, 1), got 1"):
        build(lambda x: E.custom_call("f", x, output_operand_aliases=[OutputOperandAlias([], 1, [])],
                                      result_types=[F32]), F32)
    with raises_rule(TypeError, "the output part tensor<3xf32> must have the type of the operand part tensor<2x3xf32>"):
        build(lambda x: E.custom_call("f", x, output_operand_aliases=[OutputOperandAlias([], 0, [])],
                                      result_types=["tensor<3xf32>"]), F32)
    with raises_rule(ValueError, "output_tuple_indices [2] is out of bounds"):
        build(lambda x: E.custom_call("f", x, output_operand_aliases=[{"output_tuple_indices": [2],
                                                                       "operand_index": 0}],
                                      result_types=[F32, F32]), F32)


def test_custom_call_alias_into_a_tuple_of_results():
    alias = OutputOperandAlias([1], 0, [])
    b = build(lambda x: E.custom_call("f", x, output_operand_aliases=[alias], result_types=["tensor<i1>", F32]), F32)
    assert b.ops("stablehlo.custom_call")[0].output_operand_aliases == [alias]


# composite --------------------------------------------------------------------------------------------------------

def _define(name: str, arg_types: list, body):
    """Defines `func.func @name` at the start of the module being built (from inside a builder body)."""
    from iree.compiler.dialects import func
    module_block = ir.InsertionPoint.current.block.owner.operation.parent.regions[0].blocks[0]
    types = [ir.Type.parse(t, ir.context()) if isinstance(t, str) else t for t in arg_types]
    with ir.InsertionPoint.at_block_begin(module_block):
        f = func.FuncOp(name, (types, []))
        with ir.InsertionPoint(f.add_entry_block()):
            results = body(*f.arguments)
            func.ReturnOp(results)
        f.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, [r.type for r in results]))


def test_composite_spec_example_takes_results_from_the_decomposition():
    def body(x, y):
        _define("my_op", [x.type, y.type], lambda a, c: [shlo.add(a, c)])
        return E.composite([x, y], "my_namespace.my_op", {"my_attribute": "my_value"}, "my_op", version=1)
    b = build(body, "tensor<f32>", "tensor<f32>")
    assert b.result_types == ["tensor<f32>"]
    op = b.ops("stablehlo.composite")[0]
    assert isinstance(op, shlo.CompositeOp)
    assert (op.name_, op.composite_attributes, op.decomposition, op.version) == \
        ("my_namespace.my_op", {"my_attribute": "my_value"}, "my_op", 1)


def test_composite_defaults_and_several_results():
    def body(x):
        _define("pair.impl", [x.type], lambda a: [a, shlo.negate(a)])
        return E.composite(x, "my.pair", decomposition="pair.impl")
    b = build(body, "tensor<4xi32>")
    assert b.result_types == ["tensor<4xi32>", "tensor<4xi32>"]
    op = b.ops("stablehlo.composite")[0]
    assert (op.composite_attributes, op.version) == ({}, 0)


def test_composite_before_its_decomposition_takes_result_types():
    def body(x):
        out = E.composite(x, "my.later", decomposition="later", result_types=[x.type])
        _define("later", [x.type], lambda a: [a])
        return out
    assert build(body, "tensor<2xf32>").result_types == ["tensor<2xf32>"]


def test_composite_rules():
    with raises_rule(TypeError, "stablehlo.composite", "decomposition @nope is not defined in an enclosing module"):
        build(lambda x: E.composite(x, "my.op", decomposition="nope"), "tensor<f32>")

    def named(name):
        def body(x):
            _define("impl", [x.type], lambda a: [a])
            return E.composite(x, name, decomposition="impl")
        return body
    with raises_rule(ValueError, "name must be a namespaced op name"):
        build(named("no_namespace"), "tensor<f32>")

    def mismatched(x):
        _define("impl", ["tensor<i32>"], lambda a: [a])
        return E.composite(x, "my.op", decomposition="impl")
    with raises_rule(TypeError, "inputs[0] must have the decomposition's argument type tensor<i32>, got tensor<f32>"):
        build(mismatched, "tensor<f32>")

    def arity(x):
        _define("impl", [x.type, x.type], lambda a, c: [a])
        return E.composite(x, "my.op", decomposition="impl")
    with raises_rule(ValueError, "inputs must match the decomposition's 2 argument(s), got 1"):
        build(arity, "tensor<f32>")

    def wrong_results(x):
        _define("impl", [x.type], lambda a: [a])
        return E.composite(x, "my.op", decomposition="impl", result_types=["tensor<i1>"])
    with raises_rule(TypeError, "result_types must be the decomposition's results (tensor<f32>)"):
        build(wrong_results, "tensor<f32>")


# Parsed conformance programs --------------------------------------------------------------------------------------

@needs_conformance
def test_conformance_composite_parses_with_python_attributes():
    op = conformance_ops("interpret/composite.mlir", "stablehlo.composite")[0]
    assert isinstance(op, shlo.CompositeOp)
    assert (op.name_, op.composite_attributes, op.decomposition, op.version) == \
        ("stablehlo.add_n", {"n": 2}, "add_n.impl", 0)


@needs_conformance
def test_conformance_check_custom_call_parses_with_python_attributes():
    op = conformance_ops("testdata/abs_float32_20_20.mlir", "stablehlo.custom_call")[0]
    assert isinstance(op, shlo.CustomCallOp)
    assert (op.call_target_name, op.has_side_effect, op.api_version) == \
        ("check.expect_close", True, "API_VERSION_ORIGINAL")
    assert len(op.inputs) == 2 and len(op.results) == 0
