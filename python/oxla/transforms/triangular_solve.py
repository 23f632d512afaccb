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
"""

from __future__ import annotations

from oxla import ir
from oxla.transforms.registry import RewritePass, register_pass
from oxla.dialects.stablehlo_build import element, enum_name, flag, i64_array, one, replace, shape, splat, tensor


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


def _conjugate(x):
    """The complex conjugate of x (x itself for real types)."""
    kind = element(x)
    if not isinstance(kind, ir.ComplexType):
        return x
    part = tensor(shape(x), kind.element_type)
    real, imag = one("stablehlo.real", part, x), one("stablehlo.imag", part, x)
    return one("stablehlo.complex", x.type, real, one("stablehlo.negate", part, imag))


def _strict_triangle(a, lower: bool):
    """a with every entry outside its strict lower (or upper) triangle set to zero."""
    rank, dims = len(shape(a)), shape(a)
    index = tensor(dims, _i32())
    rows = one("stablehlo.iota", index, iota_dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), rank - 2))
    cols = one("stablehlo.iota", index, iota_dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), rank - 1))
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
    carried = [_i32_constant(0), splat(0, rhs.type), _strict_triangle(a, lower), a, rhs]
    loop = ir.Operation.create("stablehlo.while", results=[v.type for v in carried], operands=carried, regions=2)
    cond = loop.regions[0].blocks.append(*[v.type for v in carried])
    with ir.InsertionPoint(cond):
        more = one("stablehlo.compare", tensor([], ir.IntegerType.get_signless(1)), cond.arguments[0],
                   _i32_constant(n), comparison_direction="#stablehlo<comparison_direction LT>")
        ir.Operation.create("stablehlo.return", operands=[more])
    body = loop.regions[1].blocks.append(*[v.type for v in carried])
    with ir.InsertionPoint(body):
        step, x, strict_arg, a_arg, rhs_arg = body.arguments
        row = step if lower else one("stablehlo.subtract", step.type, _i32_constant(n - 1), step)
        solved = _solve_row(row, x, strict_arg, a_arg, rhs_arg, unit)
        following = one("stablehlo.add", step.type, step, _i32_constant(1))
        ir.Operation.create("stablehlo.return", operands=[following, solved, strict_arg, a_arg, rhs_arg])
    return loop.results[1]


def solve(op):
    """X for the triangular_solve `op`, by substitution on the system made left-sided."""
    a, b = op.operands
    left, transpose = flag(op, "left_side"), enum_name(op, "transpose_a")
    swapped = (transpose != "NO_TRANSPOSE") != (not left)  # a is transposed an odd number of times
    if transpose == "ADJOINT":
        a = _conjugate(a)
    if swapped:
        a = _swap_matrix_dims(a)
    x = _substitution(a, b if left else _swap_matrix_dims(b), flag(op, "lower") != swapped,
                      flag(op, "unit_diagonal"))
    return x if left else _swap_matrix_dims(x)


@register_pass
class LegalizeTriangularSolve(RewritePass):
    """Rewrites stablehlo.triangular_solve (which IREE does not lower) as substitution in a stablehlo.while."""

    name = "oxla-legalize-triangular-solve"
    roots = ("stablehlo.triangular_solve",)

    def rewrite(self, op) -> None:
        replace(op, solve)
