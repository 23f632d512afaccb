"""rng_bit_generator is bit-exact with XLA; rng is deterministic and in range."""

import numpy as np
import pytest
from interpreter_testing import run

STATE = np.array([0x123456789, 0xABCDEF0123], np.uint64)

# Recorded from jax.lax.rng_bit_generator (XLA's CPU backend, jax 0.10) with the key STATE.
XLA = {
    ("THREE_FRY", "2x3xui32"): ([[3858215583, 853048461, 3789948328], [2834763070, 2423837739, 3445640885]],
                                737894400294),
    ("THREE_FRY", "3xui64"): ([12175214681416774303, 10410303820668632205, 14798914918625445288], 737894400294),
    ("THREE_FRY", "5xui16"): ([45727, 3390, 31885, 54315, 1448], 737894400294),
    ("PHILOX", "2x3xui32"): ([[2293601986, 3322219162, 3612681458], [1007739577, 981951423, 2276551845]],
                             737894400293),
    ("PHILOX", "3xui64"): ([14268822653228127938, 4328208529712555250, 9777715722905412543], 737894400293),
    ("PHILOX", "5xui16"): ([38594, 2714, 9458, 58041, 25535], 737894400293),
    ("DEFAULT", "2x3xui32"): ([[2293601986, 3322219162, 3612681458], [1007739577, 981951423, 2276551845]],
                              737894400293),
}


@pytest.mark.parametrize("algorithm, shape", list(XLA))
def test_rng_bit_generator_matches_xla(algorithm, shape):
    text = f"""func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<{shape}>) {{
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = {algorithm} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<{shape}>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<{shape}>
}}"""
    state, bits = run(text, STATE)
    values, counter = XLA[(algorithm, shape)]
    assert bits.tolist() == values
    assert state.tolist() == [int(STATE[0]), counter]


def test_rng_bit_generator_threads_its_state():
    text = """func.func @main(%s: tensor<2xui64>) -> (tensor<4xui32>, tensor<4xui32>) {
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %1:2 = stablehlo.rng_bit_generator %0#0, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %0#1, %1#1 : tensor<4xui32>, tensor<4xui32>
}"""
    first, second = run(text, STATE)
    assert first.tolist() != second.tolist()
    assert run(text, STATE)[0].tolist() == first.tolist()


def test_rng_uniform_is_deterministic_and_in_range():
    text = """func.func @main() -> tensor<100xf32> {
  %a = stablehlo.constant dense<2.0> : tensor<f32>
  %b = stablehlo.constant dense<3.0> : tensor<f32>
  %s = stablehlo.constant dense<[100]> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<100xf32>
  return %0 : tensor<100xf32>
}"""
    [x] = run(text)
    assert x.dtype == np.float32 and (x >= 2).all() and (x < 3).all()
    assert run(text)[0].tolist() == x.tolist()
