"""oxla-legalize-unsigned: reverse and padded reduce_window on unsigned integers compile and match numpy."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import CompileError, compile

CUMULATIVE = """
func.func @main(%x: tensor<6x5x{t}>) -> tensor<6x5x{t}> {{
  %init = stablehlo.constant dense<{init}> : tensor<{t}>
  %0 = "stablehlo.reduce_window"(%x, %init) <{{padding = dense<[[5, 0], [0, 0]]> : tensor<2x2xi64>,
                                               window_dimensions = array<i64: 6, 1>}}> ({{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    %r = stablehlo.{op} %a, %b : tensor<{t}>
    stablehlo.return %r : tensor<{t}>
  }}) : (tensor<6x5x{t}>, tensor<{t}>) -> tensor<6x5x{t}>
  return %0 : tensor<6x5x{t}>
}}
"""

# stablehlo op -> (numpy accumulate, init value for a dtype)
REDUCTIONS = {
    "add": (np.add, lambda dtype: 0),
    "multiply": (np.multiply, lambda dtype: 1),
    "maximum": (np.maximum, lambda dtype: 0),
    "minimum": (np.minimum, lambda dtype: np.iinfo(dtype).max),
}
TYPES = {"ui8": np.uint8, "ui32": np.uint32, "ui64": np.uint64}


def _legalized(src: str) -> str:
    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-legalize-unsigned)")
    return ir.to_text(module)


def _values(dtype, shape):
    """Values across the whole range: the top bit set in about half of them."""
    info = np.iinfo(dtype)
    return np.random.default_rng(1).integers(0, info.max, size=shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("op", REDUCTIONS)
@pytest.mark.parametrize("t", TYPES)
def test_cumulative_reductions(op, t):
    dtype = TYPES[t]
    accumulate, init = REDUCTIONS[op]
    src = CUMULATIVE.format(t=t, op=op, init=init(dtype))
    assert "padding" not in _legalized(src) and "stablehlo.pad" in _legalized(src)
    x = _values(dtype, (6, 5))
    result = np.asarray(runtime.load(compile(src)).main(x))
    np.testing.assert_array_equal(result, accumulate.accumulate(x, axis=0, dtype=dtype))


def test_dilated_window_max():
    src = """
func.func @main(%x: tensor<4x3xui32>) -> tensor<4x3xui32> {
  %init = stablehlo.constant dense<0> : tensor<ui32>
  %0 = "stablehlo.reduce_window"(%x, %init) <{base_dilations = array<i64: 2, 1>, window_strides = array<i64: 2, 1>,
      padding = dense<[[1, 1], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 1>}> ({
  ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
    %r = stablehlo.maximum %a, %b : tensor<ui32>
    stablehlo.return %r : tensor<ui32>
  }) : (tensor<4x3xui32>, tensor<ui32>) -> tensor<4x3xui32>
  return %0 : tensor<4x3xui32>
}
"""
    x = _values(np.uint32, (4, 3))
    # dilated and padded rows: 0, x0, 0, x1, 0, x2, 0, x3, 0; windows of 3 at stride 2 see one row each
    result = np.asarray(runtime.load(compile(src)).main(x))
    np.testing.assert_array_equal(result, x)


@pytest.mark.parametrize("t", ["ui16", "ui64"])
def test_reverse(t):
    dtype = {"ui16": np.uint16, "ui64": np.uint64}[t]
    src = (f"func.func @main(%x: tensor<3x4x{t}>) -> tensor<3x4x{t}> {{\n"
           f"  %0 = stablehlo.reverse %x, dims = [0, 1] : tensor<3x4x{t}>\n  return %0 : tensor<3x4x{t}>\n}}\n")
    text = _legalized(src)
    assert "stablehlo.reverse" in text and text.count("stablehlo.bitcast_convert") == 2
    x = _values(dtype, (3, 4))
    np.testing.assert_array_equal(np.asarray(runtime.load(compile(src)).main(x)), x[::-1, ::-1])


@pytest.mark.parametrize("src", [
    CUMULATIVE.format(t="ui32", op="maximum", init=0),
    "func.func @f(%x: tensor<4xui8>) -> tensor<4xui8> {\n"
    "  %0 = stablehlo.reverse %x, dims = [0] : tensor<4xui8>\n  return %0 : tensor<4xui8>\n}\n",
])
def test_iree_rejects_them_unlegalized(src):
    with pytest.raises(CompileError):
        compile(src, legalize=False)


@pytest.mark.parametrize("src", [
    # signed and unpadded forms IREE lowers as they are
    "func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {\n"
    "  %0 = stablehlo.reverse %x, dims = [0] : tensor<4xi32>\n  return %0 : tensor<4xi32>\n}\n",
    CUMULATIVE.format(t="i32", op="add", init=0),
    CUMULATIVE.format(t="ui32", op="add", init=0).replace("[[5, 0], [0, 0]]", "[[0, 0], [0, 0]]")
    .replace("6, 1>", "1, 1>"),
])
def test_other_forms_left_alone(src):
    assert _legalized(src) == ir.to_text(ir.parse(src))
