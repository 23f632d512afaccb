"""oxla-llvmcpu-outer-reduction-tiles: reductions over outer dimensions get register-wide tiles (on AVX2,
chunks of rows) and stay exact.
oxla-llvmcpu-pack-vector-tiles: dispatches that data-tile keep their vector steps within native vectors.
oxla-llvmcpu-pack-panels: stand-alone operand packs give each workgroup whole rows of their source.
oxla-llvmcpu-mmt4d-register-tiles: f32 matmul dispatches step 8 rows of two column tiles.
oxla-llvmcpu-mmt4d-row-blocks: matmul workgroups over a large right operand take every row tile they can.
oxla-llvmcpu-conv-register-tiles: f32 convolutions step whole vectors of features.
oxla-llvmcpu-row-reduction-steps: reductions over long rows step one row at a time on AVX2.
oxla-llvmcpu-elementwise-steps: element-wise dispatches doing math step two vectors at a time on AVX2,
row gathers four.
oxla-llvmcpu-whole-vector-workgroups: element-wise workgroups span whole rows, or whole vector steps.
oxla-llvmcpu-transpose-steps: element-wise ops reading an operand transposed step square blocks."""

import re

import ml_dtypes
import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile
from oxla.transforms.cpu_tiles import (
    accumulated_product, bounded_pack_config, capped_inner_config, CHUNK_ROWS, chunked_outer_reduction_config,
    column_tile_rows, conv_register_config, elementwise_step_config, _gathers_along_rows, loop_kinds,
    outer_reduction_config, pack_vector_config, panel_config, register_tile_config, row_block_config,
    row_of_tiles_config, row_reduction_config, row_step, transposed_step_config, _vector_shape,
    whole_reduction_config, whole_row_config, whole_vector_config,
)

_MLIR = {np.float32: "f32", np.float64: "f64", np.int32: "i32"}
# The configurations are checked for the AVX-512 CPU they were measured on, whatever the host is: they
# follow the target's vector registers (AVX2 has half the width and half the registers). Programs that
# run are compiled for the host.
CPU = "znver5"


def _reduce(shape, dims, dtype, body="add", producer=None) -> str:
    """@main(x) = reduce(body) of x (or of producer(x)) over dims."""
    t = f"tensor<{'x'.join(map(str, shape))}x{_MLIR[dtype]}>"
    kept = [n for i, n in enumerate(shape) if i not in dims]
    r = f"tensor<{''.join(f'{n}x' for n in kept)}{_MLIR[dtype]}>"
    init = "0.0" if dtype != np.int32 else "0"
    if body == "maximum":
        init = "0xFF800000" if dtype == np.float32 else ("0xFFF0000000000000" if dtype == np.float64 else "-2147483648")
    src = "%x" if producer is None else "%p"
    pre = "" if producer is None else f"  %p = stablehlo.{producer} %x : {t}\n"
    return (f"func.func @main(%x: {t}) -> {r} {{\n{pre}"
            f"  %z = stablehlo.constant dense<{init}> : tensor<{_MLIR[dtype]}>\n"
            f"  %r = stablehlo.reduce({src} init: %z) applies stablehlo.{body} across dimensions = {list(dims)} :"
            f" ({t}, tensor<{_MLIR[dtype]}>) -> {r}\n  return %r : {r}\n}}\n")


CASES = [  # shape, reduced dims, dtype, body, producer
    ((4096, 1024), (0,), np.float32, "add", None),
    ((300, 1000), (0,), np.float32, "add", None),  # 1000 is no multiple of the 512-wide strip
    ((64, 7), (0,), np.float64, "add", None),
    ((8, 96, 130), (1,), np.float32, "maximum", None),
    ((6, 40, 520), (0, 1), np.float64, "add", None),
    ((8, 7, 7, 256), (1, 2), np.float32, "add", None),  # a global pool: IREE collapses the two dimensions
    ((512, 300), (0,), np.int32, "add", None),
    ((256, 640), (0,), np.float32, "add", "exponential"),
]


@pytest.mark.parametrize("shape, dims, dtype, body, producer", CASES)
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_outer_reductions_compute_what_numpy_does(shape, dims, dtype, body, producer, device):
    artifact = compile(_reduce(shape, dims, dtype, body, producer))
    assert artifact.codegen_passes  # they ran, and the program compiled with them
    rng = np.random.default_rng(len(shape) + shape[-1])
    x = (rng.integers(-50, 50, shape) if dtype == np.int32 else rng.standard_normal(shape)).astype(dtype)
    got = np.asarray(runtime.load(artifact, device=device).main(x))
    source = np.exp(x.astype(np.float64)) if producer else x.astype(np.float64)
    expected = source.sum(axis=dims) if body == "add" else source.max(axis=dims)
    if dtype == np.int32:
        np.testing.assert_array_equal(got, expected.astype(np.int32))
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-3)


AVX2 = "x86-64-v3"  # runs on any host these tests run on (AVX2 or AVX-512)
# On AVX2 oxla's matmul kernel takes matmuls of up to 256 rows whose matrix is an argument (read in
# chunks): the tests of IREE's data-tiled path turn the kernel off to reach it.
_NO_KERNEL = ["oxla-llvmcpu-matmul-kernel"]
CHUNKED_CASES = [  # shape, reduced dims, dtype, body: each divides into chunks of rows on AVX2
    ((4096, 1024), (0,), np.float32, "add"),
    ((32, 96), (0,), np.float64, "add"),  # three 32-wide f64 steps: a 96-wide strip
    ((48, 8, 128), (0,), np.float32, "maximum"),  # a parallel dimension between
    ((64, 640), (0,), np.int32, "add"),  # ten 64-wide steps: strips of five
]


@pytest.mark.parametrize("shape, dims, dtype, body", CHUNKED_CASES)
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_outer_reductions_chunked_on_avx2_compute_what_numpy_does(shape, dims, dtype, body, device):
    (config,) = _configs(_reduce(shape, dims, dtype, body), cpu=AVX2)
    assert "cache_reduction" in config
    artifact = compile(_reduce(shape, dims, dtype, body), cpu=AVX2)
    rng = np.random.default_rng(shape[-1])
    x = (rng.integers(-50, 50, shape) if dtype == np.int32 else rng.standard_normal(shape)).astype(dtype)
    got = np.asarray(runtime.load(artifact, device=device).main(x))
    expected = x.astype(np.float64).sum(axis=dims) if body == "add" else x.max(axis=dims)
    if dtype == np.int32:
        np.testing.assert_array_equal(got, expected.astype(np.int32))
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-3)


def test_reductions_over_dimensions_iree_collapses_keep_their_strip():
    source = _reduce((8, 7, 7, 2048), (1, 2), np.float32)
    configured = str(compile(source, cpu=AVX2, compile_to="executable-configurations"))
    assert "distribution = [1, 128, 0], vector_common_parallel = [1, 128, 0], vector_reduction = [0, 0, 1]" \
        in configured
    without = str(compile(source, cpu=AVX2, compile_to="executable-configurations",
                          disable_passes=["oxla-llvmcpu-outer-reduction-tiles"]))
    assert "[1, 128, 0]" not in without  # the case arises: IREE's own tiles


def test_avx2_column_sums_add_chunks_of_rows_in_half_register_file_steps():
    (column,) = _configs(_reduce((4096, 1024), (0,), np.float32), cpu=AVX2)
    for level in ("distribution = [512, 0]", f"cache_reduction = [0, {CHUNK_ROWS}]",
                  "vector_common_parallel = [64, 0]", "vector_reduction = [0, 1]"):
        assert level in column
    (middle,) = _configs(_reduce((48, 8, 128), (0,), np.float32, "maximum"), cpu=AVX2)
    assert "distribution = [1, 128, 0]" in middle and "cache_reduction = [0, 0, 16]" in middle
    # not whole chunks of rows, not whole steps, two reduction dimensions: the register-wide strip
    for shape, dims in (((300, 1024), (0,)), ((64, 1000), (0,)), ((32, 32, 128), (0, 1))):
        (strip,) = _configs(_reduce(shape, dims, np.float32), cpu=AVX2)
        assert "cache_reduction" not in strip and "vector_common_parallel = [128" in strip


@pytest.mark.parametrize("iterators, extents, inner, step, expected", [
    (["parallel", "reduction"], [1024, 4096], 0, 64,
     "#iree_cpu.lowering_config<distribution = [512, 0], cache_reduction = [0, 16], "
     "vector_common_parallel = [64, 0], vector_reduction = [0, 1]>"),
    (["parallel", "reduction"], [192, 32], 0, 64,
     "#iree_cpu.lowering_config<distribution = [192, 0], cache_reduction = [0, 16], "
     "vector_common_parallel = [64, 0], vector_reduction = [0, 1]>"),
    (["parallel", "reduction"], [4096, 4096], 0, 64,  # wide: 16 steps, while two workgroups are left
     "#iree_cpu.lowering_config<distribution = [1024, 0], cache_reduction = [0, 16], "
     "vector_common_parallel = [64, 0], vector_reduction = [0, 1]>"),
    (["parallel", "reduction"], [2048, 64], 0, 64,
     "#iree_cpu.lowering_config<distribution = [1024, 0], cache_reduction = [0, 16], "
     "vector_common_parallel = [64, 0], vector_reduction = [0, 1]>"),
    (["parallel", "reduction"], [1024, 40], 0, 64, None),  # 40 rows are no whole chunks
    (["parallel", "reduction"], [100, 64], 0, 64, None),  # 100 columns are no whole steps
    (["parallel", "reduction", "reduction"], [128, 16, 16], 0, 64, None),
])
def test_chunked_config(iterators, extents, inner, step, expected):
    assert chunked_outer_reduction_config(iterators, extents, inner, step) == expected


def _configs(src: str, cpu: str = CPU, **options) -> list[str]:
    """The lowering configs the pass sets on `src` compiled to linalg (global-optimization) for `cpu`."""
    module = compile(src, compile_to="global-optimization", cpu=cpu, **options)
    transforms.run(module, "builtin.module(oxla-llvmcpu-outer-reduction-tiles)")
    found = []
    ir.walk(module, lambda op: found.append(str(op.attributes["compilation_info"]))
            if "compilation_info" in op.attributes else None)
    return found


def _register_file_bytes() -> int:
    """Bytes of CPU's vector register file as the pass sees it (AVX-512: 32 x 64)."""
    vector_bytes, registers = _vector_shape(compile(_reduce((4, 4), (0,), np.float32), compile_to="global-optimization", cpu=CPU))
    return vector_bytes * registers


def test_only_reductions_that_keep_the_innermost_dimension_are_tiled():
    strip = _register_file_bytes() // 4
    (column,) = _configs(_reduce((4096, 1024), (0,), np.float32))
    assert f"distribution = [{strip}, 0]" in column and f"vector_common_parallel = [{strip}, 0]" in column
    assert "vector_reduction = [0, 1]" in column
    assert _configs(_reduce((4096, 1024), (1,), np.float32)) == []  # a row sum is IREE's
    (f64,) = _configs(_reduce((64, 1024), (0,), np.float64))
    assert f"distribution = [{strip // 2}, 0]" in f64
    (narrow,) = _configs(_reduce((64, 7), (0,), np.float32))
    assert "distribution = [7, 0]" in narrow
    (middle,) = _configs(_reduce((8, 96, 130), (1,), np.float32))
    assert "distribution = [1, 130, 0]" in middle and "vector_reduction = [0, 0, 1]" in middle  # reductions last


def _max_then_sum(summed: str) -> str:
    """@main(x) = (the column max of x, the column sum of `summed`: %e = exp(x - max), or %x)."""
    column, full = "tensor<1024xf32>", "tensor<4096x1024xf32>"
    return (f"func.func @main(%x: {full}) -> ({column}, {column}) {{\n"
            "  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
            "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            f"  %m = stablehlo.reduce(%x init: %low) applies stablehlo.maximum across dimensions = [0] :"
            f" ({full}, tensor<f32>) -> {column}\n"
            f"  %b = stablehlo.broadcast_in_dim %m, dims = [1] : ({column}) -> {full}\n"
            f"  %d = stablehlo.subtract %x, %b : {full}\n"
            f"  %e = stablehlo.exponential %d : {full}\n"
            f"  %s = stablehlo.reduce({summed} init: %z) applies stablehlo.add across dimensions = [0] :"
            f" ({full}, tensor<f32>) -> {column}\n"
            f"  return %m, %s : {column}, {column}\n}}\n")


def test_reductions_chained_to_others_keep_iree_tiles():
    """A column max whose result a second column reduction reads (through element-wise ops): IREE puts
    both in one dispatch, which ran 5x slower with the max tiled. By default the max has a dispatch of
    its own (oxla-llvmcpu-outer-reduction-dispatches), and then both are tiled."""
    fused = ["oxla-llvmcpu-outer-reduction-dispatches"]
    assert _configs(_max_then_sum("%e"), disable_passes=fused) == []
    assert len(_configs(_max_then_sum("%e"))) == 2
    assert len(_configs(_max_then_sum("%x"), disable_passes=fused)) == 2  # two reductions of x alone


def _column_sums_of(term: str) -> str:
    """@main(x: 4096x1024, m: 1024) = the column sums of `term` (over %x and %d = x - m)."""
    column, full = "tensor<1024xf32>", "tensor<4096x1024xf32>"
    return (f"func.func @main(%x: {full}, %m: {column}) -> {column} {{\n"
            "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            f"  %b = stablehlo.broadcast_in_dim %m, dims = [1] : ({column}) -> {full}\n"
            f"  %d = stablehlo.subtract %x, %b : {full}\n"
            f"  %t = {term} : {full}\n"
            f"  %s = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [0] :"
            f" ({full}, tensor<f32>) -> {column}\n"
            f"  return %s : {column}\n}}\n")


def _reduction_generics(module) -> list:
    """The linalg.generic reductions of a module."""
    found = []
    ir.walk(module, lambda op: found.append(op) if op.name == "linalg.generic" and "reduction" in loop_kinds(op)
            else None)
    return found


@pytest.mark.parametrize("term, product", [
    ("stablehlo.multiply %d, %d", True),  # squared deviations: factors computed in the body
    ("stablehlo.multiply %x, %x", False),  # factors read: IREE's contraction runs as vectors
    ("stablehlo.abs %d", False),
])
def test_accumulated_products_of_computed_factors_are_found(term, product):
    module = compile(_column_sums_of(term), compile_to="executable-sources", cpu=AVX2,
                     disable_passes=["oxla-llvmcpu-outer-reduction-tiles"])  # the term fused into the sum
    (generic,) = _reduction_generics(module)
    assert (accumulated_product(generic) is not None) == product


def test_column_sums_of_squared_deviations_are_tiled_and_stay_element_wise():
    """A reduction reading x and the column means along its innermost loop gets the chunked tiles on AVX2,
    the strip on AVX-512; on both its product is written as an fma with -0.0 (MLIR made a contraction of
    it that ran lane by lane)."""
    src = _column_sums_of("stablehlo.multiply %d, %d")
    avx2 = compile(src, compile_to="executable-sources", cpu=AVX2)
    (generic,) = _reduction_generics(avx2)
    assert "cache_reduction = [0, 16]" in str(generic.attributes["compilation_info"])
    assert "math.fma" in str(generic) and "arith.mulf" not in str(generic)
    avx512 = compile(src, compile_to="executable-sources", cpu=CPU)
    (wide,) = _reduction_generics(avx512)
    assert "compilation_info" in wide.attributes and "math.fma" in str(wide) and "arith.mulf" not in str(wide)
    rng = np.random.default_rng(23)
    x, m = rng.standard_normal((4096, 1024)).astype(np.float32), rng.standard_normal(1024).astype(np.float32)
    got = np.asarray(runtime.load(compile(src, cpu=AVX2)).main(x, m))
    np.testing.assert_allclose(got, ((x.astype(np.float64) - m) ** 2).sum(axis=0), rtol=1e-5)


def test_configured_and_dynamic_reductions_are_left_alone():
    src = ("func.func @main(%x: tensor<?x16xf32>) -> tensor<16xf32> {\n"
           "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
           "  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] :"
           " (tensor<?x16xf32>, tensor<f32>) -> tensor<16xf32>\n  return %r : tensor<16xf32>\n}\n")
    assert _configs(src) == []
    module = compile(_reduce((64, 32), (0,), np.float32), compile_to="global-optimization", cpu=CPU)
    transforms.run(module, "builtin.module(oxla-llvmcpu-outer-reduction-tiles)")
    generic = []
    ir.walk(module, lambda op: generic.append(op) if op.name == "linalg.generic" else None)
    assert outer_reduction_config(generic[0], 64, 32) is None  # already configured


def _lc(levels: str) -> str:
    return f"#iree_cpu.lowering_config<{levels}>"


@pytest.mark.parametrize("config, tile, expected", [
    # a 16x16 tile is a whole budget of 256 elements: one tile per step, folded into the common level
    ("vector_common_parallel = [1, 0], vector_inner_parallel = [0, 1]", 256, "vector_common_parallel = [1, 1]"),
    ("vector_common_parallel = [1, 0], vector_inner_parallel = [0, 16]", 256, "vector_common_parallel = [1, 1]"),
    # a 16x1 tile: sixteen tiles per step
    ("vector_common_parallel = [1, 0], vector_inner_parallel = [0, 256]", 16,
     "vector_common_parallel = [1, 0], vector_inner_parallel = [0, 16]"),
    ("distribution = [2, 0], vector_common_parallel = [1, 0, 0], vector_inner_parallel = [0, 1, 32]", 16,
     "distribution = [2, 0], vector_common_parallel = [1, 1, 0], vector_inner_parallel = [0, 0, 16]"),
])
def test_pack_steps_are_cut_to_the_budget_and_folded(config, tile, expected):
    assert pack_vector_config(_lc(config), tile, 256) == _lc(expected)


@pytest.mark.parametrize("config", [
    "vector_common_parallel = [1, 0], vector_inner_parallel = [0, 16]",  # 16x1 tiles: within budget
    "distribution = [64, 64], vector_common_parallel = [1, 16]",  # no inner level
    "vector_common_parallel = [1, 0], vector_inner_parallel = [0, 24]",  # not a multiple: left to IREE
])
def test_pack_steps_within_budget_are_left_alone(config):
    assert pack_vector_config(_lc(config), 16, 256) is None
    assert pack_vector_config("#iree_cpu.lowering_config<vector_common_parallel = [1, [16]]>", 16, 256) is None


def test_pack_steps_read_by_another_op_are_cut_but_not_folded():
    config = _lc("vector_common_parallel = [0, 1], vector_inner_parallel = [1, 0]")
    assert pack_vector_config(config, 16, 256, fold=False) is None
    assert pack_vector_config(_lc("vector_common_parallel = [1, 0], vector_inner_parallel = [0, 256]"), 256, 256,
                              fold=False) == _lc("vector_common_parallel = [1, 0], vector_inner_parallel = [0, 1]")


def test_a_kernel_pack_feeding_its_mmt4d_keeps_its_inner_step():
    """A transposed convolution's phases pack a strided window of the kernel in the dispatch of their
    mmt4d; folded into the common level, which IREE tiles by the mmt4d's config, the pack became one
    32 KiB vector that IREE rejected, and the program compiled without oxla's passes (3.6x XLA's time)."""
    import warnings

    from oxla.pipelines.compiler import CodegenPassesWarning

    src = ("func.func @main(%x: tensor<1x28x28x128xf32>, %w: tensor<3x3x128x64xf32>) -> tensor<1x56x56x64xf32> {\n"
           "  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
           "{pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}"
           " : (tensor<1x28x28x128xf32>, tensor<3x3x128x64xf32>) -> tensor<1x56x56x64xf32>\n"
           "  return %0 : tensor<1x56x56x64xf32>\n}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", CodegenPassesWarning)
        configured = ir.to_text(compile(src, compile_to="executable-configurations", cpu=CPU))
        compile(src, cpu=CPU)
    assert "vector_common_parallel = [0, 1], vector_inner_parallel = [1, 0]" in configured


@pytest.mark.parametrize("config, outer, expected", [
    # IREE leaves the 32 column tiles whole: 32 x 64 elements, one step of a tile instead
    ("vector_common_parallel = [1, 0]", [16, 32], "vector_common_parallel = [1, 0], vector_inner_parallel = [0, 1]"),
    # 8x1 tiles: eight per step
    ("vector_common_parallel = [1, 0], vector_inner_parallel = [0, 32]", [16, 256],
     "vector_common_parallel = [1, 0], vector_inner_parallel = [0, 8]"),
])
def test_packs_on_narrow_vectors_keep_inner_steps_within_the_budget(config, outer, expected):
    tile = 64 if outer[1] == 32 else 8
    assert bounded_pack_config(_lc(config), tile, outer, 64) == _lc(expected)


@pytest.mark.parametrize("config, outer", [
    ("vector_common_parallel = [1, 0], vector_inner_parallel = [0, 1]", [16, 32]),  # one tile: IREE's, kept
    ("vector_common_parallel = [1, 1]", [16, 32]),
    ("vector_common_parallel = [1, 0]", [16, 1]),  # a whole dimension of one tile is within the budget
])
def test_packs_on_narrow_vectors_within_the_budget_are_left_alone(config, outer):
    assert bounded_pack_config(_lc(config), 64, outer, 64) is None


def test_inner_steps_of_other_ops_are_capped_at_native_lanes():
    capped = capped_inner_config(_lc("vector_common_parallel = [16, 0], vector_inner_parallel = [0, 256]"), 16)
    assert capped == _lc("vector_common_parallel = [16, 0], vector_inner_parallel = [0, 16]")
    assert capped_inner_config(_lc("vector_common_parallel = [16, 0], vector_inner_parallel = [0, 16]"), 16) is None
    assert capped_inner_config(_lc("vector_common_parallel = [16, 16]"), 16) is None


def _row_norm(rows: int, cols: int) -> str:
    """StableHLO lines that normalise %x (f32[rows, cols]) over its rows into %y, without scale or shift."""
    t, r = f"tensor<{rows}x{cols}xf32>", f"tensor<{rows}xf32>"
    return f"""  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<{float(cols)}> : {r}
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : ({t}, tensor<f32>) -> {r}
  %m = stablehlo.divide %s, %n : {r}
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : ({r}) -> {t}
  %c = stablehlo.subtract %x, %mb : {t}
  %sq = stablehlo.multiply %c, %c : {t}
  %v = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : ({t}, tensor<f32>) -> {r}
  %vm = stablehlo.divide %v, %n : {r}
  %r = stablehlo.rsqrt %vm : {r}
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : ({r}) -> {t}
  %y = stablehlo.multiply %c, %rb : {t}
"""


# A residual h = x + b, normalised, feeds a matmul that accumulates onto h: IREE fuses the sum and the
# norm with both operands' packs (the transformer block's MLP). f32[128,256] @ f32[256,256].
_NORM_MATMUL = f"""
func.func @main(%x0: tensor<128x256xf32>, %b: tensor<256xf32>, %w: tensor<256x256xf32>) -> tensor<128x256xf32> {{
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<256xf32>) -> tensor<128x256xf32>
  %x = stablehlo.add %x0, %bb : tensor<128x256xf32>
{_row_norm(128, 256)}  %d = stablehlo.dot_general %y, %w, contracting_dims = [1] x [0] : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %o = stablehlo.add %d, %x : tensor<128x256xf32>
  return %o : tensor<128x256xf32>
}}
"""


def _pack_steps(module) -> list[tuple[int, str]]:
    """(elements of one inner tile, lowering config) of every configured linalg.pack in `module`."""
    found = []
    ir.walk(module, lambda op: found.append((int(np.prod(list(ir.DenseI64ArrayAttr(op.attributes["static_inner_tiles"])))),
                                              str(op.attributes["lowering_config"])))
            if op.name == "linalg.pack" and "lowering_config" in op.attributes else None)
    return found


def test_norm_feeding_a_matmul_packs_within_native_vectors_and_stays_exact():
    raw = compile(_NORM_MATMUL, compile_to="executable-configurations", cpu=CPU, optimize=False)  # IREE's own configs
    assert any(pack_vector_config(config, tile, 256) for tile, config in _pack_steps(raw))  # the case arises
    transforms.run(raw, "builtin.module(oxla-llvmcpu-pack-vector-tiles)")
    default = compile(_NORM_MATMUL, compile_to="executable-configurations", cpu=CPU)  # the pass is in the default pipeline
    for module in (raw, default):
        for tile, config in _pack_steps(module):
            assert pack_vector_config(config, tile, 256) is None, config  # nothing left to cut or fold
    _check_norm_matmul(compile(_NORM_MATMUL), seed=7)


def _check_norm_matmul(artifact, seed: int) -> None:
    """Runs _NORM_MATMUL's `artifact` on the host and checks it against the same sums in float64."""
    rng = np.random.default_rng(seed)
    x0, b, w = (rng.standard_normal(s).astype(np.float32) for s in ((128, 256), (256,), (256, 256)))
    got = np.asarray(runtime.load(artifact).main(x0, b, w))
    x = x0.astype(np.float64) + b
    c = x - x.mean(axis=1, keepdims=True)
    expected = (c / np.sqrt((c * c).mean(axis=1, keepdims=True))) @ w + x
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-3)


def test_norm_feeding_a_matmul_compiles_with_the_passes_on_avx2():
    # IREE configures the dispatch two ways; in most compiles it vectorizes the pack of the norm's result
    # as one 16x256 block and rejects it, and the compile fell back to running without oxla's passes.
    for _ in range(3):
        module = compile(_NORM_MATMUL, compile_to="executable-configurations", cpu=AVX2, disable_passes=_NO_KERNEL)
        packs = [config for tile, config in _pack_steps(module) if tile == 64]  # the 8x8-tiled accumulator
        assert packs and all("vector_inner_parallel = [0, 1]" in config for config in packs), packs
    assert compile(_NORM_MATMUL, cpu=AVX2, disable_passes=_NO_KERNEL).codegen_passes


def _norm_dispatch_packs(module) -> list:
    """The linalg.pack ops of the norm's dispatch (the one that reduces), in order."""
    funcs = []
    ir.walk(module, lambda op: funcs.append(op) if op.name == "func.func" and "reduction" in
            str(op.attributes["sym_name"]) else None)
    packs = []
    ir.walk(funcs[0], lambda op: packs.append(op) if op.name == "linalg.pack" else None)
    return packs


def test_avx2_norm_dispatch_steps_its_column_pack_and_vectors_stay_small(tmp_path):
    # IREE steps only a dispatch's last pack below the workgroup; the norm's [8, 1] column pack came
    # first and vectorized as one 8x256 transpose (2048-lane shuffles LLVM takes seconds over).
    raw = compile(_NORM_MATMUL, compile_to="executable-configurations", cpu=AVX2, optimize=False)
    assert [column_tile_rows(op) for op in _norm_dispatch_packs(raw)] == [8, 0]  # the case arises
    module = compile(_NORM_MATMUL, compile_to="executable-configurations", cpu=AVX2, disable_passes=_NO_KERNEL)
    assert [column_tile_rows(op) for op in _norm_dispatch_packs(module)] == [0, 8]
    assert "distribution = [8, 0]" in ir.to_text(module)  # one row of tiles per workgroup
    artifact = compile(_NORM_MATMUL, cpu=AVX2, flags=[f"--iree-hal-dump-executable-intermediates-to={tmp_path}"],
                       disable_passes=_NO_KERNEL)
    widths = [int(n) for path in tmp_path.glob("*.optimized.ll")
              for n in re.findall(r"<(\d+) x float>", path.read_text())]
    assert widths and max(widths) <= 256, max(widths)
    _check_norm_matmul(artifact, seed=17)


@pytest.mark.parametrize("config, rows, expected", [
    ("distribution = [16, 0], vector_common_parallel = [8, 0]", 8, "distribution = [8, 0], vector_common_parallel = [8, 0]"),
    ("distribution = [8, 0], vector_common_parallel = [8, 0]", 8, None),  # one row of tiles already
    ("distribution = [12, 0], vector_common_parallel = [4, 0]", 8, None),  # no whole tiles
    ("distribution = [16, 8, 0], vector_common_parallel = [8, 8, 0]", 8, None),  # not 2-D
])
def test_row_of_tiles(config, rows, expected):
    assert row_of_tiles_config(_lc(config), rows) == (_lc(expected) if expected else None)


@pytest.mark.parametrize("config, distribution, expected", [
    ("distribution = [32, 64], vector_common_parallel = [1, 1]", [1, 512],
     "distribution = [1, 512], vector_common_parallel = [1, 1]"),
    ("distribution = [64, 64], vector_common_parallel = [1, 16]", [64, 16],
     "distribution = [64, 16], vector_common_parallel = [1, 16]"),
])
def test_pack_panels_set_the_workgroup_level(config, distribution, expected):
    assert panel_config(_lc(config), distribution) == _lc(expected)


@pytest.mark.parametrize("config, distribution", [
    ("distribution = [1, 512], vector_common_parallel = [1, 1]", [1, 512]),  # already so
    ("vector_common_parallel = [1, 1]", [1, 512]),  # no distribution level
    ("distribution = [1, 8, 64], vector_common_parallel = [1, 1, 1]", [1, 512]),  # batched: not 2-D
])
def test_pack_panels_leave_other_configs_alone(config, distribution):
    assert panel_config(_lc(config), distribution) is None


_GEMM_BF16 = """
func.func @main(%a: tensor<256x128xbf16>, %b: tensor<128x64xbf16>) -> tensor<256x64xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x128xbf16>, tensor<128x64xbf16>) -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}
"""


def _pack_distributions(module) -> dict[str, str]:
    """The distribution level of every configured linalg.pack, by its result type."""
    found = {}
    ir.walk(module, lambda op: found.__setitem__(str(op.results[0].type), str(op.attributes["lowering_config"]))
            if op.name == "linalg.pack" and "lowering_config" in op.attributes else None)
    return {t: re.search(r"distribution = \[[^\]]*\]", c).group(0) for t, c in found.items() if "distribution" in c}


def test_a_gemm_packs_its_operands_by_whole_source_rows_and_stays_exact():
    raw = compile(_GEMM_BF16, compile_to="executable-configurations", cpu=CPU, optimize=False)  # IREE's own configs
    lhs = "tensor<16x64x16x2xbf16>"  # 256x128 in 16x2 tiles: one panel of 16 rows per workgroup
    rhs = "tensor<4x64x16x2xbf16>"  # 128x64 in 16x2 tiles, outer dimensions swapped: 16 rows per workgroup
    wanted = {lhs: "distribution = [1, 64]", rhs: "distribution = [4, 8]"}
    assert all(_pack_distributions(raw)[t] != d for t, d in wanted.items())  # the cases arise
    default = compile(_GEMM_BF16, compile_to="executable-configurations", cpu=CPU)  # the pass is in the default pipeline
    assert _pack_distributions(default) == wanted
    rng = np.random.default_rng(3)
    a = rng.standard_normal((256, 128)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    got = np.asarray(runtime.load(compile(_GEMM_BF16)).main(a, b))
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-3)


def test_packs_with_few_workgroups_are_left_to_iree():
    few = _GEMM_BF16.replace("256x", "32x")  # two panels of 16 rows
    module = compile(few, compile_to="executable-configurations", cpu=CPU, optimize=False)
    lhs = _pack_distributions(module)["tensor<2x64x16x2xbf16>"]  # the left operand's pack, distributed by IREE
    transforms.run(module, "builtin.module(oxla-llvmcpu-pack-panels)")
    assert _pack_distributions(module)["tensor<2x64x16x2xbf16>"] == lhs
    transforms.run(module, "builtin.module(oxla-llvmcpu-pack-panels{min-workgroups=2})")
    assert _pack_distributions(module)["tensor<2x64x16x2xbf16>"] == "distribution = [1, 64]"


_MMT4D = "vector_common_parallel = [1, 1, 0, 16, 16, 0], vector_reduction = [0, 0, 1, 0, 0, 1]"


@pytest.mark.parametrize("distribution, columns, stepped", [
    ([2, 4, 0, 0, 0, 0], 8, [2, 4, 0, 0, 0, 0]),
    ([1, 2, 0, 0, 0, 0], 64, [1, 2, 0, 0, 0, 0]),
    ([1, 1, 0, 0, 0, 0], 128, [1, 2, 0, 0, 0, 0]),  # odd: twice the column tiles
    ([1, 3, 0, 0, 0, 0], 6, [1, 6, 0, 0, 0, 0]),
])
def test_register_tiles_step_half_the_rows_of_two_column_tiles(distribution, columns, stepped):
    config = _lc(f"distribution = {distribution}, {_MMT4D}")
    assert register_tile_config(config, 16, columns) == _lc(
        f"distribution = {stepped}, vector_common_parallel = [1, 2, 0, 8, 16, 0], "
        "vector_reduction = [0, 0, 1, 0, 0, 1]")


@pytest.mark.parametrize("config, lanes, columns", [
    (_lc(f"distribution = [1, 3, 0, 0, 0, 0], {_MMT4D}"), 16, 9),  # six do not divide nine column tiles
    (_lc(f"distribution = [4, 5, 0, 0, 0, 0], {_MMT4D}"), 16, 10),  # 4 x 10 tiles: too many per workgroup
    (_lc(f"distribution = [4, 4, 0, 0, 0, 0], {_MMT4D}"), 16, 64),  # 16: slow to compile as one block
    (_lc(f"distribution = [8, 8, 0, 0, 0, 0], {_MMT4D}"), 16, 64),  # 64: IREE rejects the whole-block unpack
    (_lc(f"distribution = [1, 2, 0, 0, 0, 0], {_MMT4D}"), 8, 64),  # tiles wider than the native vector
    (_lc(f"distribution = [1, 2, 0, 0, 0, 0], {_MMT4D.replace('[1, 1, 0, 16', '[1, 2, 0, 8')}"), 16, 64),  # done
    (_lc(_MMT4D), 16, 64),  # no workgroup level
])
def test_register_tiles_leave_other_configs_alone(config, lanes, columns):
    assert register_tile_config(config, lanes, columns) is None


def _gemm(m: int, k: int, n: int, element: str = "f32") -> str:
    return (f"func.func @main(%a: tensor<{m}x{k}x{element}>, %b: tensor<{k}x{n}x{element}>) -> tensor<{m}x{n}xf32> {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
            f"(tensor<{m}x{k}x{element}>, tensor<{k}x{n}x{element}>) -> tensor<{m}x{n}xf32>\n"
            f"  return %0 : tensor<{m}x{n}xf32>\n}}\n")


def _mmt4d_level(module, level: str) -> list[str]:
    """`level = [...]` of each configured linalg.mmt4d's lowering config."""
    found = []
    ir.walk(module, lambda op: found.append(re.search(rf"{level} = \[[^\]]*\]",
                                                      str(op.attributes["lowering_config"])).group(0))
            if op.name == "linalg.mmt4d" and "lowering_config" in op.attributes else None)
    return found


def _mmt4d_steps(module) -> list[str]:
    return _mmt4d_level(module, "vector_common_parallel")


def test_an_f32_gemm_steps_two_column_tiles_and_stays_exact():
    src = _gemm(256, 512, 64)  # 2^23 multiply-adds, the fewest the pass steps; workgroups of 2x4 tiles
    raw = compile(src, compile_to="executable-configurations", cpu=CPU, optimize=False)  # IREE's own configs
    assert _mmt4d_steps(raw) == ["vector_common_parallel = [1, 1, 0, 16, 16, 0]"]
    transforms.run(raw, "builtin.module(oxla-llvmcpu-mmt4d-register-tiles)")
    default = compile(src, compile_to="executable-configurations", cpu=CPU)  # the pass is in the default pipeline
    for module in (raw, default):
        assert _mmt4d_steps(module) == ["vector_common_parallel = [1, 2, 0, 8, 16, 0]"]
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((256, 512)).astype(np.float32), rng.standard_normal((512, 64)).astype(np.float32)
    got = np.asarray(runtime.load(compile(src)).main(a, b))
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def _exp_of_gemm(m: int, k: int, n: int) -> str:
    return _gemm(m, k, n).replace("  return %0", f"  %1 = stablehlo.exponential %0 : tensor<{m}x{n}xf32>\n  return %1")


def test_fused_element_wise_consumers_step_with_the_mmt4d_in_small_workgroups_and_stay_exact():
    src = _exp_of_gemm(128, 1024, 256)  # workgroups of 1x2 tiles
    assert _mmt4d_steps(compile(src, compile_to="executable-configurations", cpu=CPU)) == [
        "vector_common_parallel = [1, 2, 0, 8, 16, 0]"]
    wide = _exp_of_gemm(256, 256, 128)  # 4x4 tiles: the consumers' blocks would take LLVM long to compile
    assert _mmt4d_steps(compile(wide, compile_to="executable-configurations", cpu=CPU)) == [
        "vector_common_parallel = [1, 1, 0, 16, 16, 0]"]
    rng = np.random.default_rng(9)
    a = (0.03 * rng.standard_normal((128, 1024))).astype(np.float32)
    b = (0.03 * rng.standard_normal((1024, 256))).astype(np.float32)
    got = np.asarray(runtime.load(compile(src)).main(a, b))
    np.testing.assert_allclose(got, np.exp(a.astype(np.float64) @ b.astype(np.float64)), rtol=1e-4, atol=1e-5)


def test_register_tiles_leave_microkernels_and_small_matmuls_alone():
    with_ukernels = compile(_gemm(256, 512, 64), compile_to="executable-configurations", cpu=CPU,
                            flags=["--iree-llvmcpu-enable-ukernels=mmt4d"])
    assert _mmt4d_steps(with_ukernels) == ["vector_common_parallel = [1, 1, 0, 16, 16, 0]"]
    small = compile(_gemm(256, 128, 64), compile_to="executable-configurations", cpu=CPU)  # 2^21 multiply-adds
    assert _mmt4d_steps(small) == ["vector_common_parallel = [1, 1, 0, 16, 16, 0]"]


_STEPPED = "vector_common_parallel = [1, 2, 0, 4, 8, 0], vector_reduction = [0, 0, 1, 0, 0, 1]"


@pytest.mark.parametrize("distribution, rows, columns, tile_vectors, most, expected", [
    ([1, 2], 8, 512, 8, 128, [8, 2]),  # AVX2 8x8 tiles: 16 tiles are 128 vectors
    ([1, 2], 32, 512, 8, 128, [8, 2]),  # the most that fit, dividing the rows
    ([1, 2], 12, 512, 8, 128, [6, 2]),  # 8 does not divide 12
    ([1, 2], 4, 256, 16, 128, [4, 2]),  # AVX-512 16x16 tiles: 8 tiles
    ([1, 2], 8, 512, 8, 32, [2, 2]),  # element-wise consumers: a smaller block
    ([1, 2], 32, 4, 8, 128, [4, 2]),  # keeps 16 workgroups: 8 x 2
])
def test_row_blocks_take_every_row_tile_the_block_allows(distribution, rows, columns, tile_vectors, most, expected):
    config = _lc(f"distribution = {distribution + [0] * 4}, {_STEPPED}")
    assert row_block_config(config, rows, columns, tile_vectors, most) == _lc(
        f"distribution = {expected + [0] * 4}, {_STEPPED}")


@pytest.mark.parametrize("distribution, rows, columns, tile_vectors, most", [
    ([8, 2], 8, 512, 8, 128),  # already every row tile
    ([2, 4], 128, 128, 8, 32),  # no more fit the block
    ([1, 2], 17, 512, 8, 128),  # only 17 divides 17, and 17 x 2 tiles do not fit
    ([1, 3], 8, 512, 8, 128),  # the column tiles do not divide
    ([1, 2], 8, 4, 8, 128),  # too few workgroups left
    ([0, 2], 8, 512, 8, 128),  # no row level
])
def test_row_blocks_leave_other_configs_alone(distribution, rows, columns, tile_vectors, most):
    config = _lc(f"distribution = {distribution + [0] * 4}, {_STEPPED}")
    assert row_block_config(config, rows, columns, tile_vectors, most) is None


def _distributions(module) -> list[str]:
    return _mmt4d_level(module, "distribution")


@pytest.mark.parametrize("cpu, blocks", [("znver3", "[8, 2, 0, 0, 0, 0]"), ("znver5", "[4, 2, 0, 0, 0, 0]")])
def test_a_large_right_operand_gets_workgroups_of_every_row_tile(cpu, blocks):
    src = _gemm(64, 2048, 1024)  # an 8 MiB right operand: 8 (AVX2) or 4 (AVX-512) row tiles
    without = compile(src, compile_to="executable-configurations", cpu=cpu,
                      disable_passes=["oxla-llvmcpu-mmt4d-row-blocks", *_NO_KERNEL])
    assert _distributions(without) == ["distribution = [1, 2, 0, 0, 0, 0]"]
    transforms.run(without, "builtin.module(oxla-llvmcpu-mmt4d-row-blocks)")
    # the pass is in the default pipeline (which on AVX2 gives this matmul to oxla's kernel)
    default = compile(src, compile_to="executable-configurations", cpu=cpu, disable_passes=_NO_KERNEL)
    for module in (without, default):
        assert _distributions(module) == [f"distribution = {blocks}"]


def test_small_right_operands_keep_iree_workgroups():
    src = _gemm(256, 1024, 1024)  # a 4 MiB right operand, whose workgroups of 2x4 tiles could take 4x4
    default = compile(src, compile_to="executable-configurations", cpu="znver3", disable_passes=_NO_KERNEL)
    assert _distributions(default) == ["distribution = [2, 4, 0, 0, 0, 0]"]
    assert row_block_config(_lc(f"distribution = [2, 4, 0, 0, 0, 0], {_STEPPED}"), 32, 128, 8) is not None


def test_row_blocks_stay_exact():
    src = _exp_of_gemm(64, 2048, 1024).replace("stablehlo.exponential", "stablehlo.tanh")
    rng = np.random.default_rng(11)
    a = (0.03 * rng.standard_normal((64, 2048))).astype(np.float32)
    b = (0.03 * rng.standard_normal((2048, 1024))).astype(np.float32)
    blocked, plain = (np.asarray(runtime.load(compile(src, disable_passes=off)).main(a, b))
                      for off in ([], ["oxla-llvmcpu-mmt4d-row-blocks"]))
    np.testing.assert_allclose(blocked, np.tanh(a.astype(np.float64) @ b.astype(np.float64)), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(blocked, plain)  # the same sums in the same order


_CONV_STEPS = "distribution = [0, 4, 56, 64, 0, 0, 0], vector_common_parallel = [1, 1, {}, 0, 0, 0], " \
              "vector_reduction = [0, 0, 0, 0, 1, 1, {}]"


@pytest.mark.parametrize("steps, lanes, channels, expected", [
    ("4, 4", 8, 64, _CONV_STEPS.format("4, 16", 4)),  # IREE's AVX2 steps: half a vector of features
    ("4, 4", 8, 6, _CONV_STEPS.format("4, 16", 1)),  # channels that four do not divide: one at a time
    ("8, 16", 16, 64, None),  # IREE's AVX-512 steps: a whole vector
    ("4, 8", 8, 64, None),  # a whole AVX2 vector
    ("8, 8", 8, 64, _CONV_STEPS.format("4, 16", 4)),  # one vector over 8 pixels: as many accumulators
    ("6, 8", 8, 64, None),  # under 8 pixels: left alone
])
def test_conv_steps_narrower_than_a_vector_take_two_vectors_of_features(steps, lanes, channels, expected):
    config = _lc(_CONV_STEPS.format(steps, 8))
    assert conv_register_config(config, lanes, channels) == (_lc(expected) if expected else None)


def test_a_stem_convolution_keeps_its_whole_channel_step():
    # 7x7 over 3 input channels (a ResNet stem): IREE steps all 3 channels at once, 8 pixels of a vector.
    config = _lc(_CONV_STEPS.format("8, 8", 3))
    assert conv_register_config(config, 8, 3) == _lc(_CONV_STEPS.format("4, 16", 3))


@pytest.mark.parametrize("config", [
    "distribution = [0, 4, 54, 64, 0, 0, 0], vector_common_parallel = [1, 1, 4, 4, 0, 0, 0], "
    "vector_reduction = [0, 0, 0, 0, 1, 1, 8]",  # 54 pixels: not whole steps of 4
    "distribution = [0, 4, 56, 24, 0, 0, 0], vector_common_parallel = [1, 1, 4, 4, 0, 0, 0], "
    "vector_reduction = [0, 0, 0, 0, 1, 1, 8]",  # 24 features: not whole steps of 16
    "distribution = [0, 4, 56, 64, 0, 0], vector_common_parallel = [1, 1, 4, 4, 0, 0], "
    "vector_reduction = [0, 0, 0, 0, 1, 1]",  # six loops: a depthwise convolution
])
def test_conv_steps_that_do_not_divide_are_left_to_iree(config):
    assert conv_register_config(_lc(config), 8, 64) is None


_CONV = """
func.func @main(%x: tensor<1x56x56x64xf32>, %w: tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x56x56x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32>
  return %0 : tensor<1x56x56x64xf32>
}
"""


def _conv_steps(module) -> list[str]:
    found = []
    ir.walk(module, lambda op: found.append(re.search(r"vector_common_parallel = \[[^\]]*\]",
                                                      str(op.attributes["lowering_config"])).group(0))
            if op.name == "linalg.generic" and "lowering_config" in op.attributes and len(loop_kinds(op)) == 7
            else None)
    return found


def test_avx2_convolutions_step_whole_vectors_and_stay_exact():
    avx2 = compile(_CONV, compile_to="executable-configurations", cpu=AVX2)
    assert _conv_steps(avx2) == ["vector_common_parallel = [1, 1, 4, 16, 0, 0, 0]"]
    assert "vector_reduction = [0, 0, 0, 0, 1, 1, 4]" in ir.to_text(avx2)  # four of the 64 channels a step
    raw = compile(_CONV, compile_to="executable-configurations", cpu=AVX2, optimize=False)
    assert _conv_steps(raw) == ["vector_common_parallel = [1, 1, 4, 4, 0, 0, 0]"]  # IREE's own: the case arises
    wide = compile(_CONV, compile_to="executable-configurations", cpu=CPU, disable_passes=["oxla-llvmcpu-matmul-kernel"])
    assert _conv_steps(wide) == ["vector_common_parallel = [1, 1, 8, 16, 0, 0, 0]"]  # AVX-512: IREE's
    rng = np.random.default_rng(13)
    x = rng.standard_normal((1, 56, 56, 64)).astype(np.float32)
    w = rng.standard_normal((3, 3, 64, 64)).astype(np.float32)
    got = np.asarray(runtime.load(compile(_CONV)).main(x, w))
    iree = np.asarray(runtime.load(compile(_CONV, disable_passes=["oxla-llvmcpu-conv-register-tiles"])).main(x, w))
    np.testing.assert_array_equal(got, iree)  # the same sums in the same order


@pytest.mark.parametrize("config, lanes, extent, expected", [
    ("distribution = [32, 0], vector_common_parallel = [8, 0], vector_reduction = [0, 8]", 8, 1024,
     "distribution = [32, 0], vector_common_parallel = [1, 0], vector_reduction = [0, 32]"),  # IREE's AVX2 steps
    ("distribution = [32, 0], vector_common_parallel = [8, 0], vector_reduction = [0, 8]", 8, 1000, None),  # ragged
    ("distribution = [32, 0], vector_common_parallel = [1, 0], vector_reduction = [0, 32]", 8, 1024, None),  # done
    ("distribution = [32, 0, 0], vector_common_parallel = [8, 0, 0], vector_reduction = [0, 0, 8]", 8, 1024, None),
])
def test_row_reductions_step_one_row_of_four_vectors(config, lanes, extent, expected):
    assert row_reduction_config(_lc(config), lanes, extent) == (_lc(expected) if expected else None)


_NORM = f"""
func.func @main(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {{
{_row_norm(64, 4096)}  return %y : tensor<64x4096xf32>
}}
"""


def test_avx2_norms_over_long_rows_step_one_row_in_each_reduction_and_stay_close():
    avx2 = ir.to_text(compile(_NORM, compile_to="executable-configurations", cpu=AVX2))
    raw = ir.to_text(compile(_NORM, compile_to="executable-configurations", cpu=AVX2,
                             disable_passes=["oxla-llvmcpu-row-reduction-steps"]))
    assert raw.count("vector_reduction = [0, 8]") == 2  # IREE's own: the mean's and the variance's steps
    assert avx2.count("vector_reduction = [0, 32]") == 2 and "vector_reduction = [0, 8]" not in avx2
    x = np.random.default_rng(23).standard_normal((64, 4096)).astype(np.float32) + 3
    got = np.asarray(runtime.load(compile(_NORM, cpu=AVX2)).main(x))
    d = x.astype(np.float64) - x.mean(axis=1, dtype=np.float64, keepdims=True)
    np.testing.assert_allclose(got, d / np.sqrt((d * d).mean(axis=1, keepdims=True)), rtol=1e-5, atol=1e-5)


def test_avx2_row_sums_step_one_row_and_stay_close():
    src = _reduce((4096, 1024), (1,), np.float32)
    avx2 = ir.to_text(compile(src, compile_to="executable-configurations", cpu=AVX2))
    assert "vector_common_parallel = [1, 0], vector_reduction = [0, 32]" in avx2
    raw = ir.to_text(compile(src, compile_to="executable-configurations", cpu=AVX2, optimize=False))
    assert "vector_common_parallel = [8, 0], vector_reduction = [0, 8]" in raw  # IREE's own: the case arises
    wide = ir.to_text(compile(src, compile_to="executable-configurations", cpu=CPU))
    assert "vector_common_parallel = [8, 0], vector_reduction = [0, 16]" in wide  # AVX-512: IREE's
    x = np.random.default_rng(17).standard_normal((4096, 1024)).astype(np.float32)
    got = np.asarray(runtime.load(compile(src)).main(x))
    np.testing.assert_allclose(got, x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-4)


_COLUMN_MAX = """func.func @main(%m: tensor<256x32xf32>, %j: tensor<i32>) -> tensor<f32> {
  %zero_i = stablehlo.constant dense<0> : tensor<i32>
  %s = stablehlo.dynamic_slice %m, %zero_i, %j, sizes = [256, 1] : (tensor<256x32xf32>, tensor<i32>, tensor<i32>) -> tensor<256x1xf32>
  %c = stablehlo.reshape %s : (tensor<256x1xf32>) -> tensor<256xf32>
  %a = stablehlo.abs %c : tensor<256xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %zero) applies stablehlo.maximum across dimensions = [0] : (tensor<256xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
"""


def test_a_reduction_of_a_strided_column_keeps_iree_steps():
    """The largest |entry| of a column of a panel (an LU's pivot search): its entries are 32 floats apart,
    and four-vector steps moved each through the stack (solve's search 4 -> 1 us a trip with IREE's)."""
    avx2 = ir.to_text(compile(_COLUMN_MAX, compile_to="executable-configurations", cpu=AVX2))
    assert "strided<[32]" in avx2 and re.findall(r"vector_reduction = \[[^\]]*\]", avx2) == ["vector_reduction = [8]"]
    m = np.random.default_rng(26).standard_normal((256, 32)).astype(np.float32)
    assert float(np.asarray(runtime.load(compile(_COLUMN_MAX, cpu=AVX2)).main(m, np.int32(5)))) == np.abs(m[:, 5]).max()


@pytest.mark.parametrize("config, lanes, extent, expected", [
    ("distribution = [0], vector_reduction = [8]", 8, 4194304, "distribution = [0], vector_reduction = [32]"),
    ("distribution = [0], vector_reduction = [8]", 8, 1000, None),  # no whole number of steps
    ("distribution = [0], vector_reduction = [32]", 8, 4096, None),  # done
    ("distribution = [0], vector_reduction = [4]", 8, 4096, None),  # not one vector a step
])
def test_whole_reductions_step_four_vectors(config, lanes, extent, expected):
    assert whole_reduction_config(_lc(config), lanes, extent) == (_lc(expected) if expected else None)


def test_avx2_sums_of_everything_step_four_vectors_and_stay_close():
    """IREE's one vector accumulator made each step wait for the last (f32[4096,1024] on a Zen 3: 0.63 ms,
    0.38 ms with four)."""
    src = _reduce((4096, 1024), (0, 1), np.float32)
    avx2 = ir.to_text(compile(src, compile_to="executable-configurations", cpu=AVX2))
    assert "distribution = [0], vector_reduction = [32]" in avx2
    raw = ir.to_text(compile(src, compile_to="executable-configurations", cpu=AVX2,
                             disable_passes=["oxla-llvmcpu-row-reduction-steps"]))
    assert "distribution = [0], vector_reduction = [8]" in raw  # IREE's own: the case arises
    wide = ir.to_text(compile(src, compile_to="executable-configurations", cpu=CPU))
    assert "vector_reduction = [16]" in wide  # AVX-512: IREE's
    x = np.random.default_rng(29).standard_normal((4096, 1024)).astype(np.float32)
    got = np.asarray(runtime.load(compile(src, cpu=AVX2)).main(x))
    np.testing.assert_allclose(got, x.astype(np.float64).sum(), rtol=1e-4)


@pytest.mark.parametrize("config, lanes, expected", [
    ("distribution = [4096], vector_common_parallel = [8]", 8, "distribution = [4096], vector_common_parallel = [16]"),
    ("distribution = [1, 256], vector_common_parallel = [1, 8]", 8,
     "distribution = [1, 256], vector_common_parallel = [1, 16]"),
    ("distribution = [4104], vector_common_parallel = [8]", 8, None),  # no whole number of two-vector steps
    ("distribution = [4096], vector_common_parallel = [16]", 8, None),  # not one vector a step
    ("distribution = [0], vector_common_parallel = [8]", 8, None),  # one workgroup of unknown width
    ("vector_common_parallel = [8]", 8, None),  # no workgroup level
    ("distribution = [64, 0], vector_common_parallel = [8, 0], vector_reduction = [0, 8]", 8, None),  # a reduction's
])
def test_elementwise_steps_take_two_vectors(config, lanes, expected):
    assert elementwise_step_config(_lc(config), lanes) == (_lc(expected) if expected else None)


def _elementwise(body: str) -> str:
    """@main(x: f32[64,4096]) = body(x), `body` StableHLO ops on %x ending in %y."""
    t = "tensor<64x4096xf32>"
    return f"func.func @main(%x: {t}) -> {t} {{\n{body.format(t=t)}\n  return %y : {t}\n}}\n"


_MATH_CHAIN = _elementwise("""  %c = stablehlo.constant dense<1.5> : {t}
  %a = stablehlo.multiply %x, %c : {t}
  %t = stablehlo.tanh %a : {t}
  %s = stablehlo.logistic %x : {t}
  %e = stablehlo.exponential %s : {t}
  %m = stablehlo.multiply %t, %s : {t}
  %y = stablehlo.add %m, %e : {t}""")
_CHEAP = _elementwise("""  %c = stablehlo.constant dense<1.5> : {t}
  %y = stablehlo.multiply %x, %c : {t}""")


def _elementwise_steps(module) -> list[str]:
    """The vector_common_parallel level of every configured all-parallel linalg.generic."""
    found = []
    ir.walk(module, lambda op: found.append(re.search(r"vector_common_parallel = \[[^\]]*\]",
                                                      str(op.attributes["lowering_config"])).group(0))
            if op.name == "linalg.generic" and "lowering_config" in op.attributes
            and set(loop_kinds(op)) == {"parallel"} else None)
    return found


def _steps_on_each_cpu(src: str) -> tuple[list[str], list[str], list[str]]:
    """_elementwise_steps of `src` configured for AVX2, for AVX2 without the pass (IREE's own steps), and
    for AVX-512."""
    def steps(cpu: str, **options) -> list[str]:
        return _elementwise_steps(compile(src, compile_to="executable-configurations", cpu=cpu, **options))
    return steps(AVX2), steps(AVX2, disable_passes=["oxla-llvmcpu-elementwise-steps"]), steps(CPU)


def test_avx2_elementwise_math_steps_two_vectors_and_stays_exact():
    avx2, raw, wide = _steps_on_each_cpu(_MATH_CHAIN)
    assert avx2 == ["vector_common_parallel = [16]"]
    assert raw == ["vector_common_parallel = [8]"]  # IREE's own: the case arises
    assert wide == ["vector_common_parallel = [16]"]  # AVX-512: IREE's one vector
    cheap = compile(_CHEAP, compile_to="executable-configurations", cpu=AVX2)
    assert _elementwise_steps(cheap) == ["vector_common_parallel = [8]"]  # bound by memory: left alone
    x = np.random.default_rng(19).standard_normal((64, 4096)).astype(np.float32) * 4
    got = np.asarray(runtime.load(compile(_MATH_CHAIN, cpu=AVX2)).main(x))
    iree = np.asarray(runtime.load(compile(_MATH_CHAIN, cpu=AVX2,
                                           disable_passes=["oxla-llvmcpu-elementwise-steps"])).main(x))
    np.testing.assert_array_equal(got, iree)  # the same math, element by element
    s = 1 / (1 + np.exp(-x.astype(np.float64)))
    np.testing.assert_allclose(got, np.tanh(1.5 * x.astype(np.float64)) * s + np.exp(s), rtol=2e-6)


_LONG_ARITHMETIC = _elementwise("""  %y = stablehlo.exponential_minus_one %x : {t}""")  # oxla's f32 kernel: adds, multiplies, bits


def test_avx2_long_arithmetic_steps_two_vectors_and_stays_exact():
    avx2, raw, wide = _steps_on_each_cpu(_LONG_ARITHMETIC)
    assert avx2 == ["vector_common_parallel = [16]"]
    assert raw == ["vector_common_parallel = [8]"]
    assert wide == ["vector_common_parallel = [16]"]
    x = np.random.default_rng(20).standard_normal((64, 4096)).astype(np.float32) * 8
    got = np.asarray(runtime.load(compile(_LONG_ARITHMETIC, cpu=AVX2)).main(x))
    iree = np.asarray(runtime.load(compile(_LONG_ARITHMETIC, cpu=AVX2,
                                           disable_passes=["oxla-llvmcpu-elementwise-steps"])).main(x))
    np.testing.assert_array_equal(got, iree)
    np.testing.assert_allclose(got, np.expm1(x.astype(np.float64)), rtol=2e-7)


_ROW_GATHER = """func.func @main(%table: tensor<1000x256xf32>, %ids: tensor<512xi32>) -> tensor<512x256xf32> {
  %i = stablehlo.reshape %ids : (tensor<512xi32>) -> tensor<512x1xi32>
  %y = "stablehlo.gather"(%table, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1],
      collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 256>}
      : (tensor<1000x256xf32>, tensor<512x1xi32>) -> tensor<512x256xf32>
  return %y : tensor<512x256xf32>
}
"""


def test_avx2_row_gathers_step_four_vectors():
    avx2, raw, wide = _steps_on_each_cpu(_ROW_GATHER)
    assert avx2 == ["vector_common_parallel = [1, 32]"]
    assert raw == ["vector_common_parallel = [1, 8]"]  # IREE's own: the case arises
    assert wide == ["vector_common_parallel = [1, 16]"]  # AVX-512: IREE's one vector
    table = np.random.default_rng(23).standard_normal((1000, 256)).astype(np.float32)
    ids = np.random.default_rng(24).integers(0, 1000, 512).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(runtime.load(compile(_ROW_GATHER, cpu=AVX2)).main(table, ids)), table[ids])


_COLUMN_TIMES_GATHER = """func.func @main(%m: tensor<4096x4x4xf32>, %v: tensor<4096x4xf32>, %p: tensor<4096x1xi32>) -> tensor<4096xf32> {
  %s = stablehlo.slice %m [0:4096, 1:2, 2:3] : (tensor<4096x4x4xf32>) -> tensor<4096x1x1xf32>
  %c = stablehlo.reshape %s : (tensor<4096x1x1xf32>) -> tensor<4096xf32>
  %g = "stablehlo.gather"(%v, %p) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1],
      operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>,
      slice_sizes = array<i64: 1, 1>} : (tensor<4096x4xf32>, tensor<4096x1xi32>) -> tensor<4096xf32>
  %y = stablehlo.multiply %c, %g : tensor<4096xf32>
  return %y : tensor<4096xf32>
}
"""


def test_a_gather_reading_strided_rows_keeps_one_vector_steps():
    """An entry of each matrix of a batch times a gathered one (a batched LU's trip): the entries are 16
    floats apart, and in four-vector steps IREE moved every one through the stack (the batched solve's
    triangular steps: 0.26-0.30 ms each, 0.95 ms for the whole solve once they kept one vector)."""
    avx2, raw, wide = _steps_on_each_cpu(_COLUMN_TIMES_GATHER)
    assert avx2 == raw == ["vector_common_parallel = [8]"] * 2
    assert wide == ["vector_common_parallel = [16]"] * 2
    rng = np.random.default_rng(25)
    m, v = rng.standard_normal((4096, 4, 4)).astype(np.float32), rng.standard_normal((4096, 4)).astype(np.float32)
    p = rng.integers(0, 4, (4096, 1)).astype(np.int32)
    got = np.asarray(runtime.load(compile(_COLUMN_TIMES_GATHER, cpu=AVX2)).main(m, v, p))
    np.testing.assert_array_equal(got, m[:, 1, 2] * v[np.arange(4096), p[:, 0]])


def _gather_generic(shape: list[int], indices: str) -> str:
    """A func holding one all-parallel linalg.generic over `shape` whose body reads %ids (i32[64, 40], at
    the first two loop indices) and extracts from %x (i32[64, 320]) at `indices`, over %d0.. (the loop
    indices) and %id (the value read, as an index)."""
    loops = len(shape)
    dims = ", ".join(f"d{i}" for i in range(loops))
    out = f"tensor<{'x'.join(map(str, shape))}xi32>"
    index_lines = "\n".join(f"    %d{i} = linalg.index {i} : index" for i in range(loops))
    return f"""func.func @f(%x: tensor<64x320xi32>, %ids: tensor<64x40xi32>, %o: {out}) -> {out} {{
  %r = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>],
      iterator_types = [{", ".join(['"parallel"'] * loops)}]}} outs(%o : {out}) {{
  ^bb0(%out: i32):
{index_lines}
    %v = tensor.extract %ids[%d0, %d1] : tensor<64x40xi32>
    %id = arith.index_cast %v : i32 to index
    %e = tensor.extract %x[{indices}] : tensor<64x320xi32>
    linalg.yield %e : i32
  }} -> {out}
  return %r : {out}
}}
"""


@pytest.mark.parametrize("shape, indices, expected", [
    ([64, 40], "%d0, %d1", True),  # along rows, from the loop indices alone
    ([64, 40], "%d0, %id", True),  # a permutation of each row: the last index varies along it
    ([64, 40, 32], "%d0, %id", False),  # one gathered element per row, broadcast along its last 32
    ([64, 40, 32], "%d0, %d2", True),  # part of each row, along the innermost loop
])
def test_gathers_along_rows(shape, indices, expected):
    module = ir.parse(_gather_generic(shape, indices))
    generic = next(op for op in ir.ops(module) if op.name == "linalg.generic")
    assert _gathers_along_rows(generic) is expected


def _gemv(k: int, n: int, matvec: bool = False, constant: bool = False) -> str:
    """@main(x[1, k], m[k, n]) = x @ m; with `matvec`, @main(m[n, k], x[k]) = m @ x; with `constant`, m is a
    constant instead of an argument."""
    if matvec:
        args, signature = ["%m: tensor<NxKxf32>", "%x: tensor<Kxf32>"], "(tensor<NxKxf32>, tensor<Kxf32>)"
        dot, result = "stablehlo.dot_general %m, %x, contracting_dims = [1] x [0]", "tensor<Nxf32>"
    else:
        args, signature = ["%x: tensor<1xKxf32>", "%m: tensor<KxNxf32>"], "(tensor<1xKxf32>, tensor<KxNxf32>)"
        dot, result = "stablehlo.dot_general %x, %m, contracting_dims = [1] x [0]", "tensor<1xNxf32>"
    matrix = "tensor<NxKxf32>" if matvec else "tensor<KxNxf32>"
    body = f"  %m = stablehlo.constant dense<0.5> : {matrix}\n" if constant else ""
    args = [a for a in args if not (constant and a.startswith("%m"))]
    return (f"func.func @main({', '.join(args)}) -> {result} {{\n{body}  %0 = {dot} : {signature} -> {result}\n"
            f"  return %0 : {result}\n}}\n").replace("K", str(k)).replace("N", str(n))


@pytest.mark.parametrize("matvec", [False, True])
def test_gemvs_of_a_run_time_matrix_are_reductions_without_data_tiling(matvec):
    src = _gemv(512, 256, matvec)
    flow = ir.to_text(compile(src, compile_to="flow", cpu=CPU))
    assert "set_encoding" not in flow and "linalg.vecmat" not in flow and "linalg.matvec" not in flow
    assert "compilation_info" in flow
    without = ir.to_text(compile(src, compile_to="flow", cpu=CPU, disable_passes=["oxla-llvmcpu-gemv-reductions"]))
    assert "set_encoding" in without  # data tiling would pack the matrix on every call
    rng = np.random.default_rng(21)
    x = rng.standard_normal(512 if matvec else (1, 512)).astype(np.float32)
    m = rng.standard_normal((256, 512) if matvec else (512, 256)).astype(np.float32)
    got = np.asarray(runtime.load(compile(src)).main(*((m, x) if matvec else (x, m))))
    want = m.astype(np.float64) @ x.astype(np.float64) if matvec else x.astype(np.float64) @ m.astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("cpu, expected", [
    # AVX-512: GEMV_CHUNK_ROWS rows a chunk, steps of half the register file, two workgroups
    (CPU, "cache_reduction = [0, 8], distribution = [2048, 0], vector_common_parallel = [256, 0]"),
    # AVX2: the column sums' chunks (CHUNK_ROWS rows, CHUNK_STEPS steps of 64)
    (AVX2, "cache_reduction = [0, 16], distribution = [1024, 0], vector_common_parallel = [64, 0]"),
])
def test_vecmats_of_a_large_run_time_matrix_add_chunks_of_rows(cpu, expected):
    """A strip of the register file read each row of f32[4096,4096] in 2 KiB pieces 16 KiB apart."""
    flow = ir.to_text(compile(_gemv(4096, 4096), compile_to="flow", cpu=cpu))
    assert f"{expected}, vector_reduction = [0, 1]" in flow


@pytest.mark.parametrize("extent, lanes, expected", [(512, 16, 64), (32, 16, 32), (48, 16, 48), (32, 8, 32),
                                                      (24, 8, 24), (40, 16, None), (8, 16, None)])
def test_row_steps_take_the_most_whole_vectors_that_divide_the_row(extent, lanes, expected):
    assert row_step(extent, lanes) == expected


def test_matvecs_of_rows_shorter_than_four_vectors_are_reductions_without_data_tiling():
    """A Cholesky panel's trips multiply f32[n, 32] by a vector: on AVX-512 the row is two vectors, not
    four, and data tiling had packed each trip's strided columns an element at a time through the stack
    (jnp.linalg.cholesky of f32[256,256] on a Zen 4: 10.1 ms, 1.4 ms as a reduction)."""
    src = _gemv(32, 256, matvec=True)
    flow = ir.to_text(compile(src, compile_to="flow", cpu=CPU))
    assert "set_encoding" not in flow and "vector_reduction = [0, 32]" in flow
    rng = np.random.default_rng(24)
    m, x = rng.standard_normal((256, 32)).astype(np.float32), rng.standard_normal(32).astype(np.float32)
    got = np.asarray(runtime.load(compile(src)).main(m, x))
    np.testing.assert_allclose(got, m.astype(np.float64) @ x.astype(np.float64), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("matvec", [False, True])
def test_gemvs_of_a_constant_matrix_keep_data_tiling(matvec):
    module = compile(_gemv(512, 256, matvec, constant=True), compile_to="global-optimization", cpu=CPU)
    transforms.run(module, "builtin.module(oxla-llvmcpu-gemv-reductions)")
    assert ("linalg.matvec" if matvec else "linalg.vecmat") in ir.to_text(module)  # packed once while compiling


def _few_rows(m: int, k: int, n: int) -> str:
    """@main(x[m, k], w[k, n]) = x @ w: a matmul of a few rows by a run-time matrix (a batch of a few
    inputs through a layer whose weights are arguments, an RNN's step)."""
    x, w, r = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
    return (f"func.func @main(%x: {x}, %w: {w}) -> {r} {{\n"
            f"  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : ({x}, {w}) -> {r}\n"
            f"  return %0 : {r}\n}}\n")


@pytest.mark.parametrize("m", [2, 4, 8])
def test_matmuls_of_a_few_rows_by_a_run_time_matrix_are_reductions_without_data_tiling(m):
    """Data tiling packed the matrix on every call, and an RNN's step's rows and result in every trip (on a
    Zen 4, one thread, medians of 300 calls: f32[4,4096] @ f32[4096,4096] 27.4 -> 7.5 ms, f32[8,512] @
    f32[512,2048] 0.35 -> 0.23 ms; jax.lax.scan of tanh(x_t W + h U), batch 4, width 128, 1.41x -> 1.14x
    XLA's time). Up to GEMV_QUERIES rows the product reads the matrix once for all of them."""
    src = _few_rows(m, 256, 512)
    flow = ir.to_text(compile(src, compile_to="flow", cpu=CPU))
    assert "set_encoding" not in flow and "compilation_info" in flow
    rng = np.random.default_rng(25)
    x, w = rng.standard_normal((m, 256)).astype(np.float32), rng.standard_normal((256, 512)).astype(np.float32)
    got = np.asarray(runtime.load(compile(src)).main(x, w))
    np.testing.assert_allclose(got, x.astype(np.float64) @ w.astype(np.float64), rtol=1e-5, atol=1e-4)


def test_matmuls_of_more_rows_keep_data_tiling():
    assert "set_encoding" in ir.to_text(compile(_few_rows(16, 256, 512), compile_to="flow", cpu=CPU))


def _batched_gemv(weighted: bool, queries: int | None = 1) -> str:
    """@main(q, cache) over a cache f32[4, 256, 128] (batch, steps, width) and `queries` per batch (None:
    one, without a dimension of its own): the attention scores q[b, i, :] . cache[b, t, :] when not
    `weighted`, else the weighted sum over the steps q[b, i, :] . cache[b, :, d]. One query is a batched
    matrix-vector product."""
    contracted, query_width, out = (1, 256, 128) if weighted else (2, 128, 256)
    rows = "" if queries is None else f"{queries}x"
    q, r = f"tensor<4x{rows}{query_width}xf32>", f"tensor<4x{rows}{out}xf32>"
    return (f"func.func @main(%q: {q}, %c: tensor<4x256x128xf32>) -> {r} {{\n"
            f"  %0 = stablehlo.dot_general %q, %c, batching_dims = [0] x [0], contracting_dims = "
            f"[{1 if queries is None else 2}] x [{contracted}] : ({q}, tensor<4x256x128xf32>) -> {r}\n"
            f"  return %0 : {r}\n}}\n")


@pytest.mark.parametrize("queries", [None, 1, 4])
@pytest.mark.parametrize("weighted", [False, True])
def test_batched_gemvs_over_a_cache_are_reductions_without_data_tiling(weighted, queries):
    src = _batched_gemv(weighted, queries)
    flow = ir.to_text(compile(src, compile_to="flow", cpu=CPU))
    assert "set_encoding" not in flow and "compilation_info" in flow
    # Along the cache's rows (scores): 64 of one batch's rows per workgroup; over them (the weighted sum):
    # a strip of the register file as wide as the rows (_outer_config). A single query's dimension is one;
    # several (grouped-query attention) share the workgroup, and the weighted sum steps them together.
    unit = "" if queries is None else f"{queries}, "
    assert f"distribution = [1, {unit}{128 if weighted else 64}, 0]" in flow
    if queries == 4:
        assert f"vector_common_parallel = [1, {'4, 64' if weighted else '1, 1'}, 0]" in flow
    without = ir.to_text(compile(src, compile_to="flow", cpu=CPU, disable_passes=["oxla-llvmcpu-gemv-reductions"]))
    assert "set_encoding" in without  # data tiling would pack the cache on every call
    rng = np.random.default_rng(23)
    q = rng.standard_normal((4, queries or 1, 256 if weighted else 128)).astype(np.float32)
    cache = rng.standard_normal((4, 256, 128)).astype(np.float32)
    c = cache.astype(np.float64)
    want = q.astype(np.float64) @ (c if weighted else c.transpose(0, 2, 1))
    got = np.asarray(runtime.load(compile(src)).main(q if queries else q[:, 0], cache))
    np.testing.assert_allclose(got, want if queries else want[:, 0], rtol=1e-5, atol=1e-4)


def test_batched_products_of_many_rows_keep_data_tiling():
    flow = ir.to_text(compile(_batched_gemv(False, queries=16), compile_to="flow", cpu=CPU))
    assert "set_encoding" in flow and "compilation_info" not in flow  # a matmul per batch: data tiling pays


def _config_text(distribution, common) -> str:
    return (f"#iree_cpu.lowering_config<distribution = {distribution}, "
            f"vector_common_parallel = {common}>")


def test_whole_vector_tiles_leave_no_remainder_in_a_row():
    ragged = _config_text([128, 50], [1, 16])
    # Rows of 1000: one workgroup a row block, stepped by 8 (16 does not divide 1000).
    assert whole_vector_config(ragged, [4096, 1000]) == _config_text([128, 1000], [1, 8])
    # Few rows: the widest tile that still leaves 8 workgroups (25 of 40).
    assert whole_vector_config(_config_text([8, 50], [1, 16]), [8, 1000]) == _config_text([8, 40], [1, 8])
    assert whole_vector_config(_config_text([128, 64], [1, 16]), [4096, 1024]) is None  # whole already
    assert whole_vector_config(_config_text([128, 77], [1, 16]), [4096, 1001]) is None  # no step divides 1001


@pytest.mark.parametrize("distribution, common, extents, element_bytes, expected", [
    ([64, 64], [1, 8], [4096, 512], 4, ([64, 512], [1, 8])),  # a bias over rows of 512: whole rows
    ([128, 50], [1, 16], [4096, 1000], 4, ([128, 1000], [1, 8])),  # the step halved to divide the row
    ([128, 77], [1, 16], [4096, 1001], 4, ([128, 1001], [1, 16])),  # no step divides it: IREE's, peeled
    ([64, 64], [1, 8], [256, 16384], 4, ([32, 16384], [1, 8])),  # row tiles halved to keep 8 workgroups
    ([32, 64, 64], [1, 1, 8], [32, 128, 768], 4, ([32, 16, 768], [1, 1, 8])),  # the tile next to the row
    ([4, 28, 64], [1, 1, 8], [28, 28, 128], 4, ([4, 14, 128], [1, 1, 8])),  # as many workgroups as IREE's
    ([64, 0], [1, 8], [4096, 512], 4, None),  # rows whole already
    ([64, 512], [1, 8], [4096, 512], 4, None),
    ([64, 64], [1, 8], [256, 32768], 4, None),  # 128 KiB rows: longer than measured
    ([64, 64], [1, 8], [256, 32768], 2, ([32, 32768], [1, 8])),  # 64 KiB of bf16
    ([64], [8], [4096], 4, None),  # one loop: IREE's tiles are whole stretches
])
def test_whole_row_tiles(distribution, common, extents, element_bytes, expected):
    got = whole_row_config(_config_text(distribution, common), extents, element_bytes)
    assert got == (_config_text(*expected) if expected else None)


_BIAS = """func.func @main(%x: tensor<256x512xf32>, %b: tensor<512xf32>) -> tensor<256x512xf32> {
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<512xf32>) -> tensor<256x512xf32>
  %s = stablehlo.add %x, %bb : tensor<256x512xf32>
  return %s : tensor<256x512xf32>
}
"""
_TRANSPOSED = """func.func @main(%x: tensor<256x512xf32>, %y: tensor<512x256xf32>) -> tensor<256x512xf32> {
  %t = stablehlo.transpose %y, dims = [1, 0] : (tensor<512x256xf32>) -> tensor<256x512xf32>
  %s = stablehlo.add %x, %t : tensor<256x512xf32>
  return %s : tensor<256x512xf32>
}
"""


def _element_tiles(src: str, **options) -> list[str]:
    configured = ir.to_text(compile(src, compile_to="executable-configurations", cpu=AVX2, **options))
    return re.findall(r"distribution = \[[^]]*\], vector_common_parallel = \[[^]]*\]", configured)


def test_broadcasts_get_workgroups_of_whole_rows_and_transposes_do_not():
    assert _element_tiles(_BIAS) == ["distribution = [32, 512], vector_common_parallel = [1, 8]"]
    assert _element_tiles(_BIAS, disable_passes=["oxla-llvmcpu-whole-vector-workgroups"]) == [
        "distribution = [64, 64], vector_common_parallel = [1, 8]"]  # IREE's strips: the case arises
    transposed = _element_tiles(_TRANSPOSED)
    assert transposed and "512]" not in transposed[0]  # read across rows: IREE's blocks stay
    rng = np.random.default_rng(31)
    x, b = rng.standard_normal((256, 512)).astype(np.float32), rng.standard_normal(512).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(runtime.load(compile(_BIAS)).main(x, b)), x + b)
    y = rng.standard_normal((512, 256)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(runtime.load(compile(_TRANSPOSED)).main(x, y)), x + y.T)


_CONCAT = """func.func @main(%x: tensor<256x256xf32>, %y: tensor<256x256xf32>) -> tensor<256x512xf32> {
  %c = stablehlo.concatenate %x, %y, dim = 1 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x512xf32>
  return %c : tensor<256x512xf32>
}
"""


def test_a_concatenations_copies_get_workgroups_of_whole_rows():
    # IREE copies each part with a dispatch on buffers (one executable for both), in 64 x 64 blocks: 64
    # floats of every row
    assert _element_tiles(_CONCAT) == ["distribution = [32, 256], vector_common_parallel = [1, 8]"]
    assert _element_tiles(_CONCAT, disable_passes=["oxla-llvmcpu-whole-vector-workgroups"]) == [
        "distribution = [64, 64], vector_common_parallel = [1, 8]"]
    rng = np.random.default_rng(41)
    x, y = (rng.standard_normal((256, 256)).astype(np.float32) for _ in range(2))
    np.testing.assert_array_equal(np.asarray(runtime.load(compile(_CONCAT)).main(x, y)), np.concatenate([x, y], 1))


@pytest.mark.parametrize("distribution, common, inner, lanes, expected", [
    ([64, 64], [1, 8], 0, 8, [8, 8]),  # x + y.T on AVX2: IREE's row of 8 becomes an 8 x 8 block
    ([64, 64], [1, 16], 0, 16, [16, 16]),  # AVX-512
    ([8, 64, 64], [1, 1, 8], 1, 8, [1, 8, 8]),  # a batch of transposes
    ([64, 64], [8, 8], 0, 8, None),  # stepped so already
    ([64, 60], [1, 4], 0, 8, None),  # no whole blocks in a workgroup
    ([0, 64], [1, 8], 0, 8, None),
    ([64, 64], [1, 8], 1, 8, None),  # the innermost loop is the result's own: no transpose
])
def test_transposed_operands_step_square_blocks(distribution, common, inner, lanes, expected):
    got = transposed_step_config(_config_text(distribution, common), inner, lanes)
    assert got == (_config_text(distribution, expected) if expected else None)


def test_an_add_of_a_transpose_steps_blocks_and_stays_exact():
    assert _element_tiles(_TRANSPOSED) == ["distribution = [64, 64], vector_common_parallel = [8, 8]"]
    assert _element_tiles(_TRANSPOSED, disable_passes=["oxla-llvmcpu-transpose-steps"]) == [
        "distribution = [64, 64], vector_common_parallel = [1, 8]"]  # IREE's own: the case arises
    assert _element_tiles(_BIAS) == ["distribution = [32, 512], vector_common_parallel = [1, 8]"]  # untouched
    rng = np.random.default_rng(37)
    x, y = rng.standard_normal((256, 512)).astype(np.float32), rng.standard_normal((512, 256)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(runtime.load(compile(_TRANSPOSED)).main(x, y)), x + y.T)


_ONE_HOT = """func.func @main(%ids: tensor<512xi32>) -> tensor<512x1000xf32> {
  %iota = stablehlo.iota dim = 1 : tensor<512x1000xi32>
  %b = stablehlo.broadcast_in_dim %ids, dims = [0] : (tensor<512xi32>) -> tensor<512x1000xi32>
  %eq = stablehlo.compare EQ, %b, %iota : (tensor<512x1000xi32>, tensor<512x1000xi32>) -> tensor<512x1000xi1>
  %r = stablehlo.convert %eq : (tensor<512x1000xi1>) -> tensor<512x1000xf32>
  return %r : tensor<512x1000xf32>
}
"""


def test_one_hot_rows_of_1000_get_whole_vector_tiles():
    configured = ir.to_text(compile(_ONE_HOT, compile_to="executable-configurations", cpu=CPU))
    assert "distribution = [64, 1000], vector_common_parallel = [1, 8]" in configured  # 8 workgroups
    raw = ir.to_text(compile(_ONE_HOT, compile_to="executable-configurations", cpu=CPU,
                             disable_passes=["oxla-llvmcpu-whole-vector-workgroups"]))
    assert "vector_common_parallel = [1, 8]" not in raw  # IREE's own tiles leave a remainder
    ids = np.random.default_rng(29).integers(-3, 1003, 512).astype(np.int32)
    got = np.asarray(runtime.load(compile(_ONE_HOT)).main(ids))
    np.testing.assert_array_equal(got, (ids[:, None] == np.arange(1000)[None, :]).astype(np.float32))
