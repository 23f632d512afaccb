"""Builders and type inference of the data movement ops, with the specification's examples and broken rules."""

import glob
import os

import ml_dtypes
import numpy as np
import pytest

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.elements import DTYPES
from oxla.dialects.stablehlo import _core
from oxla.dialects.stablehlo.data_movement import ConstantBuilder

from conftest import CONFORMANCE, build, needs_conformance, raises_rule

PER_AXIS = "!quant.uniform<i8:f32:1, {0.1:1,0.2:2,0.3:3}>"


def op_of(b, name):
    """The one op `stablehlo.<name>` of a built module."""
    ops = b.ops(f"stablehlo.{name}")
    assert len(ops) == 1
    return ops[0]


# constant ---------------------------------------------------------------------------------------------------------

def test_constant_spec_example_and_value_readback():
    value = np.array([[0.0, 1.0], [2.0, 3.0]], dtype=np.float32)
    b = build(lambda: shlo.constant(value))
    assert b.result_types == ["tensor<2x2xf32>"]
    op = op_of(b, "constant")
    assert isinstance(op, shlo.ConstantOp)
    assert op.value.dtype == np.float32 and np.array_equal(op.value, value)
    assert op.output.type == b.results[0].type


@pytest.mark.parametrize("value, dtype, expected", [
    (1.5, None, "tensor<f64>"),
    (3, None, "tensor<i64>"),
    (True, None, "tensor<i1>"),
    ([1, 2, 3], "ui8", "tensor<3xui8>"),
    ([[1, -2]], np.int16, "tensor<1x2xi16>"),
    (np.zeros((2, 0)), "f32", "tensor<2x0xf32>"),
    pytest.param([-8, 7], "i4", "tensor<2xi4>",
                 marks=pytest.mark.skipif("i4" not in DTYPES, reason="numpy has no i4 here (ml_dtypes too old)")),
    ([0.5, -2.0], "bf16", "tensor<2xbf16>"),
    ([0.5, 448.0], "f8E4M3FN", "tensor<2xf8E4M3FN>"),
    (1 + 2j, None, "tensor<complex<f64>>"),
    (np.array([1 - 1j, 2j], np.complex64), None, "tensor<2xcomplex<f32>>"),
    ([1.0, 2.0], "complex<f32>", "tensor<2xcomplex<f32>>"),
])
def test_constant_dtypes_from_the_value_or_given(value, dtype, expected):
    b = build(lambda: shlo.constant(value, dtype))
    assert b.result_types == [expected]
    got = op_of(b, "constant").value
    assert got.shape == np.shape(value) and np.array_equal(got, np.asarray(value).astype(got.dtype))


def read_back(value, dtype=None):
    """The value of a constant built from `value`, read from its op (the module kept alive meanwhile)."""
    b = build(lambda: shlo.constant(value, dtype))
    return op_of(b, "constant").value


def test_constant_keeps_every_bit_of_special_floats():
    value = np.array([-0.0, np.inf, -np.inf, np.nan, 1e-45], np.float32)
    assert read_back(value).view(np.uint32).tolist() == value.view(np.uint32).tolist()
    z = np.array([complex(-0.0, np.inf)], np.complex128)
    assert read_back(z).view(np.uint64).tolist() == z.view(np.uint64).tolist()
    big = np.array([2**64 - 1, 0], np.uint64)
    assert read_back(big).tolist() == big.tolist()
    b16 = np.array([1.0, -3.5], ml_dtypes.bfloat16)
    assert read_back(b16).tolist() == b16.tolist()


def test_constant_accepts_an_attribute_and_an_explicit_result_type():
    def body():
        with ir.Location.unknown():
            attr = ir.Attribute.parse("dense<[1, 2]> : tensor<2xi32>")
        return [shlo.constant(attr), shlo.constant([1, 2], "i8", result_types="tensor<2x!quant.uniform<i8:f32, 0.5>>")]
    b = build(body)
    assert b.result_types == ["tensor<2xi32>", "tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>"]
    first, second = b.ops("stablehlo.constant")
    assert first.value.tolist() == [1, 2] and second.value.tolist() == [1, 2]


def test_constant_builder_is_the_registered_one_and_locates_the_callers_line():
    assert isinstance(shlo.constant, ConstantBuilder) and _core.BUILDERS["stablehlo.constant"] is shlo.constant
    assert "constant(value, dtype=None" in shlo.constant.__doc__
    with ir.context():
        module = ir.Module.create(ir.Location.unknown())
        with ir.InsertionPoint(module.body):
            c = shlo.constant(np.array([1j], np.complex64))
        assert "test_data_movement.py" in str(c.owner.location)
        assert isinstance(module.body.operations[0], shlo.ConstantOp)


def test_constant_rules():
    with raises_rule(TypeError, "stablehlo.constant", "complex values need a complex dtype"):
        build(lambda: shlo.constant(1j, "f32"))
    with raises_rule(ValueError, "stablehlo.constant", "values must be integers in [-128, 127] to fit in i8"):
        build(lambda: shlo.constant(300, "i8"))
    with raises_rule(ValueError, "stablehlo.constant", "values must be integers in [-8, 7] to fit in i4"):
        build(lambda: shlo.constant([1, 8], "i4"))
    with raises_rule(ValueError, "stablehlo.constant", "to fit in i32"):
        build(lambda: shlo.constant([1.5], "i32"))
    with raises_rule(ValueError, "values must be integers in [0, 255] to fit in ui8"):
        build(lambda: shlo.constant(np.array([-1]), "ui8"))
    with raises_rule(ValueError, "values must be integers in [0, 1] to fit in i1"):
        build(lambda: shlo.constant([0, 2], "i1"))
    with raises_rule(ValueError, "stablehlo.constant", "value does not fit in i64"):
        build(lambda: shlo.constant([2 ** 70], "i64"))
    assert read_back([2.0, -3.0], "i8").tolist() == [2, -3]
    with raises_rule(TypeError, "stablehlo.constant", "not an element type"):
        build(lambda: shlo.constant([1], "float7"))
    with raises_rule(TypeError, "stablehlo.constant", "not an element type"):
        build(lambda: shlo.constant(["a"]))
    with raises_rule(TypeError, "stablehlo.constant", "value cannot be held as f32"):
        build(lambda: shlo.constant(["a"], "f32"))
    with raises_rule(TypeError, "stablehlo.constant", "value must be a dense elements attribute"):
        build(lambda: shlo.constant(ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1)))
    with raises_rule(TypeError, "stablehlo.constant", "attribute value is required"):
        build(lambda: shlo.constant(None))
    with raises_rule(ValueError, "stablehlo.constant", "does not verify"):
        build(lambda: shlo.constant([1.0], "f32", result_types="tensor<1xf16>"))


# iota -------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1])
def test_iota_spec_examples(dim):
    b = build(lambda: shlo.iota([4, 5], dim, "i32"))
    assert b.result_types == ["tensor<4x5xi32>"]
    op = op_of(b, "iota")
    assert isinstance(op, shlo.IotaOp) and op.iota_dimension == dim


def test_iota_element_types():
    b = build(lambda: [shlo.iota(3, 0, np.float32), shlo.iota((2, 2), 1, "complex<f64>"),
                       shlo.iota([4], 0, "!quant.uniform<i8:f32, 0.5>")])
    assert b.result_types == ["tensor<3xf32>", "tensor<2x2xcomplex<f64>>", "tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>"]


def test_iota_rules():
    with raises_rule(ValueError, "stablehlo.iota", "iota_dimension must be in [0, 2), got 2"):
        build(lambda: shlo.iota([4, 5], 2, "i32"))
    with raises_rule(ValueError, "stablehlo.iota", "rank >= 1"):
        build(lambda: shlo.iota([], 0, "i32"))
    with raises_rule(TypeError, "stablehlo.iota", "integer, floating-point, complex or quantized elements, got i1"):
        build(lambda: shlo.iota([4], 0, "i1"))
    with raises_rule(ValueError, "stablehlo.iota", "shape must be static"):
        build(lambda: shlo.iota([None, 4], 0, "i32"))
    with raises_rule(ValueError, "stablehlo.iota", "not a dimension size: -3"):
        build(lambda: shlo.iota([-3], 0, "i32"))
    with raises_rule(TypeError, "stablehlo.iota", "not an element type"):
        build(lambda: shlo.iota([3], 0, "int"))


# broadcast_in_dim and broadcast -----------------------------------------------------------------------------------

def test_broadcast_in_dim_spec_example():
    b = build(lambda x: shlo.broadcast_in_dim(x, [2, 1], [2, 3, 2]), "tensor<1x3xi32>")
    assert b.result_types == ["tensor<2x3x2xi32>"]
    op = op_of(b, "broadcast_in_dim")
    assert isinstance(op, shlo.BroadcastInDimOp) and op.broadcast_dimensions == [2, 1]


def test_broadcast_in_dim_scalar_and_dynamic_operand():
    b = build(lambda s, x: [shlo.broadcast_in_dim(s, [], (2, 3)), shlo.broadcast_in_dim(x, [1], [4, 3])],
              "tensor<f16>", "tensor<?xf16>")
    assert b.result_types == ["tensor<2x3xf16>", "tensor<4x3xf16>"]


def test_broadcast_in_dim_moves_a_per_axis_quantization():
    b = build(lambda x: shlo.broadcast_in_dim(x, [0, 2], [1, 2, 3]), f"tensor<1x3x{PER_AXIS}>")
    assert b.result_types == ["tensor<1x2x3x!quant.uniform<i8:f32:2, {1.000000e-01:1,2.000000e-01:2,3.000000e-01:3}>>"]
    b = build(lambda x: shlo.broadcast_in_dim(x, [1, 0], [2, 1]), "tensor<1x1x!quant.uniform<i8:f32:0, {0.5:3}>>")
    assert b.result_types == ["tensor<2x1x!quant.uniform<i8:f32:1, {5.000000e-01:3}>>"]
    b = build(lambda x: shlo.broadcast_in_dim(x, [0, 1], [3, 2]), "tensor<1x2x!quant.uniform<i8:f32:0, {0.5:3}>>")
    assert b.result_types == ["tensor<3x2x!quant.uniform<i8:f32:0, {5.000000e-01:3,5.000000e-01:3,5.000000e-01:3}>>"]


def test_broadcast_in_dim_rules():
    x = "tensor<1x3xi32>"
    with raises_rule(ValueError, "stablehlo.broadcast_in_dim", "one entry per operand dimension (2)"):
        build(lambda v: shlo.broadcast_in_dim(v, [1], [2, 3]), x)
    with raises_rule(ValueError, "stablehlo.broadcast_in_dim", "broadcast_dimensions must be in [0, 2)"):
        build(lambda v: shlo.broadcast_in_dim(v, [0, 2], [2, 3]), x)
    with raises_rule(ValueError, "stablehlo.broadcast_in_dim", "broadcast_dimensions must be unique"):
        build(lambda v: shlo.broadcast_in_dim(v, [1, 1], [3, 3]), x)
    with raises_rule(ValueError, "stablehlo.broadcast_in_dim", "operand dimension 1 (size 3) must be 1 or the size"):
        build(lambda v: shlo.broadcast_in_dim(v, [0, 1], [2, 4]), x)
    with raises_rule(ValueError, "stablehlo.broadcast_in_dim", "shape must be static"):
        build(lambda v: shlo.broadcast_in_dim(v, [0, 1], [None, 3]), x)
    with raises_rule(TypeError, "stablehlo.broadcast_in_dim", "attribute broadcast_dimensions: i64 array: expected a sequence of ints"):
        build(lambda v: shlo.broadcast_in_dim(v, 1, [2, 3]), x)


def test_broadcast_prepends_sizes():
    b = build(lambda x: shlo.broadcast(x, [1, 2]), "tensor<3xi32>")
    assert b.result_types == ["tensor<1x2x3xi32>"]
    assert op_of(b, "broadcast").broadcast_sizes == [1, 2]
    with raises_rule(ValueError, "stablehlo.broadcast", "broadcast_sizes must be non-negative"):
        build(lambda x: shlo.broadcast(x, [-1]), "tensor<3xi32>")
    with raises_rule(TypeError, "stablehlo.broadcast", "operand must not be per-axis quantized"):
        build(lambda x: shlo.broadcast(x, [2]), f"tensor<2x3x{PER_AXIS}>")


# reshape, transpose, reverse --------------------------------------------------------------------------------------

def test_reshape_spec_example():
    b = build(lambda x: shlo.reshape(x, [3, 2]), "tensor<2x3xi32>")
    assert b.result_types == ["tensor<3x2xi32>"]
    assert isinstance(op_of(b, "reshape"), shlo.ReshapeOp)
    assert build(lambda x: shlo.reshape(x, []), "tensor<1x1xf32>").result_types == ["tensor<f32>"]
    assert build(lambda x: shlo.reshape(x, [6]), "tensor<?x3xf32>").result_types == ["tensor<6xf32>"]


def test_reshape_keeps_a_per_axis_quantized_dimension():
    b = build(lambda x: shlo.reshape(x, [1, 2, 3, 1]), f"tensor<2x3x{PER_AXIS}>")
    assert b.result_types[0].startswith("tensor<1x2x3x1x!quant.uniform<i8:f32:2, {")


def test_reshape_rules():
    with raises_rule(ValueError, "stablehlo.reshape", "as many elements as the operand: [2, 3] has 6, [4, 2] has 8"):
        build(lambda x: shlo.reshape(x, [4, 2]), "tensor<2x3xi32>")
    with raises_rule(ValueError, "stablehlo.reshape", "shape must be static"):
        build(lambda x: shlo.reshape(x, [None]), "tensor<?xi32>")
    with raises_rule(ValueError, "stablehlo.reshape", "quantization dimension 1 of operand (size 3)"):
        build(lambda x: shlo.reshape(x, [6]), f"tensor<2x3x{PER_AXIS}>")


def test_transpose_spec_example():
    b = build(lambda x: shlo.transpose(x, [2, 1, 0]), "tensor<2x3x2xi32>")
    assert b.result_types == ["tensor<2x3x2xi32>"]
    assert op_of(b, "transpose").permutation == [2, 1, 0]
    assert build(lambda x: shlo.transpose(x, [1, 2, 0]), "tensor<2x?x4xf32>").result_types == ["tensor<?x4x2xf32>"]


def test_transpose_moves_bounds_and_per_axis_quantization():
    b = build(lambda x: shlo.transpose(x, [1, 0]), "tensor<?x3xf32, #stablehlo.bounds<4, ?>>")
    assert b.result_types == ["tensor<3x?xf32, #stablehlo.bounds<?, 4>>"]
    b = build(lambda x: shlo.transpose(x, [1, 0]), f"tensor<2x3x{PER_AXIS}>")
    assert b.result_types[0].startswith("tensor<3x2x!quant.uniform<i8:f32:0, {")


def test_transpose_rules():
    with raises_rule(ValueError, "stablehlo.transpose", "permutation must be a permutation of 0..2, got [0, 1]"):
        build(lambda x: shlo.transpose(x, [0, 1]), "tensor<2x3x2xi32>")
    with raises_rule(ValueError, "stablehlo.transpose", "permutation must be a permutation of 0..1, got [1, 1]"):
        build(lambda x: shlo.transpose(x, [1, 1]), "tensor<2x3xi32>")


def test_reverse_spec_example():
    b = build(lambda x: shlo.reverse(x, [1]), "tensor<3x2xi32>")
    assert b.result_types == ["tensor<3x2xi32>"]
    assert op_of(b, "reverse").dimensions == [1]


def test_reverse_rules():
    with raises_rule(ValueError, "stablehlo.reverse", "dimensions must be unique"):
        build(lambda x: shlo.reverse(x, [1, 1]), "tensor<3x2xi32>")
    with raises_rule(ValueError, "stablehlo.reverse", "dimensions must be in [0, 2)"):
        build(lambda x: shlo.reverse(x, [2]), "tensor<3x2xi32>")
    with raises_rule(TypeError, "stablehlo.reverse", "operand must not be per-axis quantized"):
        build(lambda x: shlo.reverse(x, [0]), f"tensor<2x3x{PER_AXIS}>")


# concatenate and pad ----------------------------------------------------------------------------------------------

def test_concatenate_spec_example():
    b = build(lambda x, y: shlo.concatenate([x, y], 0), "tensor<3x2xi64>", "tensor<1x2xi64>")
    assert b.result_types == ["tensor<4x2xi64>"]
    op = op_of(b, "concatenate")
    assert op.dimension == 0 and len(op.inputs) == 2


@pytest.mark.parametrize("types, dim, expected", [
    (["tensor<2x?xf32>", "tensor<?x3xf32>"], 1, "tensor<2x?xf32>"),
    (["tensor<?x3xf32>", "tensor<2x3xf32>", "tensor<4x3xf32>"], 0, "tensor<?x3xf32>"),
    (["tensor<?x3xf32, #stablehlo.bounds<4, ?>>", "tensor<2x3xf32>"], 0, "tensor<?x3xf32, #stablehlo.bounds<6, ?>>"),
    (["tensor<?x3xf32, #stablehlo.bounds<4, ?>>", "tensor<?x2xf32, #stablehlo.bounds<2, ?>>"], 1,
     "tensor<?x5xf32, #stablehlo.bounds<2, ?>>"),
])
def test_concatenate_dynamic_and_bounded_sizes(types, dim, expected):
    assert build(lambda *xs: shlo.concatenate(list(xs), dim), *types).result_types == [expected]


def test_concatenate_rules():
    with raises_rule(ValueError, "stablehlo.concatenate", "needs at least one input"):
        build(lambda: shlo.concatenate([], 0))
    with raises_rule(TypeError, "stablehlo.concatenate", "inputs must have the same element type"):
        build(lambda x, y: shlo.concatenate([x, y], 0), "tensor<2xf32>", "tensor<2xf16>")
    with raises_rule(ValueError, "stablehlo.concatenate", "inputs must have rank >= 1"):
        build(lambda x: shlo.concatenate([x, x], 0), "tensor<f32>")
    with raises_rule(ValueError, "stablehlo.concatenate", "dimension must be in [0, 2), got 2"):
        build(lambda x: shlo.concatenate([x, x], 2), "tensor<2x3xf32>")
    with raises_rule(ValueError, "stablehlo.concatenate", "the same shape except in dimension 0"):
        build(lambda x, y: shlo.concatenate([x, y], 0), "tensor<2x3xf32>", "tensor<2x4xf32>")
    with raises_rule(ValueError, "stablehlo.concatenate", "the same shape except in dimension 0"):
        build(lambda x, y: shlo.concatenate([x, y], 0), "tensor<2x3xf32>", "tensor<2x3x1xf32>")
    with raises_rule(ValueError, "stablehlo.concatenate", "dimension 0 is 2 and 3"):
        build(lambda x, y, z: shlo.concatenate([x, y, z], 1), "tensor<?x1xf32>", "tensor<2x1xf32>", "tensor<3x1xf32>")
    with raises_rule(ValueError, "stablehlo.concatenate", "dimension 0 has size 5 beyond its bound 4"):
        build(lambda x, y: shlo.concatenate([x, y], 1), "tensor<?x1xf32, #stablehlo.bounds<4, ?>>", "tensor<5x1xf32>")
    with raises_rule(TypeError, "stablehlo.concatenate", "inputs[0] must not be per-axis quantized"):
        build(lambda x: shlo.concatenate([x], 0), f"tensor<2x3x{PER_AXIS}>")


def test_pad_spec_example():
    b = build(lambda x, p: shlo.pad(x, p, [0, 1], [2, 1], [1, 2]), "tensor<2x3xi32>", "tensor<i32>")
    assert b.result_types == ["tensor<5x9xi32>"]
    op = op_of(b, "pad")
    assert (op.edge_padding_low, op.edge_padding_high, op.interior_padding) == ([0, 1], [2, 1], [1, 2])


def test_pad_defaults_negative_edges_dynamic_and_bounded_dims():
    b = build(lambda x, p: shlo.pad(x, p, [1, -1], [1, -1]), "tensor<5x4xi64>", "tensor<i64>")
    assert b.result_types == ["tensor<7x2xi64>"]
    assert op_of(b, "pad").interior_padding == [0, 0]
    b = build(lambda x, p: shlo.pad(x, p, [1, -1], [1, -1], [0, 1]), "tensor<5x4xi64>", "tensor<i64>")
    assert b.result_types == ["tensor<7x5xi64>"]
    b = build(lambda x, p: shlo.pad(x, p, [1, 1], [0, 0]), "tensor<?x0xf32, #stablehlo.bounds<4, ?>>", "tensor<f32>")
    assert b.result_types == ["tensor<?x1xf32, #stablehlo.bounds<5, ?>>"]


def test_pad_rules():
    x, p = "tensor<2x3xi32>", "tensor<i32>"
    with raises_rule(TypeError, "stablehlo.pad", "padding_value must have the element type of operand"):
        build(lambda v, q: shlo.pad(v, q, [0, 0], [0, 0]), x, "tensor<f32>")
    with raises_rule(ValueError, "stablehlo.pad", "padding_value must be a 0-dimensional tensor"):
        build(lambda v, q: shlo.pad(v, q, [0, 0], [0, 0]), x, "tensor<1xi32>")
    with raises_rule(ValueError, "stablehlo.pad", "edge_padding_high must have one entry per operand dimension (2)"):
        build(lambda v, q: shlo.pad(v, q, [0, 0], [0]), x, p)
    with raises_rule(ValueError, "stablehlo.pad", "interior_padding must have one entry per operand dimension"):
        build(lambda v, q: shlo.pad(v, q, [0, 0], [0, 0], [0, 0, 0]), x, p)
    with raises_rule(ValueError, "stablehlo.pad", "interior_padding must be non-negative"):
        build(lambda v, q: shlo.pad(v, q, [0, 0], [0, 0], [0, -1]), x, p)
    with raises_rule(ValueError, "stablehlo.pad", "padding makes dimension 1 negative (-1)"):
        build(lambda v, q: shlo.pad(v, q, [0, -2], [0, -2]), x, p)
    with raises_rule(ValueError, "stablehlo.pad", "padding makes the bound of dimension 0 negative"):
        build(lambda v, q: shlo.pad(v, q, [-3], [-3]), "tensor<?xi32, #stablehlo.bounds<4>>", p)


# Slices -----------------------------------------------------------------------------------------------------------

def test_slice_spec_example_and_default_strides():
    b = build(lambda x: shlo.slice(x, [1, 2], [3, 4]), "tensor<3x4xi64>")
    assert b.result_types == ["tensor<2x2xi64>"]
    op = op_of(b, "slice")
    assert (op.start_indices, op.limit_indices, op.strides) == ([1, 2], [3, 4], [1, 1])


def test_slice_with_strides_and_dynamic_operand():
    assert build(lambda x: shlo.slice(x, [0, 2], [3, 6], [2, 3]), "tensor<3x6xi64>").result_types == ["tensor<2x2xi64>"]
    assert build(lambda x: shlo.slice(x, [0, 1], [7, 2], [3, 1]), "tensor<?x2xf32>").result_types == ["tensor<3x1xf32>"]


def test_slice_rules():
    x = "tensor<3x4xi64>"
    with raises_rule(ValueError, "stablehlo.slice", "limit_indices must have one entry per operand dimension (2)"):
        build(lambda v: shlo.slice(v, [0, 0], [1]), x)
    with raises_rule(ValueError, "stablehlo.slice", "strides must have one entry per operand dimension"):
        build(lambda v: shlo.slice(v, [0, 0], [1, 1], [1]), x)
    with raises_rule(ValueError, "stablehlo.slice", "dimension 1 needs 0 <= start_indices <= limit_indices <= 4"):
        build(lambda v: shlo.slice(v, [0, 0], [1, 5]), x)
    with raises_rule(ValueError, "stablehlo.slice", "got start 2 and limit 1"):
        build(lambda v: shlo.slice(v, [2, 0], [1, 1]), x)
    with raises_rule(ValueError, "stablehlo.slice", "got start -1 and limit 1"):
        build(lambda v: shlo.slice(v, [-1, 0], [1, 1]), x)
    with raises_rule(ValueError, "stablehlo.slice", "strides must be positive, got [1, 0]"):
        build(lambda v: shlo.slice(v, [0, 0], [1, 1], [1, 0]), x)


def test_dynamic_slice_spec_example():
    b = build(lambda x, i, j: shlo.dynamic_slice(x, [i, j], [2, 2]), "tensor<4x4xi32>", "tensor<i64>", "tensor<i64>")
    assert b.result_types == ["tensor<2x2xi32>"]
    op = op_of(b, "dynamic_slice")
    assert op.slice_sizes == [2, 2] and len(op.start_indices) == 2 and op.operand.type == b.results[0].owner.operands[0].type


def test_dynamic_slice_rules():
    x, i = "tensor<4x4xi32>", "tensor<i64>"
    with raises_rule(ValueError, "stablehlo.dynamic_slice", "slice_sizes must have one entry per operand dimension"):
        build(lambda v, s: shlo.dynamic_slice(v, [s, s], [2]), x, i)
    with raises_rule(ValueError, "stablehlo.dynamic_slice", "start_indices must have one index per operand dimension (2)"):
        build(lambda v, s: shlo.dynamic_slice(v, [s], [2, 2]), x, i)
    with raises_rule(TypeError, "stablehlo.dynamic_slice", "start_indices[1] must have integer elements"):
        build(lambda v, s, f: shlo.dynamic_slice(v, [s, f], [2, 2]), x, i, "tensor<f32>")
    with raises_rule(ValueError, "stablehlo.dynamic_slice", "start_indices[0] must be a 0-dimensional tensor"):
        build(lambda v, s: shlo.dynamic_slice(v, [s, s], [2, 2]), x, "tensor<1xi64>")
    with raises_rule(TypeError, "stablehlo.dynamic_slice", "start_indices must have the same type"):
        build(lambda v, s, t: shlo.dynamic_slice(v, [s, t], [2, 2]), x, i, "tensor<i32>")
    with raises_rule(ValueError, "stablehlo.dynamic_slice", "dimension 1 has size 4, got 5"):
        build(lambda v, s: shlo.dynamic_slice(v, [s, s], [2, 5]), x, i)
    with raises_rule(ValueError, "stablehlo.dynamic_slice", "dimension 0 has size 4, got -1"):
        build(lambda v, s: shlo.dynamic_slice(v, [s, s], [-1, 2]), x, i)


def test_dynamic_update_slice_spec_example():
    b = build(lambda x, u, i, j: shlo.dynamic_update_slice(x, u, [i, j]),
              "tensor<4x4xi32>", "tensor<2x2xi32>", "tensor<i64>", "tensor<i64>")
    assert b.result_types == ["tensor<4x4xi32>"]
    op = op_of(b, "dynamic_update_slice")
    assert str(op.update.type) == "tensor<2x2xi32>" and len(op.start_indices) == 2


def test_dynamic_update_slice_rules():
    x, i = "tensor<4x4xi32>", "tensor<i64>"
    with raises_rule(TypeError, "stablehlo.dynamic_update_slice", "update must have the element type of operand"):
        build(lambda v, u, s: shlo.dynamic_update_slice(v, u, [s, s]), x, "tensor<2x2xf32>", i)
    with raises_rule(ValueError, "stablehlo.dynamic_update_slice", "update must have the rank of operand (2)"):
        build(lambda v, u, s: shlo.dynamic_update_slice(v, u, [s, s]), x, "tensor<2xi32>", i)
    with raises_rule(ValueError, "stablehlo.dynamic_update_slice", "one index per operand dimension (2), got 1"):
        build(lambda v, u, s: shlo.dynamic_update_slice(v, u, [s]), x, "tensor<2x2xi32>", i)
    with raises_rule(TypeError, "stablehlo.dynamic_update_slice", "start_indices must have the same type"):
        build(lambda v, u, s, t: shlo.dynamic_update_slice(v, u, [s, t]), x, "tensor<2x2xi32>", i, "tensor<ui8>")
    with raises_rule(ValueError, "stablehlo.dynamic_update_slice", "dimension 1 of update is 5, of operand 4"):
        build(lambda v, u, s: shlo.dynamic_update_slice(v, u, [s, s]), x, "tensor<2x5xi32>", i)


# sort -------------------------------------------------------------------------------------------------------------

def test_sort_spec_example_builds_the_comparator():
    b = build(lambda x, y: shlo.sort([x, y], 0, True, lambda a, c, _, __: shlo.compare(a, c, "GT")),
              "tensor<2x3xi64>", "tensor<2x3xi64>")
    assert b.result_types == ["tensor<2x3xi64>", "tensor<2x3xi64>"]
    op = op_of(b, "sort")
    assert (op.dimension, op.is_stable) == (0, True)
    assert [str(a.type) for a in op.comparator.blocks[0].arguments] == ["tensor<i64>"] * 4


def test_sort_defaults_and_one_input_gives_one_value():
    b = build(lambda x: shlo.sort(x, comparator=lambda a, c: shlo.compare(a, c, "LT")), "tensor<5xf32>")
    assert b.result_types == ["tensor<5xf32>"] and isinstance(b.results[0], ir.Value)
    op = op_of(b, "sort")
    assert (op.dimension, op.is_stable) == (-1, False)
    assert "dimension" not in op.operation.attributes


def test_sort_rules():
    less = lambda a, c, *_: shlo.compare(a, c, "LT")  # noqa: E731
    with raises_rule(ValueError, "stablehlo.sort", "needs at least one input"):
        build(lambda: shlo.sort([], comparator=lambda: shlo.constant(True)))
    with raises_rule(ValueError, "stablehlo.sort", "inputs[0] and inputs[1] must have the same shape"):
        build(lambda x, y: shlo.sort([x, y], comparator=less), "tensor<2x3xf32>", "tensor<3x2xf32>")
    with raises_rule(ValueError, "stablehlo.sort", "dimension must be in [-2, 2), got 2"):
        build(lambda x: shlo.sort(x, 2, comparator=less), "tensor<2x3xf32>")
    with raises_rule(ValueError, "stablehlo.sort", "dimension must be in [-2, 2), got -3"):
        build(lambda x: shlo.sort(x, -3, comparator=less), "tensor<2x3xf32>")
    with raises_rule(TypeError, "stablehlo.sort", "the comparator must return one tensor<i1>, got (tensor<f32>)"):
        build(lambda x: shlo.sort(x, comparator=lambda a, c: a), "tensor<2x3xf32>")
    with raises_rule(TypeError, "stablehlo.sort", "inputs[0] must not be per-axis quantized"):
        build(lambda x: shlo.sort(x, comparator=less), f"tensor<2x3x{PER_AXIS}>")


# Tuples -----------------------------------------------------------------------------------------------------------

def test_tuple_and_get_tuple_element_spec_examples():
    def body(x, y):
        inner = shlo.tuple([y])
        outer = shlo.tuple([x, inner])
        return [outer, shlo.get_tuple_element(outer, 0), shlo.get_tuple_element(shlo.get_tuple_element(outer, 1), 0)]
    b = build(body, "tensor<2xf64>", "tensor<i64>")
    assert b.result_types == ["tuple<tensor<2xf64>, tuple<tensor<i64>>>", "tensor<2xf64>", "tensor<i64>"]
    assert [op.index for op in b.ops("stablehlo.get_tuple_element")] == [0, 1, 0]
    assert [len(op.val) for op in b.ops("stablehlo.tuple")] == [1, 2]
    assert build(lambda: shlo.tuple([])).result_types == ["tuple<>"]


def test_get_tuple_element_rules():
    with raises_rule(TypeError, "stablehlo.get_tuple_element", "operand must be a tuple, got tensor<2xf32>"):
        build(lambda x: shlo.get_tuple_element(x, 0), "tensor<2xf32>")
    with raises_rule(ValueError, "stablehlo.get_tuple_element", "index must be in [0, 1), got 1"):
        build(lambda x: shlo.get_tuple_element(shlo.tuple([x]), 1), "tensor<2xf32>")


# torch_index_select -----------------------------------------------------------------------------------------------

def test_torch_index_select_example_and_default_batch_dims():
    b = build(lambda x, i: shlo.torch_index_select(x, i, 2, 1), "tensor<8x128x3072x64xf32>", "tensor<8x16x1024xi32>")
    assert b.result_types == ["tensor<8x128x16x1024x64xf32>"]
    op = op_of(b, "torch_index_select")
    assert (op.dim, op.batch_dims) == (2, 1)
    b = build(lambda x, i: shlo.torch_index_select(x, i, 0), "tensor<5x3xf32>", "tensor<2xi64>")
    assert b.result_types == ["tensor<2x3xf32>"]
    assert op_of(b, "torch_index_select").batch_dims == 0


def test_torch_index_select_rules():
    x = "tensor<4x5xf32>"
    with raises_rule(TypeError, "stablehlo.torch_index_select", "index must have integer elements"):
        build(lambda v, i: shlo.torch_index_select(v, i, 0), x, "tensor<2xf32>")
    with raises_rule(ValueError, "stablehlo.torch_index_select", "batch_dims must be in [0, rank(index) = 1], got 2"):
        build(lambda v, i: shlo.torch_index_select(v, i, 1, 2), x, "tensor<4xi32>")
    with raises_rule(ValueError, "stablehlo.torch_index_select", "dim must be in [batch_dims, rank(operand)) = [0, 2)"):
        build(lambda v, i: shlo.torch_index_select(v, i, 2), x, "tensor<4xi32>")
    with raises_rule(ValueError, "stablehlo.torch_index_select", "first batch_dims (1) dimensions"):
        build(lambda v, i: shlo.torch_index_select(v, i, 1, 1), x, "tensor<3x2xi32>")


# Parsed text ------------------------------------------------------------------------------------------------------

CONFORMANCE_TEXT = """
func.func @f(%operand: tensor<3x6xi64>, %x: tensor<5x4xi64>, %pv: tensor<i64>, %s: tensor<5x7xi64>) -> tensor<2x2xi64> {
  %result = "stablehlo.slice"(%operand) {
    start_indices = array<i64: 0, 2>,
    limit_indices = array<i64: 3, 6>,
    strides = array<i64: 2, 3>
  } : (tensor<3x6xi64>) -> tensor<2x2xi64>
  %padded = stablehlo.pad %x, %pv, low = [1, -1], high = [1, -1], interior = [0, 1]
    : (tensor<5x4xi64>, tensor<i64>) -> tensor<7x5xi64>
  %sorted = "stablehlo.sort"(%s) <{dimension = 0 : i64}> ({
  ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
    %1 = stablehlo.compare  LT, %arg0, %arg1,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<5x7xi64>) -> tensor<5x7xi64>
  %c = stablehlo.constant dense<[(1.5, -2.0), (0.0, 3.0)]> : tensor<2xcomplex<f32>>
  %i = stablehlo.iota dim = 1 : tensor<4x5xi32>
  %b = stablehlo.broadcast_in_dim %pv, dims = [] : (tensor<i64>) -> tensor<2x3xi64>
  return %result : tensor<2x2xi64>
}
"""


def test_parsed_conformance_text_gives_the_op_classes_and_attribute_values():
    with ir.context():
        m = ir.parse(CONFORMANCE_TEXT)
        ops = {op.operation.name: op for op in (o.opview for o in ir.ops(m))}
    sl, pad, sort = ops["stablehlo.slice"], ops["stablehlo.pad"], ops["stablehlo.sort"]
    assert isinstance(sl, shlo.SliceOp) and (sl.start_indices, sl.limit_indices, sl.strides) == ([0, 2], [3, 6], [2, 3])
    assert isinstance(pad, shlo.PadOp)
    assert (pad.edge_padding_low, pad.edge_padding_high, pad.interior_padding) == ([1, -1], [1, -1], [0, 1])
    assert isinstance(sort, shlo.SortOp) and (sort.dimension, sort.is_stable) == (0, False)
    assert isinstance(ops["stablehlo.constant"], shlo.ConstantOp)
    assert ops["stablehlo.constant"].value.tolist() == [1.5 - 2j, 3j]
    assert isinstance(ops["stablehlo.iota"], shlo.IotaOp) and ops["stablehlo.iota"].iota_dimension == 1
    assert ops["stablehlo.broadcast_in_dim"].broadcast_dimensions == []


# Every op of the conformance suite, built again -------------------------------------------------------------------

_STATEMENT = ("%", "check.", "func.", "return", "}", '"', "stablehlo.", "//", "^", "module")


def strip_checks(text: str) -> str:
    """The interpreter tests without their `check.*` statements (a dialect this context does not have)."""
    out, skipping = [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("check."):
            skipping = True
            continue
        if skipping and s and not s.startswith(_STATEMENT):
            continue  # a check's continuation line
        skipping = False
        out.append(line)
    return "\n".join(out)


def rebuild(op):
    """Builds `op` again before itself with its builder, from its operands and attributes; the new op."""
    kw = {}
    result = op.operation.results[0].type
    for p in op.SPEC.params:
        if isinstance(p, (_core.Operand, _core.Attr)):
            value = getattr(op, _core._free_name(p.name))
            if value is not None:
                kw[p.name] = value
        elif isinstance(p, _core.Param):
            kw[p.name] = list(ir.ShapedType(result).shape) if p.name == "shape" else ir.ShapedType(result).element_type
        else:
            kw[p.name] = lambda *args: shlo.constant(True)
    with ir.InsertionPoint(op), op.location:
        out = _core.BUILDERS[op.SPEC.full_name](**kw)
    return (out[0] if isinstance(out, tuple) else out).owner


def check_rebuilt(op, new) -> str | None:
    """Why `new` differs from `op` (result types; a constant's value, NaN payloads aside), or None."""
    want, got = [str(r.type) for r in op.operation.results], [str(r.type) for r in new.results]
    if want != got:
        return f"result types {got}, expected {want}"
    if op.SPEC.name == "constant" and new.get_asm(print_generic_op_form=True) != op.get_asm(print_generic_op_form=True):
        a, b = op.value, new.opview.value
        if not same_bits(a, b):
            return f"value {b!r:.100}, expected {a!r:.100}"
    return None


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays hold the same bits, where NaNs count as equal whatever their payload.

    (Reading a constant back loses NaN payloads that MLIR prints as literals
    rather than hex blobs; constant_value's parser goes through float64.)
    """
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.size == 0:
        return True
    rows_a, rows_b = a.reshape(-1).view(np.uint8).reshape(a.size, -1), b.reshape(-1).view(np.uint8).reshape(b.size, -1)
    try:
        nan_a, nan_b = np.isnan(a.astype(np.complex128)).reshape(-1), np.isnan(b.astype(np.complex128)).reshape(-1)
    except (TypeError, ValueError):
        nan_a = nan_b = np.zeros(a.size, bool)
    return bool(np.array_equal(nan_a, nan_b) and (rows_a[~nan_a] == rows_b[~nan_b]).all())


def rebuild_all(paths, families, strip=False) -> tuple[dict, list]:
    """Rebuilds every op of `families` in the files; (ops per name, failures)."""
    counts, failures = {}, []
    for path in paths:
        text = open(path).read()
        for chunk in (strip_checks(text) if strip else text).split("// -----"):
            with ir.context():
                try:
                    module = ir.parse(chunk)
                except Exception:
                    continue  # ops of dialects this context lacks
                for o in ir.ops(module):
                    op = o.opview
                    if not isinstance(op, shlo.StableHLOOp) or op.SPEC.family not in families:
                        continue
                    if op.SPEC.name == "constant" and str(ir.ShapedType(o.results[0].type).element_type) not in DTYPES:
                        continue  # a value numpy cannot hold here
                    counts[op.SPEC.name] = counts.get(op.SPEC.name, 0) + 1
                    try:
                        new = rebuild(op)
                    except (TypeError, ValueError) as e:
                        failures.append(f"{os.path.basename(path)}: {o}: {e}")
                        continue
                    why = check_rebuilt(op, new)
                    new.erase()
                    if why:
                        failures.append(f"{os.path.basename(path)}: {str(o):.200}: {why}")
    return counts, failures


@needs_conformance
def test_every_conformance_op_of_the_family_builds_again_with_the_same_types():
    paths = sorted(glob.glob(os.path.join(CONFORMANCE, "testdata", "*.mlir")))
    counts, failures = rebuild_all(paths, ("data_movement",))
    counts2, failures2 = rebuild_all(sorted(glob.glob(os.path.join(CONFORMANCE, "interpret", "*.mlir"))),
                                     ("data_movement",), strip=True)
    assert failures + failures2 == []
    for name in ("constant", "broadcast_in_dim", "iota", "concatenate", "slice", "reshape", "dynamic_slice",
                 "dynamic_update_slice", "pad", "transpose", "reverse", "sort"):
        assert counts.get(name, 0) + counts2.get(name, 0) > 0, name
    assert counts2.get("tuple") and counts2.get("get_tuple_element")
