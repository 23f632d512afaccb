"""Builders and type inference of the linear algebra ops, with the specification's examples and broken rules."""

import pytest

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo.attributes import ConvDimensionNumbers, DotAlgorithm, DotDimensionNumbers

from conftest import build, conformance_ops, constant, needs_conformance, parse_ops, raises_rule


# dot_general --------------------------------------------------------------------------------------------------------

BATCH_MATMUL = DotDimensionNumbers(lhs_batching_dimensions=[0], rhs_batching_dimensions=[0],
                                   lhs_contracting_dimensions=[2], rhs_contracting_dimensions=[1])


def test_dot_general_spec_example_and_readback():
    algorithm = DotAlgorithm("tf32", "tf32", "f32")
    b = build(lambda x, y: shlo.dot_general(x, y, BATCH_MATMUL, ["DEFAULT", "DEFAULT"], algorithm),
              "tensor<2x2x2xi64>", "tensor<2x2x2xi64>")
    assert b.result_types == ["tensor<2x2x2xi64>"]
    op = b.ops("stablehlo.dot_general")[0]
    assert isinstance(op, shlo.DotGeneralOp)
    assert op.dot_dimension_numbers == BATCH_MATMUL
    assert op.precision_config == ["DEFAULT", "DEFAULT"]
    assert op.algorithm == algorithm and op.algorithm.num_primitive_operations == 1
    assert "batching_dims = [0] x [0], contracting_dims = [2] x [1]" in b.text


@pytest.mark.parametrize("lhs, rhs, numbers, expected", [
    ("tensor<4x3xf32>", "tensor<3x6xf32>", {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]},
     "tensor<4x6xf32>"),
    ("tensor<8x4x3xf32>", "tensor<8x3x6xf32>", BATCH_MATMUL, "tensor<8x4x6xf32>"),
    # batching dims first, then lhs's free dims, then rhs's, each in operand order
    ("tensor<3x8x5xf32>", "tensor<7x3x8xf32>",
     DotDimensionNumbers([1], [2], [0], [1]), "tensor<8x5x7xf32>"),
    # no contracting dims: an outer product (the interpreter's empty-dims example)
    ("tensor<2x2xi64>", "tensor<2x2xi64>", DotDimensionNumbers(), "tensor<2x2x2x2xi64>"),
    ("tensor<?x4x3xf32>", "tensor<8x3x?xf32>", BATCH_MATMUL, "tensor<8x4x?xf32>"),
])
def test_dot_general_shapes(lhs, rhs, numbers, expected):
    assert build(lambda x, y: shlo.dot_general(x, y, numbers), lhs, rhs).result_types == [expected]


@pytest.mark.parametrize("lhs, preferred, expected", [("i8", "i32", "i32"), ("bf16", "f32", "f32"),
                                                      ("f16", None, "f16")])
def test_dot_general_preferred_element_type(lhs, preferred, expected):
    numbers = DotDimensionNumbers(lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    b = build(lambda x, y: shlo.dot_general(x, y, numbers, preferred_element_type=preferred),
              f"tensor<4x3x{lhs}>", f"tensor<3x6x{lhs}>")
    assert b.result_types == [f"tensor<4x6x{expected}>"]


def test_dot_general_quantized_element_types():
    q = "!quant.uniform<i8:f32, 0.5>"
    numbers = DotDimensionNumbers(lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    hybrid = build(lambda x, y: shlo.dot_general(x, y, numbers), "tensor<4x3xf32>", f"tensor<3x6x{q}>")
    assert hybrid.result_types == ["tensor<4x6xf32>"]
    both = build(lambda x, y: shlo.dot_general(x, y, numbers), f"tensor<4x3x{q}>", f"tensor<3x6x{q}>")
    assert both.result_types == ["tensor<4x6x!quant.uniform<i8:f32, 5.000000e-01>>"]


M = "tensor<2x3x4xf32>"


@pytest.mark.parametrize("numbers, fragment", [
    (DotDimensionNumbers([0], [], [2], [1]), "lhs_batching_dimensions and rhs_batching_dimensions must have the same size"),
    (DotDimensionNumbers([], [], [2], []), "lhs_contracting_dimensions and rhs_contracting_dimensions must have the same"),
    (DotDimensionNumbers([0], [0], [0], [1]), "lhs_batching_dimensions and lhs_contracting_dimensions together must not"),
    (DotDimensionNumbers([0], [0], [1], [0]), "rhs_batching_dimensions and rhs_contracting_dimensions together must not"),
    (DotDimensionNumbers([3], [0], [], []), "lhs_batching_dimensions must be in [0, 3)"),
    (DotDimensionNumbers([], [], [-1], [0]), "lhs_contracting_dimensions must be in [0, 3)"),
    (DotDimensionNumbers([0], [5], [], []), "rhs_batching_dimensions must be in [0, 3)"),
    (DotDimensionNumbers([], [], [0], [7]), "rhs_contracting_dimensions must be in [0, 3)"),
    (DotDimensionNumbers([1], [0], [], []), "batching dimensions must have equal sizes: lhs dimension 1 is 3"),
    (DotDimensionNumbers([0], [0], [2], [1]), "contracting dimensions must have equal sizes: lhs dimension 2 is 4, rhs dimension 1 is 3"),
])
def test_dot_general_dimension_number_rules(numbers, fragment):
    with raises_rule(ValueError, "stablehlo.dot_general", fragment):
        build(lambda x, y: shlo.dot_general(x, y, numbers), M, M)


def test_dot_general_precision_and_algorithm_rules():
    with raises_rule(ValueError, "stablehlo.dot_general", "precision_config must have 2 entries"):
        build(lambda x, y: shlo.dot_general(x, y, BATCH_MATMUL, ["HIGH"]), "tensor<2x2x2xf32>", "tensor<2x2x2xf32>")
    with raises_rule(ValueError, "stablehlo.dot_general", "precision_config must be DEFAULT when an algorithm"):
        build(lambda x, y: shlo.dot_general(x, y, BATCH_MATMUL, ["HIGHEST", "DEFAULT"], DotAlgorithm("f32", "f32", "f32")),
              "tensor<2x2x2xf32>", "tensor<2x2x2xf32>")
    with raises_rule(ValueError, "stablehlo.dot_general", "attribute algorithm: lhs_component_count must be positive"):
        build(lambda x, y: shlo.dot_general(x, y, BATCH_MATMUL, algorithm=DotAlgorithm("f32", "f32", "f32", 0)),
              "tensor<2x2x2xf32>", "tensor<2x2x2xf32>")
    with raises_rule(ValueError, "stablehlo.dot_general", "num_primitive_operations must be positive"):
        build(lambda x, y: shlo.dot_general(x, y, BATCH_MATMUL,
                                            algorithm={"lhs_precision_type": "f32", "rhs_precision_type": "f32",
                                                       "accumulation_type": "f32", "num_primitive_operations": 0}),
              "tensor<2x2x2xf32>", "tensor<2x2x2xf32>")
    with raises_rule(ValueError, "stablehlo.dot_general", "not known to be supported"):
        build(lambda x, y: shlo.dot_general(x, y, BATCH_MATMUL, algorithm=DotAlgorithm("f16", "f32", "i8")),
              "tensor<2x2x2xf32>", "tensor<2x2x2xf32>")
    with raises_rule(ValueError, "stablehlo.dot_general", "precision must be one of DEFAULT, HIGH, HIGHEST"):
        build(lambda x, y: shlo.dot_general(x, y, BATCH_MATMUL, ["FAST", "DEFAULT"]),
              "tensor<2x2x2xf32>", "tensor<2x2x2xf32>")


def test_dot_general_element_type_rules():
    numbers = DotDimensionNumbers(lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    with raises_rule(TypeError, "stablehlo.dot_general", "lhs and rhs must have the same element type, got f32 and f16"):
        build(lambda x, y: shlo.dot_general(x, y, numbers), "tensor<4x3xf32>", "tensor<3x6xf16>")
    q, nonzero = "!quant.uniform<i8:f32, 0.5>", "!quant.uniform<i8:f32, 0.5:3>"
    with raises_rule(TypeError, "stablehlo.dot_general", "quantized operations need a quantized rhs"):
        build(lambda x, y: shlo.dot_general(x, y, numbers), f"tensor<4x3x{q}>", "tensor<3x6xf32>")
    with raises_rule(TypeError, "stablehlo.dot_general", "rhs zero points must be 0"):
        build(lambda x, y: shlo.dot_general(x, y, numbers), "tensor<4x3xf32>", f"tensor<3x6x{nonzero}>")
    with raises_rule(TypeError, "stablehlo.dot_general", "same storage type"):
        build(lambda x, y: shlo.dot_general(x, y, numbers), "tensor<4x3x!quant.uniform<i16:f32, 0.5>>",
              f"tensor<3x6x{q}>")
    with raises_rule(TypeError, "stablehlo.dot_general", "same expressed type"):
        build(lambda x, y: shlo.dot_general(x, y, numbers), "tensor<4x3x!quant.uniform<i8:f16, 0.5>>",
              f"tensor<3x6x{q}>")
    with raises_rule(TypeError, "stablehlo.dot_general", "the rhs's expressed type and the result must agree"):
        build(lambda x, y: shlo.dot_general(x, y, numbers), "tensor<4x3xf16>", f"tensor<3x6x{q}>")
    with raises_rule(TypeError, "stablehlo.dot_general", "quantization dimension 0 must not be a contracting"):
        build(lambda x, y: shlo.dot_general(x, y, numbers), "tensor<4x3xf32>",
              "tensor<3x6x!quant.uniform<i8:f32:0, {0.5, 0.5, 0.5}>>")


def test_dot_general_requires_dimension_numbers():
    with pytest.raises(TypeError, match="missing required argument 'dot_dimension_numbers'"):
        build(lambda x, y: shlo.dot_general(x, y), M, M)


# dot ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lhs, rhs, expected", [
    ("tensor<1x2xi32>", "tensor<2x1xi32>", "tensor<1x1xi32>"),
    ("tensor<3xf32>", "tensor<3xf32>", "tensor<f32>"),
    ("tensor<4x3xf32>", "tensor<3xf32>", "tensor<4xf32>"),
    ("tensor<3xf32>", "tensor<3x5xf32>", "tensor<5xf32>"),
    ("tensor<?x3xf32>", "tensor<3x?xf32>", "tensor<?x?xf32>"),
])
def test_dot_shapes(lhs, rhs, expected):
    assert build(lambda x, y: shlo.dot(x, y), lhs, rhs).result_types == [expected]


def test_dot_readback_preferred_type_and_rules():
    b = build(lambda x, y: shlo.dot(x, y, ["HIGH", "HIGHEST"], preferred_element_type="i32"),
              "tensor<2x2xi8>", "tensor<2x2xi8>")
    assert b.result_types == ["tensor<2x2xi32>"]
    op = b.ops("stablehlo.dot")[0]
    assert isinstance(op, shlo.DotOp) and op.precision_config == ["HIGH", "HIGHEST"]
    with raises_rule(ValueError, "stablehlo.dot", "lhs and rhs must have rank 1 or 2, got 3 and 2"):
        build(lambda x, y: shlo.dot(x, y), "tensor<2x2x2xf32>", "tensor<2x2xf32>")
    with raises_rule(ValueError, "stablehlo.dot", "the last dimension of lhs (3) must equal the first dimension of rhs (4)"):
        build(lambda x, y: shlo.dot(x, y), "tensor<2x3xf32>", "tensor<4x2xf32>")
    with raises_rule(TypeError, "stablehlo.dot", "same element type"):
        build(lambda x, y: shlo.dot(x, y), "tensor<3xf32>", "tensor<3xi32>")
    with raises_rule(ValueError, "stablehlo.dot", "precision_config must have 2 entries"):
        build(lambda x, y: shlo.dot(x, y, ["HIGH"] * 3), "tensor<3xf32>", "tensor<3xf32>")


# convolution --------------------------------------------------------------------------------------------------------

NHWC = ("NHWC", "HWIO", "NHWC")


def test_convolution_spec_example_and_readback():
    b = build(lambda x, w: shlo.convolution(
        x, w, window_strides=[4, 4], padding=[[0, 0], [0, 0]], lhs_dilation=[2, 2], rhs_dilation=[1, 1],
        window_reversal=[False, False], dimension_numbers=NHWC, feature_group_count=1, batch_group_count=1,
        precision_config=["DEFAULT", "DEFAULT"]), "tensor<1x4x4x1xi64>", "tensor<3x3x1x1xi64>")
    assert b.result_types == ["tensor<1x2x2x1xi64>"]
    assert "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" in b.text
    op = b.ops("stablehlo.convolution")[0]
    assert isinstance(op, shlo.ConvolutionOp)
    assert op.dimension_numbers == ConvDimensionNumbers(0, 3, [1, 2], 2, 3, [0, 1], 0, 3, [1, 2])
    assert (op.window_strides, op.padding, op.lhs_dilation, op.rhs_dilation) == ([4, 4], [[0, 0], [0, 0]], [2, 2], [1, 1])
    assert op.window_reversal == [False, False]
    assert (op.feature_group_count, op.batch_group_count, op.precision_config) == (1, 1, ["DEFAULT", "DEFAULT"])


def test_convolution_omitted_window_attributes_read_back_as_none_and_group_counts_are_stored():
    b = build(lambda x, w: shlo.convolution(x, w, dimension_numbers=NHWC), "tensor<1x4x4x1xf32>", "tensor<3x3x1x1xf32>")
    assert b.result_types == ["tensor<1x2x2x1xf32>"]
    op = b.ops("stablehlo.convolution")[0]
    assert op.window_strides is None and op.padding is None and op.window_reversal is None
    assert "batch_group_count = 1 : i64, feature_group_count = 1 : i64" in b.text


@pytest.mark.parametrize("lhs, rhs, kwargs, expected", [
    # the interpreter's examples: padded, batch-grouped, feature-grouped
    ("tensor<1x4x4x1xi64>", "tensor<3x3x1x1xi64>",
     dict(window_strides=[4, 4], padding=[[1, 1], [1, 1]], lhs_dilation=[2, 2], dimension_numbers=NHWC),
     "tensor<1x2x2x1xi64>"),
    ("tensor<1x4x4x1xi64>", "tensor<1x2x1x4xi64>",
     dict(window_strides=[4, 4], lhs_dilation=[2, 2], batch_group_count=4,
          dimension_numbers=ConvDimensionNumbers(1, 3, [0, 2], 2, 3, [0, 1], 0, 3, [1, 2])),
     "tensor<1x1x2x4xi64>"),
    ("tensor<1x4x4x1xi64>", "tensor<1x2x1x4xi64>",
     dict(window_strides=[4, 4], lhs_dilation=[2, 2], feature_group_count=2,
          dimension_numbers=ConvDimensionNumbers(0, 2, [1, 3], 1, 3, [0, 2], 0, 3, [1, 2])),
     "tensor<1x2x1x4xi64>"),
    # a JAX conv_general_dilated test: NCHW/OIHW with strides
    ("tensor<2x3x9x10xf32>", "tensor<3x3x4x5xf32>",
     dict(window_strides=[2, 3], dimension_numbers=("NCHW", "OIHW", "NCHW")), "tensor<2x3x3x2xf32>"),
    # window dilation, 1-D, dynamic sizes, windows larger than the input
    ("tensor<1x10x2xf32>", "tensor<3x2x5xf32>", dict(rhs_dilation=[2], dimension_numbers=("NWC", "WIO", "NWC")),
     "tensor<1x6x5xf32>"),
    ("tensor<?x9x?x2xf32>", "tensor<3x3x2x4xf32>", dict(dimension_numbers=NHWC), "tensor<?x7x?x4xf32>"),
    ("tensor<1x2x2x1xf32>", "tensor<3x3x1x1xf32>", dict(dimension_numbers=NHWC), "tensor<1x0x0x1xf32>"),
    # a dict of the dimension numbers' fields
    ("tensor<1x1x5x5xf32>", "tensor<2x1x3x3xf32>",
     dict(dimension_numbers={}, padding=[[1, 1], [1, 1]]), "tensor<1x2x5x5xf32>"),
])
def test_convolution_shapes(lhs, rhs, kwargs, expected):
    assert build(lambda x, w: shlo.convolution(x, w, **kwargs), lhs, rhs).result_types == [expected]


def test_convolution_preferred_element_type():
    """The interpreter's i8 x i8 -> i32 example."""
    b = build(lambda x, w: shlo.convolution(x, w, window_strides=[4, 4], lhs_dilation=[2, 2], dimension_numbers=NHWC,
                                            preferred_element_type="i32"),
              "tensor<1x4x4x1xi8>", "tensor<3x3x1x1xi8>")
    assert b.result_types == ["tensor<1x2x2x1xi32>"]


X, W = "tensor<2x6x6x4xf32>", "tensor<3x3x4x8xf32>"


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(window_strides=[1]), "window_strides must have 2 entries"),
    (dict(window_strides=[1, 0]), "window_strides must be positive"),
    (dict(padding=[[0, 0]]), "padding must have shape [2, 2]"),
    (dict(lhs_dilation=[1, 1, 1]), "lhs_dilation must have 2 entries"),
    (dict(lhs_dilation=[0, 1]), "lhs_dilation must be positive"),
    (dict(rhs_dilation=[2]), "rhs_dilation must have 2 entries"),
    (dict(rhs_dilation=[-1, 1]), "rhs_dilation must be positive"),
    (dict(window_reversal=[True]), "window_reversal must have 2 entries"),
    (dict(batch_group_count=3), "the input batch dimension (2) must be divisible by batch_group_count (3)"),
    (dict(feature_group_count=3), "the input feature dimension (4) must be divisible by feature_group_count (3)"),
    (dict(feature_group_count=2), "the kernel input feature dimension (4) must be the input feature dimension"),
    (dict(feature_group_count=0), "feature_group_count must be positive"),
    (dict(batch_group_count=-1), "batch_group_count must be positive"),
    (dict(precision_config=["DEFAULT"]), "precision_config must have 2 entries"),
    (dict(dimension_numbers=ConvDimensionNumbers(0, 2, [1], 1, 0, [2], 0, 2, [1])),
     "input_spatial_dimensions must have rank - 2 = 2 entries"),
])
def test_convolution_rules(kwargs, fragment):
    kwargs.setdefault("dimension_numbers", NHWC)
    with raises_rule(ValueError, "stablehlo.convolution", fragment):
        build(lambda x, w: shlo.convolution(x, w, **kwargs), X, W)


def test_convolution_group_and_rank_rules():
    with raises_rule(ValueError, "stablehlo.convolution", "lhs and rhs must have the same rank, got 4 and 3"):
        build(lambda x, w: shlo.convolution(x, w, dimension_numbers=NHWC), X, "tensor<3x4x8xf32>")
    with raises_rule(ValueError, "stablehlo.convolution", "must be divisible by batch_group_count (4)"):
        build(lambda x, w: shlo.convolution(x, w, dimension_numbers=NHWC, batch_group_count=4),
              "tensor<8x6x6x4xf32>", "tensor<3x3x4x6xf32>")
    with raises_rule(ValueError, "stablehlo.convolution", "kernel output feature dimension (6) must be divisible by "
                                                          "feature_group_count (4)"):
        build(lambda x, w: shlo.convolution(x, w, dimension_numbers=NHWC, feature_group_count=4),
              "tensor<8x6x6x4xf32>", "tensor<3x3x1x6xf32>")
    with raises_rule(ValueError, "stablehlo.convolution", "cannot both exceed 1, got 2 and 2"):
        build(lambda x, w: shlo.convolution(x, w, dimension_numbers=NHWC, feature_group_count=2, batch_group_count=2),
              "tensor<8x6x6x4xf32>", "tensor<3x3x2x8xf32>")
    with raises_rule(ValueError, "stablehlo.convolution", "dimension_numbers", "repeated"):
        build(lambda x, w: shlo.convolution(x, w, dimension_numbers=ConvDimensionNumbers(input_spatial_dimensions=[1, 1])),
              X, W)
    with raises_rule(TypeError, "stablehlo.convolution", "lhs and rhs must have the same element type"):
        build(lambda x, w: shlo.convolution(x, w, dimension_numbers=NHWC), X, "tensor<3x3x4x8xf16>")
    with raises_rule(TypeError, "stablehlo.convolution", "quantization dimension (0) must be kernel_output_feature"):
        build(lambda x, w: shlo.convolution(x, w, dimension_numbers=NHWC), X,
              "tensor<3x3x4x8x!quant.uniform<i8:f32:0, {0.5, 0.5, 0.5}>>")


# dynamic_conv -------------------------------------------------------------------------------------------------------

def test_dynamic_conv_with_constant_padding_infers_static_sizes():
    def body(x, w):
        padding = constant("[[1, 1], [1, 1]]", "tensor<2x2xi64>")
        return shlo.dynamic_conv(x, w, padding, window_strides=[4, 4], lhs_dilation=[2, 2], rhs_dilation=[1, 1],
                                 window_reversal=[False, False], dimension_numbers=NHWC,
                                 precision_config=["DEFAULT", "DEFAULT"])
    b = build(body, "tensor<1x4x4x1xi64>", "tensor<3x3x1x1xi64>")
    assert b.result_types == ["tensor<1x2x2x1xi64>"]
    op = b.ops("stablehlo.dynamic_conv")[0]
    assert isinstance(op, shlo.DynamicConvOp) and op.window_strides == [4, 4] and op.batch_group_count == 1
    assert str(op.padding.type) == "tensor<2x2xi64>"


def test_dynamic_conv_with_unknown_padding_leaves_spatial_sizes_dynamic_and_rules():
    b = build(lambda x, w, p: shlo.dynamic_conv(x, w, p, dimension_numbers=NHWC),
              "tensor<1x4x4x1xf32>", "tensor<3x3x1x5xf32>", "tensor<2x2xi32>")
    assert b.result_types == ["tensor<1x?x?x5xf32>"]
    with raises_rule(ValueError, "stablehlo.dynamic_conv", "padding must have shape [2, 2], got [1, 2]"):
        build(lambda x, w, p: shlo.dynamic_conv(x, w, p, dimension_numbers=NHWC),
              "tensor<1x4x4x1xf32>", "tensor<3x3x1x5xf32>", "tensor<1x2xi64>")
    with raises_rule(TypeError, "stablehlo.dynamic_conv", "padding must have integer elements"):
        build(lambda x, w, p: shlo.dynamic_conv(x, w, p, dimension_numbers=NHWC),
              "tensor<1x4x4x1xf32>", "tensor<3x3x1x5xf32>", "tensor<2x2xf32>")
    with raises_rule(ValueError, "stablehlo.dynamic_conv", "feature_group_count must be positive"):
        build(lambda x, w, p: shlo.dynamic_conv(x, w, p, dimension_numbers=NHWC, feature_group_count=0),
              "tensor<1x4x4x1xf32>", "tensor<3x3x1x5xf32>", "tensor<2x2xi64>")


# einsum, unary_einsum -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("config, lhs, rhs, expected", [
    ("ab,bc->ac", "tensor<4x16xf32>", "tensor<16x4xf32>", "tensor<4x4xf32>"),
    ("bij,bjk->bik", "tensor<2x3x4xf32>", "tensor<2x4x5xf32>", "tensor<2x3x5xf32>"),
    ("ij,jk", "tensor<3x4xf32>", "tensor<4x5xf32>", "tensor<3x5xf32>"),
    ("...ij,...jk->...ik", "tensor<7x2x3x4xf32>", "tensor<2x4x5xf32>", "tensor<7x2x3x5xf32>"),
    ("i, j -> ji", "tensor<3xi32>", "tensor<?xi32>", "tensor<?x3xi32>"),
])
def test_einsum_shapes(config, lhs, rhs, expected):
    b = build(lambda x, y: shlo.einsum(x, y, config), lhs, rhs)
    assert b.result_types == [expected]
    op = b.ops("stablehlo.einsum")[0]
    assert isinstance(op, shlo.EinsumOp) and op.einsum_config == config


@pytest.mark.parametrize("config, operand, expected", [
    ("ab->a", "tensor<4x16xf32>", "tensor<4xf32>"),
    ("ab->ba", "tensor<4x16xf32>", "tensor<16x4xf32>"),
    ("ii->i", "tensor<3x3xf32>", "tensor<3xf32>"),
    ("a...->...", "tensor<2x3x4xf32>", "tensor<3x4xf32>"),
])
def test_unary_einsum_shapes(config, operand, expected):
    b = build(lambda x: shlo.unary_einsum(x, config), operand)
    assert b.result_types == [expected]
    assert b.ops("stablehlo.unary_einsum")[0].einsum_config == config


@pytest.mark.parametrize("config, fragment", [
    ("ab,bc->ac", "einsum_config label 'b' has sizes 3 and 4"),
    ("ab->ab", "must have 2 input term(s)"),
    ("ab,cd->ae", "output label 'e' is not in any input term"),
    ("abc,bc->a", "must have one label per dimension of operand 0 (2)"),
    ("a1,bc->a", "must be letters"),
    ("ab,cd->aa", "repeats a label"),
])
def test_einsum_rules(config, fragment):
    with raises_rule(ValueError, "stablehlo.einsum", fragment):
        build(lambda x, y: shlo.einsum(x, y, config), "tensor<2x3xf32>", "tensor<4x5xf32>")


def test_einsum_element_type_and_unary_rules():
    with raises_rule(TypeError, "stablehlo.einsum", "lhs and rhs must have the same element type"):
        build(lambda x, y: shlo.einsum(x, y, "ab,bc->ac"), "tensor<2x3xf32>", "tensor<3x4xi32>")
    with raises_rule(ValueError, "stablehlo.unary_einsum", "einsum_config label 'i' has sizes 2 and 3"):
        build(lambda x: shlo.unary_einsum(x, "ii->i"), "tensor<2x3xf32>")
    with raises_rule(ValueError, "stablehlo.unary_einsum", "more labels than operand 0 has dimensions"):
        build(lambda x: shlo.unary_einsum(x, "abc...->a"), "tensor<2x3xf32>")


# cholesky -----------------------------------------------------------------------------------------------------------

def test_cholesky_spec_example_and_readback():
    b = build(lambda a: shlo.cholesky(a, lower=True), "tensor<3x3xf32>")
    assert b.result_types == ["tensor<3x3xf32>"]
    op = b.ops("stablehlo.cholesky")[0]
    assert isinstance(op, shlo.CholeskyOp) and op.lower is True
    default = build(lambda a: shlo.cholesky(a), "tensor<4x2x2xcomplex<f64>>")
    assert default.result_types == ["tensor<4x2x2xcomplex<f64>>"] and default.ops("stablehlo.cholesky")[0].lower is False


def test_cholesky_rules():
    with raises_rule(ValueError, "stablehlo.cholesky", "a must have rank >= 2, got shape [3]"):
        build(lambda a: shlo.cholesky(a), "tensor<3xf32>")
    with raises_rule(ValueError, "stablehlo.cholesky", "the last two dimensions of a must be equal, got shape [2, 3]"):
        build(lambda a: shlo.cholesky(a), "tensor<2x3xf32>")
    with raises_rule(TypeError, "stablehlo.cholesky", "a must have floating-point, complex, quantized elements"):
        build(lambda a: shlo.cholesky(a), "tensor<3x3xi32>")


# triangular_solve ---------------------------------------------------------------------------------------------------

def test_triangular_solve_spec_example_and_readback():
    b = build(lambda a, x: shlo.triangular_solve(a, x, left_side=True, lower=True, unit_diagonal=False,
                                                 transpose_a="NO_TRANSPOSE"), "tensor<3x3xf32>", "tensor<3x3xf32>")
    assert b.result_types == ["tensor<3x3xf32>"]
    op = b.ops("stablehlo.triangular_solve")[0]
    assert isinstance(op, shlo.TriangularSolveOp)
    assert (op.left_side, op.lower, op.unit_diagonal, op.transpose_a) == (True, True, False, "NO_TRANSPOSE")


@pytest.mark.parametrize("a, b, left_side, expected", [
    ("tensor<5x3x3xf64>", "tensor<5x3x4xf64>", True, "tensor<5x3x4xf64>"),
    ("tensor<5x3x3xf64>", "tensor<5x4x3xf64>", False, "tensor<5x4x3xf64>"),
    ("tensor<?x3x3xcomplex<f32>>", "tensor<2x3x?xcomplex<f32>>", True, "tensor<2x3x?xcomplex<f32>>"),
])
def test_triangular_solve_shapes(a, b, left_side, expected):
    built = build(lambda x, y: shlo.triangular_solve(x, y, left_side=left_side, transpose_a="adjoint"), a, b)
    assert built.result_types == [expected]
    assert built.ops("stablehlo.triangular_solve")[0].transpose_a == "ADJOINT"


def test_triangular_solve_rules():
    with raises_rule(ValueError, "stablehlo.triangular_solve", "a and b must have the same rank, got 2 and 3"):
        build(lambda a, b: shlo.triangular_solve(a, b), "tensor<3x3xf32>", "tensor<2x3x3xf32>")
    with raises_rule(ValueError, "stablehlo.triangular_solve", "b's dimension 0 (4) must equal a's size 3"):
        build(lambda a, b: shlo.triangular_solve(a, b, left_side=True), "tensor<3x3xf32>", "tensor<4x3xf32>")
    with raises_rule(ValueError, "stablehlo.triangular_solve", "b's dimension 1 (4) must equal a's size 3"):
        build(lambda a, b: shlo.triangular_solve(a, b, left_side=False), "tensor<3x3xf32>", "tensor<3x4xf32>")
    with raises_rule(ValueError, "stablehlo.triangular_solve", "same batch dimensions, got [2] and [5]"):
        build(lambda a, b: shlo.triangular_solve(a, b), "tensor<2x3x3xf32>", "tensor<5x3x3xf32>")
    with raises_rule(ValueError, "stablehlo.triangular_solve", "the last two dimensions of a must be equal"):
        build(lambda a, b: shlo.triangular_solve(a, b), "tensor<3x4xf32>", "tensor<3x4xf32>")
    with raises_rule(ValueError, "stablehlo.triangular_solve", "a must have rank >= 2"):
        build(lambda a, b: shlo.triangular_solve(a, b), "tensor<3xf32>", "tensor<3xf32>")
    with raises_rule(TypeError, "stablehlo.triangular_solve", "a and b must have the same element type"):
        build(lambda a, b: shlo.triangular_solve(a, b), "tensor<3x3xf32>", "tensor<3x3xf64>")
    with raises_rule(TypeError, "stablehlo.triangular_solve", "b must have floating-point"):
        build(lambda a, b: shlo.triangular_solve(a, b), "tensor<3x3xf32>", "tensor<3x3xi32>")
    with raises_rule(ValueError, "stablehlo.triangular_solve", "transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT"):
        build(lambda a, b: shlo.triangular_solve(a, b, transpose_a="TRANSPOSE_INVALID"),
              "tensor<3x3xf32>", "tensor<3x3xf32>")
    with raises_rule(ValueError, "stablehlo.triangular_solve", "transpose must be one of"):
        build(lambda a, b: shlo.triangular_solve(a, b, transpose_a="CONJUGATE"), "tensor<3x3xf32>", "tensor<3x3xf32>")


# fft ----------------------------------------------------------------------------------------------------------------

def test_fft_spec_example_and_readback():
    b = build(lambda x: shlo.fft(x, "FFT", [4]), "tensor<4xcomplex<f32>>")
    assert b.result_types == ["tensor<4xcomplex<f32>>"]
    op = b.ops("stablehlo.fft")[0]
    assert isinstance(op, shlo.FftOp) and (op.fft_type, op.fft_length) == ("FFT", [4])


@pytest.mark.parametrize("operand, kind, length, expected", [
    ("tensor<2x2xcomplex<f64>>", "IFFT", [2, 2], "tensor<2x2xcomplex<f64>>"),
    ("tensor<4xf64>", "RFFT", [4], "tensor<3xcomplex<f64>>"),
    ("tensor<3x8xf32>", "RFFT", [3, 8], "tensor<3x5xcomplex<f32>>"),
    ("tensor<3xcomplex<f64>>", "IRFFT", [4], "tensor<4xf64>"),
    # from JAX's fft tests
    ("tensor<14x15x16x17xcomplex<f32>>", "IRFFT", [15, 16, 32], "tensor<14x15x16x32xf32>"),
    ("tensor<14x15x16x17xcomplex<f64>>", "irfft", [33], "tensor<14x15x16x33xf64>"),
    ("tensor<14x15x0x17xf32>", "RFFT", [17], "tensor<14x15x0x9xcomplex<f32>>"),
    ("tensor<2x?xf32>", "RFFT", [6], "tensor<2x4xcomplex<f32>>"),
])
def test_fft_shapes(operand, kind, length, expected):
    b = build(lambda x: shlo.fft(x, kind, length), operand)
    assert b.result_types == [expected]
    assert b.ops("stablehlo.fft")[0].fft_type == kind.upper()


@pytest.mark.parametrize("operand, kind, length, exc, fragment", [
    ("tensor<2x2x2x2xcomplex<f32>>", "FFT", [2, 2, 2, 2], ValueError, "fft_length must have 1 to 3 entries"),
    ("tensor<2x2xcomplex<f32>>", "FFT", [], ValueError, "fft_length must have 1 to 3 entries"),
    ("tensor<2xcomplex<f32>>", "IFFT", [2, 2], ValueError, "must not have more entries than the operand's rank (1)"),
    ("tensor<4xf32>", "FFT", [4], TypeError, "operand must have complex elements, got f32"),
    ("tensor<4xcomplex<f32>>", "RFFT", [4], TypeError, "RFFT needs an f32 or f64 operand"),
    ("tensor<4xf16>", "RFFT", [4], TypeError, "RFFT needs an f32 or f64 operand, got f16"),
    ("tensor<4xf32>", "IRFFT", [4], TypeError, "operand must have complex elements"),
    ("tensor<2x8xf32>", "RFFT", [3, 8], ValueError, "RFFT needs the operand's last dimensions ([2, 8]) to be"),
    ("tensor<4xcomplex<f32>>", "IRFFT", [4], ValueError, "IRFFT needs the operand's last dimensions ([4]) to be [3]"),
    ("tensor<4xcomplex<f32>>", "FOURIER", [4], ValueError, "fft_type must be one of"),
])
def test_fft_rules(operand, kind, length, exc, fragment):
    with raises_rule(exc, "stablehlo.fft", fragment):
        build(lambda x: shlo.fft(x, kind, length), operand)


# Conformance text -------------------------------------------------------------------------------------------------

@needs_conformance
def test_conformance_dot_general_and_convolution_parse_as_op_classes():
    with ir.context():
        dots = conformance_ops("interpret/dot_general.mlir", "stablehlo.dot_general")
        assert dots and all(isinstance(op, shlo.DotGeneralOp) for op in dots)
        assert dots[0].dot_dimension_numbers == BATCH_MATMUL and dots[0].precision_config == ["DEFAULT", "DEFAULT"]
        assert dots[1].algorithm == DotAlgorithm("tf32", "tf32", "f32")
        assert dots[2].dot_dimension_numbers == DotDimensionNumbers()
        convs = conformance_ops("interpret/convolution.mlir", "stablehlo.convolution")
        assert convs and all(isinstance(op, shlo.ConvolutionOp) for op in convs)
        assert convs[0].dimension_numbers == ConvDimensionNumbers.from_layout(*NHWC)
        assert (convs[0].window_strides, convs[0].lhs_dilation, convs[0].padding) == ([4, 4], [2, 2], None)
        assert [(op.feature_group_count, op.batch_group_count) for op in convs].count((2, 1)) == 1


@needs_conformance
def test_conformance_fft_and_triangular_solve_parse_as_op_classes():
    with ir.context():
        ffts = conformance_ops("interpret/fft.mlir", "stablehlo.fft")
        assert {op.fft_type for op in ffts} == {"FFT", "IFFT", "RFFT", "IRFFT"}
        assert all(isinstance(op, shlo.FftOp) and 1 <= len(op.fft_length) <= 3 for op in ffts)
        solves = conformance_ops("interpret/triangular_solve.mlir", "stablehlo.triangular_solve")
        assert solves and all(isinstance(op, shlo.TriangularSolveOp) for op in solves)
        assert all(op.transpose_a in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT") for op in solves)


def test_spec_cholesky_and_einsum_text_parse_as_op_classes():
    text = """func.func @f(%a: tensor<3x3xf32>, %l: tensor<4x16xf32>, %r: tensor<16x4xf32>) -> tensor<3x3xf32> {
      %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
      %1 = "stablehlo.einsum"(%l, %r) {einsum_config = "ab,bc->ac"} : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
      %2 = "stablehlo.unary_einsum"(%l) {einsum_config = "ab->a"} : (tensor<4x16xf32>) -> tensor<4xf32>
      return %0 : tensor<3x3xf32>
    }"""
    with ir.context():
        (chol,) = parse_ops(text, "stablehlo.cholesky")
        (einsum,) = parse_ops(text, "stablehlo.einsum")
        (unary,) = parse_ops(text, "stablehlo.unary_einsum")
        assert isinstance(chol, shlo.CholeskyOp) and chol.lower is True
        assert isinstance(einsum, shlo.EinsumOp) and einsum.einsum_config == "ab,bc->ac"
        assert isinstance(unary, shlo.UnaryEinsumOp) and unary.einsum_config == "ab->a"


def test_layout_strings_pair_spatial_dimensions_by_letter():
    numbers = ConvDimensionNumbers.from_layout("NHWC", "WHIO", "NCHW")
    assert numbers.input_spatial_dimensions == [1, 2]
    assert numbers.kernel_spatial_dimensions == [1, 0]
    assert numbers.output_spatial_dimensions == [2, 3]
    with pytest.raises(ValueError, match="do not share spatial dimensions"):
        ConvDimensionNumbers.from_layout("NHWC", "HDIO", "NHWC")
