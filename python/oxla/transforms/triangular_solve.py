"""oxla-legalize-triangular-solve: solve stablehlo.triangular_solve by substitution in a while loop.

IREE does not lower triangular_solve. Each variant is first made left-sided,
a X = B, by exact data movement only: X op(a) = B (right side) is
op(a)^T X^T = B^T, so a and b are transposed once more; an odd number of
transposes of a swaps the triangle it uses; ADJOINT also conjugates a.

A stablehlo.while then solves one row of X per iteration, first to last
for a lower triangular a (last to first for an upper one):
X[i] = (B[i] - a[i, :] X) / a[i, i], where the entries of a outside its
strict triangle are masked to zero (so they are never read, whatever they
hold), the rows of X not yet solved are still zero, and there is no
division when unit_diagonal is set.

IREE runs the loop on the host, a few dispatches and a wait a trip, so
systems of BLOCKED_ROWS rows or more go by blocks of rows instead
(_blocked_substitution): the diagonal blocks' inverses first, all in one
such loop of a trip per row of a block, then one trip per block. For
f32[256,256] with 8 right-hand sides on an AVX2 Zen 3: 512 trips become 32.
"""

from __future__ import annotations

import math

from oxla import ir
from oxla.transforms.registry import RewritePass, register_pass
from oxla.dialects import stablehlo_build as build
from oxla.dialects.stablehlo_build import element, enum_name, flag, i64_array, one, replace, shape, splat, tensor


# Systems of at least this many rows are solved a block of rows at a time (_blocked_substitution).
BLOCKED_ROWS = 32


def _i32_constant(value: int):
    """A scalar i32 constant."""
    return splat(value, tensor([], _i32()))


def _i32():
    """The loop counter and index type."""
    return ir.IntegerType.get_signless(32)


def _swap_matrix_dims(x):
    """x with its last two dims exchanged (a batched matrix transpose)."""
    rank = len(shape(x))
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    dims = shape(x)
    return one("stablehlo.transpose", tensor([dims[p] for p in perm], element(x)), x, permutation=i64_array(perm))


def _strict_triangle(a, lower: bool):
    """a with every entry outside its strict lower (or upper) triangle set to zero."""
    rank, dims = len(shape(a)), shape(a)
    rows, cols = build.positions(dims, rank - 2), build.positions(dims, rank - 1)
    inside = one("stablehlo.compare", tensor(dims, ir.IntegerType.get_signless(1)), rows, cols,
                 comparison_direction=f"#stablehlo<comparison_direction {'GT' if lower else 'LT'}>")
    return one("stablehlo.select", a.type, inside, a, splat(0, a.type))


def _dynamic_slice(x, starts: list, sizes: list[int]):
    """stablehlo.dynamic_slice of x at scalar i32 `starts` with static `sizes`."""
    return one("stablehlo.dynamic_slice", tensor(sizes, element(x)), x, *starts, slice_sizes=i64_array(sizes))


def _solve_row(i, x, strict, a, rhs, unit: bool):
    """Row i of X from the rows solved before it; returns X with row i filled in."""
    dims, rank = shape(x), len(shape(x))
    batch, n, k = dims[:-2], dims[-2], dims[-1]
    zero = _i32_constant(0)
    row_at = [zero] * (rank - 2) + [i, zero]
    row = _dynamic_slice(strict, row_at, batch + [1, n])
    batching = list(range(rank - 2))
    numbers = ir.Attribute.parse(
        f"#stablehlo.dot<lhs_batching_dimensions = {batching}, rhs_batching_dimensions = {batching}, "
        f"lhs_contracting_dimensions = [{rank - 1}], rhs_contracting_dimensions = [{rank - 2}]>")
    known = one("stablehlo.dot_general", tensor(batch + [1, k], element(x)), row, x, dot_dimension_numbers=numbers)
    value = one("stablehlo.subtract", known.type, _dynamic_slice(rhs, row_at, batch + [1, k]), known)
    if not unit:
        pivot = _dynamic_slice(a, [zero] * (rank - 2) + [i, i], batch + [1, 1])
        spread = one("stablehlo.broadcast_in_dim", value.type, pivot, broadcast_dimensions=i64_array(range(rank)))
        value = one("stablehlo.divide", value.type, value, spread)
    return one("stablehlo.dynamic_update_slice", x.type, x, value, *row_at)


def _substitution(a, rhs, lower: bool, unit: bool):
    """X with a X = rhs (a: [..., n, n] triangular, rhs: [..., n, k]) by a while loop over the rows of X."""
    n = shape(a)[-1]

    def step(i, x, strict, a, rhs):
        row = i if lower else one("stablehlo.subtract", i.type, _i32_constant(n - 1), i)
        return [_solve_row(row, x, strict, a, rhs, unit), strict, a, rhs]

    return build.counted_loop(n, [splat(0, rhs.type), _strict_triangle(a, lower), a, rhs], step)[0]


def block_rows(n: int) -> int:
    """The rows of a block for a system of n rows: 1 (row by row) below BLOCKED_ROWS, else the power of two
    at or above sqrt(n), which about balances the trips that invert the diagonal blocks (one per row of a
    block) against the trips over the blocks."""
    return 1 if n < BLOCKED_ROWS else 1 << math.ceil(math.log2(math.sqrt(n)))


def _padded(a, rhs, rows: int):
    """a and rhs with zero rows (and columns of a) added up to `rows`, a's added diagonal ones."""
    dims, n = shape(a), shape(a)[-1]
    if rows == n:
        return a, rhs
    rank = len(dims)
    more = [(0, 0)] * (rank - 2)
    zero = splat(0, tensor([], element(a)))
    a = build.pad(a, zero, more + [(0, rows - n), (0, rows - n)])
    index = tensor(shape(a), _i32())
    row, col = build.positions(shape(a), rank - 2), build.positions(shape(a), rank - 1)
    added = one("stablehlo.and", tensor(shape(a), ir.IntegerType.get_signless(1)),
                build.compare(row, col, "EQ", "SIGNED"), build.compare(row, splat(n, index), "GE", "SIGNED"))
    a = one("stablehlo.select", a.type, added, splat(1, a.type), a)
    return a, build.pad(rhs, zero, more + [(0, rows - n), (0, 0)])


def _diagonal_blocks(a, size: int):
    """a's diagonal blocks of `size` rows, [..., n / size, size, size]."""
    dims = shape(a)
    batch, count = dims[:-2], dims[-1] // size
    blocks = [build.reshape(build.strided_slice(a, [0] * len(batch) + [i * size, i * size],
                                                batch + [(i + 1) * size, (i + 1) * size], [1] * len(dims)),
                            batch + [1, size, size]) for i in range(count)]
    if count == 1:
        return blocks[0]
    return one("stablehlo.concatenate", tensor(batch + [count, size, size], element(a)), *blocks,
               dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), len(batch)))


def _product(lhs, rhs):
    """The batched matrix product lhs rhs ([..., m, k] by [..., k, n])."""
    rank = len(shape(lhs))
    batching = list(range(rank - 2))
    numbers = ir.Attribute.parse(
        f"#stablehlo.dot<lhs_batching_dimensions = {batching}, rhs_batching_dimensions = {batching}, "
        f"lhs_contracting_dimensions = [{rank - 1}], rhs_contracting_dimensions = [{rank - 2}]>")
    return one("stablehlo.dot_general", tensor(shape(lhs)[:-1] + shape(rhs)[-1:], element(lhs)), lhs, rhs,
               dot_dimension_numbers=numbers)


def _blocked_substitution(a, rhs, lower: bool, unit: bool, size: int):
    """X with a X = rhs by blocks of `size` rows: the inverses of a's diagonal blocks first (all at once,
    by substitution on the identity), then a while loop over the blocks of X, each the inverse of its
    block times its rows of rhs less the product of a's rows with the blocks solved before it (XLA's
    TriangularSolveExpander works so): a trip per block rather than per row."""
    n = shape(a)[-1]
    rows = -(-n // size) * size
    a, rhs = _padded(a, rhs, rows)
    batch, count, k = shape(a)[:-2], rows // size, shape(rhs)[-1]
    blocks = _diagonal_blocks(a, size)
    identity = one("stablehlo.select", blocks.type, build.compare(
        *[build.positions(shape(blocks), len(batch) + d) for d in (1, 2)], "EQ", "SIGNED"),
        splat(1, blocks.type), splat(0, blocks.type))
    inverses = _substitution(blocks, identity, lower, unit)
    zero = _i32_constant(0)

    def step(i, x, strict, inverses, rhs):
        block = i if lower else one("stablehlo.subtract", i.type, _i32_constant(count - 1), i)
        start = one("stablehlo.multiply", i.type, block, _i32_constant(size))
        at = [zero] * len(batch) + [start, zero]
        known = _product(_dynamic_slice(strict, at, batch + [size, rows]), x)
        rest = one("stablehlo.subtract", known.type, _dynamic_slice(rhs, at, batch + [size, k]), known)
        inverse = build.reshape(_dynamic_slice(inverses, [zero] * len(batch) + [block, zero, zero],
                                               batch + [1, size, size]), batch + [size, size])
        return [one("stablehlo.dynamic_update_slice", x.type, x, _product(inverse, rest), *at), strict, inverses, rhs]

    x = build.counted_loop(count, [splat(0, rhs.type), _strict_triangle(a, lower), inverses, rhs], step)[0]
    return build.slice_to(x, batch + [n, k])


def substitute(a, rhs, lower: bool, unit: bool):
    """X with a X = rhs for the triangular a, by substitution in a loop (by blocks of rows for large a)."""
    size = block_rows(shape(a)[-1])
    return _substitution(a, rhs, lower, unit) if size == 1 else _blocked_substitution(a, rhs, lower, unit, size)


def solve(op, substitution=substitute):
    """X for the triangular_solve `op`, by `substitution` (a, rhs, lower, unit) on the system made left-sided
    (oxla-llvmcpu-lapack-kernels passes its kernel's)."""
    a, b = op.operands
    left, transpose = flag(op, "left_side"), enum_name(op, "transpose_a")
    swapped = (transpose != "NO_TRANSPOSE") != (not left)  # a is transposed an odd number of times
    if transpose == "ADJOINT":
        a = build.conjugate(a)
    if swapped:
        a = _swap_matrix_dims(a)
    rhs, lower, unit = b if left else _swap_matrix_dims(b), flag(op, "lower") != swapped, flag(op, "unit_diagonal")
    x = substitution(a, rhs, lower, unit)
    return x if left else _swap_matrix_dims(x)


@register_pass
class LegalizeTriangularSolve(RewritePass):
    """Rewrites stablehlo.triangular_solve (which IREE does not lower) as substitution in a stablehlo.while."""

    name = "oxla-legalize-triangular-solve"
    roots = ("stablehlo.triangular_solve",)

    def rewrite(self, op) -> None:
        replace(op, solve)
