"""oxla's sort passes (oxla/transforms/sort.py): sorts carrying small dense constants compile, stable
sorts keep equal elements in order, and sorts run as bitonic networks give exactly a stable sort's
results."""

import numpy as np
import pytest

from oxla import runtime
from oxla.pipelines import CompileError, compile
from oxla.transforms.sort import _rounds, network_is_cheaper

NETWORK = {"before:input": "builtin.module(oxla-llvmcpu-sort-networks{always=true})"}
WITHOUT = ["oxla-llvmcpu-sort-networks"]

# An argsort, descending, of f32[3,12]: oxla-fold-constants folds the iota (36 elements) into a constant.
ARGSORT = """func.func @main(%x: tensor<3x12xf32>) -> (tensor<3x12xf32>, tensor<3x12xi32>) {
  %i = PAYLOAD
  %0:2 = "stablehlo.sort"(%x, %i) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<3x12xf32>, tensor<3x12xi32>) -> (tensor<3x12xf32>, tensor<3x12xi32>)
  return %0#0, %0#1 : tensor<3x12xf32>, tensor<3x12xi32>
}
"""
PAYLOAD = np.arange(36, dtype=np.int32).reshape(3, 12) * 7 % 11
PAYLOADS = {
    "iota": "stablehlo.iota dim = 1 : tensor<3x12xi32>",
    "dense": f"stablehlo.constant dense<{PAYLOAD.tolist()}> : tensor<3x12xi32>",
}


# Without oxla's optimizer an iota stays an op, which IREE computes in the dispatch: no constant.
@pytest.mark.parametrize("payload, optimize", [("iota", True), ("dense", True), ("dense", False)])
def test_sorts_carrying_small_constants_compile_and_run(payload, optimize):
    x = np.random.default_rng(0).standard_normal((3, 12)).astype(np.float32)
    values, carried = runtime.load(compile(ARGSORT.replace("PAYLOAD", PAYLOADS[payload]), optimize=optimize),
                                   device="local-sync").main(x)
    order = np.argsort(-x, axis=1, kind="stable")
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, 1))
    expected = order if payload == "iota" else np.take_along_axis(PAYLOAD, order, 1)
    np.testing.assert_array_equal(carried, expected)


def test_without_the_legalization_iree_rejects_the_program():
    with pytest.raises(CompileError, match="write affecting operations on global resources"):
        compile(ARGSORT.replace("PAYLOAD", PAYLOADS["dense"]), legalize=False)


def _sort(shape, dim: int, types: list[str], comparator: str) -> str:
    """A StableHLO program sorting one argument per element type along `dim`; `comparator` is the body
    over %a0 %b0 %a1 %b1 ... that ends in `stablehlo.return`."""
    dims = "x".join(map(str, shape))
    tensors = [f"tensor<{dims}x{t}>" for t in types]
    params = ", ".join(f"%x{i}: {t}" for i, t in enumerate(tensors))
    args = ", ".join(f"%a{i}: tensor<{t}>, %b{i}: tensor<{t}>" for i, t in enumerate(types))
    operands = ", ".join(f"%x{i}" for i in range(len(types)))
    results = ", ".join(f"%0#{i}" for i in range(len(types)))
    listed = ", ".join(tensors)
    return f"""func.func @main({params}) -> ({listed}) {{
  %0:{len(types)} = "stablehlo.sort"({operands}) <{{dimension = {dim} : i64, is_stable = true}}> ({{
  ^bb0({args}):
{comparator}
  }}) : ({listed}) -> ({listed})
  return {results} : {listed}
}}
"""


ASCENDING = """    %c = stablehlo.compare LT, %a0, %b0, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>"""
# Descending by the first key, then ascending by the second.
TWO_KEYS = """    %gt = stablehlo.compare GT, %a0, %b0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a0, %b0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %a1, %b1, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %c = stablehlo.or %gt, %tie : tensor<i1>
    stablehlo.return %c : tensor<i1>"""
BOOLEAN = """    %t = stablehlo.constant dense<true> : tensor<i1>
    %nb = stablehlo.xor %b0, %t : tensor<i1>
    %c = stablehlo.and %a0, %nb : tensor<i1>
    stablehlo.return %c : tensor<i1>"""


def _total_order(x: np.ndarray) -> np.ndarray:
    """int32 keys that order f32 values as TOTALORDER does (-NaN < -inf < ... < -0 < 0 < ... < NaN)."""
    bits = x.view(np.int32)
    return bits ^ ((bits >> 31) & 0x7FFFFFFF)


def _run(source: str, *arrays, hooks=None, disable=()):
    module = runtime.load(compile(source, hooks=hooks, disable_passes=list(disable)), device="local-sync")
    out = module.main(*arrays)
    return out if isinstance(out, tuple) else (out,)


def _floats(shape, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape).astype(np.float32)  # many ties
    flat = x.reshape(-1)
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -1e-45], np.float32)
    flat[:8] = special[:flat.size]
    rng.shuffle(flat)
    return x


@pytest.mark.parametrize("shape, dim", [((5, 100), 1), ((70, 3), 0), ((2, 37, 3), 1), ((2,), 0), ((130,), 0)])
def test_floats_sort_in_total_order_and_stably(shape, dim):
    x = _floats(shape)
    (got,) = _run(_sort(shape, dim, ["f32"], ASCENDING), x, hooks=NETWORK, disable=WITHOUT)
    order = np.argsort(_total_order(x), axis=dim, kind="stable")
    expected = np.take_along_axis(x, order, dim)
    assert got.view(np.int32).tolist() == expected.view(np.int32).tolist()  # bit for bit: NaN signs, -0.0


def test_several_keys_and_a_payload_keep_a_stable_order():
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 3, (4, 90)).astype(np.int32)
    minor = rng.integers(-2, 2, (4, 90)).astype(np.int8)
    payload = np.broadcast_to(np.arange(90, dtype=np.float32), (4, 90)).copy()
    source = _sort((4, 90), 1, ["i32", "i8", "f32"], TWO_KEYS)
    got = _run(source, keys, minor, payload, hooks=NETWORK, disable=WITHOUT)
    order = np.stack([np.lexsort((np.arange(90), minor[r], -keys[r].astype(np.int64))) for r in range(4)])
    for out, array in zip(got, (keys, minor, payload)):
        np.testing.assert_array_equal(out, np.take_along_axis(array, order, 1))
    # IREE's own sort, its equal elements put in order by oxla-legalize-stable-sorts, agrees
    for out, theirs in zip(got, _run(source, keys, minor, payload, disable=WITHOUT)):
        np.testing.assert_array_equal(out, theirs)


ARGSORT_KEYS = """    %c = stablehlo.compare LT, %a0, %b0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>"""


@pytest.mark.parametrize("shape", [(4, 8), (1, 16), (3, 7)])
@pytest.mark.parametrize("legalize", [True, False])
def test_stable_sorts_keep_equal_elements_in_order(shape, legalize):
    rng = np.random.default_rng(4)
    keys = rng.integers(0, 3, shape).astype(np.int32)
    positions = np.broadcast_to(np.arange(shape[1], dtype=np.int32), shape).copy()
    program = compile(_sort(shape, 1, ["i32", "i32"], ARGSORT_KEYS), legalize=legalize, optimize=False)
    _, order = runtime.load(program, device="local-sync").main(keys, positions)
    stable = np.argsort(keys, 1, kind="stable")
    if legalize:
        np.testing.assert_array_equal(order, stable)
    else:  # the case arises: IREE's own sort puts some equal elements out of order
        assert not np.array_equal(order, stable)
        np.testing.assert_array_equal(np.take_along_axis(keys, order, 1), np.sort(keys, 1))


# jnp.sort's comparator: -0.0 sorts as 0.0 and every NaN as one NaN, so equal keys can differ in bits.
CANONICAL = """    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %az = stablehlo.compare EQ, %a0, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %a1 = stablehlo.select %az, %zero, %a0 : tensor<i1>, tensor<f32>
    %an = stablehlo.compare NE, %a0, %a0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %a2 = stablehlo.select %an, %nan, %a1 : tensor<i1>, tensor<f32>
    %bz = stablehlo.compare EQ, %b0, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %b1 = stablehlo.select %bz, %zero, %b0 : tensor<i1>, tensor<f32>
    %bn = stablehlo.compare NE, %b0, %b0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %b2 = stablehlo.select %bn, %nan, %b1 : tensor<i1>, tensor<f32>
    %c = stablehlo.compare LT, %a2, %b2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>"""


# 3x20 goes to IREE's sort, 4x300 to the network (the cost model's choice), each with positions added.
@pytest.mark.parametrize("shape", [(3, 20), (4, 300)])
def test_equal_keys_of_other_bits_keep_their_order(shape):
    rng = np.random.default_rng(5)
    x = rng.choice(np.array([0.0, -0.0, np.nan, -np.nan, 1.0, -1.0], np.float32), shape)
    (got,) = _run(_sort(shape, 1, ["f32"], CANONICAL), x)
    canonical = np.where(np.isnan(x), np.float32(np.nan), np.where(x == 0, np.float32(0.0), x))
    order = np.argsort(_total_order(canonical), axis=1, kind="stable")
    assert got.view(np.int32).tolist() == np.take_along_axis(x, order, 1).view(np.int32).tolist()


def test_booleans_with_a_constant_in_the_comparator():
    x = np.random.default_rng(2).integers(0, 2, (3, 65)).astype(bool)
    (got,) = _run(_sort((3, 65), 1, ["i1"], BOOLEAN), x, hooks=NETWORK, disable=WITHOUT)
    np.testing.assert_array_equal(got, -np.sort(-x.astype(np.int8), 1) > 0)  # true before false


def test_the_cost_model_leaves_short_sorts_to_iree():
    long_rows = str(compile(_sort((8, 256), 1, ["f32"], ASCENDING), compile_to="input"))
    short_rows = str(compile(_sort((4, 8), 1, ["f32"], ASCENDING), compile_to="input"))
    assert "iree_linalg_ext.sort" not in long_rows and ("scf.while" in long_rows or "scf.for" in long_rows)
    assert "iree_linalg_ext.sort" in short_rows
    assert network_is_cheaper([8, 256], 1) and not network_is_cheaper([4, 8], 1)


def test_the_default_pipeline_sorts_long_rows_correctly():
    x = _floats((8, 256), seed=3)
    (got,) = _run(_sort((8, 256), 1, ["f32"], ASCENDING), x)
    order = np.argsort(_total_order(x), axis=1, kind="stable")
    assert got.view(np.int32).tolist() == np.take_along_axis(x, order, 1).view(np.int32).tolist()


@pytest.mark.parametrize("padded, count", [(2, 1), (4, 3), (8, 6), (1024, 55)])
def test_rounds_merge_runs_of_two_four_and_so_on(padded, count):
    rounds = _rounds(padded)
    assert len(rounds) == count
    assert rounds[0] == (1, 1) and rounds[-1] == ((1, 0) if padded > 2 else (1, 1))
    assert [d for d, mirror in rounds if mirror] == [2 ** i for i in range(count and padded.bit_length() - 1)]
