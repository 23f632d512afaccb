"""Builders and type inference of uniform_quantize and uniform_dequantize, with the specification's examples."""

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import quantization as Q

from conftest import build, conformance_ops, needs_conformance, raises_rule

PER_AXIS = "!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>"
PER_AXIS_2 = "!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>"
PER_TENSOR = "!quant.uniform<i8:f32, 0.5:-1>"


def _printed(spelling: str) -> str:
    """The type as MLIR prints it (scales in exponent form)."""
    return str(ir.Type.parse(spelling, ir.context()))


def test_uniform_quantize_spec_example_from_float():
    b = build(lambda x: Q.uniform_quantize(x, PER_AXIS), "tensor<2xf32>")
    assert b.result_types == [f"tensor<2x{_printed(PER_AXIS)}>"]
    op = b.ops("stablehlo.uniform_quantize")[0]
    assert isinstance(op, shlo.UniformQuantizeOp) and str(op.operand.type) == "tensor<2xf32>"


def test_uniform_quantize_spec_example_requantizes():
    b = build(lambda x: Q.uniform_quantize(x, PER_AXIS_2), f"tensor<2x{PER_AXIS}>")
    assert b.result_types == [f"tensor<2x{_printed(PER_AXIS_2)}>"]


def test_uniform_quantize_per_tensor_and_dynamic_shapes():
    assert build(lambda x: Q.uniform_quantize(x, PER_TENSOR), "tensor<?x3xf32>").result_types == \
        [f"tensor<?x3x{_printed(PER_TENSOR)}>"]
    with ir.context():
        target = ir.Type.parse("!quant.uniform<i16:f16, 0.25>")
    assert build(lambda x: Q.uniform_quantize(x, target), "tensor<4xf16>").result_types == \
        [f"tensor<4x{target}>"]


def test_uniform_quantize_rules():
    with raises_rule(TypeError, "stablehlo.uniform_quantize", "operand must have floating-point, quantized elements"):
        build(lambda x: Q.uniform_quantize(x, PER_TENSOR), "tensor<2xi32>")
    with raises_rule(TypeError, "dtype must be a uniform quantized type"):
        build(lambda x: Q.uniform_quantize(x, "i8"), "tensor<2xf32>")
    with raises_rule(TypeError, "the result's expressed type must be f16 (the operand's type), got f32"):
        build(lambda x: Q.uniform_quantize(x, PER_TENSOR), "tensor<2xf16>")
    with raises_rule(TypeError, "must be f32 (the operand's expressed type), got f16"):
        build(lambda x: Q.uniform_quantize(x, "!quant.uniform<i8:f16, 0.5>"), f"tensor<2x{PER_TENSOR}>")
    with raises_rule(ValueError, "dtype's quantization dimension 1 must be in [0, 1)"):
        build(lambda x: Q.uniform_quantize(x, "!quant.uniform<i8:f32:1, {0.1, 0.2}>"), "tensor<2xf32>")
    with raises_rule(ValueError, "dtype needs one scale per element of dimension 0 (3), got 2"):
        build(lambda x: Q.uniform_quantize(x, PER_AXIS), "tensor<3xf32>")
    with raises_rule(TypeError, "not an element type"):
        build(lambda x: Q.uniform_quantize(x, "!quant.bogus"), "tensor<2xf32>")


def test_uniform_dequantize_spec_example_and_rule():
    b = build(lambda x: Q.uniform_dequantize(x), f"tensor<2x{PER_AXIS}>")
    assert b.result_types == ["tensor<2xf32>"]
    assert isinstance(b.ops("stablehlo.uniform_dequantize")[0], shlo.UniformDequantizeOp)
    assert build(lambda x: Q.uniform_dequantize(x), "tensor<3x!quant.uniform<i8<-127:127>:bf16, 2.0>>").result_types \
        == ["tensor<3xbf16>"]
    with raises_rule(TypeError, "stablehlo.uniform_dequantize", "operand must have quantized elements, got f32"):
        build(lambda x: Q.uniform_dequantize(x), "tensor<2xf32>")


def test_quantized_type_fields():
    with ir.context():
        narrow = ir.Type.parse("!quant.uniform<i8<-127:127>:f16:1, {0.1:-3,0.2:4,0.3}>")
        per_tensor = ir.Type.parse(PER_TENSOR)
        assert (str(Q.storage_type(narrow)), str(Q.expressed_type(narrow)), Q.quantization_dimension(narrow)) == \
            ("i8", "f16", 1)
        assert (str(Q.storage_type(per_tensor)), str(Q.expressed_type(per_tensor))) == ("i8", "f32")
        assert Q.quantization_dimension(per_tensor) is None


@needs_conformance
def test_conformance_quantize_and_dequantize_parse_as_op_classes():
    path = "interpret/quantized_ops.mlir"
    quantize = conformance_ops(path, "stablehlo.uniform_quantize", allow_unregistered=True)
    dequantize = conformance_ops(path, "stablehlo.uniform_dequantize", allow_unregistered=True)
    assert quantize and all(isinstance(op, shlo.UniformQuantizeOp) for op in quantize)
    assert dequantize and isinstance(dequantize[0], shlo.UniformDequantizeOp)
    assert str(Q.expressed_type(dequantize[0].operand.type.element_type)) == "f32"
