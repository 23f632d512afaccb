"""oxla-llvmcpu-contiguous-gathers: gathers of rows read their row index inside the body, so the
vectorizer loads rows as vectors; oxla-llvmcpu-unflatten-gathers: gathers IREE collapsed into one loop
get their loops back; the results are the gather's."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile
from oxla.transforms.gathers import uniform_index_inputs

PASS = "builtin.module(oxla-llvmcpu-contiguous-gathers)"


def row_gather(rows: int, width: int, ids: tuple[int, ...]) -> str:
    """@main(table, ids) = table[ids] (stablehlo.gather of whole rows, start indices clamped)."""
    shape = "x".join(map(str, ids))
    return (f"func.func @main(%t: tensor<{rows}x{width}xf32>, %i: tensor<{shape}xi32>) -> tensor<{shape}x{width}xf32> {{\n"
            f"  %r = stablehlo.reshape %i : (tensor<{shape}xi32>) -> tensor<{shape}x1xi32>\n"
            f"  %0 = \"stablehlo.gather\"(%t, %r) <{{dimension_numbers = #stablehlo.gather<offset_dims = [{len(ids)}], "
            f"collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = {len(ids)}>, "
            f"slice_sizes = array<i64: 1, {width}>}}> : (tensor<{rows}x{width}xf32>, tensor<{shape}x1xi32>) -> "
            f"tensor<{shape}x{width}xf32>\n"
            f"  return %0 : tensor<{shape}x{width}xf32>\n}}\n")


def _gathering_generics(module) -> list:
    return [op for op in ir.ops(module) if op.name == "linalg.generic"
            and any(nested.name == "tensor.extract" for nested in ir.ops(op))]


def test_row_indices_are_read_inside_the_body():
    raw = compile(row_gather(1000, 64, (256,)), compile_to="executable-sources", optimize=False)
    generics = _gathering_generics(raw)
    assert len(generics) == 1 and uniform_index_inputs(generics[0]) == [(0, [0])]
    transforms.run(raw, PASS)
    assert not ir.verify(raw)
    generic = _gathering_generics(raw)[0]
    assert uniform_index_inputs(generic) == []  # the index now comes from a tensor.extract at linalg.index 0
    extracts = [op for op in ir.ops(generic) if op.name == "tensor.extract"]
    assert len(extracts) == 2 and "tensor<256xi32>" in str(extracts[0])
    default = compile(row_gather(1000, 64, (256,)), compile_to="executable-sources")
    transforms.run(default, PASS)  # the pass is in the default pipeline: nothing is left for it
    assert not any(uniform_index_inputs(op) for op in _gathering_generics(default))


def test_inputs_that_vary_along_the_row_are_left_alone():
    # a gather of single elements: the index input's map holds the innermost loop
    text = (
        "func.func @main(%t: tensor<1000xf32>, %i: tensor<64x32xindex>) -> tensor<64x32xf32> {\n"
        "  %e = tensor.empty() : tensor<64x32xf32>\n"
        "  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],"
        " iterator_types = [\"parallel\", \"parallel\"]} ins(%i : tensor<64x32xindex>) outs(%e : tensor<64x32xf32>) {\n"
        "  ^bb0(%in: index, %out: f32):\n"
        "    %x = tensor.extract %t[%in] : tensor<1000xf32>\n"
        "    linalg.yield %x : f32\n"
        "  } -> tensor<64x32xf32>\n"
        "  return %0 : tensor<64x32xf32>\n}\n")
    module = ir.parse(text)
    transforms.run(module, PASS)
    assert ir.to_text(module) == ir.to_text(ir.parse(text))


@pytest.mark.parametrize("rows, width, ids", [(1000, 64, (256,)), (300, 40, (8, 16)), (50, 8, (3,))])
def test_row_gathers_give_the_rows(rows, width, ids):
    text = row_gather(rows, width, ids)
    rng = np.random.default_rng(rows)
    table = rng.standard_normal((rows, width)).astype(np.float32)
    index = rng.integers(-5, rows + 5, ids).astype(np.int32)  # out of range: clamped to the first or last row
    index.flat[0], index.flat[-1] = -1, rows
    got = np.asarray(runtime.load(compile(text)).main(table, index))
    np.testing.assert_array_equal(got, table[np.clip(index, 0, rows - 1)])
    without = np.asarray(runtime.load(compile(text, disable_passes=["oxla-llvmcpu-contiguous-gathers"])).main(table, index))
    np.testing.assert_array_equal(got, without)


def patch_gather(count: int) -> str:
    """@main(x f32[10,12], starts i32[count,2]) = the 2x3 patches of x at `starts` (clamped into x)."""
    return (f"func.func @main(%x: tensor<10x12xf32>, %s: tensor<{count}x2xi32>) -> tensor<{count}x2x3xf32> {{\n"
            f"  %0 = \"stablehlo.gather\"(%x, %s) <{{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], "
            f"start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 2, 3>}}> : "
            f"(tensor<10x12xf32>, tensor<{count}x2xi32>) -> tensor<{count}x2x3xf32>\n"
            f"  return %0 : tensor<{count}x2x3xf32>\n}}\n")


def test_start_indices_are_clamped_into_the_operand():
    module = ir.parse(patch_gather(6))
    transforms.run(module, "builtin.module(oxla-clamp-gather-indices)")
    assert not ir.verify(module)
    text = ir.to_text(module)
    assert "stablehlo.clamp" in text and "dense<[8, 9]>" in text  # 10 - 2 rows, 12 - 3 columns
    x = np.arange(120, dtype=np.float32).reshape(10, 12)
    starts = np.array([[0, 0], [8, 9], [9, 10], [-3, 4], [100, -1], [4, 5]], np.int32)
    got = np.asarray(runtime.load(compile(patch_gather(6))).main(x, starts))
    clamped = np.clip(starts, 0, [8, 9])
    want = np.stack([x[r:r + 2, c:c + 3] for r, c in clamped])
    np.testing.assert_array_equal(got, want)


def batch_row_gather(batch: int, rows: int, width: int, picks: int) -> str:
    """@main(x, ids) = x[b, ids[b, j]] for each batch b (a gather of [batch, picks] rows of `width`)."""
    x, ids, out = (f"tensor<{batch}x{rows}x{width}xf32>", f"tensor<{batch}x{picks}xi32>",
                   f"tensor<{batch}x{picks}x{width}xf32>")
    pairs = f"tensor<{batch}x{picks}x2xi32>"
    return (f"func.func @main(%x: {x}, %i: {ids}) -> {out} {{\n"
            f"  %b = stablehlo.iota dim = 0 : {ids}\n"
            f"  %b1 = stablehlo.reshape %b : ({ids}) -> tensor<{batch}x{picks}x1xi32>\n"
            f"  %i1 = stablehlo.reshape %i : ({ids}) -> tensor<{batch}x{picks}x1xi32>\n"
            f"  %bi = stablehlo.concatenate %b1, %i1, dim = 2 : (tensor<{batch}x{picks}x1xi32>, "
            f"tensor<{batch}x{picks}x1xi32>) -> {pairs}\n"
            f"  %0 = \"stablehlo.gather\"(%x, %bi) <{{dimension_numbers = #stablehlo.gather<offset_dims = [2], "
            f"collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, "
            f"slice_sizes = array<i64: 1, 1, {width}>}}> : ({x}, {pairs}) -> {out}\n"
            f"  return %0 : {out}\n}}\n")


def _flattened(module) -> list:
    """The gathering generics of the module that run one loop."""
    return [g for g in _gathering_generics(module) if len(ir.ArrayAttr(g.attributes["iterator_types"])) == 1]


def test_collapsed_gathers_get_their_loops_back():
    text = batch_row_gather(4, 32, 48, 8)
    assert _flattened(compile(text, compile_to="executable-sources", disable_passes=["oxla-llvmcpu-unflatten-gathers"]))
    kept = compile(text, compile_to="executable-sources")
    assert not _flattened(kept)
    loops = [len(ir.ArrayAttr(g.attributes["iterator_types"])) for g in _gathering_generics(kept)]
    assert loops == [3]


@pytest.mark.parametrize("batch, rows, width, picks", [(4, 32, 48, 8), (3, 10, 7, 5), (2, 64, 256, 64)])
def test_batch_row_gathers_give_the_rows(batch, rows, width, picks):
    rng = np.random.default_rng(batch * rows + width)
    x = rng.standard_normal((batch, rows, width)).astype(np.float32)
    ids = rng.integers(-3, rows + 3, (batch, picks)).astype(np.int32)  # out-of-range rows clamp
    got = runtime.load(compile(batch_row_gather(batch, rows, width, picks))).main(x, ids)
    want = x[np.arange(batch)[:, None], np.clip(ids, 0, rows - 1)]
    np.testing.assert_array_equal(got, want)


def test_a_padding_gather_over_two_middle_dimensions():
    reflect = np.array([2, 1] + list(range(12)) + [10, 9], np.int32)
    hw = np.stack(np.broadcast_arrays(reflect[:, None], reflect[None, :]), -1).astype(np.int32)  # [16, 16, 2]
    text = """func.func @main(%x: tensor<2x12x12x8xf32>, %i: tensor<16x16x2xi32>) -> tensor<2x16x16x8xf32> {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 3], collapsed_slice_dims = [1, 2], start_index_map = [1, 2], index_vector_dim = 2>, slice_sizes = array<i64: 2, 1, 1, 8>}> : (tensor<2x12x12x8xf32>, tensor<16x16x2xi32>) -> tensor<2x16x16x8xf32>
  return %0 : tensor<2x16x16x8xf32>
}
"""
    assert not _flattened(compile(text, compile_to="executable-sources"))
    x = np.random.default_rng(5).standard_normal((2, 12, 12, 8)).astype(np.float32)
    got = runtime.load(compile(text)).main(x, hw)
    np.testing.assert_array_equal(got, np.pad(x, ((0, 0), (2, 2), (2, 2), (0, 0)), mode="reflect"))
