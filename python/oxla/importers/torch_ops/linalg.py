"""Matrix products: linear, addmm, mm, bmm, baddbmm, matmul, mv, dot, einsum; all as stablehlo.dot_general."""

from __future__ import annotations

import string

from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import translates
from oxla.importers.torch_ops.elementwise import operands
from oxla.importers.torch_ops.lowering import broadcast, convert, dims_of, reduce, transpose


def dot(a: Tensor, b: Tensor, lhs_contract, rhs_contract, lhs_batch=(), rhs_batch=()) -> Tensor:
    """dot_general: result dimensions are the batch ones, then a's free ones, then b's free ones."""
    numbers = shlo.DotDimensionNumbers(
        lhs_batching_dimensions=list(lhs_batch), rhs_batching_dimensions=list(rhs_batch),
        lhs_contracting_dimensions=list(lhs_contract), rhs_contracting_dimensions=list(rhs_contract))
    return shlo.dot_general(a, b, dot_dimension_numbers=numbers)


def _scaled_sum(cx, product: Tensor, bias, beta, alpha) -> Tensor:
    """alpha * product + beta * bias (bias broadcast to the product)."""
    if alpha != 1:
        product = shlo.multiply(product, operands(cx, [alpha], product.dtype, dims_of(product))[0])
    if bias is None or beta == 0:
        return product
    bias, = operands(cx, [bias], product.dtype, dims_of(product))
    if beta != 1:
        bias = shlo.multiply(bias, operands(cx, [beta], product.dtype, dims_of(product))[0])
    return shlo.add(product, bias)


def matmul(a: Tensor, b: Tensor, batch_dims=None) -> Tensor:
    """torch.matmul of same-typed operands; `batch_dims` is the broadcast batch shape when both are batched."""
    ra, rb = a.ndim, b.ndim
    if rb == 1:
        return dot(a, b, [ra - 1], [0])
    if ra == 1:
        return dot(a, b, [0], [rb - 2])
    if rb == 2:
        return dot(a, b, [ra - 1], [0])
    batch = list(batch_dims)
    n = len(batch)
    a = broadcast(a, batch + dims_of(a)[-2:])
    b = broadcast(b, batch + dims_of(b)[-2:])
    return dot(a, b, [n + 1], [n], range(n), range(n))


@translates("aten.matmul.default")
def matmul_op(cx, a, b, *_):
    """Matrix product with numpy's rules for vectors and broadcast batch dimensions."""
    x, y = convert(a, cx.out_dtype), convert(b, cx.out_dtype)
    return matmul(x, y, cx.out_dims()[:-2])


@translates("aten.mm.default", "aten.bmm.default", "aten.mv.default", "aten.dot.default")
def mm(cx, a, b, *_):
    """Matrix-matrix, batched matrix, matrix-vector and vector-vector products."""
    return matmul_op(cx, a, b)


@translates("aten.linear.default")
def linear(cx, x, weight, bias=None, *_):
    """x @ weight.T + bias."""
    x, w = convert(x, cx.out_dtype), convert(weight, cx.out_dtype)
    y = dot(x, w, [x.ndim - 1], [w.ndim - 1])
    return _scaled_sum(cx, y, bias, 1, 1)


@translates("aten.addmm.default", "aten.baddbmm.default", "aten.addmv.default")
def addmm(cx, bias, a, b, beta=1, alpha=1, *_):
    """beta * bias + alpha * (a @ b)."""
    x, y = convert(a, cx.out_dtype), convert(b, cx.out_dtype)
    return _scaled_sum(cx, matmul(x, y, cx.out_dims()[:-2]), bias, beta, alpha)


def _einsum_plan(equation: str, ranks: list[int]) -> tuple[list[str], str]:
    """The operands' subscripts and the output's, with `...` spelled out as spare letters and the output implied."""
    inputs, arrow, output = equation.replace(" ", "").partition("->")
    terms = inputs.split(",")
    spare = [c for c in string.ascii_letters if c not in equation]
    widths = [rank - len(t.replace("...", "")) if "..." in t else 0 for t, rank in zip(terms, ranks)]
    ellipsis = "".join(spare[:max(widths, default=0)])
    spelled = [t.replace("...", ellipsis[len(ellipsis) - w:]) for t, w in zip(terms, widths)]
    if not arrow:
        once = [c for c in sorted(set("".join(spelled))) if "".join(spelled).count(c) == 1 and c not in ellipsis]
        return spelled, ellipsis + "".join(once)
    return spelled, output.replace("...", ellipsis)


def _einsum_check(node, args):
    """einsum: one or two operands, no label repeated within one operand."""
    equation, tensors = args[0], args[1]
    terms = equation.replace(" ", "").partition("->")[0].replace("...", "").split(",")
    if len(tensors) > 2:
        return "more than two operands"
    if any(len(set(t)) != len(t) for t in terms):
        return "a label repeated within one operand (a diagonal)"
    return None


@translates("aten.einsum.default", note="one or two operands; no label repeated within one operand",
            check=_einsum_check)
def einsum(cx, equation, tensors, *_):
    """Einstein summation as a reduction (one operand) or one dot_general (two), then a transpose."""
    xs = [convert(t, cx.out_dtype) for t in tensors]
    terms, output = _einsum_plan(equation, [t.ndim for t in xs])
    if len(xs) == 1:
        (x,), (term,) = xs, terms
        y = _sum_labels(x, term, [c for c in term if c not in output])
        kept = [c for c in term if c in output]
        return transpose(y, [kept.index(c) for c in output])
    (a, b), (ta, tb) = xs, terms
    a = _sum_labels(a, ta, [c for c in ta if c not in tb and c not in output])
    b = _sum_labels(b, tb, [c for c in tb if c not in ta and c not in output])
    ta, tb = "".join(c for c in ta if c in tb or c in output), "".join(c for c in tb if c in ta or c in output)
    batch = [c for c in ta if c in tb and c in output]
    contract = [c for c in ta if c in tb and c not in output]
    y = dot(a, b, [ta.index(c) for c in contract], [tb.index(c) for c in contract],
            [ta.index(c) for c in batch], [tb.index(c) for c in batch])
    produced = batch + [c for c in ta if c not in batch and c not in contract] + \
        [c for c in tb if c not in batch and c not in contract]
    return transpose(y, [produced.index(c) for c in output])


def _sum_labels(x: Tensor, term: str, labels: list[str]) -> Tensor:
    """x summed over the axes of `labels`."""
    return reduce(x, [term.index(c) for c in labels], "sum") if labels else x
