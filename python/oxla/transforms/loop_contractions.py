"""oxla-hoist-step-contractions: a loop's products of each step's input with a fixed matrix, as one product before it.

A recurrent layer's step multiplies that step's input by a weight matrix
every trip shares (h = tanh(x[t] W + h U) in a `lax.scan`); JAX hands x[t]
over as a `dynamic_slice` of a carried, unchanging tensor of every step's
input. That product is row t of the product of all the inputs with W,
which one large matmul before the loop computes far faster than a small
one per trip (which IREE runs as a dispatch of its own, each trip paying
its host cost); the loop then reads its row. Taken where:

- the loop counts its trips (loop_analysis.trip_count) and runs at least
  as many as the inputs have rows, so no product is computed that the
  loop would not have computed;
- the row's index changes from trip to trip (an unchanging row is loop
  code motion's, and costs one product);
- the contraction has no batching dimensions, its other operand is the
  same on every trip, and the inputs' shape is static.

JAX puts a scan's step in a private function its loop calls, so modules
with such loops have their calls inlined first (IREE's input phase would
inline them anyway).
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.stablehlo import DotGeneralOp
from oxla.transforms.loop_analysis import encloses, scalar_constant, terminator, trip_count
from oxla.transforms.registry import Pass, register_pass
from oxla.transforms.runner import inline_calls


def _before(loop, value):
    """The value outside `loop` that `value` (read in its body) equals on every trip, else None: a carried
    value the body hands back unchanged, or one defined outside the loop."""
    body = loop.regions[1].blocks[0]
    if isinstance(value, ir.BlockArgument):
        if value.owner == body:
            unchanged = terminator(body).operands[value.arg_number] == value
            return loop.operands[value.arg_number] if unchanged else None
        return None if encloses(loop, value.owner.owner.operation) else value
    return None if encloses(loop, value.owner.operation) else value


def _row(value):
    """(x, index, dropped) where `value` is row `index` of x along its first dimension, taken by a
    dynamic_slice of one row (all of its other dimensions), reshaped to drop that dimension where
    `dropped`; else None."""
    op = ir.producer(value)
    dropped = op is not None and op.name == "stablehlo.reshape"
    if dropped:
        op = ir.producer(op.operands[0])
    if op is None or op.name != "stablehlo.dynamic_slice":
        return None
    x, index, *others = op.operands
    if not ir.RankedTensorType(x.type).has_static_shape:
        return None
    dims, sizes = build.shape(x), build.i64s(op, "slice_sizes", [])
    if not dims or sizes != [1, *dims[1:]] or any(scalar_constant(v) != 0 for v in others):
        return None
    if dropped and build.shape(value) != dims[1:]:
        return None
    return x, index, dropped


def _numbers(lhs_contracting: list[int], rhs_contracting: list[int]) -> str:
    """A dot_general's dimension numbers without batching dimensions, as MLIR text."""
    return (f"#stablehlo.dot<lhs_contracting_dimensions = {lhs_contracting}, "
            f"rhs_contracting_dimensions = {rhs_contracting}>")


def _hoist(loop, trips: int, op) -> bool:
    """Replaces the dot_general `op` in `loop`'s body by a row of its product over every row, computed
    before the loop, where that is taken (module docstring); whether it was."""
    numbers = DotGeneralOp(op).dot_dimension_numbers
    lhs, rhs = op.operands
    row = _row(lhs)
    if row is None or len(numbers.lhs_batching_dimensions):
        return False
    x, index, dropped = row
    shift = 1 if dropped else 0  # x's dimensions are lhs's, after the row's where it was dropped
    lhs_contracting = [d + shift for d in numbers.lhs_contracting_dimensions]
    outside = (_before(loop, x), _before(loop, rhs))
    fixed_row = _before(loop, index) is not None
    if any(v is None for v in outside) or 0 in lhs_contracting or trips < build.shape(x)[0] or fixed_row:
        return False
    result = op.results[0]
    rows = build.shape(x)[:1] + build.shape(result)[1 - shift:]
    extra = {name: op.attributes[name] for name in ("precision_config", "algorithm") if name in op.attributes}
    with ir.InsertionPoint(loop), op.location:
        product = build.one("stablehlo.dot_general", build.tensor(rows, build.element(result)), *outside,
                            dot_dimension_numbers=_numbers(lhs_contracting, list(numbers.rhs_contracting_dimensions)),
                            **extra)

    def read(_):
        zero = build.splat(0, index.type)
        taken = build.one("stablehlo.dynamic_slice", build.tensor([1, *rows[1:]], build.element(result)),
                          product, index, *[zero] * (len(rows) - 1), slice_sizes=build.i64_array([1, *rows[1:]]))
        return build.reshape(taken, build.shape(result)) if dropped else taken

    build.replace(op, read)
    return True


def _counted_loops(module) -> list[tuple]:
    """(loop, trips) for each while of the module that counts its trips."""
    loops = [(op, trip_count(op)) for op in ir.ops(module) if op.name == "stablehlo.while"]
    return [(loop, trips) for loop, trips in loops if trips is not None]


@register_pass
class HoistStepContractions(Pass):
    """Computes each loop step's product of its input row with a fixed matrix as one product before the loop."""

    name = "oxla-hoist-step-contractions"
    anchor = "builtin.module"

    def run(self, module) -> None:
        if not _counted_loops(module):
            return
        inline_calls(module)
        for loop, trips in _counted_loops(module):
            body = loop.regions[1].blocks[0]
            for op in [op for op in ir.block_ops(terminator(body)) if op.name == "stablehlo.dot_general"]:
                _hoist(loop, trips, op)
