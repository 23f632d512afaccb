"""oxla.jit: tracing, compiling, running, and caching by argument signature."""

import numpy as np
import pytest

import oxla
from oxla.builder import jit


def test_jit_runs_and_caches_by_shape_and_dtype():
    calls = []

    @jit
    def f(x, y):
        calls.append(1)
        return (x @ y).max(axis=-1) + 1

    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    b = np.ones((4, 3), np.float32)
    np.testing.assert_allclose(f(a, b), (a @ b).max(-1) + 1)
    np.testing.assert_allclose(f(a * 2, b), (a * 2 @ b).max(-1) + 1)
    assert f.cache_size == 1 and len(calls) == 1
    c = np.ones((5, 4), np.float32)
    np.testing.assert_allclose(f(c, b), (c @ b).max(-1) + 1)
    assert f.cache_size == 2 and len(calls) == 2
    f(a.astype(np.float64), b.astype(np.float64))
    assert f.cache_size == 3
    f.clear_cache()
    assert f.cache_size == 0


def test_static_arguments_and_tuple_results():
    @oxla.jit(static_argnums=1)
    def split(x, axis):
        return x.sum(axis=axis), x.max(axis=axis)

    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    s, m = split(x, 0)
    np.testing.assert_array_equal(s, x.sum(0))
    np.testing.assert_array_equal(m, x.max(0))
    s, _ = split(x, 1)
    np.testing.assert_array_equal(s, x.sum(1))
    assert split.cache_size == 2


def test_lower_gives_the_traced_program():
    f = jit(lambda x: x * 2.0)
    text = str(f.lower(np.zeros((3,), np.float32)))
    assert "func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32>" in text
    assert "stablehlo.multiply" in text


def test_bad_arguments():
    f = jit(lambda x: x)
    with pytest.raises(ValueError, match="argument 0 has dtype object"):
        f(np.array([object()]))
    with pytest.raises(ValueError, match="static arguments must be hashable"):
        jit(lambda x, s: x, static_argnums=1)(np.zeros(2, np.float32), [1])
