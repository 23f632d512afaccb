"""MLIR's textual pipeline syntax, parsed in Python."""

import pytest

from oxla.errors import PipelineError
from oxla.transforms.pipeline_syntax import OpPipeline, PassElement, parse_pipeline, split_options


def test_nesting_and_options():
    (top,) = parse_pipeline("builtin.module(func.func(canonicalize{max-iterations=4}, oxla-x), cse)")
    assert isinstance(top, OpPipeline) and top.op_name == "builtin.module"
    func, cse = top.elements
    assert func.op_name == "func.func"
    assert func.elements[0] == PassElement("canonicalize", "max-iterations=4", func.elements[0].column)
    assert func.elements[1].name == "oxla-x"
    assert cse.name == "cse"
    assert top.to_text() == "builtin.module(func.func(canonicalize{max-iterations=4},oxla-x),cse)"


def test_braces_and_quotes_inside_options():
    (p,) = parse_pipeline("""p{a="x}y" b={1,{2}} c='q r'}""")
    assert p.options == """a="x}y" b={1,{2}} c='q r'"""
    assert split_options(p.options) == [("a", "x}y"), ("b", "1,{2}"), ("c", "q r")]


def test_bare_flag_option():
    assert split_options("fast other=1") == [("fast", ""), ("other", "1")]


def test_empty_pipeline():
    assert parse_pipeline("") == []
    assert parse_pipeline("builtin.module()")[0].elements == []


@pytest.mark.parametrize(
    "text, column, message",
    [
        ("builtin.module(cse", 19, "expected ')'"),
        ("cse,,canonicalize", 5, "expected a pass or op name"),
        ("cse(canonicalize)", 1, "is not an op name"),
        ("func.func", 1, "must be followed by '('"),
        ("cse{a=1", 4, "unbalanced '{'"),
        ("cse)", 4, "unexpected ')'"),
    ],
)
def test_syntax_errors_point_at_a_column(text, column, message):
    with pytest.raises(PipelineError) as info:
        parse_pipeline(text)
    text = str(info.value)
    assert text.startswith(f"pass pipeline:1:{column}: error: ") and message in text
