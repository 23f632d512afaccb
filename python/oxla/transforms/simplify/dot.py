"""dot_general: transposed operands folded into the dimension numbers, and dots with nothing to sum.

The reference semantics sum a dot's products starting from a zero
(the spec's reduce with init 0, which oxla's interpreter follows), so a
dot over one product is 0 + lhs * rhs: exactly the product for integers,
and the product with -0.0 turned into +0.0 for floats.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo.types import element_of, to_numpy_dtype
from oxla.transforms.simplify.constants import replace_built, splat_constant, static_shape
from oxla.transforms.simplify.rule import defining, element_kind, rule

FAMILY = "dot"

_KNOWN_ATTRIBUTES = {"dot_dimension_numbers", "precision_config", "algorithm"}


def _attributes(op) -> dict | None:
    """op's attributes by name, or None when it has one these rules do not know (they would drop it)."""
    attrs = op.operation.attributes
    found = {attrs[i].name: attrs[i].attr for i in range(len(attrs))}
    return None if set(found) - _KNOWN_ATTRIBUTES else found


def _default_precision(op) -> bool:
    """Whether the dot has no algorithm and only DEFAULT precisions."""
    attrs = _attributes(op)
    return (attrs is not None and "algorithm" not in attrs
            and all(p == "DEFAULT" for p in (op.precision_config or [])))


def _numbers(op) -> tuple[list, list, list, list]:
    """(lhs batching, rhs batching, lhs contracting, rhs contracting) dimensions of a dot_general."""
    dn = op.dot_dimension_numbers
    return (list(dn.lhs_batching_dimensions), list(dn.rhs_batching_dimensions),
            list(dn.lhs_contracting_dimensions), list(dn.rhs_contracting_dimensions))


def _untransposed(value, batching: list, contracting: list):
    """(operand, batching, contracting) with a transpose feeding `value` folded in, when the free dimensions keep
    their order (the result's order); None otherwise."""
    t = defining(value, "stablehlo.transpose")
    if t is None or element_kind(t.operand) == "other":
        return None
    perm = list(t.permutation)
    free = [perm[d] for d in range(len(perm)) if d not in batching and d not in contracting]
    if free != sorted(free):
        return None
    return t.operand, [perm[d] for d in batching], [perm[d] for d in contracting]


@rule("stablehlo.dot_general", family=FAMILY)
def dot_transpose_operands(op, rw) -> bool:
    """dot_general of transposed operands -> the operands with remapped dimension numbers (free order kept)."""
    # Exact: the same products summed in the same order; declined when the result's dimension order would change.
    attrs = _attributes(op)
    if attrs is None:
        return False
    lb, rb, lc, rc = _numbers(op)
    lhs, rhs = op.lhs, op.rhs
    folded = False
    found = _untransposed(lhs, lb, lc)
    if found is not None:
        (lhs, lb, lc), folded = found, True
    found = _untransposed(rhs, rb, rc)
    if found is not None:
        (rhs, rb, rc), folded = found, True
    if not folded:
        return False
    numbers = shlo.DotDimensionNumbers(lhs_batching_dimensions=lb, rhs_batching_dimensions=rb,
                                       lhs_contracting_dimensions=lc, rhs_contracting_dimensions=rc)
    extra = {k: v for k, v in attrs.items() if k != "dot_dimension_numbers"}
    return replace_built(op, rw, lambda: shlo.dot_general(lhs, rhs, dot_dimension_numbers=numbers,
                                                          result_types=[op.results[0].type], **extra))


def _spread(value, batching: list, skip: int, offset: int, out: list):
    """`value` without its size-1 dimension `skip`, broadcast to the result shape `out`: batching dimension k goes
    to result dimension k, the i-th free dimension to offset + i."""
    dims = static_shape(value)
    rest = [d for d in range(len(dims)) if d != skip]
    free = [d for d in rest if d not in batching]
    target = [batching.index(d) if d in batching else offset + free.index(d) for d in rest]
    squeezed = shlo.reshape(value, shape=[dims[d] for d in rest])
    if target == list(range(len(out))) and [dims[d] for d in rest] == out:
        return squeezed
    return shlo.broadcast_in_dim(squeezed, broadcast_dimensions=target, shape=out)


def _product(op, rw, with_zero: bool) -> bool:
    """Replaces a dot_general with one size-1 contracting dimension by the broadcast operands' product
    (plus +0.0 when `with_zero`)."""
    lb, rb, lc, rc = _numbers(op)
    lhs, rhs, result = op.lhs, op.rhs, op.results[0]
    ls, rs, out = static_shape(lhs), static_shape(rhs), static_shape(result)
    if None in (ls, rs, out) or len(lc) != 1 or ls[lc[0]] != 1 or not _default_precision(op):
        return False
    if not element_of(lhs) == element_of(rhs) == element_of(result):
        return False
    nb, nlf = len(lb), len(ls) - len(lb) - 1

    def make():
        a = _spread(lhs, lb, lc[0], nb, list(out))
        b = _spread(rhs, rb, rc[0], nb + nlf, list(out))
        p = shlo.multiply(a, b)
        if with_zero:
            p = shlo.add(p, splat_constant(result.type, np.zeros((), to_numpy_dtype(element_of(result)))))
        return p

    return replace_built(op, rw, make)


def _narrow_float(value) -> bool:
    """Whether a float element type is narrower than f32 (products then round twice in the reference)."""
    e = element_of(value)
    return isinstance(e, ir.FloatType) and ir.FloatType(e).width < 32


@rule("stablehlo.dot_general", family=FAMILY)
def dot_unit_contracting(op, rw) -> bool:
    """dot_general over one size-1 contracting dimension -> multiply of the broadcast operands (+ 0.0 for floats)."""
    # Exact: the sum of one product from 0. Floats narrower than f32 sum in f32 and round once, so the sign of a zero
    # depends on the unrounded product: they are left to dot_unit_contracting_fast.
    kind = element_kind(op.results[0])
    if kind in ("other",) or _narrow_float(op.results[0]):
        return False
    return _product(op, rw, with_zero=kind in ("float", "complex"))


@rule("stablehlo.dot_general", family=FAMILY, fast_math=True)
def dot_unit_contracting_fast(op, rw) -> bool:
    """dot_general over one size-1 contracting dimension -> multiply, for any float (zeros may change sign)."""
    return element_kind(op.results[0]) == "float" and _product(op, rw, with_zero=False)


@rule("stablehlo.dot_general", family=FAMILY)
def dot_empty_contracting(op, rw) -> bool:
    """dot_general over a contracting dimension of size 0 -> zeros of the result type (exact: an empty sum is 0)."""
    _, _, lc, _ = _numbers(op)
    ls, result = static_shape(op.lhs), op.results[0]
    if ls is None or static_shape(result) is None or not any(ls[d] == 0 for d in lc):
        return False
    if element_kind(result) == "other" or _attributes(op) is None:
        return False
    zero = np.zeros((), to_numpy_dtype(element_of(result)))
    return replace_built(op, rw, lambda: splat_constant(result.type, zero))


def _merged_batch(value, batch: int):
    """`value` with its leading `batch` dimensions merged into one (a reshape: the elements keep their order)."""
    dims = static_shape(value)
    return shlo.reshape(value, shape=[int(np.prod(dims[:batch]))] + list(dims[batch:]))


@rule("stablehlo.dot_general", family=FAMILY)
def dot_merge_batch_dims(op, rw) -> bool:
    """dot_general over several leading batch dimensions of both operands -> one batch dimension, reshapes around it."""
    # Exact: the same products summed in the same order. XLA's dot decomposer does the same; IREE collapses the
    # batch dimensions after any transpose of an operand, which then stays a copy of its own instead of folding
    # into the product's indexing.
    lb, rb, lc, rc = _numbers(op)
    attrs = _attributes(op)
    shapes = [static_shape(v) for v in (op.lhs, op.rhs, op.results[0])]
    batch = len(lb)
    if attrs is None or None in shapes or batch < 2 or lb != list(range(batch)) or rb != lb:
        return False
    if "other" in (element_kind(op.lhs), element_kind(op.rhs), element_kind(op.results[0])):
        return False  # quantized: a per-axis scale's axis would move
    numbers = shlo.DotDimensionNumbers(lhs_batching_dimensions=[0], rhs_batching_dimensions=[0],
                                       lhs_contracting_dimensions=[d - batch + 1 for d in lc],
                                       rhs_contracting_dimensions=[d - batch + 1 for d in rc])
    extra = {k: v for k, v in attrs.items() if k != "dot_dimension_numbers"}
    out = shapes[2]

    def make():
        merged = ir.RankedTensorType.get([int(np.prod(out[:batch]))] + list(out[batch:]), element_of(op.results[0]))
        dot = shlo.dot_general(_merged_batch(op.lhs, batch), _merged_batch(op.rhs, batch),
                               dot_dimension_numbers=numbers, result_types=[merged], **extra)
        return shlo.reshape(dot, shape=list(out))

    return replace_built(op, rw, make)
