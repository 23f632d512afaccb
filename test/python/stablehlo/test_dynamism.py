"""Builders and type inference of the dynamism ops: shapes from constant shape operands, else dynamic."""

import glob
import os

import numpy as np
import pytest

from oxla import ir
from oxla.dialects import stablehlo as shlo

from conftest import CONFORMANCE, build, needs_conformance, raises_rule
from test_data_movement import PER_AXIS, op_of, rebuild_all


def const(values, dtype="i64"):
    """A constant shape operand."""
    return shlo.constant(np.array(values), dtype)


# dynamic_broadcast_in_dim -----------------------------------------------------------------------------------------

def test_dynamic_broadcast_in_dim_spec_example():
    b = build(lambda x: shlo.dynamic_broadcast_in_dim(x, const([2, 3, 2]), [2, 1], known_expanding_dimensions=[0],
                                                      known_nonexpanding_dimensions=[1]), "tensor<1x3xi64>")
    assert b.result_types == ["tensor<2x3x2xi64>"]
    op = op_of(b, "dynamic_broadcast_in_dim")
    assert isinstance(op, shlo.DynamicBroadcastInDimOp)
    assert (op.broadcast_dimensions, op.known_expanding_dimensions, op.known_nonexpanding_dimensions) == \
        ([2, 1], [0], [1])


def test_dynamic_broadcast_in_dim_without_a_constant_keeps_only_non_expanding_sizes():
    b = build(lambda x, s: shlo.dynamic_broadcast_in_dim(x, s, [2, 1]), "tensor<1x3xi64>", "tensor<3xindex>")
    assert b.result_types == ["tensor<?x3x?xi64>"]
    op = op_of(b, "dynamic_broadcast_in_dim")
    assert op.known_expanding_dimensions is None and "known_expanding_dimensions" not in op.operation.attributes


def test_dynamic_broadcast_in_dim_explicit_result_type():
    b = build(lambda x, s: shlo.dynamic_broadcast_in_dim(x, s, [0], result_types="tensor<4x?xf32>"),
              "tensor<4xf32>", "tensor<2xi32>")
    assert b.result_types == ["tensor<4x?xf32>"]


def test_dynamic_broadcast_in_dim_moves_a_per_axis_quantization():
    b = build(lambda x: shlo.dynamic_broadcast_in_dim(x, const([1, 2, 3]), [0, 2]), f"tensor<1x3x{PER_AXIS}>")
    assert b.result_types[0].startswith("tensor<1x2x3x!quant.uniform<i8:f32:2, {")


def test_dynamic_broadcast_in_dim_rules():
    x = "tensor<1x3xi64>"
    with raises_rule(TypeError, "stablehlo.dynamic_broadcast_in_dim", "output_dimensions must have integer or index"):
        build(lambda v, s: shlo.dynamic_broadcast_in_dim(v, s, [0, 1]), x, "tensor<2xf32>")
    with raises_rule(ValueError, "stablehlo.dynamic_broadcast_in_dim", "must be a static 1-dimensional tensor"):
        build(lambda v, s: shlo.dynamic_broadcast_in_dim(v, s, [0, 1]), x, "tensor<?xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_broadcast_in_dim", "result rank (1) must be at least the operand"):
        build(lambda v, s: shlo.dynamic_broadcast_in_dim(v, s, [0, 1]), x, "tensor<1xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_broadcast_in_dim", "output_dimensions must hold non-negative"):
        build(lambda v: shlo.dynamic_broadcast_in_dim(v, const([1, -3]), [0, 1]), x)
    with raises_rule(ValueError, "stablehlo.dynamic_broadcast_in_dim", "one entry per operand dimension (2)"):
        build(lambda v, s: shlo.dynamic_broadcast_in_dim(v, s, [0]), x, "tensor<2xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_broadcast_in_dim", "broadcast_dimensions must be in [0, 2)"):
        build(lambda v, s: shlo.dynamic_broadcast_in_dim(v, s, [0, 2]), x, "tensor<2xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_broadcast_in_dim", "broadcast_dimensions must be unique"):
        build(lambda v, s: shlo.dynamic_broadcast_in_dim(v, s, [1, 1]), x, "tensor<2xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_broadcast_in_dim", "operand dimension 1 (size 3) must be 1"):
        build(lambda v: shlo.dynamic_broadcast_in_dim(v, const([2, 4]), [0, 1]), x)
    with raises_rule(ValueError, "stablehlo.dynamic_broadcast_in_dim", "must not share or repeat dimensions"):
        build(lambda v, s: shlo.dynamic_broadcast_in_dim(v, s, [0, 1], known_expanding_dimensions=[0],
                                                         known_nonexpanding_dimensions=[0]), x, "tensor<2xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_broadcast_in_dim", "known_nonexpanding_dimensions must be in [0, 2)"):
        build(lambda v, s: shlo.dynamic_broadcast_in_dim(v, s, [0, 1], known_nonexpanding_dimensions=[2]),
              x, "tensor<2xi64>")


# dynamic_iota -----------------------------------------------------------------------------------------------------

def test_dynamic_iota_spec_example():
    b = build(lambda: shlo.dynamic_iota(const([4, 5]), 0, "i64"))
    assert b.result_types == ["tensor<4x5xi64>"]
    op = op_of(b, "dynamic_iota")
    assert isinstance(op, shlo.DynamicIotaOp) and op.iota_dimension == 0


def test_dynamic_iota_of_a_run_time_shape():
    b = build(lambda s: shlo.dynamic_iota(s, 1, np.float32), "tensor<2xindex>")
    assert b.result_types == ["tensor<?x?xf32>"]


def test_dynamic_iota_rules():
    with raises_rule(ValueError, "stablehlo.dynamic_iota", "iota_dimension must be in [0, 2), got 2"):
        build(lambda s: shlo.dynamic_iota(s, 2, "i32"), "tensor<2xi64>")
    with raises_rule(TypeError, "stablehlo.dynamic_iota", "got i1"):
        build(lambda s: shlo.dynamic_iota(s, 0, "i1"), "tensor<2xi64>")
    with raises_rule(TypeError, "stablehlo.dynamic_iota", "output_shape must have integer or index elements"):
        build(lambda s: shlo.dynamic_iota(s, 0, "i32"), "tensor<2xf32>")
    with raises_rule(ValueError, "stablehlo.dynamic_iota", "output_shape must be a static 1-dimensional tensor"):
        build(lambda s: shlo.dynamic_iota(s, 0, "i32"), "tensor<1x2xi32>")
    with raises_rule(ValueError, "stablehlo.dynamic_iota", "output_shape must hold non-negative sizes, got [-1]"):
        build(lambda: shlo.dynamic_iota(const([-1]), 0, "i32"))


# dynamic_pad ------------------------------------------------------------------------------------------------------

def test_dynamic_pad_spec_example():
    b = build(lambda x, p: shlo.dynamic_pad(x, p, const([0, 1]), const([2, 1]), const([1, 2])),
              "tensor<2x3xi64>", "tensor<i64>")
    assert b.result_types == ["tensor<5x9xi64>"]
    op = op_of(b, "dynamic_pad")
    assert isinstance(op, shlo.DynamicPadOp) and str(op.interior_padding.type) == "tensor<2xi64>"


def test_dynamic_pad_of_run_time_paddings_or_dynamic_dims():
    b = build(lambda x, p, q: shlo.dynamic_pad(x, p, q, q, q), "tensor<2x3xf32>", "tensor<f32>", "tensor<2xindex>")
    assert b.result_types == ["tensor<?x?xf32>"]
    b = build(lambda x, p: shlo.dynamic_pad(x, p, const([1, 1]), const([1, 1]), const([0, 0])),
              "tensor<?x3xf32>", "tensor<f32>")
    assert b.result_types == ["tensor<?x5xf32>"]


def test_dynamic_pad_rules():
    x, p, q = "tensor<2x3xi64>", "tensor<i64>", "tensor<2xi64>"
    with raises_rule(TypeError, "stablehlo.dynamic_pad", "padding_value must have the element type of operand"):
        build(lambda v, w, s: shlo.dynamic_pad(v, w, s, s, s), x, "tensor<i32>", q)
    with raises_rule(ValueError, "stablehlo.dynamic_pad", "padding_value must be a 0-dimensional tensor"):
        build(lambda v, w, s: shlo.dynamic_pad(v, w, s, s, s), x, "tensor<1xi64>", q)
    with raises_rule(ValueError, "stablehlo.dynamic_pad", "edge_padding_low must have 2 entries"):
        build(lambda v, w, s: shlo.dynamic_pad(v, w, s, s, s), x, p, "tensor<3xi64>")
    with raises_rule(TypeError, "stablehlo.dynamic_pad", "must have the same type, got tensor<2xi64> and tensor<2xi32>"):
        build(lambda v, w, s, t: shlo.dynamic_pad(v, w, s, t, s), x, p, q, "tensor<2xi32>")
    with raises_rule(ValueError, "stablehlo.dynamic_pad", "interior_padding must be non-negative, got [0, -1]"):
        build(lambda v, w, s: shlo.dynamic_pad(v, w, s, s, const([0, -1])), x, p, q)
    with raises_rule(ValueError, "stablehlo.dynamic_pad", "padding makes dimension 0 negative (-2)"):
        build(lambda v, w: shlo.dynamic_pad(v, w, const([-2, 0]), const([-2, 0]), const([0, 0])), x, p)
    with raises_rule(TypeError, "stablehlo.dynamic_pad", "operand must not be per-axis quantized"):
        build(lambda v, w, s: shlo.dynamic_pad(v, w, s, s, s), f"tensor<2x3x{PER_AXIS}>", p, q)


# dynamic_reshape --------------------------------------------------------------------------------------------------

def test_dynamic_reshape_spec_example():
    b = build(lambda x: shlo.dynamic_reshape(x, const([3, 2])), "tensor<2x3xi64>")
    assert b.result_types == ["tensor<3x2xi64>"]
    op = op_of(b, "dynamic_reshape")
    assert isinstance(op, shlo.DynamicReshapeOp) and str(op.output_shape.type) == "tensor<2xi64>"


def test_dynamic_reshape_of_a_run_time_shape():
    assert build(lambda x, s: shlo.dynamic_reshape(x, s), "tensor<?xf32>", "tensor<3xi32>").result_types == \
        ["tensor<?x?x?xf32>"]
    b = build(lambda x: shlo.dynamic_reshape(x, const([1, 2, 3])), f"tensor<2x3x{PER_AXIS}>")
    assert b.result_types[0].startswith("tensor<1x2x3x!quant.uniform<i8:f32:2, {")


def test_dynamic_reshape_rules():
    with raises_rule(ValueError, "stablehlo.dynamic_reshape", "as many elements as the operand: [2, 3] has 6"):
        build(lambda x: shlo.dynamic_reshape(x, const([4, 2])), "tensor<2x3xi64>")
    with raises_rule(TypeError, "stablehlo.dynamic_reshape", "output_shape must have integer or index elements"):
        build(lambda x, s: shlo.dynamic_reshape(x, s), "tensor<2x3xi64>", "tensor<2xf32>")
    with raises_rule(ValueError, "stablehlo.dynamic_reshape", "output_shape must hold non-negative sizes"):
        build(lambda x: shlo.dynamic_reshape(x, const([-1, 6])), "tensor<2x3xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_reshape", "per-axis quantized operand needs a constant"):
        build(lambda x, s: shlo.dynamic_reshape(x, s), f"tensor<2x3x{PER_AXIS}>", "tensor<2xi64>")


# get_dimension_size and set_dimension_size ------------------------------------------------------------------------

def test_get_dimension_size_spec_example():
    b = build(lambda x: shlo.get_dimension_size(x, 1), "tensor<2x3xi64>")
    assert b.result_types == ["tensor<i32>"]
    assert op_of(b, "get_dimension_size").dimension == 1
    with raises_rule(ValueError, "stablehlo.get_dimension_size", "dimension must be in [0, 2), got 2"):
        build(lambda x: shlo.get_dimension_size(x, 2), "tensor<2x3xi64>")


@pytest.mark.parametrize("operand, size, dim, expected", [
    ("tensor<4x2xf32>", None, 1, "tensor<4x?xf32, #stablehlo.bounds<?, 2>>"),
    ("tensor<4x2xf32>", 2, 1, "tensor<4x2xf32>"),
    ("tensor<4x2xf32>", 1, 1, "tensor<4x?xf32, #stablehlo.bounds<?, 2>>"),
    ("tensor<4x?xf32>", None, 1, "tensor<4x?xf32>"),
    ("tensor<4x?xf32, #stablehlo.bounds<?, 5>>", None, 0, "tensor<?x?xf32, #stablehlo.bounds<4, 5>>"),
])
def test_set_dimension_size_bounds_the_dimension_by_its_size(operand, size, dim, expected):
    def body(x, s):
        return shlo.set_dimension_size(x, s if size is None else const(size, "i32"), dim)
    b = build(body, operand, "tensor<i32>")
    assert b.result_types == [expected]
    assert op_of(b, "set_dimension_size").dimension == dim


def test_set_dimension_size_rules():
    with raises_rule(TypeError, "stablehlo.set_dimension_size", "size must be a tensor<i32>, got tensor<i64>"):
        build(lambda x, s: shlo.set_dimension_size(x, s, 0), "tensor<4x2xf32>", "tensor<i64>")
    with raises_rule(TypeError, "stablehlo.set_dimension_size", "size must be a tensor<i32>, got tensor<1xi32>"):
        build(lambda x, s: shlo.set_dimension_size(x, s, 0), "tensor<4x2xf32>", "tensor<1xi32>")
    with raises_rule(ValueError, "stablehlo.set_dimension_size", "dimension must be in [0, 2), got 2"):
        build(lambda x, s: shlo.set_dimension_size(x, s, 2), "tensor<4x2xf32>", "tensor<i32>")


# real_dynamic_slice -----------------------------------------------------------------------------------------------

def test_real_dynamic_slice_of_run_time_and_constant_indices():
    b = build(lambda x, s: shlo.real_dynamic_slice(x, s, s, s), "tensor<256x?xf32>", "tensor<2xindex>")
    assert b.result_types == ["tensor<?x?xf32>"]
    op = op_of(b, "real_dynamic_slice")
    assert isinstance(op, shlo.RealDynamicSliceOp) and str(op.strides.type) == "tensor<2xindex>"
    b = build(lambda x: shlo.real_dynamic_slice(x, const([0, 2]), const([3, 6]), const([2, 3])), "tensor<3x6xi64>")
    assert b.result_types == ["tensor<2x2xi64>"]


def test_real_dynamic_slice_rules():
    x, s = "tensor<3x6xi64>", "tensor<2xi64>"
    with raises_rule(ValueError, "stablehlo.real_dynamic_slice", "limit_indices must have 2 entries"):
        build(lambda v, a, b: shlo.real_dynamic_slice(v, a, b, a), x, s, "tensor<3xi64>")
    with raises_rule(TypeError, "stablehlo.real_dynamic_slice", "must have the same type"):
        build(lambda v, a, b: shlo.real_dynamic_slice(v, a, a, b), x, s, "tensor<2xi32>")
    with raises_rule(ValueError, "stablehlo.real_dynamic_slice", "strides must be positive, got [1, 0]"):
        build(lambda v, a: shlo.real_dynamic_slice(v, a, a, const([1, 0])), x, s)
    with raises_rule(ValueError, "stablehlo.real_dynamic_slice", "got start 2 and limit 1"):
        build(lambda v: shlo.real_dynamic_slice(v, const([2, 0]), const([1, 1]), const([1, 1])), x)
    with raises_rule(ValueError, "stablehlo.real_dynamic_slice", "limit_indices <= 6, got start 0 and limit 7"):
        build(lambda v: shlo.real_dynamic_slice(v, const([0, 0]), const([1, 7]), const([1, 1])), x)


# Parsed text ------------------------------------------------------------------------------------------------------

CONFORMANCE_TEXT = """
func.func @f(%operand: tensor<3x1xi64>, %x: tensor<2x3xi64>) -> tensor<3x2x2xi64> {
  %output_dimensions = stablehlo.constant dense<[3, 2, 2]> : tensor<3xi64>
  %result = "stablehlo.dynamic_broadcast_in_dim"(%operand, %output_dimensions) {
    broadcast_dimensions = array<i64: 0, 2>,
    known_expanding_dimensions = array<i64: 1>,
    known_nonexpanding_dimensions = array<i64: 0>
  } : (tensor<3x1xi64>, tensor<3xi64>) -> tensor<3x2x2xi64>
  %output_shape = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %0 = stablehlo.dynamic_iota %output_shape, dim = 1 : (tensor<2xi64>) -> tensor<3x4xi64>
  %1 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x3xi64>) -> tensor<i32>
  return %result : tensor<3x2x2xi64>
}
"""


def test_parsed_conformance_text_gives_the_op_classes_and_attribute_values():
    with ir.context():
        m = ir.parse(CONFORMANCE_TEXT)
        ops = {op.operation.name: op for op in (o.opview for o in ir.ops(m))}
    b = ops["stablehlo.dynamic_broadcast_in_dim"]
    assert isinstance(b, shlo.DynamicBroadcastInDimOp)
    assert (b.broadcast_dimensions, b.known_expanding_dimensions, b.known_nonexpanding_dimensions) == ([0, 2], [1], [0])
    assert isinstance(ops["stablehlo.dynamic_iota"], shlo.DynamicIotaOp) and ops["stablehlo.dynamic_iota"].iota_dimension == 1
    assert isinstance(ops["stablehlo.get_dimension_size"], shlo.GetDimensionSizeOp)
    assert ops["stablehlo.get_dimension_size"].dimension == 1


@needs_conformance
def test_every_conformance_op_of_the_family_builds_again_with_the_same_types():
    counts, failures = rebuild_all(sorted(glob.glob(os.path.join(CONFORMANCE, "interpret", "*.mlir"))), ("dynamism",),
                                   strip=True)
    assert failures == []
    for name in ("dynamic_broadcast_in_dim", "dynamic_iota", "dynamic_pad", "dynamic_reshape", "get_dimension_size"):
        assert counts.get(name), name
