"""Parsing IREE's `iree.abi.declaration` reflection strings."""

import numpy as np
import pytest

from oxla.runtime.signature import from_reflection, parse_declaration, parse_type, split_top_level

CASES = [
    (
        "sync func @main(%input0: tensor<4x8xf32>, %input1: tensor<8x3xf32>) -> (%output0: tensor<4x3xf32>)",
        "main(%input0: tensor<4x8xf32>, %input1: tensor<8x3xf32>) -> tensor<4x3xf32>",
        "sync",
    ),
    ("sync func @nothing() -> ()", "nothing() -> ()", "sync"),
    (
        "async func @f(%input0: tensor<?x4xcomplex<f64>>) -> (%output0: tensor<i1>, %output1: tensor<?xbf16>)",
        "f(%input0: tensor<?x4xcomplex<f64>>) -> (tensor<i1>, tensor<?xbf16>)",
        "async",
    ),
    (
        "sync func @u(%input0: tensor<2xi8> {iree.abi.encoding = tensor<2xui8>}) -> (%output0: tensor<2xi8> {iree.abi.encoding = tensor<2xui8>, x = \"a,}b\"})",
        "u(%input0: tensor<2xui8>) -> tensor<2xui8>",
        "sync",
    ),
    ('sync func @"a.b"(%x: tensor<3xf32, #enc<1, [2]>>) -> tensor<f32>', "a.b(%x: tensor<3xf32, #enc<1, [2]>>) -> tensor<f32>", "sync"),
]


@pytest.mark.parametrize("text,expected,model", CASES)
def test_declarations(text, expected, model):
    sig = parse_declaration(text)
    assert str(sig) == expected and sig.model == model


def test_value_specs():
    sig = parse_declaration(CASES[2][0])
    (x,) = sig.inputs
    assert (x.name, x.kind, x.shape, x.dtype) == ("%input0", "tensor", (None, 4), np.complex128)
    assert [o.name for o in sig.outputs] == ["%output0", "%output1"]
    assert sig.outputs[0].dtype == np.bool_
    u = parse_declaration(CASES[3][0]).inputs[0]
    assert u.dtype == np.uint8 and u.type == "tensor<2xui8>"


def test_types():
    assert parse_type("tensor<f32>")[:2] == ("tensor", ())
    assert parse_type("tensor<1x?x0xi64>")[:2] == ("tensor", (1, None, 0))
    assert parse_type("i32")[:2] == ("scalar", ())
    assert parse_type("!hal.buffer_view") == ("other", (), None)
    assert parse_type("tensor<4xf4E2M1FN>") == ("other", (), None)  # no runtime element type


def test_split_top_level():
    assert split_top_level("a<b, c>, d(e, f), \"g,h\", i -> j, k") == ["a<b, c>", "d(e, f)", '"g,h"', "i -> j", "k"]
    assert split_top_level("") == []


def test_reflection():
    assert from_reflection("main", {}) is None
    assert from_reflection("main", {"iree.abi.declaration": "garbage"}) is None
    sig = from_reflection("main", {"iree.abi.declaration": CASES[1][0], "iree.abi.model": "coarse-fences"})
    assert sig.name == "main" and sig.model == "async"
    with pytest.raises(ValueError):
        parse_declaration("func main")
