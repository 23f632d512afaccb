#!/usr/bin/env python3
"""Single operations beyond the zoo, oxla against XLA: where IREE's code for one op family is weak.

    python -m tools.bench.ops [--ops sort_rows top_k_vocab ...] [--repeat 9]

Each op is a JAX function of fixed inputs, prepared like a zoo model by the
`oxla` and `xla` systems (oxla's defaults; jax.jit), timed on one thread with
its inputs resident (those a program may write copied for each call, as
oxla.runtime copies them), the two interleaved (medians of --repeat samples), and
checked against XLA: sorts and top-k exactly, the rest within the op's
tolerance. Prints one row per op: medians, oxla / XLA, compile seconds, and
the check. Sorts, argsorts, top-k, argmax, transposed, 7x1 and grouped
convolutions, half-precision GEMMs, tiny batched matmuls, row gathers and FFTs
are where oxla replaces IREE's code (sort.py, top_k.py, arg_reductions.py,
convolutions.py, cpu_kernels.py, tiny_matmuls.py, gathers.py and fft.py in
oxla/transforms); the loops, the per-batch row gather and the reflect
padding are where host_loops.py, the scatters' slice updates, the gathers'
loops and the optimizer's concatenations changed the program; the strided
convolution, the fori_loop and the decoding loop show gaps that remain.
"""

from __future__ import annotations

import argparse
import os
import sys

import ml_dtypes
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tools.bench import systems, timing, zoo  # noqa: E402


def _normal(seed: int, *shape) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _sort(axis: int):
    import jax.numpy as jnp

    return lambda x: jnp.sort(x, axis=axis)


def _argsort(x):
    import jax.numpy as jnp

    return jnp.argsort(x, axis=-1)


def _top_k(k: int):
    import jax

    return lambda x: jax.lax.top_k(x, k)


def _argmax(axis: int):
    import jax.numpy as jnp

    return lambda x: jnp.argmax(x, axis=axis)


def _conv(x, w):
    import jax

    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _conv_in(layout: tuple[str, str, str]):
    """An unstrided 'SAME' convolution in `layout` (JAX's dimension-number strings)."""
    def conv(x, w):
        import jax

        return jax.lax.conv_general_dilated(x, w, (1,) * (len(layout[0]) - 2), "SAME", dimension_numbers=layout)
    return conv


def _grouped_conv(groups: int):
    import jax

    return lambda x, w: jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=groups,
                                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _conv_transpose(x, w):
    import jax

    return jax.lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _matmul(a, b):
    return a @ b


def _take_rows(table, ids):
    return table[ids]


def _times_transposed(x, w):
    return x @ w.T


def _segment_sum(rows, ids):
    import jax

    return jax.ops.segment_sum(rows, ids, num_segments=1000)


def _max_pool(x):
    import jax
    import jax.numpy as jnp

    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")


def _mean_pool(x):
    return x.mean(axis=(1, 2))


def _stem(weights: np.ndarray):
    import jax

    return lambda x: jax.lax.conv_general_dilated(x, weights, (2, 2), "SAME",
                                                  dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _decaying_scan(x):
    import jax
    import jax.numpy as jnp

    def step(c, row):
        c = c * 0.9 + row
        return c, c

    return jax.lax.scan(step, jnp.zeros(x.shape[1:], x.dtype), x)[1]


def _fori_rows(x):
    import jax

    return jax.lax.fori_loop(1, x.shape[0], lambda i, x: x.at[i].set(x[i - 1] * 0.5 + x[i]), x)


def _tanh_rnn(xs, w, u):
    """h = tanh(x_t W + h U) over the steps of xs [steps, batch, width], every h stacked (lax.scan)."""
    import jax
    import jax.numpy as jnp

    def step(h, x):
        h = jnp.tanh(x @ w + h @ u)
        return h, h

    return jax.lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)[1]


def _tanh_rnn_from(xs, w, u, h0):
    """_tanh_rnn from a given first state h0 (an argument the loop changes), as a model's RNN layer is called."""
    import jax
    import jax.numpy as jnp

    def step(h, x):
        h = jnp.tanh(x @ w + h @ u)
        return h, h

    return jax.lax.scan(step, h0, xs)[1]


def _batch_rows(x, ids):
    import jax.numpy as jnp

    return x[jnp.arange(x.shape[0])[:, None], ids]


def _decode(xs, wq, wk, wv):
    """256 steps of one-head attention decoding over a batch of 4: each step's key and value written into
    the caches at step t (`cache.at[:, t].set(k)`), the query attending to the steps so far."""
    import jax
    import jax.numpy as jnp

    steps, batch, width = xs.shape

    def step(t, carry):
        h, keys, values = carry
        keys = keys.at[:, t].set(h @ wk)
        values = values.at[:, t].set(h @ wv)
        scores = jnp.einsum("bd,btd->bt", h @ wq, keys) / jnp.sqrt(width)
        scores = jnp.where(jnp.arange(steps)[None, :] <= t, scores, -1e9)
        attended = jnp.einsum("bt,btd->bd", jax.nn.softmax(scores, axis=-1), values)
        return jnp.tanh(attended + xs[t]), keys, values

    start = (jnp.zeros((batch, width)), jnp.zeros((batch, steps, width)), jnp.zeros((batch, steps, width)))
    return jax.lax.fori_loop(0, steps, step, start)[0]


def _attention_step(q, keys, values):
    """One query per head attending over key and value caches: a decoding step of multi-head attention."""
    import jax
    import jax.numpy as jnp

    scores = jnp.einsum("bhqd,bhtd->bhqt", q, keys) / jnp.sqrt(q.shape[-1])
    return jnp.einsum("bhqt,bhtd->bhqd", jax.nn.softmax(scores, axis=-1), values)


def _grouped_query_step(q, keys, values):
    """Grouped-query attention decoding: each key and value head serves a group of query heads."""
    import jax
    import jax.numpy as jnp

    scores = jnp.einsum("bhgd,bhtd->bhgt", q, keys) / jnp.sqrt(q.shape[-1])
    return jnp.einsum("bhgt,bhtd->bhgd", jax.nn.softmax(scores, axis=-1), values)


def _one_hot(ids):
    import jax

    return jax.nn.one_hot(ids, 1000)


def _even_minus_odd(x):
    """x[:, ::2] - x[:, 1::2]: the even and odd lanes of each row apart (as rotary embeddings take them)."""
    return x[:, ::2] - x[:, 1::2]


def _reversed_rows(x):
    """x[:, ::-1]: each row from its end (stablehlo.reverse of the innermost dimension)."""
    return x[:, ::-1]


def _fmod(x, y):
    """jnp.fmod(x, y): C's remainder, with x's sign (a phase wrapped into a period)."""
    import jax.numpy as jnp

    return jnp.fmod(x, y)


def _rotate_halves(x, cos, sin):
    """Rotary embeddings over the two halves of each head's lanes: (a c - b s, b c + a s), concatenated."""
    import jax.numpy as jnp

    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return jnp.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


def _total(x):
    """x.sum(): everything to one value, as a loss ends."""
    return x.sum()


def _column_variance(x):
    """x.var(axis=0): a column mean, then a column sum of squared deviations (batch-norm statistics)."""
    return x.var(axis=0)


def _fake_quantize(x):
    """round(clip(10 x, -100, 100)): the rounding of fake quantization (jnp.round rounds half to even)."""
    import jax.numpy as jnp

    return jnp.round(jnp.clip(x * 10, -100, 100))


def _reflect_pad(x):
    import jax.numpy as jnp

    return jnp.pad(x, ((0, 0), (3, 3), (3, 3), (0, 0)), mode="reflect")


def _complex_normal(seed: int, *shape) -> np.ndarray:
    """Standard complex normal c64 values (real and imaginary parts from two seeds)."""
    return (_normal(seed, *shape) + 1j * _normal(seed + 1, *shape)).astype(np.complex64)


def _fft(x):
    """jnp.fft.fft along the last axis."""
    import jax.numpy as jnp
    return jnp.fft.fft(x)


def _fft_columns(x):
    """jnp.fft.fft along the first axis (JAX transposes it last and back)."""
    import jax.numpy as jnp
    return jnp.fft.fft(x, axis=0)


def _rfft(x):
    """jnp.fft.rfft along the last axis."""
    import jax.numpy as jnp
    return jnp.fft.rfft(x)


def _irfft(x):
    """jnp.fft.irfft along the last axis."""
    import jax.numpy as jnp
    return jnp.fft.irfft(x)


def _fft2(x):
    """jnp.fft.fft2 over the last two axes."""
    import jax.numpy as jnp
    return jnp.fft.fft2(x)


def _rfft2(x):
    """jnp.fft.rfft2 over the last two axes."""
    import jax.numpy as jnp
    return jnp.fft.rfft2(x)


def _irfft2_64(x):
    """jnp.fft.irfft2 over the last two axes to 64 x 64 reals."""
    import jax.numpy as jnp
    return jnp.fft.irfft2(x, s=(64, 64))


def _mlp_with_params(x, *params):
    """The zoo's MLP with its weights and biases as arguments, as JAX models pass their parameters."""
    import jax
    import jax.numpy as jnp

    for i in range(0, len(params), 2):
        x = jnp.matmul(x, params[i]) + params[i + 1]
        if i + 2 < len(params):
            x = jax.nn.relu(x)
    return jax.nn.softmax(x, axis=-1)


def _mlp_params(batch: int) -> list[np.ndarray]:
    """x [batch, 784] and the 784-1024-1024-10 MLP's weights and biases."""
    sizes = (784, 1024, 1024, 10)
    params = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
        params += [_normal(70 + i, fan_in, fan_out) / np.float32(np.sqrt(fan_in)), _normal(73 + i, fan_out) / 10]
    return [_normal(76, batch, 784), *params]


def _linalg(name: str, **options):
    """jnp.linalg.<name>(..., **options), JAX imported when it runs (LAPACK's routines on CPU)."""
    def call(*args):
        import jax.numpy as jnp
        return getattr(jnp.linalg, name)(*args, **options)

    call.__name__ = name
    return call


def _eigh_magnitudes(a):
    """jnp.linalg.eigh's eigenvalues and its eigenvectors' magnitudes (each vector is unique only up to sign, or a
    unit phase for complex ones)."""
    import jax.numpy as jnp
    values, vectors = jnp.linalg.eigh(a)
    return values, jnp.abs(vectors)


def _solve_lower(a, b):
    """jax.scipy.linalg.solve_triangular of a lower triangular system (LAPACK's trsm on CPU)."""
    import jax.scipy.linalg
    return jax.scipy.linalg.solve_triangular(a, b, lower=True)


def _lower_triangular(seed: int, n: int) -> np.ndarray:
    """A lower triangular f32[n, n] with a dominant diagonal: well conditioned."""
    return (np.tril(_normal(seed, n, n)) / np.float32(np.sqrt(n)) + 2 * np.eye(n, dtype=np.float32)).astype(np.float32)


def _symmetric(seed: int, *shape) -> np.ndarray:
    """a + a^T for a standard normal a."""
    a = _normal(seed, *shape)
    return a + np.swapaxes(a, -1, -2)


def _hermitian(seed: int, *shape) -> np.ndarray:
    """a + a^H for a complex standard normal a."""
    a = _complex_normal(seed, *shape)
    return a + np.conj(np.swapaxes(a, -1, -2))


def _positive_definite(seed: int, *shape) -> np.ndarray:
    """a a^T + n I for a standard normal a: symmetric, positive definite, well conditioned."""
    a = _normal(seed, *shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1], dtype=np.float32)).astype(np.float32)


def _hermitian_positive_definite(seed: int, n: int) -> np.ndarray:
    """a a^H + n I for a complex standard normal a: Hermitian, positive definite, well conditioned."""
    a = _complex_normal(seed, n, n)
    return (a @ np.conj(a.T) + n * np.eye(n)).astype(np.complex64)


# name: (description, function factory, inputs, tolerance: 0 for an exact match)
OPS = {
    "sort_rows": ("jnp.sort of f32[64,1024] along rows", lambda: _sort(-1), lambda: [_normal(1, 64, 1024)], 0.0),
    "sort_1d": ("jnp.sort of f32[16384]", lambda: _sort(0), lambda: [_normal(2, 16384)], 0.0),
    "sort_short_rows": ("jnp.sort of f32[1000,64] along rows", lambda: _sort(-1), lambda: [_normal(3, 1000, 64)], 0.0),
    "argsort_rows": ("jnp.argsort of f32[64,1024] along rows", lambda: _argsort, lambda: [_normal(4, 64, 1024)], 0.0),
    "top_k_rows": ("lax.top_k(f32[256,4096], 8)", lambda: _top_k(8), lambda: [_normal(5, 256, 4096)], 0.0),
    "top_k_vocab": ("lax.top_k(f32[64,32000], 40): sampling from a vocabulary", lambda: _top_k(40),
                    lambda: [_normal(6, 64, 32000)], 0.0),
    "argmax_rows": ("jnp.argmax of f32[256,32000] along rows: greedy decoding", lambda: _argmax(-1),
                    lambda: [_normal(15, 256, 32000)], 0.0),
    "argmax_cols": ("jnp.argmax of f32[4096,1024] along columns", lambda: _argmax(0),
                    lambda: [_normal(16, 4096, 1024)], 0.0),
    "conv_bf16_out": ("3x3 convolution of bf16[1,28,28,128] to 128 features, a bf16 result", lambda: _conv,
                      lambda: [_normal(19, 1, 28, 28, 128).astype(ml_dtypes.bfloat16),
                               _normal(20, 3, 3, 128, 128).astype(ml_dtypes.bfloat16)], 1e-2),
    "conv_7x1": ("7x1 convolution (Inception's factorized 7x7), f32[1,17,17,192] to 192 features",
                 lambda: _conv, lambda: [_normal(21, 1, 17, 17, 192), _normal(22, 7, 1, 192, 192)], 1e-4),
    "conv_1d": ("1-D convolution, 5 taps, f32[8,1024,128] to 128 features", lambda: _conv_in(("NWC", "WIO", "NWC")),
                lambda: [_normal(51, 8, 1024, 128), _normal(52, 5, 128, 128) * np.float32(0.1)], 1e-4),
    "conv_nchw": ("3x3 convolution in PyTorch's layout (NCHW, OIHW), f32[1,64,56,56] to 64 features",
                  lambda: _conv_in(("NCHW", "OIHW", "NCHW")),
                  lambda: [_normal(53, 1, 64, 56, 56), _normal(54, 64, 64, 3, 3) * np.float32(0.1)], 1e-4),
    "grouped_conv": ("3x3 convolution in 16 groups (ResNeXt-like), f32[1,28,28,256] to 256 features",
                     lambda: _grouped_conv(16), lambda: [_normal(29, 1, 28, 28, 256), _normal(30, 3, 3, 16, 256)], 1e-4),
    "grouped_conv_32": ("3x3 convolution in 32 groups of 8 (ResNeXt 32x8d's), f32[1,28,28,256] to 256 features",
                        lambda: _grouped_conv(32), lambda: [_normal(33, 1, 28, 28, 256), _normal(34, 3, 3, 8, 256)],
                        1e-4),
    "tiny_matmuls": ("65536 products of f32 4x4 by 4x4 (`a @ b` of [65536,4,4] arrays): batched transforms",
                     lambda: _matmul, lambda: [_normal(35, 65536, 4, 4), _normal(36, 65536, 4, 4)], 1e-4),
    "conv_transpose": ("3x3 transposed convolution, stride 2, f32[1,28,28,128] to 64 features",
                       lambda: _conv_transpose, lambda: [_normal(17, 1, 28, 28, 128), _normal(18, 3, 3, 128, 64)], 1e-4),
    "embedding": ("f32[32000,512][ids] for 4096 ids: an embedding lookup", lambda: _take_rows,
                  lambda: [_normal(31, 32000, 512), np.random.default_rng(32).integers(0, 32000, 4096).astype(np.int32)],
                  0.0),
    "vecmat": ("f32[1,4096] x f32[4096,4096], the matrix an argument: a decoding step's projection",
               lambda: _matmul, lambda: [_normal(23, 1, 4096), _normal(24, 4096, 4096)], 1e-4),
    "gemm_64_rows": ("f32[64,4096] x f32[4096,4096], the matrix an argument: a batch of 64 through a layer",
                     lambda: _matmul, lambda: [_normal(27, 64, 4096), _normal(28, 4096, 4096)], 1e-4),
    "mlp_params": ("MLP batch 64, 784-1024-1024-10, relu, softmax, the weights arguments: a JAX model's parameters",
                   lambda: _mlp_with_params, lambda: _mlp_params(64), 1e-5),
    "vecmat_wt": ("f32[1,4096] x f32[4096,4096]^T, the matrix an argument: PyTorch's Linear layout",
                  lambda: _times_transposed, lambda: [_normal(25, 1, 4096), _normal(26, 4096, 4096)], 1e-4),
    "gemm_bf16_out": ("bf16 GEMM 1024^3 with a bf16 result (jnp's `a @ b`)", lambda: _matmul,
                      lambda: [_normal(11, 1024, 1024).astype(ml_dtypes.bfloat16),
                               _normal(12, 1024, 1024).astype(ml_dtypes.bfloat16)], 1e-2),
    "gemm_f16": ("f16 GEMM 1024^3 with an f16 result", lambda: _matmul,
                 lambda: [_normal(13, 1024, 1024).astype(np.float16), _normal(14, 1024, 1024).astype(np.float16)],
                 1e-3),
    "max_pool": ("3x3 max pool, stride 2, of f32[1,112,112,64] (NHWC)", lambda: _max_pool,
                 lambda: [_normal(7, 1, 112, 112, 64)], 0.0),
    "mean_pool": ("global mean pool of f32[8,7,7,2048] (NHWC)", lambda: _mean_pool,
                  lambda: [_normal(8, 8, 7, 7, 2048)], 1e-5),
    "segment_sum": ("jax.ops.segment_sum of f32[65536,64] into 1000 segments: a scatter-add of rows",
                    lambda: _segment_sum,
                    lambda: [_normal(37, 65536, 64), np.random.default_rng(38).integers(0, 1000, 65536).astype(np.int32)],
                    1e-3),
    "stem_conv": ("7x7 convolution, stride 2, f32[1,224,224,3] to 64 features", lambda: _stem(_normal(9, 7, 7, 3, 64)),
                  lambda: [_normal(10, 1, 224, 224, 3)], 1e-4),
    "scan": ("lax.scan of c = 0.9 c + x[t] over f32[1024,4096], every c stacked: a recurrence",
             lambda: _decaying_scan, lambda: [_normal(39, 1024, 4096)], 1e-5),
    "fori_rows": ("fori_loop setting x[i] = 0.5 x[i-1] + x[i] over the rows of f32[1024,4096]",
                  lambda: _fori_rows, lambda: [_normal(40, 1024, 4096)], 1e-5),
    "tanh_rnn": ("256 steps of h = tanh(x_t W + h U), batch 4, width 128 (lax.scan): small matmuls every trip",
                 lambda: _tanh_rnn,
                 lambda: [_normal(66, 256, 4, 128), *(_normal(67 + i, 128, 128) * np.float32(0.08) for i in range(2))],
                 1e-4),
    "tanh_rnn_h0": ("tanh_rnn from a first state h0 passed in", lambda: _tanh_rnn_from,
                    lambda: [_normal(66, 256, 4, 128), *(_normal(67 + i, 128, 128) * np.float32(0.08) for i in range(2)),
                             _normal(69, 4, 128)], 1e-4),
    "batch_rows": ("x[b, ids[b, j]]: 128 rows of each of the 32 batches of f32[32,512,768]", lambda: _batch_rows,
                   lambda: [_normal(41, 32, 512, 768), np.random.default_rng(42).integers(0, 512, (32, 128)).astype(np.int32)],
                   0.0),
    "decode": ("256 steps of attention decoding with key and value caches f32[4,256,128] (fori_loop)",
               lambda: _decode,
               lambda: [_normal(44, 256, 4, 128), *(_normal(45 + i, 128, 128) * np.float32(0.1) for i in range(3))],
               1e-4),
    "attention_step": ("one query attending over caches f32[4,8,1024,64] (batch, heads, steps, width)",
                       lambda: _attention_step,
                       lambda: [_normal(48, 4, 8, 1, 64), _normal(49, 4, 8, 1024, 64), _normal(50, 4, 8, 1024, 64)],
                       1e-4),
    "grouped_query_step": ("grouped-query attention decoding: 4 query heads per key head over caches "
                           "f32[4,8,1024,64]", lambda: _grouped_query_step,
                           lambda: [_normal(56, 4, 8, 4, 64), _normal(57, 4, 8, 1024, 64), _normal(58, 4, 8, 1024, 64)],
                           1e-4),
    "one_hot": ("jax.nn.one_hot of 4096 ids into 1000 classes", lambda: _one_hot,
                lambda: [np.random.default_rng(55).integers(0, 1000, 4096).astype(np.int32)], 0.0),
    "even_odd_lanes": ("x[:, ::2] - x[:, 1::2] of f32[4096,1024] (the even and odd lanes of each row)",
                       lambda: _even_minus_odd, lambda: [_normal(59, 4096, 1024)], 0.0),
    "rotary_halves": ("rotary embeddings of the two halves of f32[8,512,16,64] (batch, steps, heads, lanes)",
                      lambda: _rotate_halves,
                      lambda: [_normal(63, 8, 512, 16, 64), _normal(64, 512, 1, 32), _normal(65, 512, 1, 32)], 1e-6),
    "total_sum": ("x.sum() of f32[4096,1024], x >= 0 (a loss's terms)", lambda: _total,
                  lambda: [np.abs(_normal(62, 4096, 1024))], 1e-5),
    "column_variance": ("x.var(axis=0) of f32[4096,1024]", lambda: _column_variance,
                        lambda: [_normal(61, 4096, 1024)], 1e-5),
    "fake_quantize": ("jnp.round(jnp.clip(10 x, -100, 100)) of f32[4096,1024]", lambda: _fake_quantize,
                      lambda: [_normal(60, 4096, 1024)], 0.0),
    "reflect_pad": ("jnp.pad(mode='reflect') of f32[8,56,56,64] by 3 in H and W", lambda: _reflect_pad,
                    lambda: [_normal(43, 8, 56, 56, 64)], 0.0),
    "reversed_rows": ("x[:, ::-1] of f32[4096,1024]", lambda: _reversed_rows, lambda: [_normal(69, 4096, 1024)], 0.0),
    "fft_rows": ("jnp.fft.fft of c64[64,1024] along rows", lambda: _fft, lambda: [_complex_normal(90, 64, 1024)], 1e-5),
    "fft_columns": ("jnp.fft.fft of c64[1024,64] along columns (axis 0)", lambda: _fft_columns,
                    lambda: [_complex_normal(100, 1024, 64)], 1e-5),
    "rfft_rows": ("jnp.fft.rfft of f32[64,1024] along rows: a spectrum of real signals", lambda: _rfft,
                  lambda: [_normal(92, 64, 1024)], 1e-5),
    "irfft_rows": ("jnp.fft.irfft of c64[64,513] to f32[64,1024]", lambda: _irfft,
                   lambda: [_complex_normal(93, 64, 513)], 1e-5),
    "fft_1000": ("jnp.fft.fft of c64[64,1000] along rows (a length of 2^3 5^3)", lambda: _fft,
                 lambda: [_complex_normal(95, 64, 1000)], 1e-5),
    "fft2": ("jnp.fft.fft2 of c64[8,256,256]: 2-D spectra, as spectral convolutions take them", lambda: _fft2,
             lambda: [_complex_normal(97, 8, 256, 256)], 1e-5),
    "rfft2_channels": ("jnp.fft.rfft2 of f32[8,32,64,64] (batch, channels, H, W): a Fourier neural operator layer's "
                       "spectrum", lambda: _rfft2, lambda: [_normal(99, 8, 32, 64, 64)], 1e-5),
    "irfft2_channels": ("jnp.fft.irfft2 of c64[8,32,64,33] to f32[8,32,64,64]: the same layer's way back",
                        lambda: _irfft2_64, lambda: [_complex_normal(98, 8, 32, 64, 33)], 1e-5),
    "solve": ("jnp.linalg.solve of f32[256,256] for 8 right-hand sides", lambda: _linalg("solve"),
              lambda: [_normal(110, 256, 256), _normal(111, 256, 8)], 1e-3),
    "solve_batched": ("jnp.linalg.solve of 4096 systems f32[4,4], one right-hand side each", lambda: _linalg("solve"),
                      lambda: [_normal(112, 4096, 4, 4), _normal(113, 4096, 4, 1)], 1e-3),
    "solve_triangular": ("jax.scipy.linalg.solve_triangular of f32[256,256], lower, for 8 right-hand sides",
                         lambda: _solve_lower, lambda: [_lower_triangular(119, 256), _normal(120, 256, 8)], 1e-4),
    "solve_complex": ("jnp.linalg.solve of c64[128,128], 8 right-hand sides", lambda: _linalg("solve"),
                      lambda: [_complex_normal(126, 128, 128), _complex_normal(128, 128, 8)], 1e-3),
    "cholesky": ("jnp.linalg.cholesky of f32[256,256], positive definite", lambda: _linalg("cholesky"),
                 lambda: [_positive_definite(114, 256, 256)], 1e-4),
    "cholesky_complex": ("jnp.linalg.cholesky of c64[128,128], Hermitian positive definite",
                         lambda: _linalg("cholesky"), lambda: [_hermitian_positive_definite(125, 128)], 1e-4),
    "qr": ("jnp.linalg.qr of f32[256,128]", lambda: _linalg("qr"), lambda: [_normal(115, 256, 128)], 1e-4),
    "qr_complex": ("jnp.linalg.qr of c64[128,64]", lambda: _linalg("qr"), lambda: [_complex_normal(129, 128, 64)],
                   1e-4),
    "eigvalsh": ("jnp.linalg.eigvalsh of f32[128,128], symmetric", lambda: _linalg("eigvalsh"),
                 lambda: [_symmetric(116, 128, 128)], 1e-4),
    "eigh": ("jnp.linalg.eigh of f32[128,128], symmetric (the eigenvectors' magnitudes)", lambda: _eigh_magnitudes,
             lambda: [_symmetric(116, 128, 128)], 1e-4),
    "eigvalsh_batched": ("jnp.linalg.eigvalsh of 4096 symmetric f32[3,3]", lambda: _linalg("eigvalsh"),
                         lambda: [_symmetric(117, 4096, 3, 3)], 1e-4),
    "eigvalsh_complex": ("jnp.linalg.eigvalsh of c64[64,64], Hermitian", lambda: _linalg("eigvalsh"),
                         lambda: [_hermitian(121, 64, 64)], 1e-4),
    "eigh_complex": ("jnp.linalg.eigh of c64[64,64], Hermitian (the eigenvectors' magnitudes)",
                     lambda: _eigh_magnitudes, lambda: [_hermitian(121, 64, 64)], 1e-4),
    "svdvals": ("singular values of f32[256,64] (jnp.linalg.svd, compute_uv=False)",
                lambda: _linalg("svd", compute_uv=False),
                lambda: [_normal(118, 256, 64)], 1e-4),
    "svdvals_complex": ("singular values of c64[128,64] (jnp.linalg.svd, compute_uv=False)",
                        lambda: _linalg("svd", compute_uv=False), lambda: [_complex_normal(123, 128, 64)], 1e-4),
    "pinv": ("jnp.linalg.pinv of f32[256,64] (an SVD with vectors)", lambda: _linalg("pinv"),
             lambda: [_normal(122, 256, 64)], 1e-4),
    "pinv_complex": ("jnp.linalg.pinv of c64[128,64] (a complex SVD with vectors)", lambda: _linalg("pinv"),
                     lambda: [_complex_normal(124, 128, 64)], 1e-4),
    "fmod": ("jnp.fmod(x, y) of f32[1024,1024], |x| up to about 400 |y|", lambda: _fmod,
             lambda: [_normal(80, 1024, 1024) * np.float32(100), _normal(81, 1024, 1024)], 0.0),
}


def build(name: str) -> zoo.Model:
    """The op called `name` (see OPS) as a zoo.Model, its inputs on 64-byte boundaries."""
    description, factory, inputs, tolerance = OPS[name]
    return zoo.Model(name, description, factory(), [zoo.aligned(a) for a in inputs()], tolerance=tolerance)


def _check(got: list[np.ndarray], want: list[np.ndarray], tolerance: float) -> str:
    """'exact', 'within tol', or what differs."""
    if tolerance == 0.0:
        same = len(got) == len(want) and all(np.array_equal(g, w, equal_nan=True) for g, w in zip(got, want))
        return "exact" if same else "DIFFERS"
    error = timing.relative_error(got, want)
    return f"err {error:.1e}" if error <= tolerance else f"WRONG (err {error:.1e})"


def measure_op(name: str, repeat: int) -> dict:
    """One op on both systems: resident medians, compile seconds, and the check against XLA."""
    model = build(name)
    prepared = {s: systems.make(s, systems.Settings()).prepare(model) for s in ("oxla", "xla")}
    outputs = {s: p.call(model.inputs) for s, p in prepared.items()}
    check = _check(outputs["oxla"], outputs["xla"], model.tolerance)
    calls = {s: p.resident(model.inputs) for s, p in prepared.items()}
    samples = timing.measure(calls, repeat, min_time=0.05)
    medians = {s: timing.median(v) for s, v in samples.items()}
    return {"oxla_s": medians["oxla"], "xla_s": medians["xla"], "ratio": medians["oxla"] / medians["xla"],
            "compile_s": {s: p.compile_s for s, p in prepared.items()}, "check": check}


def row(name: str, result: dict) -> str:
    compile_s = result["compile_s"]
    return (f"{name:16s} {result['oxla_s'] * 1e3:9.3f} {result['xla_s'] * 1e3:9.3f} {result['ratio']:6.2f}"
            f"   {compile_s['oxla']:5.2f} / {compile_s['xla']:5.2f} s   {result['check']}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ops", nargs="+", choices=list(OPS), default=list(OPS))
    p.add_argument("--repeat", type=int, default=9, help="samples per system and op (default 9)")
    args = p.parse_args(argv)
    systems.configure_process(1)
    for name in ("oxla", "xla"):
        why = systems.make(name, systems.Settings()).missing()
        if why:
            print(f"cannot run {name}: {why}", file=sys.stderr)
            return 2
    print(f"{'op':16s} {'oxla ms':>9s} {'XLA ms':>9s} {'ratio':>6s}   compile oxla / XLA   check")
    wrong = 0
    for name in args.ops:
        try:
            result = measure_op(name, args.repeat)
        except Exception as exc:  # an op that does not import, compile or run is reported; the rest still run
            wrong += 1
            print(f"{name:16s} FAILED: {type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}", flush=True)
            continue
        wrong += result["check"].startswith(("DIFFERS", "WRONG"))
        print(row(name, result), flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
