"""dot_general, convolution, fft, triangular_solve, cholesky, batch_norm against direct numpy."""

import itertools
import re

import ml_dtypes
import numpy as np
import pytest
from interpreter_testing import one, run

RNG = np.random.default_rng(7)


def test_dot_general_with_batch_and_permuted_contracting_dims():
    text = """func.func @main(%a: tensor<3x2x4xf64>, %b: tensor<4x2x5xf64>) -> tensor<2x3x5xf64> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [1] x [1], contracting_dims = [2] x [0]
      : (tensor<3x2x4xf64>, tensor<4x2x5xf64>) -> tensor<2x3x5xf64>
  return %0 : tensor<2x3x5xf64>
}"""
    a, b = RNG.standard_normal((3, 2, 4)), RNG.standard_normal((4, 2, 5))
    np.testing.assert_allclose(one(text, a, b), np.einsum("mbk,kbn->bmn", a, b), rtol=1e-13)


def test_dot_general_integers_wrap_and_mixed_types_promote_to_the_result():
    text = """func.func @main(%a: tensor<2x2xi8>, %b: tensor<2x2xi8>) -> tensor<2x2xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xi8>, tensor<2x2xi8>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}"""
    a = np.array([[127, 127], [-128, 1]], np.int8)
    np.testing.assert_array_equal(one(text, a, a), a.astype(np.int32) @ a.astype(np.int32))


def test_bf16_dot_accumulates_in_f32_and_rounds_once():
    text = """func.func @main(%a: tensor<1x3xbf16>, %b: tensor<3x1xbf16>) -> tensor<1x1xbf16> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x3xbf16>, tensor<3x1xbf16>) -> tensor<1x1xbf16>
  return %0 : tensor<1x1xbf16>
}"""
    a = np.array([[256, 1, 1]], ml_dtypes.bfloat16)
    b = np.ones((3, 1), ml_dtypes.bfloat16)
    # in bf16 steps 256 + 1 = 256 (ties to even) twice; in f32 the sum is 258, which bf16 holds
    assert float(one(text, a, b)[0, 0]) == 258


def reference_convolution(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, groups):
    """The specification's convolution, one output element at a time (NHWC x HWIO -> NHWC)."""
    n, h, w, c = lhs.shape
    kh, kw, ci, co = rhs.shape
    dil = np.zeros((n, (h - 1) * lhs_dilation[0] + 1, (w - 1) * lhs_dilation[1] + 1, c), lhs.dtype)
    dil[:, ::lhs_dilation[0], ::lhs_dilation[1], :] = lhs
    padded = np.pad(dil, [(0, 0), padding[0], padding[1], (0, 0)])
    oh = (padded.shape[1] - ((kh - 1) * rhs_dilation[0] + 1)) // strides[0] + 1
    ow = (padded.shape[2] - ((kw - 1) * rhs_dilation[1] + 1)) // strides[1] + 1
    out = np.zeros((n, oh, ow, co))
    per_group = co // groups
    for b, y, x, o in itertools.product(range(n), range(oh), range(ow), range(co)):
        g = o // per_group
        for i, j in itertools.product(range(kh), range(kw)):
            pixel = padded[b, y * strides[0] + i * rhs_dilation[0], x * strides[1] + j * rhs_dilation[1],
                           g * ci:(g + 1) * ci]
            out[b, y, x, o] += pixel @ rhs[i, j, :, o]
    return out


@pytest.mark.parametrize("strides, padding, lhs_dilation, rhs_dilation, groups", [
    ((1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 1),
    ((2, 1), ((0, 1), (2, 0)), (1, 2), (2, 1), 1),
    ((1, 2), ((1, 0), (0, 0)), (1, 1), (1, 1), 2),
])
def test_convolution_matches_the_specification(strides, padding, lhs_dilation, rhs_dilation, groups):
    lhs = RNG.standard_normal((2, 5, 6, 4))
    rhs = RNG.standard_normal((3, 2, 4 // groups, 6))
    text = f"""func.func @main(%x: tensor<2x5x6x4xf64>, %k: tensor<3x2x{4 // groups}x6xf64>) -> tensor<?x?x?x?xf64> {{
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
      window = {{stride = [{strides[0]}, {strides[1]}], pad = [[{padding[0][0]}, {padding[0][1]}], [{padding[1][0]}, {padding[1][1]}]],
      lhs_dilate = [{lhs_dilation[0]}, {lhs_dilation[1]}], rhs_dilate = [{rhs_dilation[0]}, {rhs_dilation[1]}]}}
      {{batch_group_count = 1 : i64, feature_group_count = {groups} : i64}} : (tensor<2x5x6x4xf64>, tensor<3x2x{4 // groups}x6xf64>) -> tensor<?x?x?x?xf64>
  return %0 : tensor<?x?x?x?xf64>
}}"""
    expected = reference_convolution(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, groups)
    np.testing.assert_allclose(one(text, lhs, rhs), expected, rtol=1e-12, atol=1e-12)


def test_convolution_batch_groups_split_the_batch():
    # NCHW x OIHW, batch_group_count 2: output feature o uses batch split o // 1
    text = """func.func @main(%x: tensor<2x1x3x3xf64>, %k: tensor<2x1x2x2xf64>) -> tensor<1x2x2x2xf64> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {}
      {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<2x1x3x3xf64>, tensor<2x1x2x2xf64>) -> tensor<1x2x2x2xf64>
  return %0 : tensor<1x2x2x2xf64>
}"""
    x, k = RNG.standard_normal((2, 1, 3, 3)), RNG.standard_normal((2, 1, 2, 2))
    out = one(text, x, k)
    for o in range(2):
        nhwc = reference_convolution(x[o:o + 1].transpose(0, 2, 3, 1), k[o:o + 1].transpose(2, 3, 1, 0),
                                     (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), 1)
        np.testing.assert_allclose(out[0, o], nhwc[0, :, :, 0], rtol=1e-12)


@pytest.mark.parametrize("kind, source, result, lengths, reference", [
    ("FFT", "tensor<3x8xcomplex<f64>>", "tensor<3x8xcomplex<f64>>", "[8]", lambda x: np.fft.fft(x)),
    ("IFFT", "tensor<4x8xcomplex<f64>>", "tensor<4x8xcomplex<f64>>", "[4, 8]", lambda x: np.fft.ifft2(x)),
    ("RFFT", "tensor<3x8xf64>", "tensor<3x5xcomplex<f64>>", "[8]", lambda x: np.fft.rfft(x)),
    ("IRFFT", "tensor<3x5xcomplex<f64>>", "tensor<3x8xf64>", "[8]", lambda x: np.fft.irfft(x, 8)),
])
def test_fft_kinds(kind, source, result, lengths, reference):
    text = f"""func.func @main(%x: {source}) -> {result} {{
  %0 = stablehlo.fft %x, type = {kind}, length = {lengths} : ({source}) -> {result}
  return %0 : {result}
}}"""
    shape = tuple(int(d) for d in re.findall(r"(\d+)x", source))
    x = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if "complex" in source else 0)
    np.testing.assert_allclose(one(text, x), reference(x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("left, lower, transpose", list(itertools.product([True, False], [True, False],
                                                                         ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])))
def test_triangular_solve_every_form(left, lower, transpose):
    a = np.tril(RNG.standard_normal((2, 4, 4)) + 0.1j * RNG.standard_normal((2, 4, 4))) + 4 * np.eye(4)
    a = a if lower else np.swapaxes(a, -1, -2)
    b = RNG.standard_normal((2, 4, 3) if left else (2, 3, 4)).astype(np.complex128)
    text = f"""func.func @main(%a: tensor<2x4x4xcomplex<f64>>, %b: tensor<{'2x4x3' if left else '2x3x4'}xcomplex<f64>>) -> tensor<{'2x4x3' if left else '2x3x4'}xcomplex<f64>> {{
  %0 = "stablehlo.triangular_solve"(%a, %b) {{left_side = {str(left).lower()}, lower = {str(lower).lower()},
      unit_diagonal = false, transpose_a = #stablehlo<transpose {transpose}>}}
      : (tensor<2x4x4xcomplex<f64>>, tensor<{'2x4x3' if left else '2x3x4'}xcomplex<f64>>) -> tensor<{'2x4x3' if left else '2x3x4'}xcomplex<f64>>
  return %0 : tensor<{'2x4x3' if left else '2x3x4'}xcomplex<f64>>
}}"""
    x = one(text, a + np.triu(np.ones((4, 4)), 1) * 99 * (1 if lower else 0) + np.tril(np.ones((4, 4)), -1) * 99 * (
        0 if lower else 1), b)  # the other triangle holds garbage that must be ignored
    op_a = {"NO_TRANSPOSE": a, "TRANSPOSE": np.swapaxes(a, -1, -2), "ADJOINT": np.conj(np.swapaxes(a, -1, -2))}[transpose]
    np.testing.assert_allclose(op_a @ x if left else x @ op_a, b, rtol=1e-10, atol=1e-10)


def test_cholesky_reads_one_triangle():
    m = RNG.standard_normal((3, 3))
    spd = m @ m.T + 3 * np.eye(3)
    garbage = np.full((3, 3), 99.0)
    text = """func.func @main(%a: tensor<3x3xf64>, %b: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>) {
  %0 = stablehlo.cholesky %a, lower = true : tensor<3x3xf64>
  %1 = stablehlo.cholesky %b : tensor<3x3xf64>
  return %0, %1 : tensor<3x3xf64>, tensor<3x3xf64>
}"""
    lower, upper = run(text, np.tril(spd) + np.triu(garbage, 1), np.triu(spd) + np.tril(garbage, -1))
    np.testing.assert_allclose(lower @ lower.T, spd, rtol=1e-12)
    np.testing.assert_allclose(upper.T @ upper, spd, rtol=1e-12)
    assert np.all(np.triu(lower, 1) == 0) and np.all(np.tril(upper, -1) == 0)


def test_batch_norm_inference_and_training():
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    scale, offset = np.array([1, 2, 3], np.float32), np.array([0, 1, -1], np.float32)
    text = """func.func @main(%x: tensor<4x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 0.001 : f32, feature_index = 1 : i64}
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
}"""
    out, mean, var = run(text, x, scale, offset)
    np.testing.assert_allclose(mean, x.mean(0), rtol=1e-6)
    np.testing.assert_allclose(var, x.var(0), rtol=1e-5)
    np.testing.assert_allclose(out, scale * (x - x.mean(0)) / np.sqrt(x.var(0) + 0.001) + offset, rtol=1e-5, atol=1e-6)


def test_deprecated_einsum_forms():
    text = """func.func @main(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> (tensor<2x4xf64>, tensor<3x2xf64>) {
  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %1 = "stablehlo.unary_einsum"(%a) {einsum_config = ",ab->ba"} : (tensor<2x3xf64>) -> tensor<3x2xf64>
  return %0, %1 : tensor<2x4xf64>, tensor<3x2xf64>
}"""
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
    product, transposed = run(text, a, b)
    np.testing.assert_allclose(product, a @ b, rtol=1e-13)
    np.testing.assert_array_equal(transposed, a.T)
