"""oxla-llvmcpu-vector-scatter-rows: scatters of rows into a 2-D tensor run as a loop over the update
rows that reads and combines each row as one vector, with the scatter's results."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

PASS = "builtin.module(oxla-llvmcpu-vector-scatter-rows)"
COMBINERS = {  # the scatter region's body over (current a, update b), its result, and numpy's form
    "add": (["%s = stablehlo.add %a, %b : tensor<f32>"], "%s", lambda row, update: row + update),
    "max": (["%s = stablehlo.maximum %a, %b : tensor<f32>"], "%s", np.maximum),
    "set": ([], "%b", lambda row, update: update),
    "scaled": (["%t = stablehlo.add %b, %b : tensor<f32>", "%s = stablehlo.add %a, %t : tensor<f32>"], "%s",
               lambda row, update: row + 2 * update),
    "offset": (["%one = stablehlo.constant dense<1.0> : tensor<f32>", "%t = stablehlo.add %b, %one : tensor<f32>",
                "%s = stablehlo.add %a, %t : tensor<f32>"], "%s", lambda row, update: row + update + 1),
}


def row_scatter(rows: int, width: int, count: int, combiner: str) -> str:
    """@main(x, ids, updates): x with row ids[k] combined with updates[k] for each k (stablehlo.scatter)."""
    lines, result, _ = COMBINERS[combiner]
    body = "".join(f"    {line}\n" for line in lines)
    x, u = f"tensor<{rows}x{width}xf32>", f"tensor<{count}x{width}xf32>"
    return (f"func.func @main(%x: {x}, %i: tensor<{count}xi32>, %u: {u}) -> {x} {{\n"
            f"  %r = stablehlo.reshape %i : (tensor<{count}xi32>) -> tensor<{count}x1xi32>\n"
            f"  %0 = \"stablehlo.scatter\"(%x, %r, %u) <{{scatter_dimension_numbers = #stablehlo.scatter<"
            f"update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
            f"index_vector_dim = 1>}}> ({{\n"
            f"  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
            f"{body}"
            f"    stablehlo.return {result} : tensor<f32>\n"
            f"  }}) : ({x}, tensor<{count}x1xi32>, {u}) -> {x}\n"
            f"  return %0 : {x}\n}}\n")


def reference(x, ids, updates, combiner: str):
    """The scatter in numpy: updates applied in order, those whose id is outside x left out."""
    out = x.copy()
    for row, update in zip(ids, updates):
        if 0 <= row < len(out):
            out[row] = COMBINERS[combiner][2](out[row], update)
    return out


def _dispatch_ops(text: str) -> list[str]:
    """The op names of `text`'s dispatches at `executable-sources` after the pass."""
    module = compile(text, compile_to="executable-sources", disable_passes=["oxla-llvmcpu-vector-scatter-rows"])
    transforms.run(module, PASS)
    assert not ir.verify(module)
    return [op.name for op in ir.ops(module)]


@pytest.mark.parametrize("combiner", ["add", "max", "set", "scaled"])
def test_row_scatters_combine_whole_rows(combiner):
    text = row_scatter(50, 64, 300, combiner)
    names = _dispatch_ops(text)
    assert "iree_linalg_ext.scatter" not in names
    assert "scf.forall" in names and names.count("vector.transfer_read") == 2
    rng = np.random.default_rng(len(combiner))
    x = rng.standard_normal((50, 64)).astype(np.float32)
    ids = rng.integers(-3, 53, 300).astype(np.int32)  # repeats, and some outside the rows, which drop
    updates = rng.standard_normal((300, 64)).astype(np.float32)
    got = np.asarray(runtime.load(compile(text)).main(x, ids, updates))
    np.testing.assert_allclose(got, reference(x, ids, updates, combiner), rtol=1e-6, atol=1e-5)
    without = compile(text, disable_passes=["oxla-llvmcpu-vector-scatter-rows"])
    np.testing.assert_allclose(got, np.asarray(runtime.load(without).main(x, ids, updates)), rtol=1e-6, atol=1e-5)


def test_long_rows_go_in_blocks():
    from oxla.transforms.scatter import row_block

    assert [row_block(w) for w in (64, 256, 300, 512, 768, 257, 4, 1)] == [64, 256, 150, 256, 256, 0, 4, 1]
    text = row_scatter(12, 768, 40, "add")  # three blocks of 256 per row
    names = _dispatch_ops(text)
    assert "iree_linalg_ext.scatter" not in names and names.count("scf.for") == 2
    rng = np.random.default_rng(3)
    x, ids = rng.standard_normal((12, 768)).astype(np.float32), rng.integers(0, 12, 40).astype(np.int32)
    updates = rng.standard_normal((40, 768)).astype(np.float32)
    got = np.asarray(runtime.load(compile(text)).main(x, ids, updates))
    np.testing.assert_allclose(got, reference(x, ids, updates, "add"), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("width, combiner", [(257, "add"),  # no block of 8 or more divides the row
                                             (64, "offset")])  # a constant in the body (a broadcast as a vector)
def test_other_scatters_stay_irees(width, combiner):
    text = row_scatter(10, width, 20, combiner)
    assert "iree_linalg_ext.scatter" in _dispatch_ops(text)
    rng = np.random.default_rng(2)
    x, ids = rng.standard_normal((10, width)).astype(np.float32), rng.integers(0, 10, 20).astype(np.int32)
    updates = rng.standard_normal((20, width)).astype(np.float32)
    got = np.asarray(runtime.load(compile(text)).main(x, ids, updates))
    np.testing.assert_allclose(got, reference(x, ids, updates, combiner), rtol=1e-6, atol=1e-5)
