"""scaled_dot_product_attention: softmax(q k^T * scale + mask) v, with boolean or additive masks, causal masking
and grouped-query heads; dropout only when its probability is 0 (as in eval mode).
"""

from __future__ import annotations

import math

from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import first_failure, output_unused, translates
from oxla.importers.torch_ops.activations import softmax
from oxla.importers.torch_ops.elementwise import like
from oxla.importers.torch_ops.linalg import dot
from oxla.importers.torch_ops.lowering import broadcast, convert, dims_of, iota, reshape


def _repeat_heads(t: Tensor, times: int) -> Tensor:
    """Each head (dimension -3) repeated `times` times in place (grouped-query attention)."""
    d = dims_of(t)
    ax = t.ndim - 3
    spread = broadcast(t, d[:ax + 1] + [times] + d[ax + 1:], list(range(ax + 1)) + list(range(ax + 2, t.ndim + 1)))
    return reshape(spread, d[:ax] + [d[ax] * times] + d[ax + 1:])


def attention(q: Tensor, k: Tensor, v: Tensor, batch: list, mask=None, is_causal=False, scale=None,
              enable_gqa=False) -> Tensor:
    """The attention of same-typed q (..., L, E), k (..., S, E), v (..., S, Ev) over broadcast batch dims."""
    if enable_gqa and q.shape[-3] != k.shape[-3]:
        k, v = _repeat_heads(k, q.shape[-3] // k.shape[-3]), _repeat_heads(v, q.shape[-3] // v.shape[-3])
    n = len(batch)
    q, k, v = (broadcast(t, batch + dims_of(t)[-2:]) for t in (q, k, v))
    scores = dot(q, k, [n + 1], [n + 1], range(n), range(n))
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = shlo.multiply(scores, like(scores, scale))
    dims = dims_of(scores)
    masked = like(scores, float("-inf"))
    if is_causal:
        square = dims[-2:]
        keep = shlo.compare(iota(square, 1), iota(square, 0), "LE")
        scores = shlo.select(broadcast(keep, dims, [n, n + 1]), scores, masked)
    if mask is not None:
        if mask.dtype == "i1":
            scores = shlo.select(broadcast(mask, dims), scores, masked)
        else:
            scores = shlo.add(scores, broadcast(convert(mask, scores.dtype), dims))
    return dot(softmax(scores, n + 1), v, [n + 1], [n], range(n), range(n))


def _dropout_check(position: int):
    """A check rejecting attention with a non-zero dropout probability (argument `position`)."""
    def check(node, args):
        p = args[position]
        return None if p == 0 else f"dropout_p={p} (dropout is applied even in eval mode; pass 0.0)"
    return check


@translates("aten.scaled_dot_product_attention.default", check=_dropout_check(4), note="dropout_p=0")
def sdpa(cx, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False, *_):
    """softmax(q k^T * scale + mask) v."""
    dtype = cx.out_dtype
    q, k, v = (convert(t, dtype) for t in (q, k, v))
    return attention(q, k, v, cx.out_dims()[:-2], attn_mask, is_causal, scale, enable_gqa)


@translates("aten._scaled_dot_product_flash_attention_for_cpu.default",
            check=first_failure(_dropout_check(3), output_unused(1, "logsumexp")),
            note="dropout_p=0; the logsumexp output is not computed")
def sdpa_flash_cpu(cx, q, k, v, dropout_p=0.0, is_causal=False, attn_mask=None, scale=None, *_):
    """(attention, logsumexp placeholder): the CPU flash-attention form of scaled_dot_product_attention."""
    dtype = cx.out_dtype
    q, k, v = (convert(t, dtype) for t in (q, k, v))
    out = attention(q, k, v, cx.out_dims(0)[:-2], attn_mask, is_causal, scale)
    return out, None
