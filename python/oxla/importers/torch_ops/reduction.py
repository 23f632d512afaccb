"""Reductions: sum, mean, prod, amax/amin, max/min (with indices), argmax/argmin, var/std (and with the mean),
any/all, count_nonzero, logsumexp, vector norms, cumulative sums and products; and sorting (sort, argsort, topk).

`dim` follows torch: None or an empty list reduces every dimension.
"""

from __future__ import annotations

from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import translates
from oxla.importers.torch_ops.elementwise import like
from oxla.importers.torch_ops.lowering import (
    REDUCERS, axes, axis, broadcast, constant, convert, dim_product, dims_of, is_float, iota, mean, reduce, reshape,
    scalar, slice_axis, variance)


def _reduction(kind: str, convert_first: bool = True):
    """The translation of sum/prod/amax/amin/any/all over `dim` (computed in the result's dtype)."""
    def lower(cx, x, dim=None, keepdim=False, *_):
        if not isinstance(dim, (list, tuple, int)) and dim is not None:
            dim = None  # sum.default/prod.default: the second argument is a dtype
        x = convert(x, "i1" if kind in ("and", "or") else cx.out_dtype)
        out = reduce(x, axes(dim, x.ndim), kind, keepdim is True)
        return convert(out, cx.out_dtype)
    return lower


translates("aten.sum.default", "aten.sum.dim_IntList")(_reduction("sum"))
translates("aten.prod.default", "aten.prod.dim_int")(_reduction("prod"))
translates("aten.amax.default")(_reduction("max"))
translates("aten.amin.default")(_reduction("min"))
translates("aten.max.default")(_reduction("max"))
translates("aten.min.default")(_reduction("min"))
translates("aten.any.default", "aten.any.dim", "aten.any.dims")(_reduction("or"))
translates("aten.all.default", "aten.all.dim", "aten.all.dims")(_reduction("and"))


@translates("aten.mean.default", "aten.mean.dim")
def mean_op(cx, x, dim=None, keepdim=False, *_):
    """The mean over `dim`, in the result's floating dtype."""
    if not isinstance(dim, (list, tuple, int)):
        dim = None  # mean.default: the second argument is a dtype
    x = convert(x, cx.out_dtype)
    return mean(x, axes(dim, x.ndim), keepdim is True)


def _spread(root: bool, with_mean: bool):
    """var/std (root=True) and var_mean/std_mean; the overloads take `correction`, or `unbiased` (bool)."""
    def lower(cx, x, dim=None, correction=None, keepdim=False, *_):
        if isinstance(dim, bool):  # var.default(self, unbiased)
            dim, correction = None, dim
        if isinstance(correction, bool):  # var.dim(self, dim, unbiased, keepdim)
            correction = 1 if correction else 0
        x = convert(x, cx.out_dtype)
        reduce_axes = axes(dim, x.ndim)
        v = variance(x, reduce_axes, 1 if correction is None else correction, keepdim)
        v = shlo.sqrt(v) if root else v
        return (v, mean(x, reduce_axes, keepdim)) if with_mean else v
    return lower


translates("aten.var.correction", "aten.var.dim", "aten.var.default")(_spread(False, False))
translates("aten.std.correction", "aten.std.dim", "aten.std.default")(_spread(True, False))
translates("aten.var_mean.correction")(_spread(False, True))
translates("aten.std_mean.correction")(_spread(True, True))


def _arg_reduce(x: Tensor, ax: int, kind: str) -> tuple[Tensor, Tensor]:
    """(max or min, index of its first occurrence) along `ax`; NaN wins as torch's does."""
    better = "GT" if kind == "max" else "LT"

    def body(a, ia, b, ib):
        first = shlo.compare(ia, ib, "LT")
        take_a = shlo.or_(shlo.compare(a, b, better), shlo.and_(shlo.compare(a, b, "EQ"), first))
        if is_float(x.dtype):
            a_nan, b_nan = shlo.compare(a, a, "NE"), shlo.compare(b, b, "NE")
            take_a = shlo.or_(shlo.and_(a_nan, shlo.or_(shlo.not_(b_nan), first)),
                              shlo.and_(take_a, shlo.not_(b_nan)))
        return shlo.select(take_a, a, b), shlo.select(take_a, ia, ib)

    identity = REDUCERS[kind][1](x.dtype)
    return shlo.reduce([x, iota(dims_of(x), ax)], [scalar(identity, x.dtype), constant(0, "i64")], dimensions=[ax],
                       body=body)


def _keep(t: Tensor, x: Tensor, ax: int) -> Tensor:
    """A reduction's result with the reduced axis kept as size 1."""
    d = dims_of(x)
    d[ax] = 1
    return reshape(t, d)


def _max_min_dim(kind: str):
    """max.dim / min.dim: (values, indices) along `dim`."""
    def lower(cx, x, dim, keepdim=False, *_):
        ax = axis(dim, x.ndim)
        values, indices = _arg_reduce(x, ax, kind)
        if keepdim:
            values, indices = _keep(values, x, ax), _keep(indices, x, ax)
        return values, indices
    return lower


translates("aten.max.dim")(_max_min_dim("max"))
translates("aten.min.dim")(_max_min_dim("min"))


def _arg(kind: str):
    """argmax / argmin along `dim` (over the flattened tensor when dim is None)."""
    def lower(cx, x, dim=None, keepdim=False, *_):
        if dim is None:
            _, indices = _arg_reduce(reshape(x, [dim_product(dims_of(x))]), 0, kind)
            return reshape(indices, [1] * x.ndim) if keepdim else indices
        ax = axis(dim, x.ndim)
        _, indices = _arg_reduce(x, ax, kind)
        return _keep(indices, x, ax) if keepdim else indices
    return lower


translates("aten.argmax.default")(_arg("max"))
translates("aten.argmin.default")(_arg("min"))


@translates("aten.logsumexp.default")
def logsumexp(cx, x, dim, keepdim=False, *_):
    """log(sum(exp(x))) over `dim`, computed stably."""
    x = convert(x, cx.out_dtype)
    reduce_axes = axes(dim, x.ndim)
    m = reduce(x, reduce_axes, "max", keepdim=True)
    m = shlo.select(shlo.is_finite(m), m, like(m, 0))
    total = reduce(shlo.exponential(shlo.subtract(x, broadcast(m, dims_of(x)))), reduce_axes, "sum", keepdim=True)
    out = shlo.add(shlo.log(total), m)
    if not keepdim:
        out = reshape(out, [d for i, d in enumerate(dims_of(x)) if i not in reduce_axes])
    return out


@translates("aten.linalg_vector_norm.default")
def vector_norm(cx, x, ord=2, dim=None, keepdim=False, *_):
    """The vector p-norm over `dim` (p = 2, 1, inf, -inf, 0 or any other number)."""
    x = convert(x, cx.out_dtype)
    reduce_axes = axes(dim, x.ndim)
    a = shlo.abs(x)
    if ord == float("inf") or ord == float("-inf"):
        return reduce(a, reduce_axes, "max" if ord > 0 else "min", keepdim)
    if ord == 0:
        return reduce(convert(convert(a, "i1"), x.dtype), reduce_axes, "sum", keepdim)
    if ord == 1:
        return reduce(a, reduce_axes, "sum", keepdim)
    if ord == 2:
        return shlo.sqrt(reduce(shlo.multiply(x, x), reduce_axes, "sum", keepdim))
    total = reduce(shlo.power(a, like(a, ord)), reduce_axes, "sum", keepdim)
    return shlo.power(total, like(total, 1.0 / ord))


def _cumulative(kind: str):
    """cumsum / cumprod along `dim`: a reduce_window whose window reaches back to the start."""
    def lower(cx, x, dim, *_):
        x = convert(x, cx.out_dtype)
        ax = axis(dim, x.ndim)
        n = x.shape[ax]
        window, padding = [1] * x.ndim, [[0, 0]] * x.ndim
        window[ax], padding[ax] = n, [n - 1, 0]
        combine, identity = REDUCERS[kind]
        return shlo.reduce_window(x, scalar(identity(x.dtype), x.dtype), window_dimensions=window,
                                  window_strides=[1] * x.ndim, padding=padding, body=lambda a, b: combine(a, b))
    return lower


translates("aten.cumsum.default")(_cumulative("sum"))
translates("aten.cumprod.default")(_cumulative("prod"))


@translates("aten.count_nonzero.dim_IntList", "aten.count_nonzero.default")
def count_nonzero(cx, x, dim=None, *_):
    """The number of non-zero elements over `dim` (int64)."""
    return reduce(convert(convert(x, "i1"), "i64"), axes(dim, x.ndim), "sum")


@translates("aten.aminmax.default")
def aminmax(cx, x, dim=None, keepdim=False, *_):
    """(min, max) over `dim` (all dimensions when None)."""
    reduce_axes = axes(dim, x.ndim)
    return reduce(x, reduce_axes, "min", keepdim), reduce(x, reduce_axes, "max", keepdim)


# Sorting ----------------------------------------------------------------------------------------------------------

def sort(x: Tensor, ax: int, descending: bool) -> tuple[Tensor, Tensor]:
    """(values, indices) sorted along `ax`; NaN sorts above every number and ties keep their order, as in torch.

    The comparator breaks ties by index, so the order does not depend on
    whether IREE's sort is stable (it is not). The indices pass through an
    optimization_barrier: IREE 3.13 fails to compile a sort whose index
    operand is computed in the same dispatch.
    """
    def comparator(a, b, ia, ib):
        before = shlo.compare(a, b, "GT" if descending else "LT")
        tie = shlo.compare(a, b, "EQ")
        if is_float(x.dtype):
            a_nan, b_nan = shlo.compare(a, a, "NE"), shlo.compare(b, b, "NE")
            high, low = (a_nan, b_nan) if descending else (b_nan, a_nan)
            before = shlo.or_(before, shlo.and_(high, shlo.not_(low)))
            tie = shlo.or_(tie, shlo.and_(a_nan, b_nan))
        return shlo.or_(before, shlo.and_(tie, shlo.compare(ia, ib, "LT")))
    indices = shlo.optimization_barrier(iota(dims_of(x), ax))
    values, indices = shlo.sort([x, indices], dimension=ax, is_stable=True, comparator=comparator)
    return values, indices


@translates("aten.sort.default")
def sort_op(cx, x, dim=-1, descending=False, *_):
    """(values, indices) along `dim`."""
    return sort(x, axis(dim, x.ndim), bool(descending))


@translates("aten.sort.stable")
def sort_stable(cx, x, stable=None, dim=-1, descending=False, *_):
    """(values, indices) along `dim` (always stable here)."""
    return sort_op(cx, x, dim, descending)


@translates("aten.argsort.default")
def argsort(cx, x, dim=-1, descending=False, *_):
    """The indices that sort along `dim`."""
    return sort_op(cx, x, dim, descending)[1]


@translates("aten.argsort.stable")
def argsort_stable(cx, x, stable=None, dim=-1, descending=False, *_):
    """The indices that sort along `dim` (always stable here)."""
    return sort_op(cx, x, dim, descending)[1]


@translates("aten.topk.default")
def topk(cx, x, k, dim=-1, largest=True, sorted=True, *_):
    """(the k largest or smallest values along `dim`, their indices), in sorted order."""
    ax = axis(dim, x.ndim)
    # a barrier between the sort and the slices: IREE turns sort-then-slice into its own top-k, which keeps only the
    # first comparison of the comparator
    values, indices = shlo.optimization_barrier(list(sort(x, ax, bool(largest))))
    return slice_axis(values, ax, 0, k), slice_axis(indices, ax, 0, k)
