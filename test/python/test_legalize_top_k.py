"""oxla-legalize-top-k: XLA's top_k order (NaN above +inf, -NaN below -inf, equal values by index), for
chlo.top_k and JAX's composite of that name, through distinct keys and IREE's top-k."""

import ml_dtypes
import numpy as np
import pytest

from oxla import runtime
from oxla.pipelines import compile
from oxla.transforms.top_k import chunk_length

TOP_K = """func.func @main(%x: tensor<6xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %v, %i = chlo.top_k(%x, k = 3) : tensor<6xi32> -> (tensor<3xi32>, tensor<3xi32>)
  return %v, %i : tensor<3xi32>, tensor<3xi32>
}
"""


def test_ties_keep_index_order():
    x = np.array([5, 7, 5, 8, 8, 5], np.int32)
    values, indices = runtime.load(compile(TOP_K)).main(x)
    assert values.tolist() == [8, 8, 7] and indices.tolist() == [3, 4, 1]


def test_without_the_pass_iree_breaks_ties_the_other_way():
    x = np.array([5, 7, 5, 8, 8, 5], np.int32)
    _, indices = runtime.load(compile(TOP_K, legalize=False)).main(x)
    assert indices.tolist() != [3, 4, 1]


def _program(shape, k: int, element: str, composite: bool = False) -> str:
    dims = "x".join(map(str, shape))
    kept = "x".join(map(str, shape[:-1] + (k,)))
    source, out = f"tensor<{dims}x{element}>", f"tensor<{kept}x{element}>, tensor<{kept}xi32>"
    top_k = f"chlo.top_k(%x, k = {k}) : {source} -> ({out})"
    if not composite:
        return f"""func.func @main(%x: {source}) -> ({out}) {{
  %v, %i = {top_k}
  return %v, %i : {out}
}}
"""
    return f"""func.func @main(%x: {source}) -> ({out}) {{
  %0:2 = stablehlo.composite "chlo.top_k" %x {{composite_attributes = {{k = {k} : i64}}, decomposition = @impl, version = 1 : i32}} : ({source}) -> ({out})
  return %0#0, %0#1 : {out}
}}
func.func private @impl(%x: {source}) -> ({out}) {{
  %v, %i = {top_k}
  return %v, %i : {out}
}}
"""


def _rank(x: np.ndarray) -> np.ndarray:
    """int64 ranks in top_k's order: floats by their bits with the magnitude flipped under a set sign."""
    if x.dtype.kind in "fV":
        bits = x.view({2: np.int16, 4: np.int32}[x.dtype.itemsize]).astype(np.int64)
        return bits ^ ((bits >> 63) & (2 ** (8 * x.dtype.itemsize - 1) - 1))
    return x.astype(np.int64)


def _expected(x: np.ndarray, k: int):
    positions = np.arange(x.shape[-1])
    order = np.stack([np.lexsort((positions, ~_rank(row))) for row in x.reshape(-1, x.shape[-1])])
    order = order.reshape(x.shape)[..., :k]
    return np.take_along_axis(x, order, -1), order


def _values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -4), min(info.max, 4) + 1, shape).astype(dtype)
        x.reshape(-1)[:2] = [info.min, info.max]
        return x
    x = rng.integers(-3, 4, shape).astype(np.float32)  # many equal values
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)
    x.reshape(-1)[rng.choice(x.size, 6, replace=False)] = special
    return x.astype(dtype)


CASES = [  # (shape, k, element, dtype)
    ((12,), 5, "f32", np.float32),
    ((3, 12), 5, "f32", np.float32),
    ((4, 1000), 3, "f32", np.float32),
    ((3, 2500), 5, "f32", np.float32),     # chunks of 16, the last one padded
    ((2, 3, 300), 40, "f32", np.float32),  # three dimensions, too many picks for chunks
    ((64, 2048), 64, "f32", np.float32),   # chunks of 8, whose 256 maxima IREE once kept on the stack
    ((3, 1000), 40, "f32", np.float32),    # chunks of 8 for a short row: 40 picks from 1000 cost enough
    ((4, 500), 7, "bf16", ml_dtypes.bfloat16),
    ((4, 500), 7, "f16", np.float16),
    ((6, 700), 9, "i8", np.int8),
    ((6, 700), 9, "ui32", np.uint32),
    ((3, 70), 4, "i1", np.bool_),
    ((5, 40), 6, "i64", np.int64),         # a sort of (value, index) pairs
]


@pytest.mark.parametrize("shape, k, element, dtype", CASES, ids=[f"{c[2]}-{'x'.join(map(str, c[0]))}" for c in CASES])
def test_values_and_indices_in_xla_order(shape, k, element, dtype):
    x = _values(shape, dtype)
    values, indices = runtime.load(compile(_program(shape, k, element)), device="local-sync").main(x)
    expected_values, expected_indices = _expected(x, k)
    np.testing.assert_array_equal(indices, expected_indices)
    assert values.tobytes() == expected_values.tobytes()  # bit for bit: NaN signs, -0.0


def test_jax_composites_rank_nan_first():
    x = _values((4, 3000), np.float32, seed=1)
    program = _program((4, 3000), 3, "f32", composite=True)
    values, indices = runtime.load(compile(program), device="local-sync").main(x)
    expected_values, expected_indices = _expected(x, 3)
    np.testing.assert_array_equal(indices, expected_indices)
    assert np.isnan(values[:, 0]).any()  # the case arises
    assert values.tobytes() == expected_values.tobytes()
    # IREE's own top-k, which the composite reached before, never picks a NaN
    unlegalized, _ = runtime.load(compile(program, legalize=False), device="local-sync").main(x)
    assert not np.isnan(unlegalized).any()


@pytest.mark.parametrize("length, k, chunk", [(4096, 8, 16), (2048, 8, 16), (50257, 50, 32), (32000, 40, 32),
                                              (2048, 64, 8), (1000, 40, 8), (1280, 40, 8), (1000, 32, 0),
                                              (512, 64, 0), (1000, 3, 0), (64, 2, 0), (12, 5, 0)])
def test_chunks_cut_long_rows_near_the_square_root(length, k, chunk):
    assert chunk_length(length, k) == chunk


def test_devices_without_64_bit_integers_get_the_sort():
    from oxla.pipelines import TARGETS
    from oxla.pipelines.compiler import input_legalization

    assert "distinct-keys=false" in input_legalization(TARGETS["vulkan-spirv"])
    assert "distinct-keys" not in input_legalization(TARGETS["llvm-cpu"])
    program = _program((3, 12), 5, "f32")
    on_vulkan = str(compile(program, target="vulkan-spirv", compile_to="input"))
    on_cpu = str(compile(program, target="llvm-cpu", compile_to="input"))
    assert "xi64>" not in on_vulkan and "iree_linalg_ext.sort" in on_vulkan
    assert "xi64>" in on_cpu
