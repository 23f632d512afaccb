"""Every element type oxla.runtime maps, each family checked against numpy."""

import ml_dtypes
import numpy as np
import pytest
from runtime_testing import load_cpu

import oxla.runtime as ort
from oxla.runtime import dtypes


def binary(name: str, op: str, t: str, n: int = 6, result: str | None = None) -> str:
    """A function `name(a, b) = op(a, b)` on tensor<n x t>."""
    r = result or t
    return f"""
  func.func @{name}(%a: tensor<{n}x{t}>, %b: tensor<{n}x{t}>) -> tensor<{n}x{r}> {{
    %0 = stablehlo.{op} %a, %b : (tensor<{n}x{t}>, tensor<{n}x{t}>) -> tensor<{n}x{r}>
    return %0 : tensor<{n}x{r}>
  }}"""


FLOATS = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}
SIGNED = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
UNSIGNED = {"ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}
COMPLEX = {"complex<f32>": np.complex64, "complex<f64>": np.complex128}
F8 = {
    "f8E4M3FN": "float8_e4m3fn",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2": "float8_e5m2",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "f8E8M0FNU": "float8_e8m0fnu",
}


def _ident(t: str) -> str:
    """A function-name-safe spelling of an element type."""
    return t.replace("<", "_").replace(">", "")


def _f8_roundtrip(t: str) -> str:
    """widen(f8 -> f32) and narrow(f32 -> f8) for element type t."""
    n = _ident(t)
    return f"""
  func.func @widen_{n}(%a: tensor<8x{t}>) -> tensor<8xf32> {{
    %0 = stablehlo.convert %a : (tensor<8x{t}>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }}
  func.func @narrow_{n}(%a: tensor<8xf32>) -> tensor<8x{t}> {{
    %0 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8x{t}>
    return %0 : tensor<8x{t}>
  }}"""


SRC = "module {" + "".join(
    [binary(f"add_{_ident(t)}", "add", t) + binary(f"mul_{_ident(t)}", "multiply", t) for t in {**FLOATS, **SIGNED, **UNSIGNED, **COMPLEX}]
    + [binary(f"div_{t}", "divide", t) for t in UNSIGNED]
    + [binary(f"and_i1", "and", "i1"), binary("or_i1", "or", "i1"), binary("xor_i1", "xor", "i1")]
    + [binary(f"gt_{t}", "compare GT,", t, result="i1") for t in ("f32", "ui32")]
    + [_f8_roundtrip(t) for t in F8]
) + """
  func.func @select(%p: tensor<6xi1>, %a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.select %p, %a, %b : tensor<6xi1>, tensor<6xf32>
    return %0 : tensor<6xf32>
  }
}"""


@pytest.fixture(scope="module")
def mod():
    return load_cpu(SRC)


def _check(mod, fn, a, b, expected, exact=True):
    """Call fn(a, b) and compare with numpy's answer, dtype included."""
    got = mod[fn](a, b)
    assert isinstance(got, np.ndarray) and got.dtype == expected.dtype and got.shape == expected.shape
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-2)


@pytest.mark.parametrize("t", FLOATS)
def test_floats(mod, t):
    dt = np.dtype(FLOATS[t])
    a = np.array([0.5, -1.25, 3.0, 100.0, -0.0, 7.75], dt)
    b = np.array([2.0, 0.5, -3.0, 0.25, 1.0, 1.5], dt)
    _check(mod, f"add_{t}", a, b, (a + b).astype(dt))
    _check(mod, f"mul_{t}", a, b, (a * b).astype(dt))


@pytest.mark.parametrize("t", SIGNED)
def test_signed_integers_wrap_like_numpy(mod, t):
    dt = np.dtype(SIGNED[t])
    info = np.iinfo(dt)
    a = np.array([info.max, info.min, -7, 0, 5, 100], dt)
    b = np.array([1, -1, 3, -2, -9, 2], dt)
    with np.errstate(over="ignore"):
        _check(mod, f"add_{t}", a, b, a + b)
        _check(mod, f"mul_{t}", a, b, a * b)


@pytest.mark.parametrize("t", UNSIGNED)
def test_unsigned_integers_stay_unsigned(mod, t):
    dt = np.dtype(UNSIGNED[t])
    top = np.iinfo(dt).max
    a = np.array([top, top - 1, 7, 0, top // 2 + 3, 200], dt)
    b = np.array([1, 3, 2, 5, 2, 7], dt)
    _check(mod, f"add_{t}", a, b, a + b)
    _check(mod, f"mul_{t}", a, b, a * b)
    _check(mod, f"div_{t}", a, b, a // b)  # a signed division would differ on the large values


def test_unsigned_comparison(mod):
    a = np.array([4_000_000_000, 1, 2, 3, 4, 5], np.uint32)
    b = np.array([1, 4_000_000_000, 2, 1, 5, 4], np.uint32)
    _check(mod, "gt_ui32", a, b, a > b)


def test_bool(mod):
    a = np.array([True, False, True, False, True, True])
    b = np.array([True, True, False, False, False, True])
    for fn, expected in (("and_i1", a & b), ("or_i1", a | b), ("xor_i1", a ^ b)):
        _check(mod, fn, a, b, expected)
    x = np.arange(6, dtype=np.float32)
    _check(mod, "gt_f32", x, np.full(6, 2.5, np.float32), x > 2.5)
    np.testing.assert_array_equal(mod.select(a, x, -x), np.where(a, x, -x))


@pytest.mark.parametrize("t", COMPLEX)
def test_complex(mod, t):
    dt = np.dtype(COMPLEX[t])
    a = np.array([1 + 2j, -3.5j, 4, 0.5 - 0.5j, 1e3 + 1j, -1 - 1j], dt)
    b = np.array([2 - 1j, 1j, -2 + 0.5j, 3, 1e-3j, -1 + 1j], dt)
    _check(mod, f"add_{_ident(t)}", a, b, a + b)
    got = mod[f"mul_{_ident(t)}"](a, b)
    assert got.dtype == dt
    np.testing.assert_allclose(got, a * b, rtol=1e-6)


@pytest.mark.parametrize("t", [t for t in F8 if dtypes.from_mlir(t)])
def test_float8(mod, t):
    dt = np.dtype(getattr(ml_dtypes, F8[t]))
    x = np.array([0.5, -1.0, 2.0, 0.125, 3.5, -6.0, 1.75, 0.0], np.float32)
    if t == "f8E8M0FNU":  # powers of two only
        x = np.array([0.5, 1.0, 2.0, 0.125, 4.0, 8.0, 0.25, 16.0], np.float32)
    narrowed = mod[f"narrow_{t}"](x)
    assert narrowed.dtype == dt
    np.testing.assert_array_equal(narrowed.astype(np.float32), x.astype(dt).astype(np.float32))
    np.testing.assert_array_equal(mod[f"widen_{t}"](x.astype(dt)), x.astype(dt).astype(np.float32))


def test_one_table_maps_every_direction():
    for e in dtypes.BY_MLIR.values():
        assert dtypes.from_dtype(e.dtype) is e and dtypes.from_hal(e.hal) is e
    assert dtypes.from_mlir("i1").storage == np.uint8
    assert dtypes.from_dtype(np.dtype(">f4")) is dtypes.from_mlir("f32")
    assert dtypes.from_mlir("f4E2M1FN") is None and dtypes.from_dtype(object) is None


def test_functions_report_dtypes(mod):
    sig = {s.name: s for s in mod.functions()}
    assert str(sig["add_ui16"]) == "add_ui16(%input0: tensor<6xui16>, %input1: tensor<6xui16>) -> tensor<6xui16>"
    assert sig["gt_f32"].outputs[0].dtype == np.bool_
    assert sig["add_bf16"].inputs[0].dtype == ml_dtypes.bfloat16
    c128 = sig["mul_complex_f64"].outputs[0].element
    assert isinstance(c128, ort.ElementType) and (c128.mlir, c128.dtype) == ("complex<f64>", np.complex128)
