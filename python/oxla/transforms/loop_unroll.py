"""oxla-unroll-loops: run several trips of a counted loop per trip of the host program.

JAX's `lax.scan` and `fori_loop` reach IREE as a `stablehlo.while` that
counts a scalar from a constant to a constant by one. IREE runs each trip
of such a loop from its host program: a command buffer, its dispatches and
a wait, a few microseconds a trip whatever the body does (a scan of
`c = 0.9 c + x[t]` over f32[1024,4096]: 6 us a trip, XLA's 3). This pass
copies the body of such a loop `factor` times into one trip, where the
trip count is a multiple of it, so that the host does that work once per
`factor` steps, and IREE can fuse one step's element-wise work into the
next. Bodies whose nested regions use the body's values are left alone,
and so are loops that change a value that starts as an argument (IREE then
copied that value whole every trip).
"""

from __future__ import annotations

import dataclasses

from oxla import ir
from oxla.dialects.elements import constant_value
from oxla.transforms.registry import Pass, register_pass


def _scalar_constant(value) -> int | None:
    """The value of a 0-d integer stablehlo.constant, else None."""
    op = ir.producer(value)
    if op is None or op.name != "stablehlo.constant":
        return None
    array = constant_value(op)
    return int(array) if array.shape == () and array.dtype.kind in "iu" else None


def _last(block):
    """The terminator of a block."""
    operations = block.operations
    return operations[len(operations) - 1]


def trip_count(loop) -> int | None:
    """The trips of a while that counts one carried scalar by one from a constant while it is below a
    constant (the condition one compare LT of that scalar); None for other loops."""
    cond, body = loop.regions[0].blocks[0], loop.regions[1].blocks[0]
    ops = list(cond.operations)
    if len(ops) != 2 or ops[0].name != "stablehlo.compare" or "LT" not in str(ops[0].attributes["comparison_direction"]):
        return None
    counter, limit = ops[0].operands
    if not isinstance(counter, ir.BlockArgument) or counter.owner != cond or ops[1].operands[0] != ops[0].results[0]:
        return None
    index, end = counter.arg_number, _scalar_constant(limit)
    start = _scalar_constant(loop.operands[index])
    step = ir.producer(_last(body).operands[index])
    if end is None or start is None or step is None or step.name != "stablehlo.add":
        return None
    a, b = step.operands
    argument = body.arguments[index]
    if not ((a == argument and _scalar_constant(b) == 1) or (b == argument and _scalar_constant(a) == 1)):
        return None
    return max(end - start, 0)


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


def _changes_an_argument(loop) -> bool:
    """Whether the loop changes a carried value that starts as an argument of its function: unrolled,
    IREE copied such a value whole every trip (host_loops' in-place start no longer applied)."""
    body = loop.regions[1].blocks[0]
    returned = list(_last(body).operands)
    return any(isinstance(start, ir.BlockArgument) and returned[i] != body.arguments[i]
               for i, start in enumerate(loop.operands))


def _unroll(loop, factor: int) -> None:
    """Appends factor - 1 copies of the body to it, each taking the previous one's results."""
    body = loop.regions[1].blocks[0]
    original = list(body.operations)[:-1]
    terminator = _last(body)
    returned = list(terminator.operands)  # the original body's results
    results = returned
    for _ in range(factor - 1):
        mapping = dict(zip(body.arguments, results))
        for op in original:
            copy = op.clone(ip=ir.InsertionPoint(terminator))
            for i, operand in enumerate(copy.operands):
                if operand in mapping:
                    copy.operands[i] = mapping[operand]
            mapping.update(zip(op.results, copy.results))
        results = [mapping.get(v, v) for v in returned]
    for i, value in enumerate(results):
        terminator.operands[i] = value


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
                    or _changes_an_argument(loop) or _size(list(body.operations), functions) > self.max_body_ops:
                continue
            _unroll(loop, self.factor)
