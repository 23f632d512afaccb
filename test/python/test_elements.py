"""Dense constants to numpy, for every element type (complex included, which the bindings cannot read)."""

import ml_dtypes
import numpy as np
import pytest

from oxla import ir, runtime
from oxla.dialects.elements import constant_value, splat_element
from oxla.transforms.simplify.rule import splat_of
from oxla.pipelines import compile


def _constant_op(literal: str, type_: str):
    m = ir.parse(f"func.func @f() -> {type_} {{\n  %0 = stablehlo.constant {literal} : {type_}\n  return %0 : {type_}\n}}")
    return m, m.body.operations[0].regions[0].blocks[0].operations[0]


def _constant(literal: str, type_: str):
    _, op = _constant_op(literal, type_)
    return constant_value(op.operation)


@pytest.mark.parametrize(
    "literal, type_, expected",
    [
        ("dense<[(1.5, 2.0), (0x7FF0000000000000, -0.0)]>", "tensor<2xcomplex<f64>>",
         np.array([1.5 + 2j, complex(np.inf, -0.0)])),
        ("dense<(1.0, 2.0)>", "tensor<2x2xcomplex<f32>>", np.full((2, 2), 1 + 2j, np.complex64)),
        ("dense<[1.5, 0xFF80]>", "tensor<2xbf16>", np.array([1.5, -np.inf], ml_dtypes.bfloat16)),
        ("dense<true>", "tensor<3xi1>", np.ones(3, bool)),
        ("dense<[[1, 2], [3, -4]]>", "tensor<2x2xi8>", np.array([[1, 2], [3, -4]], np.int8)),
        ('dense<"0x0000803F00000040">', "tensor<2xf32>", np.array([1.0, 2.0], np.float32)),
        ("dense<[65535, 3]>", "tensor<2xui16>", np.array([65535, 3], np.uint16)),
        ("dense<-2.5e-3>", "tensor<f64>", np.array(-2.5e-3)),
    ],
)
def test_constant_values(literal, type_, expected):
    value = _constant(literal, type_)
    assert value.dtype == expected.dtype and value.shape == expected.shape
    assert value.tobytes() == expected.tobytes()  # bit for bit: -0.0 and infinities included


@pytest.mark.parametrize(
    "literal, type_, expected",
    [
        ("dense<-0.0>", "tensor<128x1024xf32>", np.float32(-0.0)),
        ("dense<0xFF80>", "tensor<4x4xbf16>", ml_dtypes.bfloat16(-np.inf)),
        ('dense<"0x0000803F">', "tensor<8xf32>", np.float32(1.0)),
        ("dense<true>", "tensor<3xi1>", np.bool_(True)),
        ("dense<-7>", "tensor<2x3xi8>", np.int8(-7)),
        ("dense<(1.0, 2.0)>", "tensor<2xcomplex<f32>>", np.complex64(1 + 2j)),
    ],
)
def test_splat_elements(literal, type_, expected):
    """A splat is read as its one element, bit for bit; splat_of agrees (complex goes its other way)."""
    m, op = _constant_op(literal, type_)
    for value in (splat_element(op.operation), splat_of(op.results[0])):
        assert value.dtype == expected.dtype and value.tobytes() == expected.tobytes()


def test_splat_of_a_non_splat_is_none():
    m, op = _constant_op("dense<[1.0, 1.0, 2.0]>", "tensor<3xf32>")
    assert splat_of(op.results[0]) is None
    m, op = _constant_op("dense<[(1.0, 2.0), (1.0, 2.0)]>", "tensor<2xcomplex<f32>>")
    assert splat_of(op.results[0]) == np.complex64(1 + 2j)  # read whole, then found uniform


def test_complex_f64_constants_compile_and_run():
    src = ("func.func @main() -> tensor<3xcomplex<f64>> {\n"
           "  %0 = stablehlo.constant dense<[(1.5, -1.0), (2.5, 0.0), (3.5, 1.0)]> : tensor<3xcomplex<f64>>\n"
           "  return %0 : tensor<3xcomplex<f64>>\n}\n")
    result = runtime.load(compile(src)).main()
    assert result.dtype == np.complex128 and result.tolist() == [1.5 - 1j, 2.5 + 0j, 3.5 + 1j]
