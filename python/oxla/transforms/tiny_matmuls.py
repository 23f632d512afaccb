"""Batched matmuls of tiny matrices, written out as element-wise products summed.

oxla-llvmcpu-unroll-tiny-batch-matmuls: a dot_general with batch dimensions
whose contraction is short (K at most MAX_TERMS, or at most MAX_SMALL_TERMS
when the result matrices have at most MAX_SMALL_OUTPUTS elements): 65536
rotations or 4x4 transforms at once, many small heads. IREE's data tiling
packs each operand into 8x8 (AVX2) or 16x16 tiles and runs one tiny
matmul per batch element, most of it padding: on an AVX2 Zen 3, 65536
products of 4x4 by 4x4 took 4.3-4.8 ms (XLA 0.6-0.7 ms), 3x3 3.9-4.2 ms (XLA
0.7-0.85), 2x2 1.8-2.6 ms (XLA 0.24-0.32), 8x8 1.8 ms (XLA 1.0-1.5).

The product is written as K terms, lhs[..., :, k] broadcast along the
result's columns times rhs[..., k, :] broadcast along its rows, added in
order of k: element-wise work IREE fuses into one dispatch and vectorizes
over whole batches: 0.46, 0.38, 0.14 and 0.60 ms for the four above.
Longer contractions of larger matrices stay matmuls (16x16 by 16x16
written out ran at 2.8x XLA's time against the matmul's 1.9x-2.5x).
bf16 and f16 operands sum in f32 and round once, as XLA's dots do.
"""

from __future__ import annotations

import math

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.cpu_kernels import contraction_dims
from oxla.transforms.registry import RewritePass, register_pass

# Longest contraction written out for any result size.
MAX_TERMS = 8
# Longest one written out for result matrices of at most MAX_SMALL_OUTPUTS elements (4x16 by 16x4:
# 6.9 -> 0.63 ms, XLA 2.5 ms).
MAX_SMALL_TERMS = 16
MAX_SMALL_OUTPUTS = 64


def _sizes(op) -> tuple[list[int], list[int], list[int], list[int]] | None:
    """(lhs batch, lhs contracting, lhs free, rhs free) dimensions of a batched dot_general of static
    float shapes; None for any other op."""
    if op.name != "stablehlo.dot_general":
        return None
    dims = contraction_dims(op)
    if dims is None or not dims[0]:
        return None
    lhs, rhs = list(op.operands)[:2]
    if not all(ir.RankedTensorType(v.type).has_static_shape for v in (lhs, rhs, op.results[0])):
        return None
    if not all(isinstance(build.element(v), ir.FloatType) for v in (lhs, rhs, op.results[0])):
        return None
    lhs_batch, rhs_batch, lhs_sum, rhs_sum = dims
    lhs_free = [d for d in range(len(build.shape(lhs))) if d not in lhs_batch + lhs_sum]
    rhs_free = [d for d in range(len(build.shape(rhs))) if d not in rhs_batch + rhs_sum]
    return lhs_batch, lhs_sum, lhs_free, rhs_free


def unrolled(op) -> bool:
    """Whether the pass writes `op` out: a batched float dot_general whose contraction is short enough
    (module docstring)."""
    sizes = _sizes(op)
    if sizes is None:
        return False
    lhs, rhs = list(op.operands)[:2]
    _, lhs_sum, lhs_free, rhs_free = sizes
    terms = math.prod(build.shape(lhs)[d] for d in lhs_sum)
    outputs = math.prod(build.shape(lhs)[d] for d in lhs_free) * math.prod(build.shape(rhs)[d] for d in rhs_free)
    return terms <= MAX_TERMS or (terms <= MAX_SMALL_TERMS and outputs <= MAX_SMALL_OUTPUTS)


def _as_matrices(value, batch: list[int], first: list[int], second: list[int], wide):
    """`value` transposed to [batch..., first..., second...] and reshaped to [B..., F, S], as `wide`s."""
    dims = build.shape(value)
    moved = build.transpose(value, batch + first + second)
    sizes = [dims[d] for d in batch] + [math.prod(dims[d] for d in first), math.prod(dims[d] for d in second)]
    return build.convert(build.reshape(moved, sizes), wide)


def _column(matrices, index: int, dim: int):
    """The `index`-th slice of [B..., X, Y] `matrices` along `dim` (-1: Y, -2: X), that dim dropped."""
    dims = build.shape(matrices)
    axis = len(dims) + dim
    starts = [index if d == axis else 0 for d in range(len(dims))]
    limits = [index + 1 if d == axis else n for d, n in enumerate(dims)]
    part = build.strided_slice(matrices, starts, limits, [1] * len(dims))
    return build.reshape(part, [n for d, n in enumerate(dims) if d != axis])


def _terms_summed(op):
    """`op` as the sum over its contraction of the outer products of lhs columns and rhs rows."""
    lhs, rhs = list(op.operands)[:2]
    lhs_batch, rhs_batch, lhs_sum, rhs_sum = contraction_dims(op)
    _, _, lhs_free, rhs_free = _sizes(op)
    result = op.results[0]
    element = build.element(result)
    wide = build.summing_type(element)
    a = _as_matrices(lhs, lhs_batch, lhs_free, lhs_sum, wide)  # [B..., M, K]
    b = _as_matrices(rhs, rhs_batch, rhs_sum, rhs_free, wide)  # [B..., K, N]
    batch = build.shape(a)[:-2]
    rows, terms, columns = build.shape(a)[-2], build.shape(a)[-1], build.shape(b)[-1]
    product = batch + [rows, columns]
    keep = list(range(len(batch)))
    total = None
    for k in range(terms):
        term = build.one("stablehlo.multiply", build.tensor(product, wide),
                         build.broadcast(_column(a, k, -1), product, keep + [len(batch)]),
                         build.broadcast(_column(b, k, -2), product, keep + [len(batch) + 1]))
        total = term if total is None else build.one("stablehlo.add", term.type, total, term)
    return build.convert(build.reshape(total, build.shape(result)), element)


@register_pass
class UnrollTinyBatchMatmuls(RewritePass):
    """Writes batched matmuls of tiny matrices as element-wise products summed (IREE pads them into tiles)."""

    name = "oxla-llvmcpu-unroll-tiny-batch-matmuls"
    anchor = "builtin.module"
    roots = ("stablehlo.dot_general",)

    def matches(self, op) -> bool:
        return unrolled(op)

    def rewrite(self, op) -> None:
        """Replaces the dot_general by its terms' sum (module docstring)."""
        build.replace(op, _terms_summed)
