"""Tensor operators and numpy-style functions: the StableHLO they build, checked against numpy by running it.

Every case is one function of a single Program, compiled once for the host
CPU; each test calls its function and compares with numpy.
"""

import numpy as np
import pytest

from oxla import ir
from oxla.builder import Program, Tensor, functions as F

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)).astype(np.float32)
Y = rng.standard_normal((3, 4)).astype(np.float32)
V = rng.standard_normal((4,)).astype(np.float32)
I = np.array([[-7, -3, 0, 5], [7, 3, -8, 9], [1, -1, 6, -6]], np.int32)
J = np.array([[2, -2, 3, -4], [-3, 2, 5, 4], [-1, 1, -4, 4]], np.int32)
B = rng.standard_normal((2, 3, 4)).astype(np.float32)
M = rng.standard_normal((4, 5)).astype(np.float32)
IDX = np.array([2, 0, 1, 2], np.int32)

# name: (function of Tensors, arguments, numpy reference of the same arguments)
CASES = {
    "add_sub_mul": (lambda x, y: x + y * 2 - 1, (X, Y), lambda x, y: x + y * 2 - 1),
    "broadcast_row": (lambda x, v: x * v + v, (X, V), lambda x, v: x * v + v),
    "reflected": (lambda x: 1 - x / 2 + 3 * x, (X,), lambda x: 1 - x / 2 + 3 * x),
    "true_divide_ints": (lambda i, j: i / j, (I, J), lambda i, j: (i / j).astype(np.float32)),
    "floor_divide_ints": (lambda i, j: i // j, (I, J), lambda i, j: i // j),
    "mod_ints": (lambda i, j: i % j, (I, J), lambda i, j: i % j),
    "floor_divide_floats": (lambda x, y: x // y, (X, Y), lambda x, y: x // y),
    "power": (lambda x: abs(x) ** 1.5, (X,), lambda x: np.abs(x) ** np.float32(1.5)),
    "negative_abs": (lambda x: -abs(x), (X,), lambda x: -np.abs(x)),
    "compare_where": (lambda x, y: F.where(x > y, x, y), (X, Y), lambda x, y: np.where(x > y, x, y)),
    "comparisons": (lambda i, j: [(i < j), (i <= j), (i == j), (i != j), (i >= 0)], (I, J),
                    lambda i, j: [i < j, i <= j, i == j, i != j, i >= 0]),
    "bits": (lambda i, j: [i & j, i | j, i ^ j, ~i, i << 2, i >> 1], (I, J),
             lambda i, j: [i & j, i | j, i ^ j, ~i, i << 2, i >> 1]),
    "promote_int_float": (lambda i, x: i + x, (I, X), lambda i, x: (i + x).astype(np.float32)),
    "astype": (lambda x: x.astype("i32"), (X,), lambda x: x.astype(np.int32)),
    "transpose": (lambda x: [x.T, x.transpose(1, 0)], (X,), lambda x: [x.T, x.T]),
    "reshape": (lambda x: [x.reshape(4, 3), x.reshape(-1), x.reshape((2, -1))], (X,),
                lambda x: [x.reshape(4, 3), x.reshape(-1), x.reshape(2, -1)]),
    "index_int_and_slices": (lambda x: [x[1], x[:, 2], x[-1, 1:3], x[::2, ::-1], x[1:, :-1:2]], (X,),
                             lambda x: [x[1], x[:, 2], x[-1, 1:3], x[::2, ::-1], x[1:, :-1:2]]),
    "index_none_ellipsis": (lambda b: [b[..., 0], b[None, 1], b[:, None, 2, ::-2], b[1, ...]], (B,),
                            lambda b: [b[..., 0], b[None, 1], b[:, None, 2, ::-2], b[1, ...]]),
    "index_tensor": (lambda x, idx: [x[idx], x[:, idx]], (X, IDX), lambda x, idx: [x[idx], x[:, idx]]),
    "reductions": (lambda b: [b.sum(), b.sum(axis=1), b.max(axis=(0, 2)), b.min(axis=-1, keepdims=True),
                              b.mean(axis=0), b.prod(axis=2)], (B,),
                   lambda b: [b.sum(), b.sum(axis=1), b.max(axis=(0, 2)), b.min(axis=-1, keepdims=True),
                              b.mean(axis=0), b.prod(axis=2)]),
    "int_reductions": (lambda i: [i.sum(axis=0), i.max(), i.min(axis=1), (i > 0).any(axis=1), (i > -9).all()],
                       (I,), lambda i: [i.sum(axis=0), i.max(), i.min(axis=1), (i > 0).any(axis=1), (i > -9).all()]),
    "matmul_2d": (lambda x, m: x @ m, (X, M), lambda x, m: x @ m),
    "matmul_vectors": (lambda v, m, x: [v @ m, x @ v, v @ v], (V, M, X), lambda v, m, x: [v @ m, x @ v, v @ v]),
    "matmul_batched": (lambda b, m: [b @ m, F.matmul(m.T, b.transpose(0, 2, 1))], (B, M),
                       lambda b, m: [b @ m, m.T @ b.transpose(0, 2, 1)]),
    "softmax_relu": (lambda x: [F.softmax(x), F.relu(x), F.clip(x, -0.5, 0.5)], (X,),
                     lambda x: [np.exp(x - x.max(-1, keepdims=True)) / np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True),
                                np.maximum(x, 0), np.clip(x, -0.5, 0.5)]),
    "math": (lambda x: [F.exp(x), F.tanh(x), F.sigmoid(x)], (X,),
             lambda x: [np.exp(x), np.tanh(x), 1 / (1 + np.exp(-x))]),
    "creation": (lambda x: [F.zeros((2, 2)), F.ones((3,), "i32"), F.full((2,), 7.5), F.arange(5), x + F.arange(4)],
                 (X,), lambda x: [np.zeros((2, 2), np.float32), np.ones(3, np.int32), np.full(2, 7.5, np.float32),
                                  np.arange(5, dtype=np.int32), x + np.arange(4)]),
    "shape_functions": (lambda x, y: [F.concatenate([x, y], axis=1), F.stack([x, y]), F.expand_dims(x, 1),
                                      F.squeeze(F.expand_dims(x, 0)), F.broadcast_to(x[0], (2, 4))], (X, Y),
                        lambda x, y: [np.concatenate([x, y], 1), np.stack([x, y]), x[:, None], x, np.broadcast_to(x[0], (2, 4))]),
}


@pytest.fixture(scope="module")
def program():
    prog = Program()
    for name, (fn, args, _) in CASES.items():
        prog.function(fn, name=name, args=[(a.shape, a.dtype) for a in args])
    return prog


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(program, name):
    fn, args, reference = CASES[name]
    got = program[name](*args)
    want = reference(*args)
    got = list(got) if isinstance(got, tuple) else [got]
    want = want if isinstance(want, list) else [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.shape == w.shape, name
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w.astype(g.dtype) if w.dtype != np.bool_ else w)
        else:
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


def test_the_module_verifies_and_round_trips(program):
    text = str(program)
    with ir.context():
        assert str(ir.parse(text)) == text


def test_integer_floor_division_and_mod_follow_python_signs(program):
    got_div, got_mod = program["floor_divide_ints"](I, J), program["mod_ints"](I, J)
    for a, b, q, r in zip(I.ravel(), J.ravel(), got_div.ravel(), got_mod.ravel()):
        assert (q, r) == (int(a) // int(b), int(a) % int(b))


def test_tensor_has_no_truth_value():
    prog = Program()
    with pytest.raises(TypeError, match="no value while the program is built"):
        @prog.function(args=[((2,), "f32")])
        def f(x):
            return x if x > 0 else -x


def test_shape_errors_name_the_operation_and_the_users_line():
    prog = Program()
    with pytest.raises(ValueError) as info:
        @prog.function(args=[((2, 3), "f32"), ((2,), "f32")])
        def f(x, v):
            return x + v
    assert "add at" in str(info.value) and "test_tensor.py" in str(info.value)
    assert "do not broadcast" in str(info.value)


@pytest.mark.parametrize("key, error", [((0, 0, 0), IndexError), (5, IndexError), ("a", TypeError),
                                        ((Ellipsis, Ellipsis), IndexError)])
def test_bad_indices(key, error):
    prog = Program()
    with pytest.raises(error):
        prog.function(lambda x: x[key], args=[((3, 4), "f32")])


def test_tensor_describes_itself():
    prog = Program()
    seen = {}

    def f(x):
        seen.update(shape=x.shape, dtype=x.dtype, ndim=x.ndim, size=x.size, repr=repr(x), len=len(x))
        return x

    prog.function(f, args=[((3, None), "bf16")])
    assert seen == {"shape": (3, None), "dtype": "bf16", "ndim": 2, "size": None,
                    "repr": "Tensor(tensor<3x?xbf16>)", "len": 3}
    assert str(Tensor[3, None, "bf16"]) == "Tensor[3, ?, 'bf16']"
