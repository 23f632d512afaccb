"""Linear algebra ONNX operators: MatMul, Gemm and Einsum, as stablehlo.dot_general."""

from __future__ import annotations

from oxla.builder import functions as F
from oxla.builder.tensor import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.onnx_ops.core import (
    Node, OnnxImportError, add, attribute, broadcast_dims, broadcast_to, dim, dim_product, dims, mul, operator,
    reshape, sum_)


def dot(lhs: Tensor, rhs: Tensor, batch: tuple = ((), ()), contract: tuple = ((), ())) -> Tensor:
    """dot_general; the result holds batch, then lhs free, then rhs free dimensions.

    With dynamic sizes, each operand is first brought to [batch, free,
    contracting] form with one dimension per group (IREE 3.13 reshapes
    dynamic groups itself with a stablehlo.dynamic_reshape it cannot lower).
    """
    batch = [list(b) for b in batch]
    contract = [list(c) for c in contract]
    if None not in lhs.shape and None not in rhs.shape:
        return _dot_general(lhs, rhs, batch, contract)
    lhs_free = [a for a in range(lhs.ndim) if a not in batch[0] + contract[0]]
    rhs_free = [a for a in range(rhs.ndim) if a not in batch[1] + contract[1]]
    groups = [batch[0], lhs_free, contract[0]], [batch[1], contract[1], rhs_free]
    a, b = _grouped(lhs, groups[0]), _grouped(rhs, groups[1])
    nb = 1 if batch[0] else 0
    y = _dot_general(a, b, [list(range(nb))] * 2, [[nb + 1], [nb]])
    lhs_dims, rhs_dims = dims(lhs), dims(rhs)
    return reshape(y, [lhs_dims[d] for d in batch[0]] + [lhs_dims[d] for d in lhs_free] +
                   [rhs_dims[d] for d in rhs_free])


def _grouped(t: Tensor, groups: list[list[int]]) -> Tensor:
    """t transposed to the order of `groups` and reshaped to one dimension per group (an empty batch group
    gives none; empty free or contracting groups give size 1)."""
    order = [a for g in groups for a in g]
    t = F.transpose(t, order) if order != list(range(t.ndim)) else t
    entries, position = dims(t), 0
    shape = []
    for k, g in enumerate(groups):
        if g or k > 0:
            shape.append(dim_product(entries[position:position + len(g)]))
        position += len(g)
    return reshape(t, shape)


def _dot_general(lhs: Tensor, rhs: Tensor, batch, contract) -> Tensor:
    """stablehlo.dot_general with the given batching and contracting dimensions."""
    numbers = shlo.DotDimensionNumbers(
        lhs_batching_dimensions=list(batch[0]), rhs_batching_dimensions=list(batch[1]),
        lhs_contracting_dimensions=list(contract[0]), rhs_contracting_dimensions=list(contract[1]))
    return Tensor(shlo.dot_general(lhs, rhs, dot_dimension_numbers=numbers))


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """numpy's matmul: vectors, matrices and stacks of them with broadcast batch dimensions."""
    if a.ndim == 0 or b.ndim == 0:
        raise OnnxImportError("MatMul operands must not be scalars")
    if a.ndim == 1 or b.ndim == 1:
        return _matmul_vectors(a, b)
    if b.ndim == 2:  # [..., m, k] @ [k, n]: contract directly, the leading dims ride along
        return dot(a, b, contract=([a.ndim - 1], [0]))
    batch = broadcast_dims(dims(a)[:-2], dims(b)[:-2])
    a = broadcast_to(a, batch + [dim(a, a.ndim - 2), dim(a, a.ndim - 1)])
    b = broadcast_to(b, batch + [dim(b, b.ndim - 2), dim(b, b.ndim - 1)])
    nb = len(batch)
    return dot(a, b, batch=(range(nb), range(nb)), contract=([nb + 1], [nb]))


def _matmul_vectors(a: Tensor, b: Tensor) -> Tensor:
    """matmul with a 1-D operand: promoted to a matrix, then the added dimension removed."""
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b, contract=([0], [0]))
    if a.ndim == 1:
        out = matmul(reshape(a, [1, dim(a, 0)]), b)
        return reshape(out, [dim(out, i) for i in range(out.ndim) if i != out.ndim - 2])
    return dot(a, b, contract=([a.ndim - 1], [0]))


@operator("MatMul", note="numpy semantics, batch dimensions broadcast (also dynamic ones)")
def matmul_op(n: Node) -> Tensor:
    """a @ b."""
    return matmul(n.input(0), n.input(1))


@operator("Gemm")
def gemm(n: Node) -> Tensor:
    """alpha * op(A) @ op(B) + beta * C, op transposing when transA/transB."""
    a, b = n.input(0), n.input(1)
    y = dot(a, b, contract=([0 if n.attr("transA", 0) else 1], [1 if n.attr("transB", 0) else 0]))
    alpha, beta = n.attr("alpha", 1.0), n.attr("beta", 1.0)
    if alpha != 1.0:
        y = mul(y, alpha)
    if n.has(2) and beta != 0.0:
        c = n.input(2)
        y = add(y, c if beta == 1.0 else mul(c, beta))
    return y


# Einsum ----------------------------------------------------------------------------------------------------------

def _parse_einsum(equation: str, count: int) -> tuple[list[str], str]:
    """The operands' subscripts and the output's (implicit output: letters used once, sorted)."""
    equation = equation.replace(" ", "")
    if "." in equation:
        raise OnnxImportError(f"Einsum {equation!r}: ellipsis ('...') is not supported")
    lhs, _, out = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != count:
        raise OnnxImportError(f"Einsum {equation!r} names {len(terms)} operands but the node has {count}")
    if "->" not in equation:
        letters = "".join(terms)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for term in terms + [out]:
        if len(set(term)) != len(term):
            raise OnnxImportError(f"Einsum {equation!r}: a letter repeated within one operand (a diagonal) "
                                  "is not supported")
    return terms, out


def _sum_out(t: Tensor, term: str, keep: set) -> tuple[Tensor, str]:
    """Sums the letters of `term` that are not in `keep`."""
    axes = [i for i, c in enumerate(term) if c not in keep]
    if not axes:
        return t, term
    return sum_(t, axes), "".join(c for c in term if c in keep)


def _permute(t: Tensor, term: str, out: str) -> Tensor:
    """`t` (subscripts `term`) transposed to the order of `out`."""
    return F.transpose(t, [term.index(c) for c in out])


def _unsupported_einsum(node) -> str | None:
    """Einsum forms the translation does not handle: ellipsis, diagonals, more than two operands."""
    equation = attribute(node, "equation", "").replace(" ", "")
    terms = equation.partition("->")[0].split(",")
    if len(terms) > 2:
        return "more than two operands"
    if "." in equation:
        return "ellipsis"
    if any(len(set(t)) != len(t) for t in terms + [equation.partition("->")[2]]):
        return "diagonal"
    return None


@operator("Einsum", note="one or two operands, no ellipsis or diagonals", unsupported=_unsupported_einsum)
def einsum(n: Node) -> Tensor:
    """Einsum as sums, a dot_general and a transpose."""
    xs = n.inputs()
    if len(xs) > 2:
        n.fail("Einsum with more than two operands is not supported")
    terms, out = _parse_einsum(n.attr("equation"), len(xs))
    if len(xs) == 1:
        t, term = _sum_out(xs[0], terms[0], set(out))
        return _permute(t, term, out)
    (a, ta), (b, tb) = _sum_out(xs[0], terms[0], set(out) | set(terms[1])), \
        _sum_out(xs[1], terms[1], set(out) | set(terms[0]))
    batch = [c for c in ta if c in tb and c in out]
    contract = [c for c in ta if c in tb and c not in out]
    y = dot(a, b, batch=([ta.index(c) for c in batch], [tb.index(c) for c in batch]),
            contract=([ta.index(c) for c in contract], [tb.index(c) for c in contract]))
    term = "".join(batch) + "".join(c for c in ta if c not in tb) + "".join(c for c in tb if c not in ta)
    return _permute(y, term, out)
