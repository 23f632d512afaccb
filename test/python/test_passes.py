"""oxla's own passes through the Python API (their lit tests cover oxla-opt)."""

import json

from oxla import ir, transforms
from oxla.transforms import dce, stats

PROGRAM = """
func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
func.func private @dead(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
func.func private @only_called_by_dead(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
func.func private @dead2(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @only_called_by_dead(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  %1 = stablehlo.multiply %0, %0 : tensor<2xf32>
  %2 = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %3 = stablehlo.custom_call @side_effect(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %x : tensor<2xf32>
}
"""


def _names(module):
    return [ir.StringAttr(op.attributes["sym_name"]).value for op in module.body.operations]


def test_dce_removes_dead_pure_ops_and_private_functions():
    module = ir.parse(PROGRAM)
    transforms.run(module, "oxla-dce")
    text = ir.to_text(module)
    assert "stablehlo.add" not in text and "stablehlo.multiply" not in text
    assert "call @helper" in text and "stablehlo.custom_call" in text
    assert _names(module) == ["helper", "main"]


def test_dce_can_keep_functions():
    module = ir.parse(PROGRAM)
    transforms.run(module, "oxla-dce{functions=false}")
    assert len(_names(module)) == 5


def test_purity_table():
    module = ir.parse(PROGRAM)
    main = module.body.operations[4]
    ops = [op.operation for op in main.regions[0].blocks[0].operations]
    assert [dce.is_pure(op) for op in ops] == [True, True, False, False, False]


def test_op_stats_counts(tmp_path):
    module = ir.parse(PROGRAM)
    counts = stats.count_ops(module.operation)
    assert counts["func.func"] == 5 and counts["stablehlo.add"] == 1 and counts["func.call"] == 2
    out = tmp_path / "stats.json"
    transforms.run(module, f"oxla-print-op-stats{{json=true output={out}}}")
    assert json.loads(out.read_text())["func.return"] == 5
    table = stats.format_stats(counts)
    assert table.splitlines()[0] == "Operations encountered:"
    assert any(line.split() == ["stablehlo", ",", "3"] for line in table.splitlines())


def test_strip_locations():
    module = ir.parse(PROGRAM, name="p.mlir")
    transforms.run(module, "oxla-strip-locations")
    assert "p.mlir" not in ir.to_text(module, debug_info=True)
