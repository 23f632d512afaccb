"""oxla-materialize-shared-elementwise in oxla.compile: shared costly values are written once, results unchanged."""

import numpy as np

from oxla import ir, runtime
from oxla.pipelines import compile

NORMALISE = """func.func @main(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<512.0> : tensor<256x512xf32>
  %t = stablehlo.tanh %x : tensor<256x512xf32>
  %e = stablehlo.exponential %x : tensor<256x512xf32>
  %y = stablehlo.multiply %t, %e : tensor<256x512xf32>
  %s = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<256x512xf32>, tensor<f32>) -> tensor<256xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<256xf32>) -> tensor<256x512xf32>
  %mean = stablehlo.divide %b, %n : tensor<256x512xf32>
  %c = stablehlo.subtract %y, %mean : tensor<256x512xf32>
  %sq = stablehlo.multiply %c, %c : tensor<256x512xf32>
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<256x512xf32>, tensor<f32>) -> tensor<256xf32>
  %vb = stablehlo.broadcast_in_dim %v, dims = [0] : (tensor<256xf32>) -> tensor<256x512xf32>
  %var = stablehlo.divide %vb, %n : tensor<256x512xf32>
  %r = stablehlo.rsqrt %var : tensor<256x512xf32>
  %out = stablehlo.multiply %c, %r : tensor<256x512xf32>
  return %out : tensor<256x512xf32>
}
"""


def _barriers_before_input(**options) -> int:
    """How many optimization barriers the module has when IREE's input phase starts."""
    seen = []
    compile(NORMALISE, compile_to="input", hooks={"before:input": lambda m: seen.append(ir.to_text(m))}, **options)
    return seen[0].count("stablehlo.optimization_barrier")


def test_the_shared_costly_value_is_materialized_once_and_results_match_numpy():
    assert _barriers_before_input() == 1
    assert _barriers_before_input(optimize=False) == 0
    x = np.random.default_rng(3).uniform(-1, 1, (256, 512)).astype(np.float32)
    y = np.tanh(x.astype(np.float64)) * np.exp(x.astype(np.float64))
    c = y - y.mean(axis=1, keepdims=True)
    expected = c / np.sqrt((c * c).mean(axis=1, keepdims=True))
    for optimize in (True, False):
        got = runtime.load(compile(NORMALISE, optimize=optimize)).main(x)
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-5)
