"""oxla/transforms/convolutions.py: input-dilated convolutions run as one convolution per output phase
(oxla-llvmcpu-phase-convolutions), and 7x1-, 1x7-like ones as one matmul
(oxla-llvmcpu-unfold-strip-convolutions), with the original's results."""

import itertools

import ml_dtypes
import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

PASS = "builtin.module(oxla-llvmcpu-phase-convolutions)"
LAYOUTS = {"nhwc": ("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", (0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)),
           "nchw": ("[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", (0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))}


def _canonical_shape(shape, order):
    """The shape in layout order of a canonical (batch/out, feature/in, spatial...) shape."""
    out = [0] * len(shape)
    for position, dim in enumerate(order):
        out[dim] = shape[position]
    return out


def convolution(x_shape, k_shape, dilation, padding, layout="nhwc", element="f32", extra="") -> tuple[str, list]:
    """@main(x, k): a convolution of NCHW-ordered shapes `x_shape` [n, c, h, w] and `k_shape` [o, i, kh, kw]
    in `layout`, with input dilation and padding; and its output shape (canonical order)."""
    numbers, x_order, k_order, y_order = LAYOUTS[layout]
    out = [x_shape[0], k_shape[0]] + [
        (n - 1) * s + 1 + lo + hi - k + 1 for n, s, (lo, hi), k in zip(x_shape[2:], dilation, padding, k_shape[2:])]
    types = [f"tensor<{'x'.join(map(str, _canonical_shape(s, o)))}x{element}>"
             for s, o in ((x_shape, x_order), (k_shape, k_order), (out, y_order))]
    text = (f"func.func @main(%x: {types[0]}, %k: {types[1]}) -> {types[2]} {{\n"
            f"  %0 = stablehlo.convolution(%x, %k) dim_numbers = {numbers}, window = {{stride = [1, 1], "
            f"pad = {[list(p) for p in padding]}, lhs_dilate = {list(dilation)}{extra}}} "
            f"{{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({types[0]}, {types[1]}) -> {types[2]}\n"
            f"  return %0 : {types[2]}\n}}\n")
    return text, out


def reference(x, k, dilation, padding):
    """The convolution in float64 on canonical layouts: the dilated, padded input correlated with k."""
    n, c, h, w = x.shape
    dilated = np.zeros((n, c, (h - 1) * dilation[0] + 1, (w - 1) * dilation[1] + 1))
    dilated[:, :, ::dilation[0], ::dilation[1]] = x
    (top, bottom), (left, right) = padding
    padded = np.pad(dilated, ((0, 0), (0, 0), (max(top, 0), max(bottom, 0)), (max(left, 0), max(right, 0))))
    rows = slice(max(-top, 0), padded.shape[2] - max(-bottom, 0))
    columns = slice(max(-left, 0), padded.shape[3] - max(-right, 0))
    padded = padded[:, :, rows, columns]
    oh, ow = padded.shape[2] - k.shape[2] + 1, padded.shape[3] - k.shape[3] + 1
    out = np.zeros((n, k.shape[0], oh, ow))
    for a, b in itertools.product(range(k.shape[2]), range(k.shape[3])):
        out += np.einsum("nchw,oc->nohw", padded[:, :, a:a + oh, b:b + ow], k[:, :, a, b])
    return out


CASES = [  # x [n, c, h, w], k [o, i, kh, kw], dilation, padding
    ((1, 8, 7, 7), (4, 8, 3, 3), (2, 2), ((2, 1), (2, 1))),  # conv_transpose 3x3/2 SAME
    ((2, 3, 5, 6), (5, 3, 4, 4), (2, 2), ((3, 3), (3, 3))),  # 4x4/2 VALID
    ((1, 2, 5, 6), (3, 2, 3, 2), (3, 2), ((1, 2), (1, 0))),  # different dilations and kernels per dimension
    ((1, 4, 6, 6), (4, 4, 1, 1), (2, 2), ((0, 1), (0, 1))),  # 1x1: phases without taps are zeros
    ((1, 4, 6, 6), (2, 4, 5, 5), (3, 3), ((1, 3), (4, 0))),
    ((1, 4, 6, 5), (2, 4, 3, 3), (2, 1), ((-1, 2), (1, 1))),  # negative padding; one dimension undilated
]


@pytest.mark.parametrize("layout", ["nhwc", "nchw"])
@pytest.mark.parametrize("x_shape, k_shape, dilation, padding", CASES)
def test_phases_give_the_dilated_convolution(layout, x_shape, k_shape, dilation, padding):
    text, out = convolution(x_shape, k_shape, dilation, padding, layout)
    module = ir.parse(text)
    transforms.run(module, PASS)
    assert not ir.verify(module)
    convolutions = [op for op in ir.ops(module) if op.name == "stablehlo.convolution"]
    assert convolutions and all("lhs_dilate" not in str(op) or "lhs_dilate = [1, 1]" in str(op) for op in convolutions)
    rng = np.random.default_rng(sum(x_shape))
    x, k = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(k_shape).astype(np.float32)
    _, x_order, k_order, y_order = LAYOUTS[layout]
    got = np.asarray(runtime.load(compile(text)).main(np.ascontiguousarray(x.transpose(np.argsort(x_order))),
                                                     np.ascontiguousarray(k.transpose(np.argsort(k_order)))))
    want = reference(x.astype(np.float64), k.astype(np.float64), dilation, padding)
    np.testing.assert_allclose(got, want.transpose(np.argsort(y_order)), rtol=1e-5, atol=1e-4)


def test_bf16_and_integer_elements():
    for element, dtype in (("bf16", ml_dtypes.bfloat16), ("i32", np.int32)):
        text, _ = convolution((1, 4, 5, 5), (3, 4, 3, 3), (2, 2), ((2, 1), (2, 1)), element=element)
        rng = np.random.default_rng(4)
        x, k = rng.integers(-3, 4, (1, 4, 5, 5)), rng.integers(-3, 4, (3, 4, 3, 3))
        got = np.asarray(runtime.load(compile(text)).main(x.transpose(0, 2, 3, 1).astype(dtype),
                                                          k.transpose(2, 3, 1, 0).astype(dtype)))
        want = reference(x.astype(np.float64), k.astype(np.float64), (2, 2), ((2, 1), (2, 1)))
        np.testing.assert_array_equal(got.astype(np.float64), want.transpose(0, 2, 3, 1))  # small integers: exact


@pytest.mark.parametrize("extra", [", rhs_dilate = [2, 1]", ", reverse = [true, false]"])
def test_other_convolutions_are_left_alone(extra):
    text, _ = convolution((1, 4, 6, 6), (2, 4, 3, 3), (2, 2), ((2, 2), (2, 2)), extra=extra)
    if "rhs_dilate" in extra:  # a dilated window is larger: fix the output size
        text = text.replace("13x13x2", "11x13x2")
    module = ir.parse(text)
    transforms.run(module, PASS)
    assert "lhs_dilate = [2, 2]" in ir.to_text(module)
    undilated, _ = convolution((1, 4, 6, 6), (2, 4, 3, 3), (1, 1), ((1, 1), (1, 1)))
    module = ir.parse(undilated)
    transforms.run(module, PASS)
    assert len([op for op in ir.ops(module) if op.name == "stablehlo.convolution"]) == 1


UNFOLD = "builtin.module(oxla-llvmcpu-unfold-strip-convolutions)"


def strided(x_shape, k_shape, strides, padding, element="f32") -> str:
    """@main(x, k): an NHWC/HWIO convolution of NCHW-ordered shapes `x_shape` and `k_shape` with strides."""
    text, out = convolution(x_shape, k_shape, (1, 1), padding, element=element)
    sizes = [(n + lo + hi - k) // s + 1 for n, (lo, hi), k, s in zip(x_shape[2:], padding, k_shape[2:], strides)]
    dims = lambda d: "x".join(map(str, [d[0], *d[2:], d[1]]))  # noqa: E731
    return text.replace(f"tensor<{dims(out)}x{element}>", f"tensor<{dims(out[:2] + sizes)}x{element}>").replace(
        "stride = [1, 1]", f"stride = {list(strides)}")


@pytest.mark.parametrize("x_shape, k_shape, strides, padding", [
    ((1, 8, 9, 9), (4, 8, 3, 1), (1, 1), ((1, 1), (0, 0))),
    ((2, 8, 9, 7), (4, 8, 1, 5), (1, 1), ((0, 0), (0, 0))),
    ((1, 8, 11, 11), (4, 8, 7, 1), (2, 1), ((3, 3), (0, 0))),
    ((1, 8, 10, 10), (4, 8, 1, 3), (2, 3), ((1, 2), (0, -1))),
])
def test_strip_convolutions_are_one_matmul(x_shape, k_shape, strides, padding):
    text = strided(x_shape, k_shape, strides, padding)
    module = ir.parse(text)
    transforms.run(module, UNFOLD)
    assert not ir.verify(module)
    assert "stablehlo.convolution" not in ir.to_text(module) and "stablehlo.dot_general" in ir.to_text(module)
    rng = np.random.default_rng(sum(k_shape))
    x, k = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(k_shape).astype(np.float32)
    got = np.asarray(runtime.load(compile(text)).main(np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
                                                     np.ascontiguousarray(k.transpose(2, 3, 1, 0))))
    dense = reference(x.astype(np.float64), k.astype(np.float64), (1, 1), padding)
    want = dense[:, :, ::strides[0], ::strides[1]].transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("change", ["3x3", "1x1", "nchw", "grouped", "dilated window"])
def test_other_convolutions_are_not_unfolded(change):
    x_shape, k_shape = (1, 4, 6, 6), (2, 4, 3, 1)
    if change == "3x3":
        text = strided(x_shape, (2, 4, 3, 3), (1, 1), ((1, 1), (1, 1)))
    elif change == "1x1":
        text = strided(x_shape, (2, 4, 1, 1), (1, 1), ((0, 0), (0, 0)))
    elif change == "nchw":
        text, _ = convolution(x_shape, k_shape, (1, 1), ((1, 1), (0, 0)), layout="nchw")
    elif change == "grouped":
        text = strided(x_shape, (2, 2, 3, 1), (1, 1), ((1, 1), (0, 0))).replace(
            "feature_group_count = 1", "feature_group_count = 2")
    else:
        text = strided(x_shape, k_shape, (1, 1), ((2, 2), (0, 0))).replace(
            "lhs_dilate = [1, 1]", "rhs_dilate = [2, 1]").replace("tensor<1x8x6x2xf32>", "tensor<1x6x6x2xf32>")
    module = ir.parse(text)
    transforms.run(module, UNFOLD)
    assert "stablehlo.convolution" in ir.to_text(module)
