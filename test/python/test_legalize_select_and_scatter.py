"""oxla-legalize-select-and-scatter: programs with select_and_scatter compile and match the spec's scan."""

import itertools

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import CompileError, compile

PROGRAM = """
func.func @main(%operand: tensor<{oshape}x{t}>, %source: tensor<{sshape}x{t}>) -> tensor<{oshape}x{t}> {{
  %init = stablehlo.constant dense<{init}> : tensor<{t}>
  %0 = "stablehlo.select_and_scatter"(%operand, %source, %init) <{{{attrs}}}> ({{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    %p = stablehlo.compare {direction}, %a, %b, {kind} : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }}, {{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    %s = stablehlo.add %a, %b : tensor<{t}>
    stablehlo.return %s : tensor<{t}>
  }}) : (tensor<{oshape}x{t}>, tensor<{sshape}x{t}>, tensor<{t}>) -> tensor<{oshape}x{t}>
  return %0 : tensor<{oshape}x{t}>
}}
"""

_COMPARE = {"GE": np.greater_equal, "LE": np.less_equal, "GT": np.greater, "LT": np.less}


def reference(operand, source, init, window, strides, padding, direction):
    """The StableHLO spec's select_and_scatter: scan each window in order, padding never selected."""
    select = _COMPARE[direction]
    result = np.full(operand.shape, init, operand.dtype)
    for out in itertools.product(*map(range, source.shape)):
        chosen = None
        for offset in itertools.product(*map(range, window)):
            pos = tuple(o * s + w - lo for o, s, w, (lo, _) in zip(out, strides, offset, padding))
            if all(0 <= p < n for p, n in zip(pos, operand.shape)):
                if chosen is None or not select(operand[chosen], operand[pos]):
                    chosen = pos
        if chosen is not None:
            result[chosen] += source[out]
    return result


def _program(operand, source, init, window, strides, padding, direction, t, kind):
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    attrs = (f"window_dimensions = array<i64: {', '.join(map(str, window))}>, "
             f"window_strides = array<i64: {', '.join(map(str, strides))}>, "
             f"padding = dense<[{pads}]> : tensor<{len(padding)}x2xi64>")
    return PROGRAM.format(oshape="x".join(map(str, operand.shape)), sshape="x".join(map(str, source.shape)),
                          t=t, init=init, attrs=attrs, direction=direction, kind=kind)


CASES = [
    # name, dtype, mlir type, compare kind, direction, operand shape, window, strides, padding
    ("f32_ge_strided", np.float32, "f32", "FLOAT", "GE", (2, 4, 6), (1, 3, 1), (1, 2, 1), [(0, 0)] * 3),
    ("f32_le_padded", np.float32, "f32", "FLOAT", "LE", (5, 7), (2, 3), (2, 2), [(1, 0), (1, 2)]),
    ("i32_ge_ties", np.int32, "i32", "SIGNED", "GE", (4, 6), (2, 2), (1, 1), [(0, 0)] * 2),
    ("ui32_ge_large", np.uint32, "ui32", "UNSIGNED", "GE", (4, 6), (3, 2), (1, 2), [(0, 1), (0, 0)]),
]


@pytest.mark.parametrize("name, dtype, t, kind, direction, shape, window, strides, padding", CASES,
                         ids=[c[0] for c in CASES])
def test_matches_reference(name, dtype, t, kind, direction, shape, window, strides, padding):
    rng = np.random.default_rng(0)
    high = 2**32 if dtype == np.uint32 else 3  # few distinct values: many ties
    operand = rng.integers(0, high, size=shape, dtype=np.uint64).astype(dtype)
    padded = [n + lo + hi for n, (lo, hi) in zip(shape, padding)]
    source_shape = tuple((p - w) // s + 1 for p, w, s in zip(padded, window, strides))
    source = rng.integers(1, 5, size=source_shape).astype(dtype)
    src = _program(operand, source, "0.0" if t.startswith("f") else "0", window, strides, padding, direction, t, kind)

    module = ir.parse(src)
    transforms.run(module, "builtin.module(oxla-legalize-select-and-scatter)")
    assert "select_and_scatter" not in ir.to_text(module)

    result = np.asarray(runtime.load(compile(src)).main(operand, source))
    np.testing.assert_array_equal(result, reference(operand, source, 0, window, strides, padding, direction))


def test_iree_rejects_it_unlegalized():
    operand, source = np.zeros((2, 4), np.float32), np.zeros((1, 3), np.float32)
    src = _program(operand, source, "0.0", (2, 2), (1, 1), [(0, 0)] * 2, "GE", "f32", "FLOAT")
    with pytest.raises(CompileError, match="select_and_scatter"):
        compile(src, legalize=False)


def test_other_ops_left_alone():
    src = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n"
    module = ir.parse(src)
    before = ir.to_text(module)
    transforms.run(module, "builtin.module(oxla-legalize-select-and-scatter)")
    assert ir.to_text(module) == before
