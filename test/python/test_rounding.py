"""oxla-llvmcpu-round-even-arithmetic: f32 and f64 round_nearest_even as |x| + 2^p - 2^p with x's sign, the
same bits as numpy's rounding for ties, large values, signed zeros, infinities and NaN."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

PASS = "oxla-llvmcpu-round-even-arithmetic"


def _program(element: str, count: int) -> str:
    t = f"tensor<{count}x{element}>"
    return f"""func.func @main(%x: {t}) -> {t} {{
  %r = stablehlo.round_nearest_even %x : {t}
  return %r : {t}
}}
"""


def _hard_values(dtype) -> np.ndarray:
    """Ties, values next to 2^p, huge and tiny magnitudes, signed zeros, infinities, NaN, and random ones."""
    fraction = np.finfo(dtype).nmant
    big = dtype(2.0 ** fraction)
    special = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 0.0, -0.0, -0.3, 0.3,
               np.inf, -np.inf, np.nan, -np.nan, np.finfo(dtype).max, -np.finfo(dtype).max,
               np.finfo(dtype).tiny, -np.finfo(dtype).smallest_subnormal, 1e30, -1e30]
    near = [np.nextafter(big, dtype(0)), big, np.nextafter(big, dtype(np.inf)), big * 2 + 1,
            big / 2 + dtype(0.5), big / 2 - dtype(0.5), -(big / 2 + dtype(0.5))]
    near += [-v for v in near]
    rng = np.random.default_rng(0)
    scaled = rng.standard_normal(4096) * 10.0 ** rng.integers(-3, 9, 4096)
    halves = (rng.integers(-10 ** 6, 10 ** 6, 1024) + 0.5)
    return np.concatenate([np.array(special + near, dtype), scaled.astype(dtype), halves.astype(dtype)])


@pytest.mark.parametrize("element, dtype", [("f32", np.float32), ("f64", np.float64)])
def test_rounds_half_to_even_with_the_same_bits(element, dtype):
    x = _hard_values(dtype)
    text = _program(element, x.size)
    module = ir.parse(text)
    transforms.run(module, f"builtin.module({PASS})")
    assert "round_nearest_even" not in ir.to_text(module)
    got = runtime.load(compile(text, target="llvm-cpu"), device="local-sync").main(x)
    np.testing.assert_array_equal(got.view(np.uint8), np.round(x).view(np.uint8))


def test_half_floats_stay():
    module = ir.parse(_program("bf16", 8))
    transforms.run(module, f"builtin.module({PASS})")
    assert "stablehlo.round_nearest_even" in ir.to_text(module)
