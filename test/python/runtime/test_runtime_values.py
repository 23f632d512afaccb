"""Arrays as text in iree-run-module's form (oxla-run's --input and result lines)."""

import ml_dtypes
import numpy as np
import pytest

from oxla.runtime.values import InputError, format_value, parse_input


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2x3xf32=1,2,3,4,5,6", np.arange(1, 7, dtype=np.float32).reshape(2, 3)),
        ("2x2xi32=[1 2][3 4]", np.array([[1, 2], [3, 4]], np.int32)),
        ("f32=2.5", np.array(2.5, np.float32)),
        ("4xui8=7", np.full(4, 7, np.uint8)),
        ("3xi1=1 0 true", np.array([True, False, True])),
        ("2xbf16=1.5 -2", np.array([1.5, -2], ml_dtypes.bfloat16)),
        ("2xcomplex<f32>=1+2i 3-1i", np.array([1 + 2j, 3 - 1j], np.complex64)),
    ],
)
def test_parse_input(text, expected):
    value = parse_input(text)
    assert value.dtype == expected.dtype and value.shape == expected.shape
    np.testing.assert_array_equal(value, expected)


def test_parse_npy(tmp_path):
    np.save(tmp_path / "x.npy", np.eye(2, dtype=np.float64))
    np.testing.assert_array_equal(parse_input(f"@{tmp_path / 'x.npy'}"), np.eye(2))


@pytest.mark.parametrize("text, message", [
    ("2x2xf32=1,2,3", "has 3 values for shape (2, 2)"),
    ("4xq7=1", "unknown element type 'q7'"),
    ("nonsense", "is not SHAPExTYPE=VALUES"),
    ("@/no/such/file.npy", "cannot read"),
])
def test_bad_inputs(text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_input(text)


def test_format_value():
    assert format_value(np.array([[1, 2], [3, 4]], np.int32)) == "2x2xi32=[1 2][3 4]"
    assert format_value(np.array(5.0, np.float32)) == "f32=5"
    assert format_value(np.array([True, False])) == "2xi1=[1 0]"
