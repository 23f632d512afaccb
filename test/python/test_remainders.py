"""oxla-llvmcpu-remainders: f32 and f64 remainders link on llvm-cpu and equal C's fmod bit for bit."""

import warnings

import numpy as np
import pytest

from oxla import runtime
from oxla.pipelines import CodegenPassesWarning, compile



def _special(dtype) -> np.ndarray:
    """Zeros, infinities, NaN, the smallest subnormals and normals, the largest values, and plain ones."""
    info = np.finfo(dtype)
    tiny, smallest = info.smallest_normal, info.smallest_subnormal
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, smallest, -smallest, tiny, info.max, -info.max,
                     1.0, -1.0, 3.0, 0.1, tiny * 1.5, smallest * 7, 6.0, -7.5], dtype)


def _remainder(n: int, element: str = "f64") -> str:
    t = f"tensor<{n}x{element}>"
    return (f"func.func @main(%x: {t}, %y: {t}) -> {t} {{\n"
            f"  %r = stablehlo.remainder %x, %y : {t}\n  return %r : {t}\n}}\n")


def _operands(rng, n: int, dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of special values, then random bit patterns (exponent gaps of any size, NaNs included),
    subnormal divisors, nearby magnitudes and small integers."""
    special = _special(dtype)
    pairs = (np.repeat(special, special.size), np.tile(special, special.size))
    word, top = (np.uint64, 2 ** 64 - 1) if dtype == np.float64 else (np.uint32, 2 ** 32 - 1)
    fraction = np.finfo(dtype).nmant

    def bits(low, high, count):
        return rng.integers(low, high, count, dtype=np.uint64, endpoint=True).astype(word).view(dtype)

    k = (n - special.size ** 2) // 4
    x = [pairs[0], bits(0, top, k), bits(0, top, k), (rng.standard_normal(k) * 1e3).astype(dtype),
         np.round(rng.standard_normal(k) * 100).astype(dtype)]
    y = [pairs[1], bits(0, top, k), bits(1, 2 ** fraction - 1, k), rng.standard_normal(k).astype(dtype),
         np.round(rng.standard_normal(k) * 10).astype(dtype)]
    x, y = np.concatenate(x), np.concatenate(y)
    pad = n - x.size
    return np.concatenate([x, np.full(pad, 7.25, dtype)]), np.concatenate([y, np.full(pad, -2.0, dtype)])


def _assert_fmod(got: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    with np.errstate(invalid="ignore"):
        want = np.fmod(x, y)
    assert got.dtype == want.dtype
    word = np.uint64 if got.dtype == np.float64 else np.uint32
    same = (got.view(word) == want.view(word)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), (x[~same][:4], y[~same][:4], got[~same][:4], want[~same][:4])


@pytest.mark.parametrize("n", [4099, 3], ids=["vectors", "scalars"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
def test_remainder_is_c_fmod_bit_for_bit(dtype, n):
    """Subnormal operands and results included: the helper computes on the bits, where floating-point
    operations would see them flushed to zero."""
    x, y = (v[:n] for v in _operands(np.random.default_rng(11), 4099, dtype))
    element = "f64" if dtype == np.float64 else "f32"
    module = runtime.load(compile(_remainder(n, element)))
    _assert_fmod(np.asarray(module.main(x, y)), x, y)


def test_remainder_for_any_x86_64():
    """cpu='generic' has no lzcnt: LLVM expands the helper's ctlz."""
    x, y = _operands(np.random.default_rng(3), 4096)
    module = runtime.load(compile(_remainder(4096), target="llvm-cpu", cpu="generic"))
    _assert_fmod(np.asarray(module.main(x, y)), x, y)


def test_f32_and_f64_remainders_in_one_program():
    text = """func.func @main(%x: tensor<64xf64>, %y: tensor<64xf64>) -> (tensor<64xf64>, tensor<64xf32>) {
  %r = stablehlo.remainder %x, %y : tensor<64xf64>
  %a = stablehlo.convert %x : (tensor<64xf64>) -> tensor<64xf32>
  %b = stablehlo.convert %y : (tensor<64xf64>) -> tensor<64xf32>
  %s = stablehlo.remainder %a, %b : tensor<64xf32>
  return %r, %s : tensor<64xf64>, tensor<64xf32>
}"""
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(64) * 100, rng.standard_normal(64)
    r, s = runtime.load(compile(text)).main(x, y)
    _assert_fmod(np.asarray(r), x, y)
    _assert_fmod(np.asarray(s), x.astype(np.float32), y.astype(np.float32))


def test_jax_float64_fmod_mod_and_floor_divide_match_xla():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    rng = np.random.default_rng(9)
    x, y = rng.standard_normal((8, 33)) * 1e4, rng.standard_normal((8, 33))
    jax.config.update("jax_enable_x64", True)
    try:
        for f in (jnp.fmod, lambda a, b: a % b, lambda a, b: a // b):
            want = np.asarray(jax.jit(f)(x, y))
            assert want.dtype == np.float64
            got = np.asarray(runtime.load(compile(jax.jit(f).lower(x, y).as_text())).main(x, y))
            np.testing.assert_array_equal(got, want)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_remainders_in_several_executables_link_together():
    """IREE links a program's executables into one module: each one's helpers are private symbols, which
    it renames apart (public ones clashed, and the program compiled without oxla's passes)."""
    text = """func.func @main(%x: tensor<64xf32>, %y: tensor<64xf32>, %a: tensor<8x8xf32>) -> (tensor<64xf32>, tensor<8x8xf32>) {
  %r = stablehlo.remainder %x, %y : tensor<64xf32>
  %d = stablehlo.dot %a, %a : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = stablehlo.remainder %d, %a : tensor<8x8xf32>
  return %r, %e : tensor<64xf32>, tensor<8x8xf32>
}"""
    with warnings.catch_warnings():
        warnings.simplefilter("error", CodegenPassesWarning)
        artifact = compile(text)
    x, y = np.arange(1, 65, dtype=np.float32), np.full(64, 3.0, np.float32)
    a = np.arange(1, 65, dtype=np.float32).reshape(8, 8)
    r, e = runtime.load(artifact).main(x, y, a)
    _assert_fmod(np.asarray(r), x, y)
    _assert_fmod(np.asarray(e), a @ a, a)
