"""Quantized types: uniform_quantize/dequantize and ops computed on dequantized values."""

import numpy as np
from interpreter_testing import one

Q = "!quant.uniform<i8:f32, 0.5:-1>"


def test_quantize_rounds_half_even_in_the_expressed_type_and_clamps():
    text = f"""func.func @main(%x: tensor<5xf32>) -> (tensor<5xf32>) {{
  %0 = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x{Q}>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<5x{Q}>) -> tensor<5xf32>
  return %1 : tensor<5xf32>
}}"""
    x = np.array([0.25, 0.75, -1.0, 1000.0, -1000.0], np.float32)
    # 0.25/0.5 - 1 = -0.5 -> -0 -> 0.5; 0.75 -> 0.5 (ties to even: 1.5 - 1 = 0.5 -> 0) ... stored ints then back
    stored = np.clip(np.rint(x / 0.5 - 1), -128, 127)
    np.testing.assert_array_equal(one(text, x), (stored + 1) * 0.5)


def test_add_on_quantized_values_dequantizes_adds_and_requantizes():
    text = f"""func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {{
  %a = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x{Q}>
  %b = stablehlo.uniform_quantize %y : (tensor<3xf32>) -> tensor<3x{Q}>
  %s = stablehlo.add %a, %b : tensor<3x{Q}>
  %r = stablehlo.reshape %s : (tensor<3x{Q}>) -> tensor<3x{Q}>
  %0 = stablehlo.uniform_dequantize %r : (tensor<3x{Q}>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}}"""
    out = one(text, np.array([1.0, 2.5, 60.0], np.float32), np.array([0.5, -1.0, 10.0], np.float32))
    assert out.tolist() == [1.5, 1.5, 64.0]  # 70 saturates at (127 + 1) * 0.5


def test_quantized_constants_hold_their_stored_integers():
    text = f"""func.func @main() -> tensor<2xf32> {{
  %c = stablehlo.constant() {{value = dense<[3, -1]> : tensor<2xi8>}} : () -> tensor<2x{Q}>
  %0 = stablehlo.uniform_dequantize %c : (tensor<2x{Q}>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}}"""
    assert one(text).tolist() == [2.0, 0.0]


def test_per_axis_quantization():
    q = "!quant.uniform<i8:f32:1, {0.5:0, 2.0:1}>"
    text = f"""func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {{
  %0 = stablehlo.uniform_quantize %x : (tensor<2x2xf32>) -> tensor<2x2x{q}>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<2x2x{q}>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}}"""
    out = one(text, np.array([[1.2, 4.9], [-3.0, 7.0]], np.float32))
    assert out.tolist() == [[1.0, 4.0], [-3.0, 6.0]]
