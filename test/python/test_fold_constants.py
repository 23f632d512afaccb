"""oxla-fold-constants: folded results are the unfolded program's, bit for bit, and only what may fold does."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from oxla import interpreter, ir, transforms
from oxla.dialects.elements import constant_value, dtype_of
from oxla.transforms import fold
from oxla.transforms.fold import fold_constants

NAN_PAYLOAD = np.array([0x7FC00001, 0xFFC00123], np.uint32).view(np.float32)


def _literal(array: np.ndarray) -> str:
    """A bit-exact MLIR literal (hex) for `array`."""
    from oxla.dialects.stablehlo.attributes import dense_text

    return dense_text(array).rsplit(" : ", 1)[0]


def _type(array: np.ndarray) -> str:
    from oxla.dialects.stablehlo.types import element_type

    dims = "x".join(str(d) for d in array.shape)
    return f"tensor<{dims + 'x' if dims else ''}{element_type(array.dtype)}>"


def _program(inputs: list[np.ndarray], body: str, result_type: str) -> str:
    """A function whose arguments are the constants `inputs` (%c0, %c1, ...) and whose result is %r."""
    consts = "\n".join(f"  %c{i} = stablehlo.constant {_literal(a)} : {_type(a)}" for i, a in enumerate(inputs))
    return f"func.func @main() -> {result_type} {{\n{consts}\n  {body}\n  return %r : {result_type}\n}}\n"


def _fold_and_compare(text: str, *, expect_folded: bool = True) -> np.ndarray:
    module = ir.parse(text)
    [want] = interpreter.evaluate(module, "main")
    stats = fold_constants(module)
    assert not ir.verify(module)
    names = {op.name for op in ir.ops(module)} - {"builtin.module", "func.func", "func.return"}
    if expect_folded:
        assert stats.folded >= 1 and names == {"stablehlo.constant"}, ir.to_text(module)
    [got] = interpreter.evaluate(module, "main")
    assert want.dtype == got.dtype and want.shape == got.shape
    assert np.asarray(want).tobytes() == np.asarray(got).tobytes(), (want, got)
    return np.asarray(got)


FLOATS = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
SPECIAL = [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3e-39]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder", "atan2",
                                "power"])
def test_binary_float_ops_fold_bit_exactly(op, dtype):
    a = np.array(SPECIAL, np.float64).astype(dtype)
    b = np.roll(a, 3)
    t = _type(a)
    _fold_and_compare(_program([a, b], f"%r = stablehlo.{op} %c0, %c1 : {t}", t))


@pytest.mark.parametrize("op", ["negate", "abs", "sqrt", "exponential", "log", "tanh", "floor", "ceil", "sign",
                                "round_nearest_even", "cosine", "logistic", "is_finite"])
def test_unary_ops_fold_bit_exactly(op):
    a = np.array(SPECIAL + [-1.0, 0.5], np.float32)
    result = _type(a.astype(bool)) if op == "is_finite" else _type(a)
    _fold_and_compare(_program([a], f"%r = stablehlo.{op} %c0 : ({_type(a)}) -> {result}", result))


def test_nan_payloads_and_negative_zero_survive():
    a = np.concatenate([NAN_PAYLOAD, np.array([-0.0, 0.0], np.float32)])
    t = _type(a)
    got = _fold_and_compare(_program([a], f"%r = stablehlo.negate %c0 : {t}", t))
    assert got.view(np.uint32).tolist() == [0xFFC00001, 0x7FC00123, 0x00000000, 0x80000000]


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint32, ml_dtypes.int4],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "remainder", "and", "or", "xor",
                                "shift_left", "shift_right_arithmetic", "shift_right_logical", "maximum"])
def test_integer_ops_wrap_like_the_interpreter(op, dtype):
    info = ml_dtypes.iinfo(dtype)
    values = [int(info.min), int(info.max), 0, 1, 3, int(info.max) - 1]
    a = np.array(values, dtype=dtype)
    b = np.array([1, 2, 3, int(info.max), 7, 1], dtype=dtype)
    t = _type(a)
    _fold_and_compare(_program([a, b], f"%r = stablehlo.{op} %c0, %c1 : {t}", t))


def test_complex_and_boolean_ops():
    c = np.array([1 + 2j, -0.0 - 1j, np.nan + 1j], np.complex64)
    t = _type(c)
    _fold_and_compare(_program([c, c[::-1].copy()], f"%r = stablehlo.multiply %c0, %c1 : {t}", t))
    p = np.array([True, False, True])
    tb = _type(p)
    _fold_and_compare(_program([p, ~p], f"%r = stablehlo.xor %c0, %c1 : {tb}", tb))


def test_data_movement_and_regions():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5
    _fold_and_compare(_program([a], "%r = stablehlo.transpose %c0, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> "
                                    "tensor<4x2x3xf32>", "tensor<4x2x3xf32>"))
    _fold_and_compare(_program([a], "%r = stablehlo.slice %c0 [0:2, 1:3:1, 0:4:2] : (tensor<2x3x4xf32>) -> "
                                    "tensor<2x2x2xf32>", "tensor<2x2x2xf32>"))
    init = np.array(-np.inf, np.float32)
    _fold_and_compare(_program([a, init], "%r = stablehlo.reduce(%c0 init: %c1) applies stablehlo.maximum "
                                          "across dimensions = [1] : (tensor<2x3x4xf32>, tensor<f32>) -> "
                                          "tensor<2x4xf32>", "tensor<2x4xf32>"))
    keys = np.array([3.0, -0.0, 0.0, np.nan, -1.0], np.float32)
    sort = ('%r = "stablehlo.sort"(%c0) <{dimension = 0 : i64, is_stable = true}> ({\n'
            '  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
            '    %p = stablehlo.compare LT, %x, %y, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n'
            '    stablehlo.return %p : tensor<i1>\n'
            '  }) : (tensor<5xf32>) -> tensor<5xf32>')
    _fold_and_compare(_program([keys], sort, "tensor<5xf32>"))


def test_splat_results_stay_splats():
    module = ir.parse("""func.func @main() -> tensor<1000x1000xf32> {
  %z = stablehlo.constant dense<0x7FC00001> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<1000x1000xf32>
  %n = stablehlo.negate %b : tensor<1000x1000xf32>
  return %n : tensor<1000x1000xf32>
}""")
    assert fold_constants(module).folded == 2
    [const] = [op for op in ir.ops(module) if op.name == "stablehlo.constant"]
    attr = ir.DenseElementsAttr(const.attributes["value"])
    assert attr.is_splat and "0xFFC00001" in str(attr)


def test_folding_inside_regions_and_through_chains():
    module = ir.parse("""func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %w = stablehlo.while(%i = %x) : tensor<i32>
    cond {
      %a = stablehlo.constant dense<5> : tensor<i32>
      %b = stablehlo.constant dense<2> : tensor<i32>
      %lim = stablehlo.multiply %a, %b : tensor<i32>
      %c = stablehlo.compare LT, %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %two = stablehlo.add %one, %one : tensor<i32>
      %n = stablehlo.add %i, %two : tensor<i32>
      stablehlo.return %n : tensor<i32>
    }
  return %w : tensor<i32>
}""")
    stats = fold_constants(module)
    assert stats.folded == 2
    text = ir.to_text(module)
    assert "dense<10>" in text and "dense<2>" in text and "stablehlo.while" in text
    assert interpreter.evaluate(module, "main", np.array(1, np.int32))[0] == 11


def test_max_elements_and_expansion_decline():
    big = "%r = stablehlo.iota dim = 0 : tensor<5000xi32>"
    module = ir.parse(_program([], big, "tensor<5000xi32>"))
    stats = fold_constants(module)
    assert stats.folded == 0 and stats.declined == 1  # a large dense constant out of nothing
    small = ir.parse(_program([], "%r = stablehlo.iota dim = 0 : tensor<8xi32>", "tensor<8xi32>"))
    assert fold_constants(small, max_elements=4).folded == 0
    assert fold_constants(small, max_elements=8).folded == 1
    dense = np.arange(2000, dtype=np.float32)
    same_size = ir.parse(_program([dense], "%r = stablehlo.negate %c0 : tensor<2000xf32>", "tensor<2000xf32>"))
    assert fold_constants(same_size).folded == 1  # no bigger than its operand


def test_the_pass_and_its_option():
    module = ir.parse(_program([], "%r = stablehlo.iota dim = 0 : tensor<8xi32>", "tensor<8xi32>"))
    transforms.run(module, "builtin.module(oxla-fold-constants{max-elements=4})")
    assert "stablehlo.iota" in ir.to_text(module)
    transforms.run(module, "builtin.module(func.func(oxla-fold-constants))")
    assert "stablehlo.iota" not in ir.to_text(module)


def test_numpy_fallback_when_the_interpreter_cannot(monkeypatch):
    def unsupported(op, externals):
        raise NotImplementedError(op.name)

    monkeypatch.setattr(fold, "_interpret", unsupported)
    a = np.array([127, -128, 5], np.int8)
    folded = ir.parse(_program([a, a], "%r = stablehlo.add %c0, %c1 : tensor<3xi8>", "tensor<3xi8>"))
    assert fold_constants(folded).folded == 1
    [const] = [op for op in ir.ops(folded) if op.name == "stablehlo.constant"]
    assert constant_value(const).tolist() == [-2, 0, 10]
    f = np.array([1.0, 2.0], np.float32)
    kept = ir.parse(_program([f], "%r = stablehlo.sine %c0 : tensor<2xf32>", "tensor<2xf32>"))
    assert fold_constants(kept).folded == 0 and "stablehlo.sine" in ir.to_text(kept)


def test_an_evaluation_error_declines(monkeypatch):
    def broken(op, externals):
        raise interpreter.EvaluationError("boom")

    monkeypatch.setattr(fold, "_interpret", broken)
    module = ir.parse(_program([np.ones(3, np.float32)], "%r = stablehlo.negate %c0 : tensor<3xf32>",
                               "tensor<3xf32>"))
    stats = fold_constants(module)
    assert stats.folded == 0 and stats.declined == 1


NUMPY_CASES = [
    ("stablehlo.add", [np.array([127, 1], np.int8), np.array([1, -1], np.int8)], "tensor<2xi8>", ""),
    ("stablehlo.subtract", [np.array([0, 1], np.uint16), np.array([1, 0], np.uint16)], "tensor<2xui16>", ""),
    ("stablehlo.multiply", [np.array([True, False]), np.array([True, True])], "tensor<2xi1>", ""),
    ("stablehlo.xor", [np.array([3, -1], np.int64), np.array([5, 7], np.int64)], "tensor<2xi64>", ""),
    ("stablehlo.negate", [np.array([-(2 ** 31), 5], np.int32)], "tensor<2xi32>", ""),
    ("stablehlo.not", [np.array([0, 255], np.uint8)], "tensor<2xui8>", ""),
    ("stablehlo.transpose", [np.arange(6, dtype=np.float32).reshape(2, 3)], "tensor<3x2xf32>",
     ", dims = [1, 0]"),
    ("stablehlo.reverse", [np.arange(6, dtype=np.float32).reshape(2, 3)], "tensor<2x3xf32>", ", dims = [1]"),
    ("stablehlo.broadcast_in_dim", [np.array([1.0, -0.0], np.float32)], "tensor<3x2xf32>", ", dims = [1]"),
]


@pytest.mark.parametrize("name,inputs,result,attrs", NUMPY_CASES, ids=[c[0] for c in NUMPY_CASES])
def test_numpy_kernels_agree_with_the_interpreter(name, inputs, result, attrs):
    operands = ", ".join(f"%c{i}" for i in range(len(inputs)))
    types = ", ".join(_type(a) for a in inputs)
    body = f"%r = {name} {operands}{attrs} : ({types}) -> {result}"
    module = ir.parse(_program(inputs, body, result))
    [op] = [o for o in ir.ops(module) if o.name == name]
    by_numpy = fold._numpy_kernel(op)[0]
    by_interpreter = fold._interpret(op, list(dict.fromkeys(op.operands)))[0]
    assert by_numpy.dtype == by_interpreter.dtype == dtype_of(ir.RankedTensorType(op.results[0].type).element_type)
    assert by_numpy.tobytes() == by_interpreter.tobytes()


def test_ops_of_other_dialects_and_effects_stay():
    module = ir.parse("""func.func @main() -> (f32, tensor<f32>) {
  %a = arith.constant 1.0 : f32
  %b = arith.addf %a, %a : f32
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %d = stablehlo.custom_call @f(%c) {has_side_effect = true} : (tensor<f32>) -> tensor<f32>
  return %b, %d : f32, tensor<f32>
}""")
    before = ir.to_text(module)
    assert fold_constants(module).folded == 0 and ir.to_text(module) == before
