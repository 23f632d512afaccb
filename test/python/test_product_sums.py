"""oxla-llvmcpu-elementwise-product-sums (oxla/transforms/product_sums.py): the products a reduction sums
are written as FMAs, with the same values, and matrix-vector products keep theirs."""

import numpy as np

from oxla import ir, runtime
from oxla.pipelines import compile

PASS = "oxla-llvmcpu-elementwise-product-sums"

_ROW_NORMS = """func.func @main(%x: tensor<512x256xf32>) -> tensor<512xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.multiply %x, %x : tensor<512x256xf32>
  %r = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<512x256xf32>, tensor<f32>) -> tensor<512xf32>
  %n = stablehlo.sqrt %r : tensor<512xf32>
  return %n : tensor<512xf32>
}
"""
_VECMAT = """func.func @main(%v: tensor<1x512xf32>, %w: tensor<512x256xf32>) -> tensor<1x256xf32> {
  %p = stablehlo.dot %v, %w : (tensor<1x512xf32>, tensor<512x256xf32>) -> tensor<1x256xf32>
  return %p : tensor<1x256xf32>
}
"""


def _configured(src: str, **options) -> str:
    return ir.to_text(compile(src, compile_to="executable-configurations", **options))


def test_a_sum_of_squares_multiplies_through_fma_with_the_same_values():
    configured = _configured(_ROW_NORMS)
    assert "math.fma" in configured and "arith.mulf" not in configured
    raw = _configured(_ROW_NORMS, disable_passes=[PASS])
    assert "arith.mulf" in raw and "math.fma" not in raw  # IREE's own: the case arises
    x = np.random.default_rng(47).standard_normal((512, 256)).astype(np.float32)
    got = np.asarray(runtime.load(compile(_ROW_NORMS)).main(x))
    np.testing.assert_allclose(got, np.linalg.norm(x.astype(np.float64), axis=1), rtol=1e-6)
    unchanged = np.asarray(runtime.load(compile(_ROW_NORMS, disable_passes=[PASS])).main(x))
    np.testing.assert_allclose(got, unchanged, rtol=1e-6)  # sums in another order at most


def test_matrix_vector_products_keep_their_multiplies():
    assert _configured(_VECMAT) == _configured(_VECMAT, disable_passes=[PASS])
