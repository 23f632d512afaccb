"""The program builder's dtype promotion and broadcasting rules, as docs/builder.md states them."""

import pytest

from oxla import ir
from oxla.builder.promotion import broadcast_shapes, promote, weak_scalar_type
from oxla.dialects.stablehlo.types import element_type


@pytest.mark.parametrize("a, b, expected", [
    ("f32", "f32", "f32"), ("i1", "i32", "i32"), ("i8", "i32", "i32"), ("ui8", "ui16", "ui16"),
    ("i8", "ui8", "i16"), ("ui8", "i16", "i16"), ("i32", "ui32", "i64"), ("i32", "f16", "f16"),
    ("f16", "f32", "f32"), ("bf16", "f16", "f32"), ("f64", "bf16", "f64"), ("i1", "f32", "f32"),
    ("f32", "complex<f32>", "complex<f32>"), ("f64", "complex<f32>", "complex<f64>"),
    ("complex<f32>", "complex<f64>", "complex<f64>"), ("ui64", "ui8", "ui64"),
])
def test_promotion_table(a, b, expected):
    with ir.context():
        assert str(promote(element_type(a), element_type(b))) == expected
        assert str(promote(element_type(b), element_type(a))) == expected


def test_no_integer_holds_ui64_and_a_signed_type():
    with ir.context(), pytest.raises(TypeError, match="no integer type holds both"):
        promote(element_type("ui64"), element_type("i64"))


@pytest.mark.parametrize("scalar, tensor, expected", [
    (1, "bf16", "bf16"), (1, "ui8", "ui8"), (1, "i1", "i32"), (2.0, "f16", "f16"), (2.0, "i32", "f32"),
    (True, "f32", "f32"), (1j, "f64", "complex<f64>"), (1j, "i8", "complex<f32>"),
    (1j, "complex<f64>", "complex<f64>"),
])
def test_python_scalars_are_weak(scalar, tensor, expected):
    with ir.context():
        t = element_type(tensor)
        assert str(promote(t, weak_scalar_type(scalar, t))) == expected


@pytest.mark.parametrize("shapes, expected", [
    ([(2, 3), (3,)], (2, 3)), ([(4, 1, 3), (5, 1)], (4, 5, 3)), ([(), (2,)], (2,)), ([(1,), (0,)], (0,)),
    ([(None, 3), (1, 3)], (None, 3)),
])
def test_broadcast_shapes_follow_numpy(shapes, expected):
    assert broadcast_shapes(*shapes) == expected


@pytest.mark.parametrize("shapes", [[(2, 3), (2,)], [(None, 3), (4, 3)]])
def test_shapes_that_do_not_broadcast(shapes):
    with pytest.raises(ValueError, match="do not broadcast"):
        broadcast_shapes(*shapes)
