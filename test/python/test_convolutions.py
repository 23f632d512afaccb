"""oxla/transforms/convolutions.py: input-dilated convolutions run as one convolution per output phase
(oxla-llvmcpu-phase-convolutions), 7x1-, 1x7-like ones as one matmul
(oxla-llvmcpu-unfold-strip-convolutions), grouped ones per group
(oxla-llvmcpu-split-grouped-convolutions) or as sums over kernel taps
(oxla-llvmcpu-grouped-convolution-taps), 1-D ones as 2-D ones (oxla-llvmcpu-widen-1d-convolutions),
channels-first ones as channels-last ones (oxla-llvmcpu-channels-last-convolutions), with the original's
results."""

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
    want = reference(x.astype(np.float64), k.astype(np.float64), dilation, padding)
    np.testing.assert_allclose(_run_in_layout(text, layout, x, k), _in_layout(want, layout, 3), rtol=1e-5, atol=1e-4)


def _in_layout(array, layout: str, which: int):
    """A canonical-layout array (x: 1, k: 2, y: 3) in `layout`'s order."""
    return np.ascontiguousarray(array.transpose(np.argsort(LAYOUTS[layout][which])))


def _run_in_layout(text: str, layout: str, x, k):
    """The compiled program's output for canonical-layout x and k, in `layout`'s order."""
    return np.asarray(runtime.load(compile(text)).main(_in_layout(x, layout, 1), _in_layout(k, layout, 2)))


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


SPLIT = "builtin.module(oxla-llvmcpu-split-grouped-convolutions)"


def grouped_convolution(x_shape, k_shape, groups, layout="nhwc", element="f32", strides=(1, 1)) -> str:
    """@main(x, k): a 3x3-padded convolution of NCHW-ordered `x_shape` [n, c, h, w] and `k_shape`
    [o, c / groups, kh, kw] with `groups` feature groups, in `layout`."""
    padding = ((1, 1), (1, 1))
    text, out = convolution(x_shape, k_shape, (1, 1), padding, layout, element)
    _, _, _, y_order = LAYOUTS[layout]
    sizes = [(n + 2 - k) // s + 1 for n, k, s in zip(x_shape[2:], k_shape[2:], strides)]
    before = "x".join(map(str, _canonical_shape(out, y_order)))
    after = "x".join(map(str, _canonical_shape(out[:2] + sizes, y_order)))
    return text.replace(f"tensor<{before}x", f"tensor<{after}x").replace("stride = [1, 1]", f"stride = {list(strides)}").replace(
        "feature_group_count = 1", f"feature_group_count = {groups}")


def grouped_reference(x, k, groups, strides=(1, 1)):
    """The grouped convolution in float64 on canonical layouts: each group's channels with its kernels."""
    c, o = x.shape[1] // groups, k.shape[0] // groups
    parts = [reference(x[:, g * c:(g + 1) * c], k[g * o:(g + 1) * o], (1, 1), ((1, 1), (1, 1)))
             for g in range(groups)]
    return np.concatenate(parts, axis=1)[:, :, ::strides[0], ::strides[1]]


def _assert_grouped_results(text: str, layout: str, x_shape, k_shape, groups: int, strides) -> None:
    """The compiled program's output for random inputs is the float64 grouped convolution's."""
    rng = np.random.default_rng(groups)
    x, k = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(k_shape).astype(np.float32)
    want = grouped_reference(x.astype(np.float64), k.astype(np.float64), groups, strides)
    np.testing.assert_allclose(_run_in_layout(text, layout, x, k), _in_layout(want, layout, 3), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("layout", ["nhwc", "nchw"])
@pytest.mark.parametrize("x_shape, k_shape, groups, strides", [
    ((1, 32, 7, 7), (32, 8, 3, 3), 4, (1, 1)),
    ((2, 16, 6, 5), (8, 8, 3, 3), 2, (2, 1)),  # fewer output features than input channels, strided
    ((1, 128, 5, 5), (64, 8, 3, 3), 16, (1, 1)),  # the most groups it splits
])
def test_grouped_convolutions_run_per_group(layout, x_shape, k_shape, groups, strides):
    text = grouped_convolution(x_shape, k_shape, groups, layout, strides=strides)
    module = ir.parse(text)
    transforms.run(module, SPLIT)
    assert not ir.verify(module)
    convolutions = [op for op in ir.ops(module) if op.name == "stablehlo.convolution"]
    assert len(convolutions) == groups and all("feature_group_count = 1 " in str(op) for op in convolutions)
    _assert_grouped_results(text, layout, x_shape, k_shape, groups, strides)


def test_bf16_grouped_convolutions_run_per_group():
    text = grouped_convolution((1, 16, 6, 6), (16, 8, 3, 3), 2, element="bf16")
    rng = np.random.default_rng(7)
    x, k = rng.integers(-3, 4, (1, 16, 6, 6)), rng.integers(-3, 4, (16, 8, 3, 3))
    got = np.asarray(runtime.load(compile(text)).main(x.transpose(0, 2, 3, 1).astype(ml_dtypes.bfloat16),
                                                      k.transpose(2, 3, 1, 0).astype(ml_dtypes.bfloat16)))
    want = grouped_reference(x.astype(np.float64), k.astype(np.float64), 2)
    np.testing.assert_array_equal(got.astype(np.float64), want.transpose(0, 2, 3, 1))  # small integers: exact


@pytest.mark.parametrize("x_shape, k_shape, groups, element", [
    ((1, 16, 6, 6), (16, 1, 3, 3), 16, "f32"),  # depthwise: IREE vectorizes it
    ((1, 32, 6, 6), (32, 4, 3, 3), 8, "f32"),  # groups of 4 channels
    ((1, 256, 4, 4), (256, 8, 3, 3), 32, "f32"),  # more groups than it splits
    ((1, 32, 6, 6), (32, 8, 3, 3), 4, "i32"),  # integers
])
def test_other_grouped_convolutions_are_left_alone(x_shape, k_shape, groups, element):
    module = ir.parse(grouped_convolution(x_shape, k_shape, groups, element=element))
    transforms.run(module, SPLIT)
    convolutions = [op for op in ir.ops(module) if op.name == "stablehlo.convolution"]
    assert len(convolutions) == 1 and f"feature_group_count = {groups} " in str(convolutions[0])


TAPS = "builtin.module(oxla-llvmcpu-grouped-convolution-taps)"


def _tap_sums(text: str) -> list[str]:
    """The result types of the reductions the tap pass leaves in `text`'s module, asserting no
    convolution is left."""
    module = ir.parse(text)
    transforms.run(module, TAPS)
    assert not ir.verify(module)
    assert not [op for op in ir.ops(module) if op.name == "stablehlo.convolution"]
    return [str(op.results[0].type) for op in ir.ops(module) if op.name == "stablehlo.reduce"]


@pytest.mark.parametrize("layout", ["nhwc", "nchw"])
@pytest.mark.parametrize("x_shape, k_shape, groups, strides", [
    ((1, 32, 7, 7), (32, 4, 3, 3), 8, (1, 1)),  # groups of 4 channels
    ((2, 256, 5, 6), (64, 8, 3, 3), 32, (2, 1)),  # more groups than the split takes, 2 outputs each, strided
    ((1, 12, 5, 5), (6, 2, 3, 3), 6, (1, 2)),  # groups of 2 channels and 1 output
])
def test_grouped_convolutions_run_as_tap_sums(layout, x_shape, k_shape, groups, strides):
    text = grouped_convolution(x_shape, k_shape, groups, layout, strides=strides)
    assert len(_tap_sums(text)) == 9  # one channel sum per tap of the 3x3 kernel
    _assert_grouped_results(text, layout, x_shape, k_shape, groups, strides)


def test_bf16_tap_sums_add_in_f32():
    text = grouped_convolution((1, 32, 6, 6), (32, 4, 3, 3), 8, element="bf16")
    assert all(kind.endswith("xf32>") for kind in _tap_sums(text))
    rng = np.random.default_rng(8)
    x, k = rng.integers(-8, 9, (1, 32, 6, 6)), rng.integers(-8, 9, (32, 4, 3, 3))
    got = np.asarray(runtime.load(compile(text)).main(x.transpose(0, 2, 3, 1).astype(ml_dtypes.bfloat16),
                                                      k.transpose(2, 3, 1, 0).astype(ml_dtypes.bfloat16)))
    want = grouped_reference(x.astype(np.float64), k.astype(np.float64), 8).transpose(0, 2, 3, 1)
    # Sums of small integers are exact in f32, then rounded once to bf16 (summing in bf16 would round each step).
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(ml_dtypes.bfloat16).astype(np.float64))


@pytest.mark.parametrize("x_shape, k_shape, groups, element, extra", [
    ((1, 16, 6, 6), (16, 1, 3, 3), 16, "f32", ""),  # depthwise: IREE vectorizes it
    ((1, 128, 5, 5), (64, 8, 3, 3), 16, "f32", ""),  # the split's
    ((1, 32, 6, 6), (32, 4, 3, 3), 8, "i32", ""),  # integers
    ((1, 32, 6, 6), (32, 4, 3, 3), 8, "f32", "rev"),  # window reversal
])
def test_other_convolutions_are_not_tap_sums(x_shape, k_shape, groups, element, extra):
    text = grouped_convolution(x_shape, k_shape, groups, element=element)
    if extra:
        text = text.replace("pad = [[1, 1], [1, 1]]", "pad = [[1, 1], [1, 1]], reverse = [true, false]")
    module = ir.parse(text)
    transforms.run(module, TAPS)
    assert [op.name for op in ir.ops(module) if op.name.startswith("stablehlo.")].count("stablehlo.convolution") == 1


def test_large_kernels_are_not_tap_sums():
    text, _ = convolution((1, 16, 9, 9), (16, 4, 5, 5), (1, 1), ((2, 2), (2, 2)))
    module = ir.parse(text.replace("feature_group_count = 1", "feature_group_count = 4"))
    transforms.run(module, TAPS)
    assert len([op for op in ir.ops(module) if op.name == "stablehlo.convolution"]) == 1


def test_tap_sums_in_any_layout_match_irees_grouped_convolution():
    # Features first, dilated taps, uneven padding and strides: the same results as IREE's own code.
    text = """func.func @main(%x: tensor<8x6x2x7xf32>, %k: tensor<2x3x8x2xf32>) -> tensor<3x8x6x2xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [f, 1, b, 0]x[i, 0, o, 1]->[1, f, 0, b],
    window = {stride = [1, 2], pad = [[1, 2], [0, 1]], rhs_dilate = [2, 1]}
    {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<8x6x2x7xf32>, tensor<2x3x8x2xf32>) -> tensor<3x8x6x2xf32>
  return %0 : tensor<3x8x6x2xf32>
}
"""
    assert len(_tap_sums(text)) == 6
    rng = np.random.default_rng(11)
    x, k = rng.standard_normal((8, 6, 2, 7)).astype(np.float32), rng.standard_normal((2, 3, 8, 2)).astype(np.float32)
    got = runtime.load(compile(text)).main(x, k)
    want = runtime.load(compile(text, disable_passes=["oxla-llvmcpu-grouped-convolution-taps"])).main(x, k)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


LAYOUT_PASSES = ["oxla-llvmcpu-widen-1d-convolutions", "oxla-llvmcpu-channels-last-convolutions"]
# (dimension numbers, input, kernel and result types, window, feature groups) of convolutions the two
# passes rewrite: 1-D ones in JAX's and PyTorch's layouts, channels-first 2-D and 3-D ones, a scrambled one.
_LAYOUT_CASES = {
    "nwc": ("[b, 0, f]x[0, i, o]->[b, 0, f]", "2x16x4", "5x4x3", "2x6x3",
            "stride = [2], pad = [[2, 1]], rhs_dilate = [2], reverse = [true]", 1),
    "ncw": ("[b, f, 0]x[o, i, 0]->[b, f, 0]", "2x4x16", "6x2x3", "2x6x29", "lhs_dilate = [2]", 2),
    "nchw": ("[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", "2x4x9x7", "8x4x3x3", "2x8x5x7",
             "stride = [2, 1], pad = [[1, 1], [1, 1]]", 1),
    "ncdhw": ("[b, f, 0, 1, 2]x[o, i, 0, 1, 2]->[b, f, 0, 1, 2]", "1x3x5x5x5", "4x3x2x2x2", "1x4x4x4x4", "", 1),
    "scrambled": ("[f, 1, b, 0]x[i, 0, o, 1]->[1, f, 0, b]", "8x6x2x7", "2x3x8x2", "3x8x6x2",
                  "stride = [1, 2], pad = [[1, 2], [0, 1]], rhs_dilate = [2, 1]", 4),
}


def _layout_case(name: str) -> str:
    numbers, x, k, y, window, groups = _LAYOUT_CASES[name]
    types = [f"tensor<{t}xf32>" for t in (x, k, y)]
    return (f"func.func @main(%x: {types[0]}, %k: {types[1]}) -> {types[2]} {{\n"
            f"  %0 = stablehlo.convolution(%x, %k) dim_numbers = {numbers}, window = {{{window}}} "
            f"{{batch_group_count = 1 : i64, feature_group_count = {groups} : i64}} : ({types[0]}, {types[1]}) "
            f"-> {types[2]}\n  return %0 : {types[2]}\n}}\n")


@pytest.mark.parametrize("name", list(_LAYOUT_CASES))
def test_convolutions_run_channels_last_and_two_dimensional_with_irees_results(name):
    text = _layout_case(name)
    module = ir.parse(text)
    transforms.run(module, f"builtin.module({','.join(LAYOUT_PASSES)})")
    convolutions = [op for op in ir.ops(module) if op.name == "stablehlo.convolution"]
    spatial = max(len(_LAYOUT_CASES[name][0].split("x")[0].split(",")) - 2, 2)
    dims = ", ".join(str(d) for d in range(spatial))
    assert [str(op.attributes["dimension_numbers"]) for op in convolutions] == [
        f"#stablehlo.conv<[b, {dims}, f]x[{dims}, i, o]->[b, {dims}, f]>"]
    rng = np.random.default_rng(31)
    _, x, k, _, _, _ = _LAYOUT_CASES[name]
    inputs = [rng.standard_normal([int(n) for n in shape.split("x")]).astype(np.float32) for shape in (x, k)]
    got = runtime.load(compile(text)).main(*inputs)
    want = runtime.load(compile(text, disable_passes=LAYOUT_PASSES)).main(*inputs)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_one_dimensional_convolutions_go_on_to_the_convolution_kernel():
    # A 1-D convolution with its kernel an argument: widened, then oxla's f32 kernel (AVX-512), which
    # packs the kernel on every call and reads the taps from the input in place.
    text = ("func.func @main(%x: tensor<2x512x64xf32>, %k: tensor<5x64x64xf32>) -> tensor<2x512x64xf32> {\n"
            "  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], "
            "window = {pad = [[2, 2]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
            "(tensor<2x512x64xf32>, tensor<5x64x64xf32>) -> tensor<2x512x64xf32>\n"
            "  return %0 : tensor<2x512x64xf32>\n}\n")
    assert "oxla_f32_conv_2x1x516x64_1x5x64" in ir.to_text(compile(text, cpu="znver5", compile_to="input"))
    rng = np.random.default_rng(37)
    x, k = rng.standard_normal((2, 512, 64)).astype(np.float32), rng.standard_normal((5, 64, 64)).astype(np.float32)
    got = np.asarray(runtime.load(compile(text)).main(x, k))
    padded = np.pad(x.astype(np.float64), ((0, 0), (2, 2), (0, 0)))
    want = sum(padded[:, t:t + 512] @ k[t].astype(np.float64) for t in range(5))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
