"""oxla-legalize-lapack-calls: JAX's CPU LAPACK calls as the StableHLO they compute.
oxla-legalize-cholesky: stablehlo.cholesky, which IREE does not lower, by potrf's loop.

On CPU, JAX writes jnp.linalg and jax.scipy.linalg as `stablehlo.custom_call
@lapack_<t><routine>_ffi` (t: s, d, c or z), which only XLA's CPU runtime
implements. `ROUTINES` says what each routine this pass takes becomes:

- trsm: stablehlo.triangular_solve (oxla-legalize-triangular-solve solves it);
- potrf (Cholesky), getrf (LU with partial pivoting), geqrf (Householder QR)
  and orgqr/ungqr (Q from geqrf's reflectors): a stablehlo.while that
  handles one column (or reflector) a trip, on the whole matrix at once with
  masks, the way LAPACK's unblocked routines (potf2, getf2, geqr2, org2r)
  order the work; square LUs of BLOCKED_LU columns or more and Cholesky
  factors of BLOCKED_CHOLESKY by panels, as getrf and potrf do (_panel,
  _cholesky_panel: the trips over a panel's columns only, the rest by one
  product a panel);
- gehrd (the reduction to upper Hessenberg form, LAPACK's ilo and ihi
  honoured): the same loop, a Householder reflector a column applied from
  both sides, as gehd2 orders the work;
- syevd and heevd (eigenvalues and vectors of real symmetric and complex
  Hermitian matrices): cyclic Jacobi rotations, every pair of rows once a
  sweep in rounds of disjoint pairs, each round element-wise over the whole
  matrix (LAPACK reduces to tridiagonal form and divides and conquers, which
  is sequential where this is not); a complex pair's entry has its phase
  taken out first, so each rotation is a unitary of real cos and sin;
- gesdd (singular values and vectors, real or complex): one-sided Jacobi
  rotations on the same schedule, the vectors of zero singular values and
  the full side's extra ones from a Householder QR.

The Jacobi routines rotate in f64 (complex<f64>) whatever the element type.

Results keep LAPACK's conventions: what a routine leaves untouched (the other
triangle of potrf's matrix) holds the input; getrf's pivots are 1-based
LAPACK row interchanges; `info` is the first failing column, 1-based, or 0.
Leading dimensions are batch dimensions (the calls' num_batch_dims).
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

import numpy as np

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.registry import RewritePass, register_pass

_TARGET = re.compile(r"lapack_([sdcz])(\w+?)_ffi$")
# backend_config characters: LAPACK's 'L', 'U', 'N', 'T', 'C', 'R' as bytes.
_LOWER, _UPPER, _NO, _TRANSPOSE, _ADJOINT = ord("L"), ord("U"), ord("N"), ord("T"), ord("C")


# ----------------------------------------------------------------------------
# Small builders on batched matrices [..., m, n]
# ----------------------------------------------------------------------------


def _i32(dims: list[int]):
    """An i32 tensor type of `dims`."""
    return build.tensor(dims, ir.IntegerType.get_signless(32))


def _spread(scalar, dims: list[int]):
    """A 0-d value broadcast to `dims`."""
    return build.broadcast(scalar, dims, []) if dims else scalar


def _where(mask, value, other):
    """select(mask, value, other), the three of one shape."""
    return build.one("stablehlo.select", value.type, mask, value, other)


def _both(a, b):
    """Element-wise and of two i1 tensors."""
    return build.one("stablehlo.and", a.type, a, b)


def _binary(name: str, a, b):
    """An element-wise binary op on two values of one type."""
    return build.one(f"stablehlo.{name}", a.type, a, b)


def _stretch(value, dims: list[int]):
    """`value` ([..., 1 or d, 1 or d]) broadcast to the batched matrix shape `dims`."""
    return value if build.shape(value) == list(dims) else build.broadcast(value, dims, list(range(len(dims))))


def _at(x, starts: list, sizes: list[int]):
    """The window of `sizes` at the 0-d i32 `starts` (a stablehlo.dynamic_slice)."""
    return build.one("stablehlo.dynamic_slice", build.tensor(sizes, build.element(x)), x, *starts,
                     slice_sizes=build.i64_array(sizes))


def _column(x, j):
    """Column j of the batched matrices x: [..., m, 1]."""
    dims = build.shape(x)
    zero = build.splat(0, _i32([]))
    return _at(x, [zero] * (len(dims) - 1) + [j], dims[:-1] + [1])


def _row(x, j):
    """Row j of the batched matrices x: [..., 1, n]."""
    dims = build.shape(x)
    zero = build.splat(0, _i32([]))
    return _at(x, [zero] * (len(dims) - 2) + [j, zero], dims[:-2] + [1, dims[-1]])


def _rows_of_each(x, index):
    """Rows index[b, i] of each batched matrix x[b] ([..., m, n], index [..., r] i32): [..., r, n]. A gather of
    whole rows, which IREE reads as vectors; a dynamic_slice at a computed row would have the host read the
    index back from the device before going on."""
    dims, count = build.shape(x), build.shape(index)[-1]
    batch = list(range(len(dims) - 2))
    numbers = (f"#stablehlo.gather<offset_dims = [{len(batch) + 1}], collapsed_slice_dims = [{len(dims) - 2}], "
               f"operand_batching_dims = {batch}, start_indices_batching_dims = {batch}, "
               f"start_index_map = [{len(dims) - 2}], index_vector_dim = {len(batch) + 1}>")
    return build.one("stablehlo.gather", build.tensor(dims[:-2] + [count, dims[-1]], build.element(x)), x, index,
                     dimension_numbers=numbers, slice_sizes=build.i64_array([1] * len(batch) + [1, dims[-1]]))


def _row_of_each(x, index):
    """Row index[b] of each batched matrix x[b] ([..., m, n], index [...] i32): [..., 1, n]."""
    return _rows_of_each(x, build.reshape(index, build.shape(index) + [1]))


def _put_column(x, column, j):
    """x with column j replaced by `column` ([..., m, 1])."""
    zero = build.splat(0, _i32([]))
    return build.one("stablehlo.dynamic_update_slice", x.type, x, column,
                     *([zero] * (len(build.shape(x)) - 1) + [j]))


def _put_entry(vector, value, j):
    """vector ([..., k]) with entry j set to value ([...])."""
    dims = build.shape(vector)
    zero = build.splat(0, _i32([]))
    return build.one("stablehlo.dynamic_update_slice", vector.type, vector,
                     build.reshape(value, dims[:-1] + [1]), *([zero] * (len(dims) - 1) + [j]))


def product(lhs, rhs, lhs_dim: int, rhs_dim: int):
    """lhs . rhs contracting lhs_dim with rhs_dim, the leading (batch) dims matched: [..., free lhs, free rhs]."""
    rank = len(build.shape(lhs))
    batch = list(range(rank - 2))
    numbers = ir.Attribute.parse(
        f"#stablehlo.dot<lhs_batching_dimensions = {batch}, rhs_batching_dimensions = {batch}, "
        f"lhs_contracting_dimensions = [{lhs_dim}], rhs_contracting_dimensions = [{rhs_dim}]>")
    lhs_free = [d for d in range(rank - 2, rank) if d != lhs_dim]
    rhs_free = [d for d in range(rank - 2, rank) if d != rhs_dim]
    dims = build.shape(lhs)[:-2] + [build.shape(lhs)[d] for d in lhs_free] + [build.shape(rhs)[d] for d in rhs_free]
    return build.one("stablehlo.dot_general", build.tensor(dims, build.element(lhs)), lhs, rhs,
                     dot_dimension_numbers=numbers)


def _real_type(x):
    """The real type of x's elements (its parts' for complex)."""
    kind = build.element(x)
    return ir.ComplexType(kind).element_type if isinstance(kind, ir.ComplexType) else kind


def _real_part(x):
    """x's real part (x itself when real)."""
    if not isinstance(build.element(x), ir.ComplexType):
        return x
    return build.one("stablehlo.real", build.tensor(build.shape(x), _real_type(x)), x)


def _as_element(real, like):
    """A real tensor as `like`'s element type (a complex with zero imaginary part for complex ones)."""
    if not isinstance(build.element(like), ir.ComplexType):
        return real
    return build.one("stablehlo.complex", build.tensor(build.shape(real), build.element(like)), real,
                     build.splat(0, real.type))


def _zero_padded(x, padding: list[tuple[int, int]]):
    """x padded with zeros ((low, high) per dim)."""
    return build.pad(x, build.splat(0, build.tensor([], build.element(x))), padding)


def _magnitude(x):
    """|re| + |im| for complex x (LAPACK's pivot measure, icamax), |x| for real."""
    if not isinstance(build.element(x), ir.ComplexType):
        return build.one("stablehlo.abs", x.type, x)
    re_, im = build.complex_parts(x)
    return _binary("add", build.one("stablehlo.abs", re_.type, re_), build.one("stablehlo.abs", im.type, im))


def _matrix_transpose(x):
    """x with its last two dims swapped."""
    rank = len(build.shape(x))
    return build.transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])


def _adjoint(x):
    """The conjugate transpose of the batched matrices x (the transpose for real x)."""
    return build.conjugate(_matrix_transpose(x))


def _on_diagonal(dims: list[int]):
    """The mask of the diagonal of batched matrices of `dims`."""
    rank = len(dims)
    return build.compare(build.positions(dims, rank - 2), build.positions(dims, rank - 1), "EQ", "SIGNED")


def _squared(x):
    """|x|^2 element-wise, real (x * conj(x) for complex x)."""
    return _real_part(_binary("multiply", x, build.conjugate(x)))


def _in_f64(x):
    """x converted to f64, or to complex<f64> for complex x: the Jacobi routines' working precision."""
    wide = ir.F64Type.get()
    return build.convert(x, ir.ComplexType.get(wide) if isinstance(build.element(x), ir.ComplexType) else wide)


def triangle(dims: list[int], lower: bool):
    """The mask of the lower (or upper) triangle, diagonal included, of batched matrices of `dims`."""
    rank = len(dims)
    direction = "GE" if lower else "LE"
    return build.compare(build.positions(dims, rank - 2), build.positions(dims, rank - 1), direction, "SIGNED")


def _scalars(window):
    """A [..., 1, 1] window as [...]."""
    return build.reshape(window, build.shape(window)[:-2])


# ----------------------------------------------------------------------------
# The routines
# ----------------------------------------------------------------------------


# Cholesky factors of at least BLOCKED_CHOLESKY columns go by panels of CHOLESKY_PANEL columns.
BLOCKED_CHOLESKY = 128
CHOLESKY_PANEL = 32


def _cholesky_column(column, done, row, rows):
    """Column `row` (0-d i32) of L from that column of a ([..., n, 1], less what the columns outside `done`
    contribute) and the columns of L in `done` ([..., n, k], zero where not made yet): the column less
    `done` times its row `row`, divided by the square root of its diagonal entry, zeros above. Where that
    entry is not positive, its root (NaN or 0) is left on the diagonal for first_failure_on_diagonal."""
    rank = len(build.shape(column))
    zero = build.splat(0, _i32([]))
    column = _binary("subtract", column, product(done, build.conjugate(_row(done, row)), rank - 1, rank - 1))
    diagonal = _real_part(_at(column, [zero] * (rank - 2) + [row, zero], build.shape(column)[:-2] + [1, 1]))
    root = _stretch(_as_element(build.one("stablehlo.sqrt", diagonal.type, diagonal), column), build.shape(column))
    at_row = build.compare(rows, _spread(row, build.shape(rows)), "EQ", "SIGNED")
    below = build.compare(rows, _spread(row, build.shape(rows)), "GT", "SIGNED")
    return _where(at_row, root, _where(below, _binary("divide", column, root), build.splat(0, column.type)))


def _first_on_diagonal(holds):
    """The first diagonal position (1-based) where `holds` ([..., m, n] i1) does, or 0: LAPACK's info."""
    dims = build.shape(holds)
    rank = len(dims)
    rows, cols = build.positions(dims, rank - 2), build.positions(dims, rank - 1)
    none = min(dims[-2:]) + 1
    found = _both(build.compare(rows, cols, "EQ", "SIGNED"), holds)
    one_based = _where(found, _binary("add", rows, build.splat(1, rows.type)), build.splat(none, rows.type))
    first = build.reduce(one_based, build.splat(none, _i32([])), [rank - 2, rank - 1], "stablehlo.minimum")
    return _where(build.compare(first, build.splat(none, first.type), "NE", "SIGNED"), first,
                  build.splat(0, first.type))


def first_failure_on_diagonal(factor):
    """potrf's info from a factor _cholesky_column made: the first column (1-based) whose diagonal entry is
    not positive, or 0."""
    real = _real_part(factor)
    positive = build.compare(real, build.splat(0, real.type), "GT", "FLOAT")
    return _first_on_diagonal(build.one("stablehlo.not", positive.type, positive))


def _cholesky_panel(a, factor, first, width: int):
    """factor ([..., n, n], its columns before `first` (0-d i32) made, zeros after) with the `width` columns
    from `first` made: the panel of a less the product of the columns before it with their rows in the
    panel (one matmul), then a trip per column over the panel alone (potrf's order of the work)."""
    dims = build.shape(a)
    rank, n, batch = len(dims), dims[-1], dims[:-2]
    zero = build.splat(0, _i32([]))
    heads = [zero] * (rank - 2)
    rows_of_panel = _at(factor, heads + [first, zero], batch + [width, n])  # zero from column `first` on
    panel = _binary("subtract", _at(a, heads + [zero, first], batch + [n, width]),
                    product(factor, build.conjugate(rows_of_panel), rank - 1, rank - 1))
    rows = build.positions(batch + [n, 1], rank - 2)

    def trip(j, done, panel, first):
        made = _cholesky_column(_column(panel, j), done, _binary("add", first, j), rows)
        return [_put_column(done, made, j), panel, first]

    done = build.counted_loop(width, [build.splat(0, panel.type), panel, first], trip)[0]
    return build.one("stablehlo.dynamic_update_slice", factor.type, factor, done, *heads, zero, first)


def _cholesky_lower(a):
    """(L, info) with a = L L^H for the lower triangle of a, left-looking (column j is a's column j less L's
    columns before j times row j of L, divided by the square root of its diagonal): a column a trip over
    the whole matrix, or by panels from BLOCKED_CHOLESKY columns on."""
    dims = build.shape(a)
    rank, n = len(dims), dims[-1]
    start = build.splat(0, a.type)
    if n < BLOCKED_CHOLESKY:
        rows = build.positions(dims[:-1] + [1], rank - 2)

        def step(j, factor):
            return [_put_column(factor, _cholesky_column(_column(a, j), factor, j, rows), j)]

        factor = build.counted_loop(n, [start], step)[0]
    else:
        def panel_step(p, factor):
            first = _binary("multiply", p, build.splat(CHOLESKY_PANEL, p.type))
            return [_cholesky_panel(a, factor, first, CHOLESKY_PANEL)]

        factor = build.counted_loop(n // CHOLESKY_PANEL, [start], panel_step)[0]
        rest = n % CHOLESKY_PANEL
        if rest:
            factor = _cholesky_panel(a, factor, build.splat(n - rest, _i32([])), rest)
    return factor, first_failure_on_diagonal(factor)


def _cholesky(a, lower: bool):
    """(factor, info): L with a = L L^H from a's lower triangle, or U with a = U^H U from its upper one
    (the lower factor of a^H), zeros in the other triangle. (The factorize of potrf and cholesky, which
    oxla-llvmcpu-lapack-kernels replaces with a dispatch of its own.)"""
    factor, info = _cholesky_lower(a if lower else _adjoint(a))
    return (factor if lower else _adjoint(factor)), info


def potrf(op, config: dict, factorize=_cholesky) -> list:
    """Cholesky factor of the uplo triangle, the other triangle left as it was, and info."""
    a = op.operands[0]
    lower = config.get("uplo", _LOWER) == _LOWER
    factor, info = factorize(a, lower)
    return [_where(triangle(build.shape(a), lower), factor, a), info]


def cholesky(op, factorize=_cholesky):
    """stablehlo.cholesky: the factor of the `lower` (default upper) triangle, zeros in the other, NaN
    throughout for a matrix that is not positive definite (the spec leaves both to the implementation;
    JAX writes the same)."""
    a = op.operands[0]
    factor, info = factorize(a, "lower" in op.attributes and ir.BoolAttr(op.attributes["lower"]).value)
    dims = build.shape(a)
    failed = build.compare(info, build.splat(0, info.type), "NE", "SIGNED")
    spread = build.broadcast(failed, dims, list(range(len(dims) - 2)))
    return _where(spread, build.splat(float("nan"), a.type), factor)


def _pivot(column, j, rows):
    """The row ([...] i32) of the largest entry of `column` ([..., m, 1]) at or below row j, the first of
    equals (LAPACK's isamax/icamax; a NaN is taken only where every candidate is one)."""
    rank, m = len(build.shape(column)), build.shape(column)[-2]
    size = _magnitude(column)
    candidate = build.compare(rows, _spread(j, build.shape(rows)), "GE", "SIGNED")
    is_nan = build.compare(size, size, "NE", "FLOAT")
    key = _where(candidate, _where(is_nan, build.splat(-1, size.type), size), build.splat(-2, size.type))
    best = build.reduce(key, build.splat(-3, build.tensor([], build.element(key))), [rank - 2], "stablehlo.maximum")
    found = build.compare(key, build.broadcast(best, build.shape(key), list(range(rank - 2)) + [rank - 1]),
                          "EQ", "FLOAT")
    return build.reduce(_where(found, rows, build.splat(m, rows.type)), build.splat(m, _i32([])),
                        [rank - 2, rank - 1], "stablehlo.minimum")


# Square LUs of at least BLOCKED_LU columns go by panels of LU_PANEL columns (_blocked_lu).
BLOCKED_LU = 128
LU_PANEL = 32


def _eliminate(lu, row, col, rows, cols, column_rows):
    """One step of getf2 on the batched matrices `lu` at (row, col) (0-d i32): the largest entry of column
    `col` at or below `row` (the first of equals) swapped to `row`, the column below scaled by its reciprocal
    (left as it is where it is zero), the block below and right of it less the rank-one product.
    `rows`, `cols`, `column_rows`: lu's row and column positions and a column's. (lu, pivot row [...] i32);
    the pivot stays on the diagonal, where getrf_results finds a zero one."""
    dims = build.shape(lu)
    rank, n, batch = len(dims), dims[-1], dims[:-2]
    column = _column(lu, col)
    pivot = _pivot(column, row, column_rows)
    pivot_row = _row_of_each(lu, pivot)
    own_row = _row(lu, row)
    zero = build.splat(0, _i32([]))
    diagonal = _at(pivot_row, [zero] * (rank - 1) + [col], batch + [1, 1])
    own_entry = _at(own_row, [zero] * (rank - 1) + [col], batch + [1, 1])
    column_at_row = build.compare(column_rows, _spread(row, build.shape(column_rows)), "EQ", "SIGNED")
    column_at_pivot = build.compare(column_rows, build.broadcast(pivot, build.shape(column_rows),
                                                                 list(range(rank - 2))), "EQ", "SIGNED")
    swapped = _where(column_at_row, _stretch(diagonal, build.shape(column)),
                     _where(column_at_pivot, _stretch(own_entry, build.shape(column)), column))
    singular = build.compare(diagonal, build.splat(0, diagonal.type), "EQ", "FLOAT")
    column_below = build.compare(column_rows, _spread(row, build.shape(column_rows)), "GT", "SIGNED")
    reciprocal = _binary("divide", build.splat(1, diagonal.type), diagonal)
    multipliers = _where(column_below, _where(_stretch(singular, build.shape(column)), swapped, _binary(
        "multiply", swapped, _stretch(reciprocal, build.shape(column)))), swapped)
    right_of_col = build.compare(build.positions(batch + [1, n], rank - 1), _spread(col, batch + [1, n]),
                                 "GT", "SIGNED")
    trailing_row = _where(right_of_col, pivot_row, build.splat(0, pivot_row.type))
    at_row = build.compare(rows, _spread(row, dims), "EQ", "SIGNED")
    at_pivot = build.compare(rows, build.broadcast(pivot, dims, list(range(rank - 2))), "EQ", "SIGNED")
    lu = _where(at_row, _stretch(pivot_row, dims), _where(at_pivot, _stretch(own_row, dims), lu))
    trailing = _both(build.compare(rows, _spread(row, dims), "GT", "SIGNED"),
                     build.compare(cols, _spread(col, dims), "GT", "SIGNED"))
    update = _binary("multiply", _stretch(multipliers, dims), _stretch(trailing_row, dims))
    # The column by a select rather than a dynamic_update_slice: IREE makes one dispatch of both.
    at_col = build.compare(cols, _spread(col, dims), "EQ", "SIGNED")
    return _where(at_col, _stretch(multipliers, dims), _where(trailing, _binary("subtract", lu, update), lu)), pivot


def getrf_results(lu, pivots, info=None):
    """getrf's results from the factors and the 0-based pivot rows: the pivots 1-based, and info, the first
    zero pivot (1-based) or 0. getf2 leaves each pivot on the diagonal, so info is read from there once
    rather than kept by every step (unless given)."""
    if info is None:
        info = _first_on_diagonal(build.compare(lu, build.splat(0, lu.type), "EQ", "FLOAT"))
    return [lu, _binary("add", pivots, build.splat(1, pivots.type)), info]


def _unblocked_lu(a):
    """getrf's results for a ([..., m, n]) by getf2's steps, one column a trip over the whole matrix."""
    dims = build.shape(a)
    rank, m, batch = len(dims), dims[-2], dims[:-2]
    rows, cols = build.positions(dims, rank - 2), build.positions(dims, rank - 1)
    column_rows = build.positions(batch + [m, 1], rank - 2)

    def step(j, lu, pivots):
        lu, pivot = _eliminate(lu, j, j, rows, cols, column_rows)
        return [lu, _put_entry(pivots, pivot, j)]

    count = min(dims[-2:])
    return getrf_results(*build.counted_loop(count, [a, build.splat(0, _i32(batch + [count]))], step))


def _exchanged(order, row, pivot):
    """order ([..., m] i32) with its entries `row` (0-d) and `pivot` ([...]) exchanged."""
    dims = build.shape(order)
    rank = len(dims)
    places = build.positions(dims, rank - 1)
    at_row = build.compare(places, _spread(row, dims), "EQ", "SIGNED")
    at_pivot = build.compare(places, build.broadcast(pivot, dims, list(range(rank - 1))), "EQ", "SIGNED")
    zero = build.splat(0, _i32([]))
    of_row = build.broadcast(_at(order, [zero] * (rank - 1) + [row], dims[:-1] + [1]), dims, list(range(rank)))
    of_pivot = build.reduce(_where(at_pivot, order, build.splat(0, order.type)), zero, [rank - 1], "stablehlo.add")
    return _where(at_row, build.broadcast(of_pivot, dims, list(range(rank - 1))), _where(at_pivot, of_row, order))


def _panel(lu, pivots, first, width: int, last: bool = False):
    """getrf's work on the panel of `width` columns from column `first` (0-d i32) of the square batched
    matrices lu ([..., n, n]), the columns before it factored: (lu, 0-based pivots) after it. The `last`
    panel, whose columns end the matrix, has no rows of U right of it nor a trailing matrix to update.

    A trip of the panel's loop takes getf2's step on the panel alone ([..., n, width] rather than the whole
    matrix) and makes the same row of U right of the panel: the pivot row as the panel started (the rows'
    exchanges are only recorded) less the products of its multipliers with the rows of U made before it.
    After the loop the exchanges are applied to the whole matrix at once, the panel and its rows of U
    written back, and the trailing matrix less the product of the panel below by those rows (one matmul)."""
    dims = build.shape(lu)
    rank, n, batch = len(dims), dims[-1], dims[:-2]
    panel_dims, block_dims = batch + [n, width], batch + [width, n]
    panel_rows, panel_cols = build.positions(panel_dims, rank - 2), build.positions(panel_dims, rank - 1)
    column_rows = build.positions(batch + [n, 1], rank - 2)
    zero = build.splat(0, _i32([]))
    heads = [zero] * (rank - 2)
    earlier = build.positions(batch + [1, width], rank - 1)

    def trip(j, panel, order, block, pivots, lu, first):
        row = _binary("add", first, j)
        panel, pivot = _eliminate(panel, row, j, panel_rows, panel_cols, column_rows)
        order = _exchanged(order, row, pivot)
        if not last:
            source = build.reshape(_at(order, heads + [row], batch + [1]), batch)
            before_j = build.compare(earlier, _spread(j, batch + [1, width]), "LT", "SIGNED")
            multipliers = _where(before_j, _row(panel, row),
                                 build.splat(0, build.tensor(batch + [1, width], build.element(panel))))
            made = _binary("subtract", _row_of_each(lu, source), product(multipliers, block, rank - 1, rank - 2))
            block = build.one("stablehlo.dynamic_update_slice", block.type, block, made, *heads, j, zero)
        return [panel, order, block, _put_entry(pivots, pivot, row), lu, first]

    started = [_at(lu, heads + [zero, first], panel_dims), build.positions(batch + [n], rank - 2),
               build.splat(0, build.tensor(block_dims, build.element(lu))), pivots, lu, first]
    panel, order, block, pivots, _, _ = build.counted_loop(width, started, trip)
    after = _binary("add", first, build.splat(width, first.type))
    lu = _rows_of_each(lu, order)
    if last:
        return [build.one("stablehlo.dynamic_update_slice", lu.type, lu, panel, *heads, zero, first), pivots]
    right = build.compare(build.positions(block_dims, rank - 1), _spread(after, block_dims), "GE", "SIGNED")
    lu = build.one("stablehlo.dynamic_update_slice", lu.type, lu,
                   _where(right, block, _at(lu, heads + [first, zero], block_dims)), *heads, first, zero)
    lu = build.one("stablehlo.dynamic_update_slice", lu.type, lu, panel, *heads, zero, first)
    below = build.compare(panel_rows, _spread(after, panel_dims), "GE", "SIGNED")
    update = product(_where(below, panel, build.splat(0, panel.type)),
                      _where(right, block, build.splat(0, block.type)), rank - 1, rank - 2)
    rows, cols = build.positions(dims, rank - 2), build.positions(dims, rank - 1)
    trailing = _both(build.compare(rows, _spread(after, dims), "GE", "SIGNED"),
                     build.compare(cols, _spread(after, dims), "GE", "SIGNED"))
    return [_where(trailing, _binary("subtract", lu, update), lu), pivots]


def _blocked_lu(a, width: int):
    """getrf's results for the square a ([..., n, n]) by panels of `width` columns (LAPACK's getrf orders
    the work so), a trip of a loop each, then the last n % width columns as one narrower panel."""
    dims = build.shape(a)
    n, batch = dims[-1], dims[:-2]

    def step(p, lu, pivots):
        return _panel(lu, pivots, _binary("multiply", p, build.splat(width, p.type)), width)

    lu, pivots = build.counted_loop(n // width, [a, build.splat(0, _i32(batch + [n]))], step)
    rest = n % width
    if rest:
        lu, pivots = _panel(lu, pivots, build.splat(n - rest, _i32([])), rest, last=True)
    return getrf_results(lu, pivots)


def getrf(op, config: dict) -> list:
    """(L\\U, 1-based pivots, info) of LU with partial pivoting: getf2's steps (the largest entry at or
    below the diagonal, the first of equals, swapped to the diagonal; the column below scaled by its
    reciprocal, left as it is where it is zero: info; the trailing block less the rank-one product), by
    panels for square matrices of BLOCKED_LU columns or more, else a column a trip over the whole matrix."""
    a = op.operands[0]
    dims = build.shape(a)
    if dims[-2] != dims[-1] or dims[-1] < BLOCKED_LU:
        return _unblocked_lu(a)
    return _blocked_lu(a, LU_PANEL)


def _reflector(column, j, rows):
    """LAPACK's larfg on column[j:]: (beta [..., 1, 1], tau [..., 1, 1], v [..., m, 1] with v[j] = 1 and
    zeros above j) such that (I - tau v v^H)^H column[j:] = beta e_j."""
    dims = build.shape(column)
    rank = len(dims)
    zero = build.splat(0, _i32([]))
    alpha = _at(column, [zero] * (rank - 2) + [j, zero], dims[:-2] + [1, 1])
    below = build.compare(rows, _spread(j, dims), "GT", "SIGNED")
    tail = _where(below, column, build.splat(0, column.type))
    magnitude = _real_part(_binary("multiply", build.conjugate(tail), tail))
    tail_norm2 = build.reshape(build.reduce(magnitude, build.splat(0, build.tensor([], _real_type(column))),
                                            [rank - 2], "stablehlo.add"), dims[:-2] + [1, 1])
    alpha_re = _real_part(alpha)
    alpha_im = build.one("stablehlo.imag", alpha_re.type, alpha) if alpha_re is not alpha else None
    norm2 = _binary("add", _binary("multiply", alpha_re, alpha_re), tail_norm2)
    if alpha_im is not None:
        norm2 = _binary("add", norm2, _binary("multiply", alpha_im, alpha_im))
    norm = build.one("stablehlo.sqrt", norm2.type, norm2)
    nonnegative = build.compare(alpha_re, build.splat(0, alpha_re.type), "GE", "FLOAT")
    beta = _where(nonnegative, build.one("stablehlo.negate", norm.type, norm), norm)
    identity = build.compare(tail_norm2, build.splat(0, tail_norm2.type), "EQ", "FLOAT")
    if alpha_im is not None:
        identity = _both(identity, build.compare(alpha_im, build.splat(0, alpha_im.type), "EQ", "FLOAT"))
    # Where no reflection is needed (tau = 0), divide by 1s so that no NaN is made.
    safe_beta = _where(identity, build.splat(1, beta.type), beta)
    tau = _binary("divide", _binary("subtract", safe_beta, alpha_re), safe_beta)
    if alpha_im is not None:
        tau = build.one("stablehlo.complex", alpha.type, tau, _binary(
            "divide", build.one("stablehlo.negate", alpha_im.type, alpha_im), safe_beta))
    tau = _where(_stretch(identity, build.shape(tau)), build.splat(0, tau.type), tau)
    shift = _binary("subtract", alpha, _as_element(safe_beta, alpha))
    shift = _where(_stretch(identity, build.shape(shift)), build.splat(1, shift.type), shift)
    scaled = _binary("divide", tail, _stretch(shift, dims))
    at_j = build.compare(rows, _spread(j, dims), "EQ", "SIGNED")
    v = _where(at_j, build.splat(1, column.type), scaled)
    return _where(identity, alpha_re, beta), tau, v


def _reflect(x, v, tau, mask=None):
    """(I - tau v v^H) x (on the entries `mask` selects, if given): x less tau v (v^H x)."""
    dims = build.shape(x)
    rank = len(dims)
    # A barrier keeps the vector-matrix product out of the update's dispatch, so that oxla's gemv
    # configuration takes it (a product fused with the update it feeds keeps IREE's, which data-tiled
    # it, packing x on every trip).
    projection = build.barrier([product(build.conjugate(v), x, rank - 2, rank - 2)])[0]  # [..., 1, n]
    update = _binary("multiply", _stretch(_binary("multiply", v, _stretch(tau, build.shape(v))), dims),
                     _stretch(projection, dims))
    reflected = _binary("subtract", x, update)
    return reflected if mask is None else _where(mask, reflected, x)


def _with_reflector(x, j, row, beta, v, column_rows, within=None):
    """x with column j (0-d i32) holding beta at `row` and v's entries below it (where `within` allows), the
    rest of the column as it was: how LAPACK returns a reflector in the matrix it reduces."""
    at_row = build.compare(column_rows, _spread(row, build.shape(column_rows)), "EQ", "SIGNED")
    below = build.compare(column_rows, _spread(row, build.shape(column_rows)), "GT", "SIGNED")
    column = _column(x, j)
    column = _where(at_row, _stretch(_as_element(beta, column), build.shape(column)),
                    _where(below if within is None else _both(below, within), v, column))
    return _put_column(x, column, j)


def _householder_qr(a) -> list:
    """(R above the diagonal with the reflectors below it, tau) of Householder QR, one column a trip."""
    dims = build.shape(a)
    rank, m, n = len(dims), dims[-2], dims[-1]
    batch, count = dims[:-2], min(m, n)
    cols = build.positions(dims, rank - 1)
    column_rows = build.positions(batch + [m, 1], rank - 2)

    def step(j, r, taus):
        beta, tau, v = _reflector(_column(r, j), j, column_rows)
        right = build.compare(cols, _spread(j, dims), "GT", "SIGNED")
        r = _reflect(r, v, build.conjugate(tau), right)
        return [_with_reflector(r, j, j, beta, v, column_rows), _put_entry(taus, _scalars(tau), j)]

    taus = build.splat(0, build.tensor(batch + [count], build.element(a)))
    return build.counted_loop(count, [a, taus], step) if count else [a, taus]


def _householder_q(a, taus):
    """Q = H_0 H_1 ... H_{k-1} applied to the first columns of the identity (as many as `a` has), from
    geqrf's reflectors (below the diagonal of `a`) and tau, last reflector first."""
    dims = build.shape(a)
    rank, m, k = len(dims), dims[-2], build.shape(taus)[-1]
    batch = dims[:-2]
    rows, cols = build.positions(dims, rank - 2), build.positions(dims, rank - 1)
    column_rows = build.positions(batch + [m, 1], rank - 2)
    identity = _as_element(build.convert(build.compare(rows, cols, "EQ", "SIGNED"), _real_type(a)), a)

    def step(i, q):
        j = _binary("subtract", build.splat(k - 1, _i32([])), i)
        at_j = build.compare(column_rows, _spread(j, build.shape(column_rows)), "EQ", "SIGNED")
        below = build.compare(column_rows, _spread(j, build.shape(column_rows)), "GT", "SIGNED")
        column = _column(a, j)
        v = _where(at_j, build.splat(1, column.type), _where(below, column, build.splat(0, column.type)))
        tau = _at(taus, [build.splat(0, _i32([]))] * (rank - 2) + [j], batch + [1])
        return [_reflect(q, v, build.reshape(tau, batch + [1, 1]))]

    return build.counted_loop(k, [identity], step)[0] if k else identity


def geqrf(op, config: dict) -> list:
    """(R above the diagonal with the reflectors below it, tau) of Householder QR."""
    return _householder_qr(op.operands[0])


def orgqr(op, config: dict) -> list:
    """Q from geqrf's reflectors and tau (orgqr, ungqr)."""
    return [_householder_q(*op.operands)]


def gehrd(op, config: dict) -> list:
    """(H on and above the subdiagonal with the reflectors below it, tau, info = 0) of the Householder
    reduction to upper Hessenberg form (gehd2's order): reflector j, on rows j+1 .. ihi-1, zeroes column j
    below row j+1, applied from the right to rows before ihi and from the left to the columns after j.
    Rows and columns outside low..high (LAPACK's ilo, ihi: 1-based) are left as they are."""
    a = op.operands[0]
    dims = build.shape(a)
    rank, n, batch = len(dims), dims[-1], dims[:-2]
    low, high = config.get("low", 1), config.get("high", n)
    rows, cols = build.positions(dims, rank - 2), build.positions(dims, rank - 1)
    column_rows = build.positions(batch + [n, 1], rank - 2)
    reduced_rows = build.compare(column_rows, build.splat(high, column_rows.type), "LT", "SIGNED")
    before_high = build.compare(rows, build.splat(high, rows.type), "LT", "SIGNED")
    vector = build.tensor(batch + [n, 1], build.element(a))

    def step(i, h, taus):
        j = _binary("add", i, build.splat(low - 1, i.type))
        k = _binary("add", j, build.splat(1, i.type))
        beta, tau, v = _reflector(_where(reduced_rows, _column(h, j), build.splat(0, vector)), k, column_rows)
        # from the right: H (I - tau v v^H) on the rows before ihi (v is zero outside rows k .. ihi-1)
        image = _binary("multiply", product(h, v, rank - 1, rank - 2), _stretch(tau, batch + [n, 1]))
        update = _binary("multiply", _stretch(image, dims),
                         _stretch(build.reshape(build.conjugate(v), batch + [1, n]), dims))
        h = _where(before_high, _binary("subtract", h, update), h)
        # from the left: (I - tau v v^H)^H H on the columns after j
        h = _reflect(h, v, build.conjugate(tau), build.compare(cols, _spread(j, dims), "GT", "SIGNED"))
        return [_with_reflector(h, j, k, beta, v, column_rows, reduced_rows), _put_entry(taus, _scalars(tau), j)]

    taus = build.splat(0, build.tensor(batch + [n - 1], build.element(a)))
    if high - low > 0:
        a, taus = build.counted_loop(high - low, [a, taus], step)
    return [a, taus, build.splat(0, _i32(batch))]


# Jacobi sweeps syevd and gesdd run at most; each rotates every pair of rows once. They converge
# quadratically: a sweep squares the off-diagonal part's relative size, once it is small.
MAX_SWEEPS = 16


def _round_robin(count: int) -> np.ndarray:
    """[count - 1, count] i32 (count even): each round's partner of every index, every pair meeting once
    (the circle method: index count - 1 stays, the others turn)."""
    table = np.zeros((count - 1, count), np.int32)
    for r in range(count - 1):
        table[r, r], table[r, count - 1] = count - 1, r
        for k in range(1, count // 2):
            a, b = (r + k) % (count - 1), (r - k) % (count - 1)
            table[r, a], table[r, b] = b, a
    return table


def _partners_along(x, partner, dim: int):
    """x with each row (dim: rank - 2) or column (rank - 1) i replaced by row or column partner[i]: the same
    ones of every batched matrix."""
    dims = build.shape(x)
    kept = [d for d in range(len(dims)) if d != dim]
    numbers = (f"#stablehlo.gather<offset_dims = {kept}, collapsed_slice_dims = [{dim}], start_index_map = [{dim}], "
               f"index_vector_dim = 1>")
    return build.one("stablehlo.gather", x.type, x, build.reshape(partner, [dims[dim], 1]), dimension_numbers=numbers,
                     slice_sizes=build.i64_array([1 if d == dim else size for d, size in enumerate(dims)]))


def _rows_at(x, partner):
    """Row partner[i] of x ([..., n, m]) for each row i."""
    return _partners_along(x, partner, len(build.shape(x)) - 2)


def _rotated_rows(x, partner, own, other):
    """Each row i of x ([..., n, m]) as own[i] x[i] + other[i] x[partner[i]] (own, other: [..., n, 1])."""
    return _combined_rows(x, _rows_at(x, partner), own, other)


def _at_partner(x, partner_b):
    """x[..., i, partner[i]] as [..., n, 1] (partner_b: the partners broadcast to x's shape)."""
    dims = build.shape(x)
    hits = build.compare(build.positions(dims, len(dims) - 1), partner_b, "EQ", "SIGNED")
    picked = build.reduce(_where(hits, x, build.splat(0, x.type)), build.splat(0, build.tensor([], build.element(x))),
                          [len(dims) - 1], "stablehlo.add")
    return build.reshape(picked, dims[:-1] + [1])


def _rotation(own, theirs, off, first):
    """The coefficients (u_ii, u_ji) of the Jacobi rotation U that zeroes `off` between each index i and its
    partner j ([..., n, 1] each: the diagonal entries, real, own and the partner's, and a[i, j]; `first`:
    whether i is the lower of its pair): column i of a U is u_ii a_i + u_ji a_j, row i of U^H a the
    conjugates' sum. A complex a[p, q] = |a[p, q]| e^(i phi) is made real first (q's row and column times a
    phase, which U takes in: a unitary, not only a rotation)."""
    if not isinstance(build.element(off), ir.ComplexType):
        return _real_rotation(own, theirs, off, first)
    size = build.one("stablehlo.abs", build.tensor(build.shape(off), _real_type(off)), off)
    c, other = (_as_element(v, off) for v in _real_rotation(own, theirs, size, first))
    zero = build.compare(size, build.splat(0, size.type), "EQ", "FLOAT")
    # off / |off|; for i = q that is a[q, p] / |a[p, q]| = e^(-i phi)
    phase = _where(zero, build.splat(1, off.type), _binary("divide", off, _as_element(size, off)))
    return (_where(first, c, _binary("multiply", c, phase)),
            _where(first, _binary("multiply", other, build.conjugate(phase)), other))


def _real_rotation(own, theirs, off, first):
    """The coefficients (c, other) of the rotation that zeroes the real `off` between each index and its
    partner (see _rotation): its column becomes c column + other partner column."""
    low, high = _where(first, own, theirs), _where(first, theirs, own)
    tau = _binary("divide", _binary("subtract", high, low), _binary("multiply", build.splat(2, off.type), off))
    one = build.splat(1, tau.type)
    root = build.one("stablehlo.sqrt", tau.type, _binary("add", one, _binary("multiply", tau, tau)))
    sign = _where(build.compare(tau, build.splat(0, tau.type), "GE", "FLOAT"), one, build.splat(-1, tau.type))
    t = _binary("divide", sign, _binary("add", build.one("stablehlo.abs", tau.type, tau), root))
    t = _where(build.compare(off, build.splat(0, off.type), "EQ", "FLOAT"), build.splat(0, t.type), t)
    c = _binary("divide", one, build.one("stablehlo.sqrt", t.type, _binary("add", one, _binary("multiply", t, t))))
    s = _binary("multiply", t, c)
    return c, _where(first, build.one("stablehlo.negate", s.type, s), s)


def _pairing(r, table, dims):
    """Round r's partner of each index ([n] i32) and whether each index is the lower of its pair
    ([..., n, 1], for matrices of `dims`)."""
    rank, count = len(dims), dims[-2]
    partner = build.reshape(_at(table, [r, build.splat(0, _i32([]))], [1, count]), [count])
    column = dims[:-1] + [1]
    first = build.compare(build.positions(column, rank - 2), build.broadcast(partner, column, [rank - 2]), "LT", "SIGNED")
    return partner, first


def _combined_rows(x, theirs, own, other):
    """own x + other theirs, the coefficients ([..., n, 1]) spread along the rows."""
    dims = build.shape(x)
    return _binary("add", _binary("multiply", _stretch(own, dims), x),
                   _binary("multiply", _stretch(other, dims), theirs))


def _jacobi_round(r, table, a, w=None):
    """One round of two-sided rotations: every index i with its partner in round r of `table`, the
    rotation that zeroes a[i, partner] applied to a's rows and columns and to the rows of w (if given)."""
    dims = build.shape(a)
    partner, first = _pairing(r, table, dims)
    partner_b = build.broadcast(partner, dims, [len(dims) - 2])
    own = _real_part(build.reshape(_diagonal(a), dims[:-1] + [1]))
    c, other = _rotation(own, _real_part(_at_partner(_rows_at(a, partner), partner_b)), _at_partner(a, partner_b),
                         first)
    by_rows = build.conjugate(c), build.conjugate(other)
    half = _rotated_rows(a, partner, *by_rows)  # U^H a
    # (U^H a) U by columns, not as the rows of its transpose: IREE wrote that transpose column by column.
    along = dims[:-2] + [1, dims[-1]]
    theirs = _partners_along(half, partner, len(dims) - 1)
    full = _binary("add", _binary("multiply", _stretch(build.reshape(c, along), dims), half),
                   _binary("multiply", _stretch(build.reshape(other, along), dims), theirs))
    return [full] + ([] if w is None else [_rotated_rows(w, partner, *by_rows)])


def _one_sided_round(r, table, x, w=None):
    """One round of one-sided rotations: each row i of x with its partner in round r of `table`, the
    rotation that makes the two rows orthogonal (Jacobi on x x^H, which is never formed), applied to the
    rows of x and of w (if given): U^H x, U^H w."""
    dims = build.shape(x)
    rank = len(dims)
    partner, first = _pairing(r, table, dims)
    theirs = _rows_at(x, partner)

    def row_sums(values):
        zero = build.splat(0, build.tensor([], build.element(values)))
        return build.reshape(build.reduce(values, zero, [rank - 1], "stablehlo.add"), dims[:-1] + [1])

    c, other = _rotation(row_sums(_squared(x)), row_sums(_squared(theirs)),
                         row_sums(_binary("multiply", x, build.conjugate(theirs))), first)
    c, other = build.conjugate(c), build.conjugate(other)
    return [_combined_rows(x, theirs, c, other)] + ([] if w is None else [_rotated_rows(w, partner, c, other)])


def _off_diagonal_share(a):
    """The squared Frobenius norm of each matrix's off-diagonal part over that of all of it ([...]; 0 for a
    zero matrix)."""
    dims = build.shape(a)
    rank = len(dims)
    squares = _squared(a)
    zero = build.splat(0, build.tensor([], build.element(squares)))
    off = build.reduce(_where(_on_diagonal(dims), build.splat(0, squares.type), squares), zero, [rank - 2, rank - 1],
                       "stablehlo.add")
    total = build.reduce(squares, zero, [rank - 2, rank - 1], "stablehlo.add")
    return _binary("divide", off, _binary("maximum", total, build.splat(np.finfo(np.float32).tiny, total.type)))


def _largest(values):
    """The largest of `values` (any shape) as a 0-d tensor."""
    dims = build.shape(values)
    if not dims:
        return values
    return build.reduce(values, build.splat(0, build.tensor([], build.element(values))), list(range(len(dims))),
                        "stablehlo.maximum")


def _diagonal(a):
    """The diagonal of each matrix: [..., n]."""
    dims = build.shape(a)
    return build.reduce(_where(_on_diagonal(dims), a, build.splat(0, a.type)),
                        build.splat(0, build.tensor([], build.element(a))), [len(dims) - 1], "stablehlo.add")


def _jacobi_sweeps(x, trip, share, eps: float, vectors: bool):
    """(x, w, converged) after cyclic Jacobi sweeps over the rows of x ([..., n, ...], n even): `trip(r, table,
    x[, w])` rotates round r's pairs (_round_robin) of x and, where `vectors`, of w (the identity at first;
    None otherwise), `share(x)` says how far each matrix is from done ([...]: the off-diagonal part's share).
    Sweeps run until that is below eps^2 (eps: the results' precision, which may be coarser than x's), stops
    shrinking (rounding holds it somewhat above), or MAX_SWEEPS have run; `converged` ([...] i1) holds where
    it ended within eps, which rounding never prevents and only infinities or NaNs do."""
    dims = build.shape(x)
    count = dims[-2]
    table = build.one("stablehlo.constant", _i32([count - 1, count]),
                      value=f"dense<{_round_robin(count).tolist()}> : tensor<{count - 1}x{count}xi32>")
    scalar = build.tensor([], _real_type(x))
    rotated = [x]
    if vectors:
        rotated.append(_as_element(build.convert(_on_diagonal(dims[:-2] + [count, count]), _real_type(x)), x))

    def unfinished(sweep, *state):
        now, before = _largest(state[-1]), state[-2]
        more = build.compare(sweep, build.splat(MAX_SWEEPS, sweep.type), "LT", "SIGNED")
        rough = build.compare(now, build.splat(eps * eps, scalar), "GT", "FLOAT")
        closer = build.compare(now, before, "LT", "FLOAT")
        return build.one("stablehlo.and", more.type, more, build.one("stablehlo.and", more.type, rough, closer))

    def sweep(number, *state):
        matrices = build.counted_loop(count - 1, list(state[:-2]), lambda r, *m: trip(r, table, *m))
        return [_binary("add", number, build.splat(1, number.type)), *matrices, _largest(state[-1]), share(matrices[0])]

    _, *matrices, _, shares = build.while_loop(unfinished, sweep,
                                               [build.splat(0, _i32([])), *rotated, build.splat(2, scalar), share(x)])
    converged = build.compare(shares, build.splat(eps, shares.type), "LE", "FLOAT")
    return matrices[0], (matrices[1] if vectors else None), converged


def _jacobi_eigen(a, eps: float, vectors: bool):
    """(eigenvalues [..., n], the eigenvectors' conjugates as rows [..., n, n] or None, converged [...]) of the
    symmetric or Hermitian a by two-sided Jacobi sweeps, to the precision eps; the vectors only where
    `vectors`."""
    dims = build.shape(a)
    rank, n = len(dims), dims[-1]
    count = n + n % 2  # an odd size gets a zero row and column, which no rotation touches
    a = _zero_padded(a, [(0, 0)] * (rank - 2) + [(0, count - n)] * 2)
    a, w, converged = _jacobi_sweeps(a, _jacobi_round, _off_diagonal_share, eps, vectors)
    values = build.strided_slice(_real_part(_diagonal(a)), [0] * (rank - 1), dims[:-1], [1] * (rank - 1))
    return values, (None if w is None else build.strided_slice(w, [0] * rank, dims, [1] * rank)), converged


def _eps(x) -> float:
    """The machine epsilon of x's element type (bf16's too; a complex type's parts')."""
    kind = _real_type(x)
    if str(kind) == "bf16":
        return 2.0 ** -7
    return float(np.finfo({16: np.float16, 32: np.float32, 64: np.float64}[ir.FloatType(kind).width]).eps)


def newton_schulz_step(rows):
    """rows r [..., k, n] nearer orthonormal: r - 1/2 (G - I) r = (3/2 I - 1/2 G) r, G = r r^H, which squares
    their distance from it (each entry of G from the identity's) where that is below 1."""
    rank = len(build.shape(rows))
    gram = product(rows, build.conjugate(rows), rank - 1, rank - 1)
    identity = _as_element(build.convert(_on_diagonal(build.shape(gram)), _real_type(rows)), rows)
    half_off = _binary("multiply", _binary("subtract", gram, identity), build.splat(0.5, gram.type))
    return _binary("subtract", rows, product(half_off, rows, rank - 1, rank - 2))


def sorted_last(values, rows: list, direction: str):
    """values sorted along the last dim (direction "LT": ascending, "GT": descending; equal ones keep
    their order), and each of `rows` ([..., n, m], a row per value) in that order."""
    dims = build.shape(values)
    rank = len(dims)
    positions = build.positions(dims, rank - 1)
    sort = ir.Operation.create("stablehlo.sort", results=[values.type, positions.type], operands=[values, positions],
                               attributes={"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), rank - 1),
                                           "is_stable": ir.BoolAttr.get(True)}, regions=1)
    scalar = build.tensor([], build.element(values))
    block = sort.regions[0].blocks.append(scalar, scalar, _i32([]), _i32([]))
    with ir.InsertionPoint(block):
        ir.Operation.create("stablehlo.return", operands=[
            build.compare(block.arguments[0], block.arguments[1], direction, "FLOAT")])
    ordered, order = sort.results
    return ordered, [build.take_along(x, build.broadcast(order, dims + [build.shape(x)[-1]], list(range(rank))),
                                      rank - 1) for x in rows]


def syevd(op, config: dict, eigen=None, ascending: bool = False) -> list:
    """(eigenvectors as columns, eigenvalues ascending, info) of the symmetric (heevd: Hermitian) matrix given
    by its uplo triangle. `eigen(matrix, vectors)` gives (eigenvalues, the eigenvectors' conjugates as rows
    or None, info) of the whole matrix in any order (`ascending`: in that order, the rows in theirs, so that
    they need no sort); by default Jacobi rotations in f64 (not LAPACK's divide
    and conquer: the same values, the vectors up to sign, or a unit phase for complex ones), info 1 where
    the sweeps ran out before the matrix was near diagonal. As heevd does, the imaginary parts of the
    diagonal are taken as zero."""
    a = op.operands[0]
    dims = build.shape(a)
    lower = config.get("uplo", _LOWER) == _LOWER
    hermitian = _where(triangle(dims, lower), a, _adjoint(a))
    if isinstance(build.element(a), ir.ComplexType):
        hermitian = _where(_on_diagonal(dims), _as_element(_real_part(hermitian), a), hermitian)
    vectors = wants_vectors(op, config)
    values, rows, info = (eigen or _jacobi_eigen_in_f64)(hermitian, vectors)
    values = build.convert(values, build.element(op.results[1]))
    rows = [build.convert(rows, build.element(a))] if vectors else []
    if not ascending:
        values, rows = sorted_last(values, rows, "LT")
    return [_adjoint(rows[0]) if vectors else a, values, info]


def wants_vectors(op, config: dict) -> bool:
    """Whether a syevd or heevd call's eigenvectors are asked for and read: jnp.linalg.eigvalsh asks for them
    and drops them."""
    return config.get("mode", ord("V")) == ord("V") and bool(list(op.results[0].uses))


def _jacobi_eigen_in_f64(a, vectors: bool):
    """syevd's eigen: _jacobi_eigen of a in f64 (complex<f64>) to a's precision, and LAPACK's info."""
    # f32 rotations left n eps |a| of error (64 x 64: 1e-4, LAPACK's 8e-6); in f64 it is 2e-6.
    values, rows, converged = _jacobi_eigen(_in_f64(a), _eps(a), vectors)
    return values, rows, _failures(converged)


def _failures(converged):
    """LAPACK's info for a routine that may not converge: 1 where it did not, else 0."""
    return build.convert(build.one("stablehlo.not", converged.type, converged), ir.IntegerType.get_signless(32))


def _gram_share(x):
    """_off_diagonal_share of x x^H: how far the rows of x are from orthogonal."""
    rank = len(build.shape(x))
    return _off_diagonal_share(product(x, build.conjugate(x), rank - 1, rank - 1))


def _completed(columns_of, columns_type, keep, whole: bool, qr=None):
    """[..., m, m] orthonormal (where `whole`; else [..., m, k]): the columns columns_of() builds (of
    `columns_type`, [..., m, k], orthonormal where `keep` [..., k] holds, zero elsewhere) with the zero ones
    replaced and m - k more added, all orthogonal to the kept ones: the Q of their Householder QR, whose
    columns span the same spaces one by one (the kept ones come first). Where no column is to be added, a
    stablehlo.if runs the QR only where some column is not kept (pinv of f32[256,64]: 0.21 of its 1.27 ms);
    each of its branches builds the columns, as a branch yielding a value from before the if made IREE's
    runtime fail ("transient buffer has not been committed") where another if follows (the complex SVD's).
    `qr`: (the QR's (reflectors, taus), their Q) as functions; by default the loops of geqrf and orgqr."""
    shaped = ir.RankedTensorType(columns_type)
    m, k = shaped.shape[-2:]
    if whole and m > k:
        return _completion(columns_of(), keep, whole, qr)
    every = build.reduce(keep, build.splat(1, build.tensor([], build.element(keep))),
                         list(range(len(build.shape(keep)))), "stablehlo.and")

    def completion():
        return [build.convert(_completion(columns_of(), keep, whole, qr), shaped.element_type)]

    return build.conditional(every, [columns_type], lambda: [columns_of()], completion)[0]


def _completion(columns, keep, whole: bool, qr=None):
    """_completed's columns through the Householder QR."""
    dims = build.shape(columns)
    rank, m, k = len(dims), dims[-2], dims[-1]
    factor, q_of = qr or (_householder_qr, _householder_q)
    reflectors, taus = factor(columns)
    q = q_of(_zero_padded(reflectors, [(0, 0)] * (rank - 1) + [(0, m - k if whole else 0)]), taus)
    columns = build.convert(columns, build.element(q))
    first = build.strided_slice(q, [0] * rank, dims, [1] * rank)
    fixed = _where(build.broadcast(keep, dims, list(range(rank - 2)) + [rank - 1]), columns, first)
    if m == k or not whole:
        return fixed
    rest = build.strided_slice(q, [0] * (rank - 1) + [k], dims[:-1] + [m], [1] * rank)
    return build.concatenate([fixed, rest], rank - 1)


def gesdd(op, config: dict, sweeps=None, qr=None) -> list:
    """(the operand, singular values descending, U, V^H, info) of a real or complex matrix by one-sided
    Jacobi rotations in f64 (Hestenes: the rows of a^H, or of a where it is wide, made orthogonal; their
    norms are the singular values, the rows normalized one side's vectors, the rotations the other's); mode
    'A' the full U and V^H, 'S' the first min(m, n) columns and rows, 'N' the values only (U and V^H zeros).
    Vectors of zero singular values (to rounding: max(m, n) eps of the largest), and the full side's extra
    ones, come from the Householder QR of the rest (run only where there are such vectors: _completed).
    `sweeps(x, eps, vectors)` gives (x, w, converged) as
    _jacobi_sweeps does (by default the loops of _one_sided_round); `qr` is _completed's."""
    a = op.operands[0]
    mode = config.get("mode", ord("A"))
    if mode == ord("N"):
        _, _, norms, converged = _swept(a, False, sweeps)
        batch, k = build.shape(a)[:-2], min(build.shape(a)[-2:])
        values = build.strided_slice(norms, [0] * (len(batch) + 1), batch + [k], [1] * (len(batch) + 1))
        return singular_values_only(op, values, _failures(converged))  # the padding's zero row is the last
    values, u, vt, info = singular_triplets(a, mode == ord("A"), sweeps, qr)
    return [a, build.convert(values, build.element(op.results[1])), u, vt, info]


def _swept(a, vectors: bool, sweeps=None):
    """gesdd's sweeps over the rows of a^H (a where it is wide) in f64, an odd count of them padded by a zero
    row: (the rows rotated, the rotations, their norms, converged)."""
    dims = build.shape(a)
    rank, m, n = len(dims), dims[-2], dims[-1]
    k = min(m, n)
    x = _in_f64(_adjoint(a) if m >= n else a)  # [..., k, max(m, n)]
    count = k + k % 2  # an odd count gets a zero row, which no rotation touches
    x = _zero_padded(x, [(0, 0)] * (rank - 2) + [(0, count - k), (0, 0)])
    x, w, converged = (sweeps or _one_sided_sweeps)(x, _eps(a), vectors)
    norms = build.one("stablehlo.sqrt", build.tensor(dims[:-2] + [count], _real_type(x)),
                      build.reduce(_squared(x), build.splat(0, build.tensor([], _real_type(x))), [rank - 1],
                                   "stablehlo.add"))
    return x, w, norms, converged


def above_rounding(values, floor: float):
    """Where singular values [..., k] (descending) are above `floor` times the largest: those of a
    rank-deficient matrix at rounding's level have no direction left to normalize."""
    dims = build.shape(values)
    rank = len(dims)
    largest = build.broadcast(build.strided_slice(values, [0] * rank, dims[:-1] + [1], [1] * rank), dims,
                              list(range(rank)))
    return build.compare(values, _binary("multiply", largest, build.splat(floor, values.type)), "GT", "FLOAT")


def singular_triplets(a, whole: bool, sweeps=None, qr=None) -> list:
    """gesdd's (singular values descending in f64, U, V^H, info) of a [..., m, n] in mode 'A' (`whole`) or
    'S'."""
    dims = build.shape(a)
    rank, m, n = len(dims), dims[-2], dims[-1]
    k, tall, batch = min(m, n), m >= n, dims[:-2]
    x, w, norms, converged = _swept(a, True, sweeps)
    norms, (x, w) = sorted_last(norms, [x, w], "GT")  # the zero row, of norm 0, stays last among equals
    values = build.strided_slice(norms, [0] * (rank - 1), batch + [k], [1] * (rank - 1))
    x = build.strided_slice(x, [0] * rank, batch + [k, max(m, n)], [1] * rank)
    w = build.strided_slice(w, [0] * rank, batch + [k, k], [1] * rank)
    nonzero = above_rounding(values, max(m, n) * _eps(a))

    def columns():
        """The rows normalized, as columns; rows of no direction left (rank deficiency's) as zeros."""
        spread = build.broadcast(values, build.shape(x), list(range(rank - 1)))
        kept = build.broadcast(nonzero, build.shape(x), list(range(rank - 1)))
        divisor = _as_element(_where(kept, spread, build.splat(1, spread.type)), x)
        return _adjoint(_where(kept, _binary("divide", x, divisor), build.splat(0, x.type)))

    kind = build.element(a)
    full = _completed(columns, build.tensor(batch + [max(m, n), k], build.element(x)), nonzero, whole, qr)
    u, v = (full, _adjoint(w)) if tall else (_adjoint(w), full)
    u = build.convert(build.strided_slice(u, [0] * rank, batch + [m, m if whole else k], [1] * rank), kind)
    vt = build.convert(build.strided_slice(_adjoint(v), [0] * rank, batch + [n if whole else k, n], [1] * rank), kind)
    return [values, u, vt, _failures(converged)]


def _one_sided_sweeps(x, eps: float, vectors: bool):
    """gesdd's sweeps: _jacobi_sweeps of one-sided rounds."""
    return _jacobi_sweeps(x, _one_sided_round, _gram_share, eps, vectors)


def singular_values_only(op, values, info, descending: bool = False) -> list:
    """gesdd's results in mode 'N': the operand, `values` ([..., min(m, n)], in any order unless
    `descending`) descending in the result's type, U and V^H zeros, and `info`."""
    ordered = values if descending else sorted_last(values, [], "GT")[0]
    return [op.operands[0], build.convert(ordered, build.element(op.results[1])),
            build.splat(0, op.results[2].type), build.splat(0, op.results[3].type), info]


def trsm(op, config: dict) -> list:
    """stablehlo.triangular_solve of the same system (oxla-legalize-triangular-solve solves it)."""
    a, b = op.operands[:2]
    transpose = {_NO: "NO_TRANSPOSE", _TRANSPOSE: "TRANSPOSE", _ADJOINT: "ADJOINT"}[config.get("trans_x", _NO)]
    return [build.one("stablehlo.triangular_solve", b.type, a, b,
                      left_side=ir.BoolAttr.get(config.get("side", _LOWER) == _LOWER),
                      lower=ir.BoolAttr.get(config.get("uplo", _LOWER) == _LOWER),
                      unit_diagonal=ir.BoolAttr.get(config.get("diag", _NO) == _UPPER),
                      transpose_a=f"#stablehlo<transpose {transpose}>")]


class Routine(NamedTuple):
    """A LAPACK routine this pass rewrites: its operand and result counts, the builder of its results, and
    the element types it takes (LAPACK's letters)."""

    operands: int
    results: int
    build: Callable
    types: str = "sdcz"


ROUTINES: dict[str, Routine] = {
    "trsm": Routine(2, 1, trsm),
    "potrf": Routine(1, 2, potrf),
    "getrf": Routine(1, 3, getrf),
    "geqrf": Routine(1, 2, geqrf),
    "orgqr": Routine(2, 1, orgqr),
    "gehrd": Routine(1, 3, gehrd),
    "ungqr": Routine(2, 1, orgqr),
    "syevd": Routine(1, 3, syevd, "sd"),
    "heevd": Routine(1, 3, syevd, "cz"),
    "gesdd": Routine(1, 5, gesdd),
}


def routine_of(target: str) -> str | None:
    """The routine name of a LAPACK custom-call target this pass rewrites ("getrf" for
    lapack_sgetrf_ffi), or None."""
    found = _TARGET.match(target)
    if not found or found.group(2) not in ROUTINES:
        return None
    return found.group(2) if found.group(1) in ROUTINES[found.group(2)].types else None


def call_config(op) -> dict:
    """The call's mhlo.backend_config dictionary as {name: int}."""
    if "mhlo.backend_config" not in op.attributes:
        return {}
    attr = op.attributes["mhlo.backend_config"]
    if not isinstance(attr, ir.DictAttr):
        return {}
    return {named.name: ir.IntegerAttr(named.attr).value for named in attr
            if isinstance(named.attr, ir.IntegerAttr)}


def fits(op, routine: Routine) -> bool:
    """Whether the call has the routine's operand and result counts over ranked static matrices."""
    values = list(op.operands) + list(op.results)
    return (len(op.operands) == routine.operands and len(op.results) == routine.results
            and all(isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).has_static_shape
                    for v in values)
            and len(build.shape(op.operands[0])) >= 2)


@register_pass
class LegalizeCholesky(RewritePass):
    """Rewrites stablehlo.cholesky (which IREE does not lower) as a loop over the factor's columns."""

    name = "oxla-legalize-cholesky"
    roots = ("stablehlo.cholesky",)

    def matches(self, op) -> bool:
        return ir.RankedTensorType(op.operands[0].type).has_static_shape

    def rewrite(self, op) -> None:
        build.replace(op, cholesky)


@register_pass
class LegalizeLapackCalls(RewritePass):
    """Rewrites JAX's LAPACK calls (trsm, potrf, getrf, geqrf, orgqr/ungqr, gehrd, syevd, heevd, gesdd) as StableHLO."""

    name = "oxla-legalize-lapack-calls"
    roots = ("stablehlo.custom_call",)

    def matches(self, op) -> bool:
        name = routine_of(ir.StringAttr(op.attributes["call_target_name"]).value)
        return name is not None and fits(op, ROUTINES[name])

    def rewrite(self, op) -> None:
        routine = ROUTINES[routine_of(ir.StringAttr(op.attributes["call_target_name"]).value)]
        config = call_config(op)
        build.replace(op, lambda call: routine.build(call, config))
