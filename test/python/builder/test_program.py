"""Programs: typed signatures, several functions, calls, annotations, and what happens on bad input."""

from __future__ import annotations

import numpy as np
import pytest

from oxla import ir
from oxla.builder import Program, Tensor


def test_functions_with_annotated_signatures_and_calls():
    prog = Program()

    @prog.function(private=True)
    def scale(x: Tensor[4, "f32"], s: Tensor["f32"]) -> Tensor[4, "f32"]:
        return x * s

    @prog.function
    def main(x: Tensor[4, "f32"]):
        doubled = scale(x, np.float32(2.0))
        return doubled + scale(doubled, np.float32(0.5)), x.sum()

    text = str(prog)
    assert "func.func private @scale(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> tensor<4xf32>" in text
    assert text.count("call @scale") == 2
    assert "-> (tensor<4xf32>, tensor<f32>)" in text
    x = np.arange(4, dtype=np.float32)
    y, total = main(x)
    np.testing.assert_allclose(y, 3 * x)
    assert total == 6.0
    assert repr(main) == "<function @main(Tensor[4, 'f32']) -> (Tensor[4, 'f32'], Tensor['f32'])>"


def test_ops_are_located_at_the_users_lines():
    prog = Program()

    @prog.function
    def f(x: Tensor[2, "f32"]):
        return x * 3.0

    text = ir.to_text(prog.module, debug_info=True)
    assert "test_program.py" in text


def test_return_annotation_is_checked():
    prog = Program()
    with pytest.raises(TypeError, match=r"returns Tensor\[2, 'f32'\] but is annotated -> Tensor\[2, 'i32'\]"):
        @prog.function
        def f(x: Tensor[2, "f32"]) -> Tensor[2, "i32"]:
            return x
    assert "func.func" not in str(prog)


def test_missing_annotation_is_a_clear_error():
    prog = Program()
    with pytest.raises(TypeError, match="parameter 'y' needs a Tensor"):
        @prog.function
        def f(x: Tensor[2, "f32"], y):
            return x


def test_a_failing_body_leaves_the_program_as_it_was():
    prog = Program()

    @prog.function
    def good(x: Tensor[2, "f32"]):
        return x + 1.0

    with pytest.raises(ZeroDivisionError):
        @prog.function
        def bad(x: Tensor[2, "f32"]):
            y = x * 2.0
            return y / (1 // 0)

    assert list(prog.functions) == ["good"]
    with ir.context():
        prog.module.operation.verify()
    assert str(prog).count("func.func") == 1


def test_calls_check_argument_types_and_programs():
    prog, other = Program(), Program()

    @prog.function
    def f(x: Tensor[2, "f32"]):
        return x

    with pytest.raises(TypeError, match="argument 0: expected Tensor\\[2, 'f32'\\], got tensor<3xf32>"):
        prog.function(lambda x: f(x), name="g", args=[((3,), "f32")])
    with pytest.raises(ValueError, match="belongs to another Program"):
        other.function(lambda x: f(x), name="h", args=[((2,), "f32")])


def test_duplicate_names_and_bad_specs():
    prog = Program()
    prog.function(lambda x: x, name="f", args=[((2,), "f32")])
    with pytest.raises(ValueError, match="already has a function named 'f'"):
        prog.function(lambda x: x, name="f", args=[((2,), "f32")])
    with pytest.raises(TypeError, match="dtype last"):
        Tensor[2, 3]
    with pytest.raises(TypeError, match="not an element type"):
        Tensor[2, "float31"]
    with pytest.raises(ValueError, match="not a dimension size"):
        Tensor[-2, "f32"]


def test_results_may_be_constants():
    prog = Program()
    f = prog.function(lambda x: (x, 1.5, np.arange(3, dtype=np.int8)), name="f", args=[((2,), "f32")])
    assert [str(r) for r in f.results] == ["Tensor[2, 'f32']", "Tensor['f32']", "Tensor[3, 'i8']"]
    with pytest.raises(TypeError, match="result 0 of the function is NoneType"):
        prog.function(lambda x: None, name="g", args=[((2,), "f32")])
