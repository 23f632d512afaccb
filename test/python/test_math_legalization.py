"""oxla-expand-math: transcendental ops compile without libm and stay within an ulp of the exact value.

References are mpmath's values rounded to the result type. IREE's CPU runtime
flushes subnormals to zero, so subnormal inputs and results are left out of
the ulp comparisons.
"""

import os
import sys

import ml_dtypes
import mpmath as mp
import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import CompileError, compile
from oxla.testing.checks import ulp_distance

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_MLIR = {np.float64: "f64", np.float32: "f32", np.float16: "f16", ml_dtypes.bfloat16: "bf16",
         np.complex64: "complex<f32>", np.complex128: "complex<f64>"}


def _real_cbrt(x):
    return mp.cbrt(x) if x >= 0 else -mp.cbrt(-x)


def _real_pow(x, y):
    if x >= 0:
        return mp.power(x, y)
    if y != int(y):
        return mp.nan
    return mp.power(-x, y) * (-1 if int(y) % 2 else 1)


def _real_log1p(x):
    return mp.log1p(x) if x > -1 else (mp.mpf("-inf") if x == -1 else mp.nan)


UNARY = {  # op -> mpmath reference
    "stablehlo.cosine": mp.cos,
    "stablehlo.sine": mp.sin,
    "stablehlo.tan": mp.tan,
    "stablehlo.tanh": mp.tanh,
    "stablehlo.cbrt": _real_cbrt,
    "stablehlo.exponential_minus_one": mp.expm1,
    "stablehlo.log_plus_one": _real_log1p,
}
BINARY = {"stablehlo.atan2": mp.atan2, "stablehlo.power": _real_pow}
NUMPY = {"stablehlo.cosine": np.cos, "stablehlo.sine": np.sin, "stablehlo.tan": np.tan, "stablehlo.tanh": np.tanh,
         "stablehlo.cbrt": np.cbrt, "stablehlo.exponential_minus_one": np.expm1, "stablehlo.log_plus_one": np.log1p,
         "stablehlo.atan2": np.arctan2, "stablehlo.power": np.power}


def _program(ops, n, dtype, arity=1) -> str:
    """@main(x[, y]) returning each op applied to the arguments."""
    t = f"tensor<{n}x{_MLIR[dtype]}>"
    args = ", ".join(f"%a{i}: {t}" for i in range(arity))
    operands = ", ".join(f"%a{i}" for i in range(arity))
    body = "".join(f"  %r{i} = {op} {operands} : {t}\n" for i, op in enumerate(ops))
    results = ", ".join(f"%r{i}" for i in range(len(ops)))
    return (f"func.func @main({args}) -> ({', '.join([t] * len(ops))}) {{\n{body}"
            f"  return {results} : {', '.join([t] * len(ops))}\n}}\n")


def _run(ops, dtype, *arrays):
    outputs = runtime.load(compile(_program(ops, arrays[0].size, dtype, len(arrays)))).main(*arrays)
    return outputs if isinstance(outputs, tuple) else (outputs,)


def _tiny(dtype):
    return float((ml_dtypes.finfo if dtype == ml_dtypes.bfloat16 else np.finfo)(dtype).smallest_normal)


def _exact(reference, dtype, *arrays) -> np.ndarray:
    """mpmath's value of `reference` at each element, rounded to `dtype` (NaN where undefined)."""
    values = []
    with mp.workdps(60):
        for args in zip(*[a.astype(np.float64) for a in arrays]):
            try:
                values.append(float(reference(*[mp.mpf(float(v)) for v in args])))
            except (ValueError, ZeroDivisionError, OverflowError):
                values.append(float("nan"))
    with np.errstate(over="ignore"):
        return np.asarray(values).astype(dtype)


def _max_ulp(actual, expected, *arrays) -> float:
    """Largest ulp distance where inputs and expected value are normal (or zero) and finite."""
    dtype = expected.dtype.type
    keep = np.isfinite(expected.astype(np.float64))
    for v in (expected, *arrays):
        v = np.abs(v.astype(np.float64))
        keep &= (v >= _tiny(dtype)) | (v == 0)
    return float(np.where(keep, ulp_distance(actual, expected), 0).max())


def _inputs(seed, n, scale):
    rng = np.random.default_rng(seed)
    wide = np.exp(rng.uniform(-40, np.log(scale), n)) * rng.choice([-1.0, 1.0], n)
    return np.concatenate([rng.normal(0, 3, n), rng.uniform(-scale, scale, n), wide])


# dtype -> (input magnitude bound, max ulp against the correctly rounded value)
TYPES = {np.float64: (1e300, 1), np.float32: (1e30, 1), np.float16: (6e4, 0), ml_dtypes.bfloat16: (1e30, 0)}
# Ops whose 32-bit and narrower kernels compute in f32 (math.Expansion.f32_ops): the f32 result is within an
# ulp, so a 16-bit one, rounded from it, may be one ulp off too.
IN_F32 = {"stablehlo.tanh", "stablehlo.log_plus_one", "stablehlo.exponential_minus_one"}


@pytest.mark.parametrize("dtype", list(TYPES), ids=lambda d: np.dtype(d).name)
def test_unary_within_an_ulp(dtype):
    bound, allowed = TYPES[dtype]
    x = _inputs(1, 400, bound).astype(dtype)
    x = np.concatenate([x, np.linspace(-20, 20, 401).astype(dtype)])
    results = _run(list(UNARY), dtype, x)
    for (op, reference), got in zip(UNARY.items(), results):
        arg = x.astype(np.float64)
        if op.endswith("minus_one"):
            arg = np.minimum(arg, 700 if dtype == np.float64 else 88)
        expected = _exact(reference, dtype, arg)
        keep = arg == x.astype(np.float64)
        limit = max(allowed, 1) if op in IN_F32 else allowed
        assert _max_ulp(got[keep], expected[keep], x[keep]) <= limit, op


@pytest.mark.parametrize("op, reference, edges, tiny", [
    ("stablehlo.tanh", np.tanh, [9.5, 0.625], 2.0 ** -12),
    ("stablehlo.log_plus_one", np.log1p, [-1.0, -0.2928932, 0.4142135, 2.0 ** 24, 3.4e38], 2.0 ** -24),
    ("stablehlo.exponential_minus_one", np.expm1, [-17.3, -18.0, 0.3465736, 16.6, 17.4, 88.37, 88.72, 88.73],
     2.0 ** -25),
], ids=["tanh", "log1p", "expm1"])
def test_f32_kernels_within_an_ulp_across_the_range(op, reference, edges, tiny):
    # Every 2039th f32 bit pattern of each sign (tools/check_math_kernels.py checks every one).
    positive = np.arange(0, 0x7F800000, 2039, dtype=np.uint32).view(np.float32)
    x = np.concatenate([positive, -positive, np.float32([np.inf, -np.inf, np.nan, tiny, *edges])])
    got = _run([op], np.float32, x)[0]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        expected = reference(x.astype(np.float64)).astype(np.float32)
    assert _max_ulp(got, expected, x) <= 1
    small = np.abs(x) < tiny  # returned as they are: -0 and subnormals too
    assert np.array_equal(got[small].view(np.uint32), x[small].view(np.uint32))
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    assert np.array_equal(got[np.isinf(expected)], expected[np.isinf(expected)])


def test_f64_trig_near_multiples_of_pi_and_huge():
    # 6381956970095103 * 2^797 is the double closest to a multiple of pi/2.
    edges = [1e22, 1e300, 1.7976931348623157e308, 6381956970095103 * 2.0 ** 797, 2.0 ** 19, 2.0 ** 19 - 1, 823549.6,
             1e6, 0.785, 0.786]
    x = np.concatenate([np.arange(1, 300) * np.pi / 2, edges])
    for op, got in zip(["stablehlo.sine", "stablehlo.cosine", "stablehlo.tan"], _run(
            ["stablehlo.sine", "stablehlo.cosine", "stablehlo.tan"], np.float64, x)):
        assert _max_ulp(got, _exact(UNARY[op], np.float64, x), x) <= 1, op


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_atan2_and_pow_within_an_ulp(dtype):
    rng = np.random.default_rng(4)
    n = 600
    y = _inputs(2, n // 3, 1e30).astype(dtype)
    x = _inputs(3, n // 3, 1e30).astype(dtype)
    atan2, = _run(["stablehlo.atan2"], dtype, y, x)
    assert _max_ulp(atan2, _exact(mp.atan2, dtype, y, x), y, x) <= 1
    base = np.concatenate([rng.uniform(0, 4, n // 2), np.exp(rng.uniform(-80, 80, n // 2))])
    base = np.where(rng.random(n) < 0.2, -base, base).astype(dtype)
    exponent = np.concatenate([rng.normal(0, 20, n // 2), rng.integers(-30, 30, n // 2)]).astype(dtype)
    power, = _run(["stablehlo.power"], dtype, base, exponent)
    assert _max_ulp(power, _exact(_real_pow, dtype, base, exponent), base, exponent) <= 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_log1p_near_zero_and_minus_one(dtype):
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-0.999, 3, 600), np.exp(rng.uniform(-80, 80, 600)),
                        -np.exp(rng.uniform(-80, -1e-3, 600))]).astype(dtype)
    got, = _run(["stablehlo.log_plus_one"], dtype, x)
    assert _max_ulp(got, _exact(_real_log1p, dtype, x), x) <= 1


SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1e300, -1e300,
                    709.79, -745.2, 20.0, -20.0, 40.0, -0.99999, 1e22])


def _same(actual, expected):
    """Equal with the same sign of zero, both NaN, or one ulp (of expected's type) apart."""
    spacing = np.spacing(np.abs(expected)).astype(np.float64)
    actual, expected = actual.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = np.abs(actual - expected) <= spacing
    same_zero_sign = (actual == expected) & (np.signbit(actual) == np.signbit(expected))
    return (np.isnan(actual) & np.isnan(expected)) | same_zero_sign | close


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_special_values_like_the_c_library(dtype):
    unary = list(UNARY)
    with np.errstate(all="ignore"):
        x = SPECIAL.astype(dtype)
        wide = x.astype(np.float64)  # numpy's f64 functions are the C library's; its f32 ones are not
        for op, got in zip(unary, _run(unary, dtype, x)):
            bad = ~_same(got, NUMPY[op](wide).astype(dtype))
            assert not bad.any(), (op, x[bad], got[bad])
        a, b = np.repeat(x, len(x)), np.tile(x, len(x))
        for op, got in zip(BINARY, _run(list(BINARY), dtype, a, b)):
            expected = NUMPY[op](a.astype(np.float64), b.astype(np.float64)).astype(dtype)
            flushed = np.abs(expected.astype(np.float64)) < _tiny(dtype)  # subnormal: the runtime flushes it
            bad = ~(_same(got, expected) | (flushed & (got == 0)))
            assert not bad.any(), (op, a[bad], b[bad], got[bad])


COMPLEX = {
    "stablehlo.exponential": mp.exp, "stablehlo.exponential_minus_one": mp.expm1, "stablehlo.log": mp.log,
    "stablehlo.sqrt": mp.sqrt, "stablehlo.rsqrt": lambda z: 1 / mp.sqrt(z), "stablehlo.tanh": mp.tanh,
    "stablehlo.tan": mp.tan, "stablehlo.cosine": mp.cos, "stablehlo.sine": mp.sin,
}


def _complex_errors(got, expected_values, dtype):
    """Per element, the larger of the parts' errors in ulps, or in units of 2^-52 * |result| if that is smaller
    (a part much smaller than the result's modulus carries the modulus's rounding)."""
    part = np.float64 if dtype == np.complex128 else np.float32
    worst = []
    for g, e in zip(got, expected_values):
        modulus = abs(e)
        errs = []
        for gp, ep in ((g.real, e.real), (g.imag, e.imag)):
            spacing = float(np.spacing(np.abs(part(float(ep)))))
            err = abs(mp.mpf(float(gp)) - ep)
            errs.append(float(min(err / spacing, err / (modulus * mp.mpf(2) ** -52))))
        worst.append(max(errs))
    return np.asarray(worst)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64], ids=["complex128", "complex64"])
def test_complex_ops_within_two_ulp(dtype):
    rng = np.random.default_rng(6)
    z = np.concatenate([rng.normal(0, 3, 150) + 1j * rng.normal(0, 3, 150),
                        rng.normal(0, 0.01, 50) + 1j * rng.normal(0, 0.01, 50),
                        np.exp(rng.uniform(-1, 1, 50)) * np.exp(1j * rng.uniform(-4, 4, 50))]).astype(dtype)
    w = (rng.normal(0, 2, z.size) + 1j * rng.normal(0, 2, z.size)).astype(dtype)
    results = _run(list(COMPLEX), dtype, z)
    with mp.workdps(50):
        for (op, reference), got in zip(COMPLEX.items(), results):
            expected = [reference(mp.mpc(complex(v))) for v in z]
            assert _complex_errors(got, expected, dtype).max() <= 2, op
        power, = _run(["stablehlo.power"], dtype, z, w)
        expected = [mp.exp(mp.mpc(complex(b)) * mp.log(mp.mpc(complex(a)))) for a, b in zip(z, w)]
        assert _complex_errors(power, expected, dtype).max() <= 2


def test_complex_special_values():
    z = np.array([0j, complex(0, -0.0), complex(np.inf, 1), complex(-np.inf, 1), complex(1, 0), complex(-1, 0),
                  complex(-4, 0), complex(-4, -0.0), complex(np.nan, 0), complex(0, np.inf)])
    exp, log, sqrt = _run(["stablehlo.exponential", "stablehlo.log", "stablehlo.sqrt"], np.complex128, z)
    with np.errstate(all="ignore"):
        for got, expected in ((exp, np.exp(z)), (log, np.log(z)), (sqrt, np.sqrt(z))):
            assert all(_same(got.real, expected.real)) and all(_same(got.imag, expected.imag)), (got, expected)


def test_f64_needs_the_pass_to_link():
    src = _program(["stablehlo.cosine"], 4, np.float64)
    with pytest.raises(CompileError, match="link"):
        compile(src, legalize=False)
    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-expand-math)")
    text = ir.to_text(module)
    assert "stablehlo.cosine" not in text and text.count("stablehlo.map") == 1
    np.testing.assert_array_equal(runtime.load(compile(src)).main(np.array([0.0, np.pi, 1e22, -1.0])),
                                  np.cos([0.0, np.pi, 1e22, -1.0]))


def test_other_backends_left_alone():
    module = ir.parse(_program(["stablehlo.cosine"], 4, np.float64))
    transforms.run(module, "builtin.module(oxla-expand-math{backends=cuda})")  # names no device: expanded
    assert "stablehlo.map" in ir.to_text(module)
    seen = {}
    for target in ("vulkan-spirv", "llvm-cpu"):  # oxla.compile names the device before legalizing
        compile(_program(["stablehlo.cosine"], 4, np.float32), target, compile_to="input",
                hooks={"after:start": lambda m, t=target: seen.setdefault(t, ir.to_text(m))})
    assert "stablehlo.cosine" in seen["vulkan-spirv"] and "stablehlo.map" not in seen["vulkan-spirv"]
    assert "stablehlo.cosine" not in seen["llvm-cpu"] and "stablehlo.map" in seen["llvm-cpu"]


def test_generated_tables_match_the_generator():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import fit_math_polynomials as fit
    finally:
        sys.path.pop(0)
    from oxla.transforms import math_kernels

    assert fit.constants() == math_kernels.CONSTANTS
    cos = next(f for f in fit.FITS if f.name == "cos")
    assert tuple(fit.fit_tier(cos, "f32")[0]) == math_kernels.POLYNOMIALS["cos"]["f32"]
