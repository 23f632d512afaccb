"""oxla-guard-scatter-indices: scatter updates whose window does not fit in the operand are left out,
as XLA leaves them out (JAX's `x.at[i]` drops an out-of-range i); IREE wrote them outside the operand.
oxla-scatter-slice-updates: a single update does the same as a slice update, in place."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms

from compiled import compiled

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _run_both(fn, *args):
    """(oxla's result, XLA's) of the JAX function `fn` on `args`."""
    text = jax.jit(fn).lower(*args).as_text()
    got = runtime.load(compiled(text, target="llvm-cpu")).main(*args)
    want = jax.jit(fn)(*args)
    return [np.asarray(g) for g in (got if isinstance(got, (list, tuple)) else [got])], \
        [np.asarray(w) for w in (want if isinstance(want, (list, tuple)) else [want])]


IDS = np.array([0, 9, 10, -20, 1_000_000, 3, -1, 2**31 - 1], np.int32)  # -1 wraps to 9 in JAX; the rest out


@pytest.mark.parametrize("update", ["add", "set", "max", "mul"])
def test_out_of_range_rows_are_dropped(update):
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    v = np.arange(IDS.size * 4, dtype=np.float32).reshape(IDS.size, 4) + 100
    fn = {"add": lambda x, i, v: x.at[i].add(v), "set": lambda x, i, v: x.at[i].set(v),
          "max": lambda x, i, v: x.at[i].max(v), "mul": lambda x, i, v: x.at[i].multiply(v)}[update]
    ids = IDS if update != "set" else np.array([0, 10, -20, 3, 2**31 - 1], np.int32)  # set: no duplicates
    got, want = _run_both(fn, x, ids, v[:ids.size])
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("update", ["add", "min"])
def test_points_out_of_range_in_any_index_are_dropped(update):
    x = np.arange(6 * 7 * 4, dtype=np.float32).reshape(6, 7, 4)
    rows = np.array([0, 5, 6, 2, -9, 3, 100], np.int32)
    columns = np.array([0, 6, 1, 7, 2, -8, 3], np.int32)
    v = -np.arange(7 * 4, dtype=np.float32).reshape(7, 4)
    fn = {"add": lambda x, i, j, v: x.at[i, j].add(v), "min": lambda x, i, j, v: x.at[i, j].min(v)}[update]
    got, want = _run_both(fn, x, rows, columns, v)
    np.testing.assert_array_equal(got[0], want[0])


def test_scatters_are_guarded_once_canonical():
    x = np.zeros((10, 4), np.float32)
    text = jax.jit(lambda x, i, v: x.at[i].set(v)).lower(x, IDS[:3], np.ones((3, 4), np.float32)).as_text()
    module = ir.parse(text)
    transforms.run(module, "builtin.module(oxla-canonicalize-scatter,oxla-guard-scatter-indices)")
    assert not ir.verify(module)
    printed = ir.to_text(module)
    assert "stablehlo.pad" in printed and "stablehlo.slice" in printed  # a set has no zero: the padded path
    add = jax.jit(lambda x, i, v: x.at[i].add(v)).lower(x, IDS[:3], np.ones((3, 4), np.float32)).as_text()
    module = ir.parse(add)
    transforms.run(module, "builtin.module(oxla-canonicalize-scatter,oxla-guard-scatter-indices)")
    printed = ir.to_text(module)
    selects = printed.count("stablehlo.select") - add.count("stablehlo.select")
    assert "stablehlo.pad" not in printed and selects == 2  # zeros for the indices and the updates


def test_guarded_scatters_no_longer_promise_unique_indices():
    x = np.zeros((10, 4), np.float32)
    text = jax.jit(lambda x, i, v: x.at[i].add(v, unique_indices=True)).lower(
        x, np.array([1, 20, 30], np.int32), np.ones((3, 4), np.float32)).as_text()
    assert "unique_indices = true" in text
    module = ir.parse(text)
    transforms.run(module, "builtin.module(oxla-canonicalize-scatter,oxla-guard-scatter-indices)")
    assert "unique_indices = true" not in ir.to_text(module)  # two dropped updates now meet at index 0


LEGALIZATION = "builtin.module(oxla-scatter-slice-updates,oxla-canonicalize-scatter,oxla-guard-scatter-indices)"
ONE_UPDATE = {"set": lambda x, i, v: x.at[i].set(v), "add": lambda x, i, v: x.at[i].add(v),
              "max": lambda x, i, v: x.at[i].max(v), "mul": lambda x, i, v: x.at[i].multiply(v)}


@pytest.mark.parametrize("update", sorted(ONE_UPDATE))
@pytest.mark.parametrize("index", [0, 9, -1, -10, 10, -11, 2**31 - 1])
def test_one_row_in_or_out_of_range(update, index):
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    v = np.arange(4, dtype=np.float32) + 100
    got, want = _run_both(ONE_UPDATE[update], x, np.int32(index), v)
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("at", [(2, 3), (5, 6), (6, 0), (0, 7), (-1, -1), (-7, 2)])
def test_one_point_of_a_3d_array(at):
    x = np.arange(6 * 7 * 4, dtype=np.float32).reshape(6, 7, 4)
    v = -np.arange(4, dtype=np.float32)
    got, want = _run_both(lambda x, i, j, v: x.at[i, j].add(v), x, np.int32(at[0]), np.int32(at[1]), v)
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("start", [0, 3, 4, 5, -2])
def test_one_window_of_several_rows(start):
    # x.at[i:i+2] with a traced i is a dynamic_update_slice in JAX; a scatter of a 2-row window is built here
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    v = np.full((2, 4), -1.0, np.float32)

    def fn(x, i, v):
        numbers = jax.lax.ScatterDimensionNumbers(update_window_dims=(0, 1), inserted_window_dims=(),
                                                  scatter_dims_to_operand_dims=(0,))
        return jax.lax.scatter(x, i.reshape(1), v, numbers, mode=jax.lax.GatherScatterMode.FILL_OR_DROP)

    got, want = _run_both(fn, x, np.int32(start), v)
    np.testing.assert_array_equal(got[0], want[0])


def test_one_update_is_a_slice_update_not_a_copy():
    x = np.zeros((10, 4), np.float32)
    for update in ("set", "max"):
        text = jax.jit(ONE_UPDATE[update]).lower(x, np.int32(3), np.ones(4, np.float32)).as_text()
        module = ir.parse(text)
        transforms.run(module, LEGALIZATION)
        assert not ir.verify(module)
        printed = ir.to_text(module)
        assert "stablehlo.pad" not in printed and "stablehlo.dynamic_update_slice" in printed
        assert "\"stablehlo.scatter\"(" not in printed and ("stablehlo.map" in printed) == (update != "set")


@pytest.mark.parametrize("t", [0, 5, 15, -1, 16, -17])
def test_a_cache_column_update_in_place_without_transposes(t):
    cache = np.arange(4 * 16 * 8, dtype=np.float32).reshape(4, 16, 8)
    k = -np.arange(4 * 8, dtype=np.float32).reshape(4, 8)
    fn = lambda c, t, k: c.at[:, t].set(k)  # noqa: E731
    text = jax.jit(fn).lower(cache, np.int32(t), k).as_text()
    module = ir.parse(text)
    transforms.run(module, LEGALIZATION)
    assert "stablehlo.transpose" not in ir.to_text(module)
    got, want = _run_both(fn, cache, np.int32(t), k)
    np.testing.assert_array_equal(got[0], want[0])
