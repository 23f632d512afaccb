"""oxla-unroll-loops: run several trips of a counted loop per trip of the host program.

JAX's `lax.scan` and `fori_loop` reach IREE as a `stablehlo.while` that
counts a scalar from a constant to a constant by one. IREE runs each trip
of such a loop from its host program: a command buffer, its dispatches and
a wait, a few microseconds a trip whatever the body does (a scan of
`c = 0.9 c + x[t]` over f32[1024,4096]: 6 us a trip, XLA's 3). This pass
copies the body of such a loop `factor` (4) times into one trip, bodies of
at most `small_body_ops` ops `small_factor` (8) times, so that the host does
that work once per four or eight steps, and IREE can fuse one step's
element-wise work into the next. Where the trip count is no multiple of
the factor, the trips past the last multiple run after it in a copy of the
original loop (a 1023-step scan: 1016 steps eight a trip, then 7 one a trip).
Bodies whose nested regions use the body's values are left alone, and so
are bodies that update a carried tensor into another value than its next
one (below).
A loop that changes a value starting as an argument (an RNN's initial state
passed in) unrolls too: IREE guards the loop it then rotates with an
`scf.if` that hands the starts back when no trip runs, and
oxla-host-loop-inits hands the argument's buffer to the loop all the same
(before it did, IREE copied that value whole every trip, and such loops
were left alone: a 256-step tanh RNN of batch 4 and width 128 from an h0
argument, one AVX2 Zen 3 thread, 1.92 ms rolled, 1.47 ms unrolled).
"""

from __future__ import annotations

import dataclasses

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.loop_analysis import scalar_constant, terminator, trip_count
from oxla.transforms.registry import Pass, register_pass

_OFFSETS = {"stablehlo.add": 1, "stablehlo.subtract": -1}
_UPDATES = ("stablehlo.dynamic_update_slice", "stablehlo.scatter")


def _self_contained(body) -> bool:
    """Whether no op nested in a region of a body op uses a value the body defines (copies of the body
    then need no remapping inside nested regions)."""
    defined = set(body.arguments) | {r for op in body.operations for r in op.results}
    nested = [inner for op in body.operations for region in op.regions for block in region.blocks
              for top in block.operations for inner in ir.ops(top)]
    return not any(operand in defined for op in nested for operand in op.operands)


def _size(ops: list, functions: dict, calls: tuple = ()) -> int:
    """How many ops `ops` hold, nested ones and those of the functions they call (as IREE will inline
    them) counted in."""
    total = 0
    for top in ops:
        for op in ir.ops(top):
            total += 1
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value if op.name == "func.call" else None
            if callee in functions and callee not in calls:
                total += _size(list(functions[callee].regions[0].blocks[0].operations), functions, calls + (callee,))
    return total


def _updates_into_another_value(body) -> bool:
    """Whether the body updates a carried tensor into something other than that tensor's next value (a
    `fori_loop` writing into a closed-over array: `x.at[j].set(v)` from the same x every trip, x passed on
    unchanged). Unrolled, iree-compile crashed in its stream phase on such a loop, so it stays rolled; a
    tensor updated into its own next value (x.at[i].set(0.5 * x[i - 1] + x[i])) unrolls."""
    returned = list(terminator(body).operands)
    for position, argument in enumerate(body.arguments):
        if not any(ir.user(use).name in _UPDATES and use.operand_number == 0 for use in argument.uses):
            continue
        value = returned[position]
        while True:
            op = ir.producer(value)
            if op is None or op.name not in _UPDATES:
                return True
            value = op.operands[0]
            if value == argument:
                break
    return False


def _unroll(loop, factor: int) -> None:
    """Appends factor - 1 copies of the body to it, each taking the previous one's results."""
    body = loop.regions[1].blocks[0]
    original = list(body.operations)[:-1]
    last = terminator(body)
    returned = list(last.operands)  # the original body's results
    results = returned
    for _ in range(factor - 1):
        mapping = dict(zip(body.arguments, results))
        for op in original:
            copy = ir.clone_remapped(op, mapping, ip=ir.InsertionPoint(last))
            mapping.update(zip(op.results, copy.results))
        results = [mapping.get(v, v) for v in returned]
    for i, value in enumerate(results):
        last.operands[i] = value


def _offset(value):
    """(x, k) when `value` is a 0-d integer x + k or x - k (k a constant): a copy's index arithmetic; else None."""
    op = ir.producer(value)
    if op is None or op.name not in _OFFSETS:
        return None
    constant = scalar_constant(op.operands[1])
    return None if constant is None else (op.operands[0], _OFFSETS[op.name] * constant)


def _cancel_offsets(body) -> None:
    """Uses x itself for each (x + k) - k and (x - k) + k of the body, which the copies' index arithmetic
    holds ((i + 1) - 1: the step before's index, minus one). IREE (O2 and up) fused the copies' index
    values into one dispatch of several results and, where one result was that dispatch's own input,
    handed other copies the wrong values: a scan of `ys[i] = xs[i, ::-1] - xs[i - 1]` came out wrong."""
    for op in list(body.operations):
        outer = _offset(op.results[0]) if len(op.results) == 1 else None
        inner = _offset(outer[0]) if outer is not None else None
        if inner is not None and inner[1] + outer[1] == 0 and inner[0].type == op.results[0].type:
            op.results[0].replace_all_uses_with(inner[0])


def _read_updates_apart(body) -> None:
    """Gives each dynamic_slice of a tensor that an update in the body made start indices of their own,
    max(index, 0) (the same rows: its start indices are clamped into the operand anyway). A copy of the
    body reading rows the copy before it wrote, at that copy's own index, let IREE take the rows from the
    value written rather than from the tensor; with two readers that value stayed out of place (a
    transient row and a copy into the tensor each step: x[i] = 0.5 x[i-1] + x[i] over f32[1024,4096] on
    a Zen 4, paired, 2.99 ms, 2.33 ms with the indices apart)."""
    for op in list(body.operations):
        producer = ir.producer(op.operands[0]) if op.name == "stablehlo.dynamic_slice" else None
        if producer is None or producer.name not in _UPDATES:
            continue
        with ir.InsertionPoint(op), op.location:
            for index in range(1, len(op.operands)):
                start = op.operands[index]
                op.operands[index] = build.one("stablehlo.maximum", start.type, start, build.splat(0, start.type))


def _split_off_remainder(loop, remainder: int) -> None:
    """Leaves a counted loop's last `remainder` trips to a copy of it that runs after it, one step a trip:
    the copy's body is the original's, whose dispatches IREE compiles once for both loops."""
    compare = list(loop.regions[0].blocks[0].operations)[0]
    limit = compare.operands[1]
    rest = loop.clone(ip=ir.InsertionPoint.after(loop))
    for old, new in zip(loop.results, rest.results):
        old.replace_all_uses_with(new)
    for i, value in enumerate(loop.results):
        rest.operands[i] = value
    with ir.InsertionPoint(loop), loop.location:
        compare.operands[1] = build.splat(scalar_constant(limit) - remainder, limit.type)


@register_pass
class UnrollLoops(Pass):
    """Copies the body of counted loops several times into each trip, so the host runs fewer trips."""

    name = "oxla-unroll-loops"
    anchor = "builtin.module"
    factor: int = dataclasses.field(default=4, metadata={"help": "trips of the original loop per trip"})
    # Eight steps a trip against four for bodies of up to 96 ops (a Zen 4, paired, one thread): a 256-step
    # tanh RNN (93 ops) 1.02 -> 0.95 ms, the scan over f32[1024,4096] (11) 2.52 -> 1.82 ms, the fori_loop
    # over its rows (39) 2.25 -> 1.96 ms, compiles up to 0.15 s longer; the decoding loop's body (158 ops)
    # gained nothing from eight.
    small_factor: int = dataclasses.field(default=8, metadata={
        "help": "trips of the original loop per trip for bodies of at most small-body-ops ops"})
    small_body_ops: int = dataclasses.field(default=96, metadata={
        "help": "the most ops (with the functions they call) of a body that runs small-factor steps a trip"})
    max_body_ops: int = dataclasses.field(default=192, metadata={
        "help": "leave loops whose bodies (with the functions they call) hold more ops alone"})

    def _factor(self, trips: int, size: int) -> int:
        """How many steps a trip runs for a loop of `trips` trips whose body holds `size` ops (1: none)."""
        if size > self.max_body_ops:
            return 1
        factor = self.small_factor if size <= self.small_body_ops and trips >= self.small_factor else self.factor
        return factor if trips >= factor else 1

    def run(self, module) -> None:
        """Unrolls each counted while of at least `factor` trips whose body is small and self-contained,
        its last trips past a multiple of the factor split off into a loop of their own."""
        functions = {ir.StringAttr(op.attributes["sym_name"]).value: op
                     for op in ir.body_ops(module) if op.name == "func.func"}
        for loop in [op for op in ir.ops(module) if op.name == "stablehlo.while"]:
            trips = trip_count(loop)
            body = loop.regions[1].blocks[0]
            if trips is None or not _self_contained(body) or _updates_into_another_value(body):
                continue
            factor = self._factor(trips, _size(list(body.operations), functions))
            if factor < 2:
                continue
            if trips % factor:
                _split_off_remainder(loop, trips % factor)
            _unroll(loop, factor)
            _cancel_offsets(body)
            _read_updates_apart(body)
