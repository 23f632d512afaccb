"""Linear algebra: dot_general (and legacy dot), convolution, fft, triangular_solve, cholesky, batch_norm_*.

Products accumulate in the result's element type, except that f16, bf16
and f8 accumulate in f32 (as XLA's CPU code does) and are rounded once.
"""

from __future__ import annotations

import re

import numpy as np

from oxla.interpreter import attrs
from oxla.interpreter.core import register, results
from oxla.interpreter.data_movement import pad
from oxla.interpreter.types import info


def accumulator(result_dtype: np.dtype) -> np.dtype:
    """The dtype products are summed in: f32 for 16-bit and smaller floats, else the result's."""
    if result_dtype.kind == "V" or result_dtype == np.float16:
        return np.dtype(np.float32)
    return result_dtype


def dot_general(lhs, rhs, lhs_batch, rhs_batch, lhs_contract, rhs_contract, dtype: np.dtype):
    """Batch dims, then lhs free dims, then rhs free dims; sums over the contracting dims."""
    lhs_free = [d for d in range(lhs.ndim) if d not in lhs_batch and d not in lhs_contract]
    rhs_free = [d for d in range(rhs.ndim) if d not in rhs_batch and d not in rhs_contract]
    batch_shape = [lhs.shape[d] for d in lhs_batch]
    m_shape, n_shape = [lhs.shape[d] for d in lhs_free], [rhs.shape[d] for d in rhs_free]
    k = int(np.prod([lhs.shape[d] for d in lhs_contract], dtype=np.int64))
    b, m, n = int(np.prod(batch_shape, dtype=np.int64)), int(np.prod(m_shape, dtype=np.int64)), int(
        np.prod(n_shape, dtype=np.int64))
    a = np.transpose(lhs, list(lhs_batch) + lhs_free + list(lhs_contract)).reshape(b, m, k)
    w = np.transpose(rhs, list(rhs_batch) + list(rhs_contract) + rhs_free).reshape(b, k, n)
    compute = accumulator(dtype)
    a, w = a.astype(compute, copy=False), w.astype(compute, copy=False)
    out = _ordered_matmul(a, w) if compute.kind == "c" else np.matmul(a, w)
    return out.reshape(batch_shape + m_shape + n_shape)


def _ordered_matmul(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Batched a @ w summing the products in contraction order, each rounded (no fused multiply-add).

    Used for complex products, where XLA's results follow this order and
    BLAS's fused, blocked sums differ by more than a few ulp.
    """
    out = np.zeros((a.shape[0], a.shape[1], w.shape[2]), dtype=np.result_type(a, w))
    for k in range(a.shape[2]):
        out += a[:, :, k, None] * w[:, None, k, :]
    return out


@register("stablehlo.dot_general")
def _dot_general(op, c):
    numbers = attrs.struct(op, "dot_dimension_numbers")
    dims = [numbers.get(key, []) for key in ("lhs_batching_dimensions", "rhs_batching_dimensions",
                                              "lhs_contracting_dimensions", "rhs_contracting_dimensions")]
    dtype = info(op.results[0].type).dtype
    return lambda lhs, rhs: dot_general(lhs, rhs, *dims, dtype)


@register("stablehlo.dot")
def _dot(op, c):
    """The legacy dot: vector.vector, matrix.vector or matrix.matrix."""
    dtype = info(op.results[0].type).dtype
    return lambda lhs, rhs: dot_general(lhs, rhs, [], [], [lhs.ndim - 1], [0], dtype)


# -- convolution ---------------------------------------------------------------------

_RAW_CONV = re.compile(r"\[([^\]]*)\]x\[([^\]]*)\]->\[([^\]]*)\]")


def conv_dimensions(op) -> dict:
    """The convolution's dimension numbers, from the raw `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` form."""
    text = str(op.attributes["dimension_numbers"])
    match = _RAW_CONV.search(text)
    if not match:
        fields = attrs.struct(op, "dimension_numbers")
        if "input_batch_dimension" not in fields:
            raise NotImplementedError(f"cannot read convolution dimension numbers {text}")
        return fields
    lhs, rhs, out = ([t.strip() for t in part.split(",")] for part in match.groups())

    def spatial(letters):
        numbered = sorted((int(t), i) for i, t in enumerate(letters) if t.isdigit())
        return [i for _, i in numbered]

    return {"input_batch_dimension": lhs.index("b"), "input_feature_dimension": lhs.index("f"),
            "input_spatial_dimensions": spatial(lhs), "kernel_input_feature_dimension": rhs.index("i"),
            "kernel_output_feature_dimension": rhs.index("o"), "kernel_spatial_dimensions": spatial(rhs),
            "output_batch_dimension": out.index("b"), "output_feature_dimension": out.index("f"),
            "output_spatial_dimensions": spatial(out)}


def convolution(lhs, rhs, d: dict, strides, padding, lhs_dilation, rhs_dilation, reversal,
                feature_groups: int, batch_groups: int, dtype: np.dtype, padding_value=0):
    """The convolution of the specification, as one matrix product per kernel position."""
    spatial = len(d["input_spatial_dimensions"])
    x = np.transpose(lhs, [d["input_batch_dimension"], *d["input_spatial_dimensions"], d["input_feature_dimension"]])
    k = np.transpose(rhs, [*d["kernel_spatial_dimensions"], d["kernel_input_feature_dimension"],
                           d["kernel_output_feature_dimension"]])
    flips = tuple(i for i, r in enumerate(reversal) if r)
    if flips:
        k = np.flip(k, axis=flips)
    compute = accumulator(dtype)
    x, k = x.astype(compute, copy=False), k.astype(compute, copy=False)
    if batch_groups > 1:  # batch groups become feature groups: batch split i joins the channels as group i
        n = x.shape[0] // batch_groups
        x = np.moveaxis(x.reshape((batch_groups, n) + x.shape[1:]), 0, -2).reshape(
            (n,) + x.shape[1:-1] + (batch_groups * x.shape[-1],))
        feature_groups = batch_groups
    x = pad(x, np.zeros((), compute), [0] + [lo for lo, _ in padding] + [0], [0] + [hi for _, hi in padding] + [0],
            [0] + [dl - 1 for dl in lhs_dilation] + [0])
    kernel_shape = k.shape[:spatial]
    out_shape = [max((p - ((w - 1) * dl + 1)) // s + 1, 0) for p, w, dl, s in
                 zip(x.shape[1:-1], kernel_shape, rhs_dilation, strides)]
    batch, channels, outputs = x.shape[0], x.shape[-1], k.shape[-1]
    group_in, group_out = channels // feature_groups, outputs // feature_groups
    kg = k.reshape(kernel_shape + (group_in, feature_groups, group_out))
    result = np.zeros((batch * int(np.prod(out_shape, dtype=np.int64)), feature_groups, group_out), dtype=compute)
    for position in np.ndindex(*kernel_shape):
        window = (slice(None),) + tuple(slice(p * dl, p * dl + (o - 1) * s + 1 if o else p * dl, s)
                                        for p, dl, o, s in zip(position, rhs_dilation, out_shape, strides))
        patch = x[window].reshape(-1, feature_groups, group_in)
        weights = kg[position]  # (group_in, groups, group_out)
        if feature_groups == 1:
            result[:, 0, :] += patch[:, 0, :] @ weights[:, 0, :]
        else:
            result += np.einsum("ngc,cgo->ngo", patch, weights)
    out = result.reshape([batch] + out_shape + [outputs])
    order = [d["output_batch_dimension"], *d["output_spatial_dimensions"], d["output_feature_dimension"]]
    return np.transpose(out, np.argsort(order))


@register("stablehlo.convolution")
def _convolution(op, c):
    dims = conv_dimensions(op)
    spatial = len(dims["input_spatial_dimensions"])
    strides = attrs.ints(op, "window_strides", [1] * spatial)
    padding = attrs.padding(op, spatial)
    lhs_dilation = attrs.ints(op, "lhs_dilation", [1] * spatial)
    rhs_dilation = attrs.ints(op, "rhs_dilation", [1] * spatial)
    reversal = attrs.bools(op, "window_reversal", [False] * spatial)
    groups, batch_groups = attrs.integer(op, "feature_group_count", 1), attrs.integer(op, "batch_group_count", 1)
    dtype = info(op.results[0].type).dtype
    return lambda lhs, rhs: convolution(lhs, rhs, dims, strides, padding, lhs_dilation, rhs_dilation, reversal,
                                        groups, batch_groups, dtype)


# -- fft ------------------------------------------------------------------------------

@register("stablehlo.fft")
def _fft(op, c):
    """FFT/IFFT/RFFT/IRFFT over the trailing `fft_length` dimensions (numpy's pocketfft, in the input's precision)."""
    kind, lengths = attrs.enum(op, "fft_type"), attrs.ints(op, "fft_length")
    axes = tuple(range(-len(lengths), 0))

    def kernel(x):
        if kind == "FFT":
            return np.fft.fftn(x, axes=axes)
        if kind == "IFFT":
            return np.fft.ifftn(x, axes=axes)
        if kind == "RFFT":
            return np.fft.rfftn(x, s=lengths, axes=axes)
        return np.fft.irfftn(x, s=lengths, axes=axes)

    return kernel


# -- solvers ----------------------------------------------------------------------------

def triangular_solve(a, b, left_side: bool, lower: bool, unit_diagonal: bool, transpose: str):
    """Solves op(a) x = b (left side) or x op(a) = b by substitution, batched over leading dims."""
    compute = accumulator(a.dtype)
    a, b = a.astype(compute, copy=False), b.astype(compute, copy=False)
    a = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        n = a.shape[-1]
        a = a.copy()
        a[..., np.arange(n), np.arange(n)] = 1
    if transpose != "NO_TRANSPOSE":
        a = np.swapaxes(a, -1, -2)
        a = np.conj(a) if transpose == "ADJOINT" else a
        lower = not lower
    if not left_side:  # x a = b  <=>  a^T x^T = b^T
        a, b, lower = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not lower
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=np.result_type(a, b))
    n = a.shape[-1]
    rows = range(n) if lower else range(n - 1, -1, -1)
    for i in rows:
        known = slice(0, i) if lower else slice(i + 1, n)
        partial = np.einsum("...k,...kj->...j", a[..., i, known], x[..., known, :]) if n else 0
        x[..., i, :] = (b[..., i, :] - partial) / a[..., i, i][..., None]
    return np.swapaxes(x, -1, -2) if not left_side else x


@register("stablehlo.triangular_solve")
def _triangular_solve(op, c):
    left, lower = attrs.flag(op, "left_side"), attrs.flag(op, "lower")
    unit, transpose = attrs.flag(op, "unit_diagonal"), attrs.enum(op, "transpose_a", "NO_TRANSPOSE")
    return lambda a, b: triangular_solve(a, b, left, lower, unit, transpose)


@register("stablehlo.cholesky")
def _cholesky(op, c):
    """The Cholesky factor from the `lower` (or upper) triangle; the other triangle is zero."""
    lower = attrs.flag(op, "lower")

    def kernel(a):
        wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        source = wide if lower else np.conj(np.swapaxes(wide, -1, -2))
        with np.errstate(all="ignore"):
            try:
                factor = np.linalg.cholesky(source)
            except np.linalg.LinAlgError:
                factor = np.full(source.shape, np.nan, dtype=source.dtype)
        return factor if lower else np.conj(np.swapaxes(factor, -1, -2))

    return kernel


# -- batch normalization -------------------------------------------------------------------

def _feature_view(x, feature: int, rank: int):
    """A per-feature vector shaped to broadcast along dimension `feature`."""
    shape = [1] * rank
    shape[feature] = -1
    return np.reshape(x, shape)


@register("stablehlo.batch_norm_inference")
def _batch_norm_inference(op, c):
    epsilon, feature = float(op.attributes["epsilon"].value), attrs.integer(op, "feature_index")

    def kernel(x, scale, offset, mean, variance):
        view = lambda v: _feature_view(v, feature, x.ndim)  # noqa: E731
        return view(scale) * (x - view(mean)) / np.sqrt(view(variance) + epsilon) + view(offset)

    return kernel


@register("stablehlo.batch_norm_training")
def _batch_norm_training(op, c):
    epsilon, feature = float(op.attributes["epsilon"].value), attrs.integer(op, "feature_index")

    def kernel(x, scale, offset):
        axes = tuple(d for d in range(x.ndim) if d != feature)
        mean = np.mean(x, axis=axes)
        variance = np.mean(np.square(x - _feature_view(mean, feature, x.ndim)), axis=axes)
        view = lambda v: _feature_view(v, feature, x.ndim)  # noqa: E731
        out = view(scale) * (x - view(mean)) / np.sqrt(view(variance) + epsilon) + view(offset)
        return results(op, [out, mean, variance])

    return kernel


@register("stablehlo.batch_norm_grad")
def _batch_norm_grad(op, c):
    epsilon, feature = float(op.attributes["epsilon"].value), attrs.integer(op, "feature_index")

    def kernel(x, scale, mean, variance, grad_output):
        axes = tuple(d for d in range(x.ndim) if d != feature)
        view = lambda v: _feature_view(v, feature, x.ndim)  # noqa: E731
        count = x.size // x.shape[feature]
        stddev = np.sqrt(view(variance) + epsilon)
        centered = x - view(mean)
        normalized = centered / stddev
        grad_offset = np.sum(grad_output, axis=axes)
        grad_scale = np.sum(grad_output * normalized, axis=axes)
        grad_x = view(scale) / stddev * (grad_output - view(grad_offset) / count - normalized * view(grad_scale) / count)
        return results(op, [grad_x, grad_scale, grad_offset])

    return kernel


# -- deprecated forms still found in programs -----------------------------------------------

@register("stablehlo.einsum", "stablehlo.unary_einsum")
def _einsum(op, c):
    """XLA's einsum (`einsum_config = "ab,bc->ac"`), summed in the result's accumulator type."""
    config = attrs.string(op, "einsum_config")
    if config.startswith(","):  # unary_einsum writes ",ab->ba"
        config = config[1:]
    compute = accumulator(info(op.results[0].type).dtype)
    return lambda *xs: np.einsum(config, *[x.astype(compute, copy=False) for x in xs])
