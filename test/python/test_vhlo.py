"""StableHLO portable artifacts (VHLO bytecode, as jax.export writes) become StableHLO.

The checked-in artifacts under data/portable come with the text JAX itself
reads back from them (tools/make_portable_artifacts.py writes both), so the
conversion is compared against JAX's own: same ops, same attributes, same
locations. These tests need no JAX; the ones at the end re-export with it.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import pathlib
import sys

import pytest

from oxla import ir
from oxla.dialects import vhlo
from oxla.errors import ParseError

DATA = pathlib.Path(__file__).parent / "data" / "portable"
ARTIFACTS = sorted(path.stem for path in DATA.glob("*.mlirbc"))
TOOL = pathlib.Path(__file__).resolve().parents[2] / "tools" / "make_portable_artifacts.py"

# What JAX emits for common programs; the artifacts must exercise all of it.
COMMON_OPS = {
    "func.func", "func.call", "func.return", "stablehlo.return",
    "stablehlo.constant", "stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.exponential",
    "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.transpose", "stablehlo.dot_general",
    "stablehlo.convolution", "stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.compare",
    "stablehlo.select", "stablehlo.convert", "stablehlo.iota", "stablehlo.slice", "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice", "stablehlo.concatenate", "stablehlo.pad", "stablehlo.gather",
    "stablehlo.scatter", "stablehlo.sort", "stablehlo.while", "stablehlo.case", "stablehlo.custom_call",
    "stablehlo.composite", "stablehlo.rng_bit_generator", "stablehlo.optimization_barrier",
    "stablehlo.reverse", "stablehlo.complex", "stablehlo.real", "stablehlo.shift_left",
    "stablehlo.dynamic_broadcast_in_dim", "stablehlo.get_dimension_size",
}

_SIGNATURE = (
    "!vhlo.func_v1<(!vhlo.tensor_v1<4x3x!vhlo.f32_v1>, !vhlo.tensor_v1<2x1x!vhlo.i32_v1>, "
    "!vhlo.tensor_v1<!vhlo.bool_v1>) -> !vhlo.tensor_v1<2x3x!vhlo.f32_v1>, "
    "!vhlo.tensor_v1<4x4x!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.f32_v1>>"
)

# VHLO as an old producer wrote it (gather_v1, dot_general_v1), with an if.
OLD_VERSIONS_VHLO = """
module {
  "vhlo.func_v1"() <{arg_attrs = #vhlo.array_v1<[]>, function_type = #vhlo.type_v1<%(signature)s>, res_attrs = #vhlo.array_v1<[]>, sym_name = #vhlo.string_v1<"main">, sym_visibility = #vhlo.string_v1<"">}> ({
  ^bb0(%%x: !vhlo.tensor_v1<4x3x!vhlo.f32_v1>, %%idx: !vhlo.tensor_v1<2x1x!vhlo.i32_v1>, %%p: !vhlo.tensor_v1<!vhlo.bool_v1>):
    %%g = "vhlo.gather_v1"(%%x, %%idx) <{collapsed_slice_dims = #vhlo.tensor_v1<dense<0> : tensor<1xi64>>, index_vector_dim = #vhlo.integer_v1<1 : i64>, indices_are_sorted = #vhlo.bool_v1<false>, offset_dims = #vhlo.tensor_v1<dense<1> : tensor<1xi64>>, slice_sizes = #vhlo.tensor_v1<dense<[1, 3]> : tensor<2xi64>>, start_index_map = #vhlo.tensor_v1<dense<0> : tensor<1xi64>>}> : (!vhlo.tensor_v1<4x3x!vhlo.f32_v1>, !vhlo.tensor_v1<2x1x!vhlo.i32_v1>) -> !vhlo.tensor_v1<2x3x!vhlo.f32_v1>
    %%d = "vhlo.dot_general_v1"(%%x, %%x) <{lhs_batching_dimensions = #vhlo.tensor_v1<dense<> : tensor<0xi64>>, lhs_contracting_dimensions = #vhlo.tensor_v1<dense<1> : tensor<1xi64>>, precision_config = #vhlo.array_v1<[#vhlo<precision_v1 DEFAULT>, #vhlo<precision_v1 HIGHEST>]>, rhs_batching_dimensions = #vhlo.tensor_v1<dense<> : tensor<0xi64>>, rhs_contracting_dimensions = #vhlo.tensor_v1<dense<1> : tensor<1xi64>>}> : (!vhlo.tensor_v1<4x3x!vhlo.f32_v1>, !vhlo.tensor_v1<4x3x!vhlo.f32_v1>) -> !vhlo.tensor_v1<4x4x!vhlo.f32_v1>
    %%c = "vhlo.constant_v1"() <{value = #vhlo.tensor_v1<dense<1.5> : tensor<f32>>}> : () -> !vhlo.tensor_v1<!vhlo.f32_v1>
    %%r = "vhlo.if_v1"(%%p) ({
      "vhlo.return_v1"(%%c) : (!vhlo.tensor_v1<!vhlo.f32_v1>) -> ()
    }, {
      %%n = "vhlo.negate_v1"(%%c) : (!vhlo.tensor_v1<!vhlo.f32_v1>) -> !vhlo.tensor_v1<!vhlo.f32_v1>
      "vhlo.return_v1"(%%n) : (!vhlo.tensor_v1<!vhlo.f32_v1>) -> ()
    }) : (!vhlo.tensor_v1<!vhlo.bool_v1>) -> !vhlo.tensor_v1<!vhlo.f32_v1>
    "vhlo.return_v1"(%%g, %%d, %%r) : (!vhlo.tensor_v1<2x3x!vhlo.f32_v1>, !vhlo.tensor_v1<4x4x!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.f32_v1>) -> ()
  }) : () -> ()
}
""" % {"signature": _SIGNATURE}

OLD_VERSIONS_STABLEHLO = """
func.func @main(%x: tensor<4x3xf32>, %idx: tensor<2x1xi32>, %p: tensor<i1>) -> (tensor<2x3xf32>, tensor<4x4xf32>, tensor<f32>) {
  %g = "stablehlo.gather"(%x, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  %d = stablehlo.dot_general %x, %x, contracting_dims = [1] x [1], precision = [DEFAULT, HIGHEST] : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>
  %c = stablehlo.constant dense<1.5> : tensor<f32>
  %r = "stablehlo.if"(%p) ({
    stablehlo.return %c : tensor<f32>
  }, {
    %n = stablehlo.negate %c : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return %g, %d, %r : tensor<2x3xf32>, tensor<4x4xf32>, tensor<f32>
}
"""

# dynamic_conv_v1 still carries a `padding` attribute that v2 (and StableHLO) dropped.
DYNAMIC_CONV_V1_VHLO = """
module {
  "vhlo.func_v1"() <{arg_attrs = #vhlo.array_v1<[]>, function_type = #vhlo.type_v1<!vhlo.func_v1<(!vhlo.tensor_v1<1x8x8x3x!vhlo.f32_v1>, !vhlo.tensor_v1<3x3x3x4x!vhlo.f32_v1>, !vhlo.tensor_v1<2x2x!vhlo.i32_v1>) -> !vhlo.tensor_v1<1x?x?x4x!vhlo.f32_v1>>>, res_attrs = #vhlo.array_v1<[]>, sym_name = #vhlo.string_v1<"conv">, sym_visibility = #vhlo.string_v1<"">}> ({
  ^bb0(%lhs: !vhlo.tensor_v1<1x8x8x3x!vhlo.f32_v1>, %rhs: !vhlo.tensor_v1<3x3x3x4x!vhlo.f32_v1>, %pad: !vhlo.tensor_v1<2x2x!vhlo.i32_v1>):
    %0 = "vhlo.dynamic_conv_v1"(%lhs, %rhs, %pad) <{batch_group_count = #vhlo.integer_v1<1 : i64>, feature_group_count = #vhlo.integer_v1<1 : i64>, input_batch_dimension = #vhlo.integer_v1<0 : i64>, input_feature_dimension = #vhlo.integer_v1<3 : i64>, input_spatial_dimensions = #vhlo.tensor_v1<dense<[1, 2]> : tensor<2xi64>>, kernel_input_feature_dimension = #vhlo.integer_v1<2 : i64>, kernel_output_feature_dimension = #vhlo.integer_v1<3 : i64>, kernel_spatial_dimensions = #vhlo.tensor_v1<dense<[0, 1]> : tensor<2xi64>>, lhs_dilation = #vhlo.tensor_v1<dense<1> : tensor<2xi64>>, output_batch_dimension = #vhlo.integer_v1<0 : i64>, output_feature_dimension = #vhlo.integer_v1<3 : i64>, output_spatial_dimensions = #vhlo.tensor_v1<dense<[1, 2]> : tensor<2xi64>>, padding = #vhlo.tensor_v1<dense<0> : tensor<2x2xi64>>, precision_config = #vhlo.array_v1<[#vhlo<precision_v1 DEFAULT>, #vhlo<precision_v1 DEFAULT>]>, rhs_dilation = #vhlo.tensor_v1<dense<1> : tensor<2xi64>>, window_reversal = #vhlo.tensor_v1<dense<false> : tensor<2xi1>>, window_strides = #vhlo.tensor_v1<dense<2> : tensor<2xi64>>}> : (!vhlo.tensor_v1<1x8x8x3x!vhlo.f32_v1>, !vhlo.tensor_v1<3x3x3x4x!vhlo.f32_v1>, !vhlo.tensor_v1<2x2x!vhlo.i32_v1>) -> !vhlo.tensor_v1<1x?x?x4x!vhlo.f32_v1>
    "vhlo.return_v1"(%0) : (!vhlo.tensor_v1<1x?x?x4x!vhlo.f32_v1>) -> ()
  }) : () -> ()
}
"""

DYNAMIC_CONV_STABLEHLO = """
func.func @conv(%lhs: tensor<1x8x8x3xf32>, %rhs: tensor<3x3x3x4xf32>, %pad: tensor<2x2xi32>) -> tensor<1x?x?x4xf32> {
  %0 = "stablehlo.dynamic_conv"(%lhs, %rhs, %pad) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<2x2xi32>) -> tensor<1x?x?x4xf32>
  return %0 : tensor<1x?x?x4xf32>
}
"""

# A dot_general_v2 with half a dot algorithm: StableHLO has no way to say that.
HALF_ALGORITHM_VHLO = """
module {
  "vhlo.func_v1"() <{arg_attrs = #vhlo.array_v1<[]>, function_type = #vhlo.type_v1<!vhlo.func_v1<(!vhlo.tensor_v1<2x3x!vhlo.f32_v1>, !vhlo.tensor_v1<3x4x!vhlo.f32_v1>) -> !vhlo.tensor_v1<2x4x!vhlo.f32_v1>>>, res_attrs = #vhlo.array_v1<[]>, sym_name = #vhlo.string_v1<"main">, sym_visibility = #vhlo.string_v1<"">}> ({
  ^bb0(%a: !vhlo.tensor_v1<2x3x!vhlo.f32_v1>, %b: !vhlo.tensor_v1<3x4x!vhlo.f32_v1>):
    %0 = "vhlo.dot_general_v2"(%a, %b) <{accumulation_type = #vhlo.type_v1<!vhlo.none_v1>, allow_imprecise_accumulation = #vhlo.type_v1<!vhlo.none_v1>, lhs_batching_dimensions = #vhlo.tensor_v1<dense<> : tensor<0xi64>>, lhs_component_count = #vhlo.integer_v1<1 : i64>, lhs_contracting_dimensions = #vhlo.tensor_v1<dense<1> : tensor<1xi64>>, lhs_precision_type = #vhlo.type_v1<!vhlo.tf31_v1>, num_primitive_operations = #vhlo.type_v1<!vhlo.none_v1>, precision_config = #vhlo.array_v1<[]>, rhs_batching_dimensions = #vhlo.tensor_v1<dense<> : tensor<0xi64>>, rhs_component_count = #vhlo.type_v1<!vhlo.none_v1>, rhs_contracting_dimensions = #vhlo.tensor_v1<dense<0> : tensor<1xi64>>, rhs_precision_type = #vhlo.type_v1<!vhlo.none_v1>}> : (!vhlo.tensor_v1<2x3x!vhlo.f32_v1>, !vhlo.tensor_v1<3x4x!vhlo.f32_v1>) -> !vhlo.tensor_v1<2x4x!vhlo.f32_v1> loc("model.py":3:5)
    "vhlo.return_v1"(%0) : (!vhlo.tensor_v1<2x4x!vhlo.f32_v1>) -> ()
  }) : () -> ()
}
"""


def _artifact(name: str) -> bytes:
    """The portable artifact NAME.mlirbc."""
    return (DATA / f"{name}.mlirbc").read_bytes()


def _jax_text(name: str) -> str:
    """What JAX reads back from NAME.mlirbc, as it printed it."""
    return (DATA / f"{name}.mlir").read_text()


def _op_names(module) -> set[str]:
    """The names of every op in a module."""
    names = set()

    def visit(op):
        names.add(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return names


def _assert_same_ir(converted, reference, *, debug_info: bool = False) -> None:
    """Both modules print the same (custom form, with or without locations)."""
    assert ir.to_text(converted, debug_info=debug_info) == ir.to_text(reference, debug_info=debug_info)


def test_artifacts_are_checked_in():
    """The data the conversion tests read is there (tools/make_portable_artifacts.py writes it)."""
    assert len(ARTIFACTS) >= 5
    assert all((DATA / f"{name}.mlir").exists() for name in ARTIFACTS)


@pytest.mark.parametrize("name", ARTIFACTS)
def test_artifact_parses_to_verified_stablehlo(name):
    """ir.parse turns an artifact into func + StableHLO that verifies, no VHLO left."""
    module = ir.parse(_artifact(name), name=f"{name}.mlirbc")
    assert not vhlo.is_vhlo(module)
    assert ir.verify(module) == []
    assert all(op.split(".")[0] in ("builtin", "func", "stablehlo") for op in _op_names(module))
    generic = ir.to_text(module, generic=True)
    assert "!vhlo." not in generic and "#vhlo" not in generic


@pytest.mark.parametrize("name", ARTIFACTS)
def test_artifact_matches_jax_reading(name):
    """The conversion prints exactly like JAX's own reading of the artifact."""
    _assert_same_ir(ir.parse(_artifact(name)), ir.parse(_jax_text(name)))


@pytest.mark.parametrize("name", ARTIFACTS)
def test_artifact_keeps_locations(name):
    """Locations survive the conversion: names, call sites, file:line:col."""
    _assert_same_ir(ir.parse(_artifact(name)), ir.parse(_jax_text(name)), debug_info=True)


def test_artifacts_cover_common_jax_ops():
    """Together the artifacts exercise every op JAX commonly emits."""
    seen = set().union(*(_op_names(ir.parse(_artifact(name))) for name in ARTIFACTS))
    assert COMMON_OPS <= seen, sorted(COMMON_OPS - seen)


def test_function_attributes_survive():
    """Result info and aliasing attributes on func arguments/results come through."""
    text = ir.to_text(ir.parse(_artifact("arrays")))
    assert 'jax.result_info = "result[0]"' in text
    assert "tf.aliasing_output = " in text


def test_is_vhlo():
    """True for a module of VHLO ops, False for plain StableHLO."""
    assert vhlo.is_vhlo(ir.parse(OLD_VERSIONS_VHLO))
    assert not vhlo.is_vhlo(ir.parse(OLD_VERSIONS_STABLEHLO))
    assert not vhlo.is_vhlo(ir.parse(_jax_text("mlp")))


def test_older_op_versions_and_region_returns():
    """gather_v1/dot_general_v1 upgrade; return is stablehlo.return in regions, func.return in funcs."""
    converted = vhlo.to_stablehlo(ir.parse(OLD_VERSIONS_VHLO))
    assert ir.verify(converted) == []
    _assert_same_ir(converted, ir.parse(OLD_VERSIONS_STABLEHLO))


def test_bytecode_of_older_versions_goes_through_parse():
    """VHLO bytecode (not only JAX's) is recognized and converted by ir.parse."""
    data = ir.to_bytecode(ir.parse(OLD_VERSIONS_VHLO))
    _assert_same_ir(ir.parse(data), ir.parse(OLD_VERSIONS_STABLEHLO))


def test_obsolete_attribute_of_old_version_is_dropped():
    """dynamic_conv_v1's padding attribute has no StableHLO meaning: it goes, the rest converts."""
    converted = vhlo.to_stablehlo(ir.parse(DYNAMIC_CONV_V1_VHLO))
    _assert_same_ir(converted, ir.parse(DYNAMIC_CONV_STABLEHLO))


def test_attribute_stablehlo_would_drop_is_an_error(monkeypatch):
    """Without the rule that drops it, `padding` reaches StableHLO, whose parser would lose it silently."""
    rule = dataclasses.replace(vhlo._RULES["dynamic_conv"], obsolete=())
    monkeypatch.setitem(vhlo._RULES, "dynamic_conv", rule)
    with pytest.raises(ParseError, match=r"'vhlo\.dynamic_conv_v1'.*'padding'"):
        vhlo.to_stablehlo(ir.parse(DYNAMIC_CONV_V1_VHLO))


def test_unconvertible_op_is_named_at_its_location():
    """A VHLO op StableHLO cannot express fails with its name and source location."""
    module = ir.parse(HALF_ALGORITHM_VHLO)
    with pytest.raises(ParseError, match=r"'vhlo\.dot_general_v2'.*dot algorithm") as info:
        vhlo.to_stablehlo(module)
    location = info.value.diagnostics[0].location
    assert (location.file, location.line, location.col) == ("model.py", 3, 5)


def test_unconvertible_bytecode_fails_in_parse():
    """The same failure surfaces from ir.parse of the bytecode: an error, not a half-converted module."""
    data = ir.to_bytecode(ir.parse(HALF_ALGORITHM_VHLO))
    with pytest.raises(ParseError, match=r"vhlo\.dot_general_v2"):
        ir.parse(data)


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_truncated_artifact_is_a_parse_error(cut):
    """A cut-off artifact raises ParseError."""
    data = _artifact("mlp")
    with pytest.raises(ParseError):
        ir.parse(data[: int(len(data) * cut)], name="truncated.mlirbc")


def test_garbage_after_magic_is_a_parse_error():
    """Bytes that only start like MLIR bytecode raise ParseError."""
    with pytest.raises(ParseError):
        ir.parse(b"ML\xefR" + bytes(range(256)) * 4, name="garbage.mlirbc")


# -- with JAX: export afresh and compare with JAX's own reading ----------------------


def _load_tool(monkeypatch):
    """tools/make_portable_artifacts.py as a module (registered: its dataclasses need that)."""
    spec = importlib.util.spec_from_file_location("make_portable_artifacts", TOOL)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_fresh_jax_exports_match_jax_reading(monkeypatch):
    """Artifacts from the installed JAX convert to what JAX reads back from them."""
    pytest.importorskip("jax")
    tool = _load_tool(monkeypatch)
    for name, program in tool.programs().items():
        exported = tool.export_program(program)
        converted = ir.parse(exported.mlir_module_serialized, name=f"{name}.mlirbc")
        assert ir.verify(converted) == [], name
        _assert_same_ir(converted, ir.parse(exported.mlir_module()), debug_info=True)
