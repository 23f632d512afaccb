"""oxla-unroll-loops: run several trips of a counted loop per trip of the host program.

JAX's `lax.scan` and `fori_loop` reach IREE as a `stablehlo.while` that
counts a scalar from a constant to a constant by one. IREE runs each trip
of such a loop from its host program: a command buffer, its dispatches and
a wait, a few microseconds a trip whatever the body does (a scan of
`c = 0.9 c + x[t]` over f32[1024,4096]: 6 us a trip, XLA's 3). This pass
copies the body of such a loop `factor` times into one trip, where the
trip count is a multiple of it, so that the host does that work once per
`factor` steps, and IREE can fuse one step's element-wise work into the
next. Bodies whose nested regions use the body's values are left alone.
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
from oxla.transforms.loop_analysis import terminator, trip_count
from oxla.transforms.registry import Pass, register_pass


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
            copy = op.clone(ip=ir.InsertionPoint(last))
            for i, operand in enumerate(copy.operands):
                if operand in mapping:
                    copy.operands[i] = mapping[operand]
            mapping.update(zip(op.results, copy.results))
        results = [mapping.get(v, v) for v in returned]
    for i, value in enumerate(results):
        last.operands[i] = value


@register_pass
class UnrollLoops(Pass):
    """Copies the body of counted loops several times into each trip, so the host runs fewer trips."""

    name = "oxla-unroll-loops"
    anchor = "builtin.module"
    factor: int = dataclasses.field(default=4, metadata={"help": "trips of the original loop per trip"})
    max_body_ops: int = dataclasses.field(default=192, metadata={
        "help": "leave loops whose bodies (with the functions they call) hold more ops alone"})

    def run(self, module) -> None:
        """Unrolls each while whose trip count is a multiple of `factor` and whose body is small and
        self-contained."""
        functions = {ir.StringAttr(op.attributes["sym_name"]).value: op
                     for op in ir.body_ops(module) if op.name == "func.func"}
        for loop in [op for op in ir.ops(module) if op.name == "stablehlo.while"]:
            trips = trip_count(loop)
            body = loop.regions[1].blocks[0]
            if trips is None or trips < self.factor or trips % self.factor or not _self_contained(body) \
                    or _size(list(body.operations), functions) > self.max_body_ops:
                continue
            _unroll(loop, self.factor)
