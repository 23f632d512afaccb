"""oxla.ir: one context, parsing every input form, printing, structured verification."""

import pytest

from oxla import ir
from oxla.errors import ParseError, VerificationError

ADD = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def test_one_context_with_every_dialect():
    ctx = ir.context()
    assert ctx is ir.context()
    for dialect in ("stablehlo", "chlo", "vhlo", "flow", "stream", "hal", "util", "linalg", "tosa"):
        assert ctx.dialects[dialect] is not None
    assert ir.parse(ADD).context is ctx


def test_parse_text_keeps_the_name_in_locations():
    module = ir.parse(ADD, name="model.mlir")
    text = ir.to_text(module, debug_info=True)
    assert 'loc("model.mlir":2:8)' in text
    assert "stablehlo.add" in ir.to_text(module)


def test_parse_accepts_bytes_and_bytecode():
    module = ir.parse(ADD.encode())
    data = ir.to_bytecode(module)
    assert ir.is_bytecode(data)
    assert ir.to_text(ir.parse(data)) == ir.to_text(module)
    assert ir.to_text(ir.parse(bytearray(data))) == ir.to_text(module)


def test_parse_file(tmp_path):
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    module = ir.parse_file(path)
    assert f'loc("{path}":2:8)' in ir.to_text(module, debug_info=True)
    bc = tmp_path / "add.mlirbc"
    bc.write_bytes(ir.to_bytecode(module))
    assert ir.to_text(ir.parse_file(bc)) == ir.to_text(module)


def test_parse_file_errors_carry_the_path(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @f() {\n  %0 = stablehlo.bogus : tensor<f32>\n}\n")
    with pytest.raises(ParseError) as info:
        ir.parse_file(path)
    (diag,) = info.value.diagnostics
    assert (diag.location.file, diag.location.line, diag.location.col) == (str(path), 2, 8)


def test_parse_error_is_structured():
    with pytest.raises(ParseError) as info:
        ir.parse("func.func @f() {\n  %0 = foo.bar : () -> i32\n}\n", name="bad.mlir")
    err = info.value
    assert isinstance(err, ValueError)
    (diag,) = err.diagnostics
    assert diag.severity == "error"
    assert (diag.location.file, diag.location.line, diag.location.col) == ("bad.mlir", 2, 8)
    assert "foo" in diag.message
    assert str(err).startswith("bad.mlir:2:8: error: ")


def test_unregistered_dialects_only_when_asked():
    text = 'func.func @f() {\n  "foo.bar"() : () -> ()\n  return\n}\n'
    with pytest.raises(ParseError, match="unregistered dialect"):
        ir.parse(text)
    module = ir.parse(text, allow_unregistered_dialects=True)
    assert '"foo.bar"()' in ir.to_text(module)
    assert not ir.context().allow_unregistered_dialects


@pytest.mark.parametrize("garbage", [b"\x00\x01\x02binary", bytes(range(256)), b"ML\xefR\x00\x01truncated"])
def test_garbage_is_a_parse_error(garbage):
    with pytest.raises(ParseError) as info:
        ir.parse(garbage, name="junk")
    assert info.value.diagnostics and info.value.diagnostics[0].severity == "error"


def test_parse_rejects_other_types():
    with pytest.raises(TypeError):
        ir.parse(42)


def test_print_generic_and_elided():
    module = ir.parse("func.func @c() -> tensor<64xf32> {\n"
                      "  %0 = stablehlo.constant dense<1.5> : tensor<64xf32>\n"
                      "  %1 = stablehlo.iota dim = 0 : tensor<64xf32>\n"
                      "  %2 = stablehlo.add %0, %1 : tensor<64xf32>\n"
                      "  return %2 : tensor<64xf32>\n}\n")
    assert '"stablehlo.add"(%0, %1)' in ir.to_text(module, generic=True)
    assert "dense<1.500000e+00>" in ir.to_text(module, large_elements_limit=4)


def _break_result_type(module):
    with ir.context():
        func = module.body.operations[0]
        func.attributes["function_type"] = ir.TypeAttr.get(ir.Type.parse("(tensor<2xf32>) -> tensor<3xf32>"))


def test_verify_returns_diagnostics():
    module = ir.parse(ADD, name="v.mlir")
    assert ir.verify(module) == []
    _break_result_type(module)
    diags = ir.verify(module)
    assert len(diags) == 1
    assert diags[0].severity == "error"
    assert diags[0].location.line == 3 and diags[0].location.file == "v.mlir"
    assert "doesn't match function result type" in diags[0].message
    with pytest.raises(VerificationError, match="v.mlir:3:3: error"):
        ir.verify_or_raise(module)


GENERIC = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %i = linalg.index 0 : index
    linalg.yield %x : f32
  } -> tensor<4xf32>
  %1 = arith.addf %0, %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def test_block_ops_lists_the_block_of_an_op_in_order():
    module = ir.parse(GENERIC)
    generic, index = ([op for op in ir.ops(module) if op.name == name][0] for name in ("linalg.generic", "linalg.index"))
    assert [op.name for op in ir.block_ops(generic)] == ["linalg.generic", "arith.addf", "func.return"]
    assert [op.name for op in ir.block_ops(index)] == ["linalg.index", "linalg.yield"]
    assert all(type(op) is type(generic) for op in ir.block_ops(generic))  # Operations, not OpViews


def test_body_ops_lists_the_top_level_only():
    module = ir.parse(GENERIC)
    assert [op.name for op in ir.body_ops(module)] == ["func.func"]
    func = ir.body_ops(module)[0]
    assert [op.name for op in ir.body_ops(func)] == ["linalg.generic", "arith.addf", "func.return"]
