"""Loops of a StableHLO program: which ops run on every trip, and which values stay the same.

JAX hands a `lax.scan` or `fori_loop` over as a `stablehlo.while` whose body
calls a private function (`@closed_call`) with the loop's carried values,
the closed-over arrays among them (a model's weights, carried unchanged).
LoopAnalysis follows those calls: an op runs on every trip when a while's
region holds it or a function some loop body calls (directly or through
other calls) does; a value is the same on every trip when it is a constant,
comes from outside the loops, is carried and handed back unchanged, or is
computed from such values only. Both answers err towards "no": a value
computed inside an outer loop counts as changing even for an inner one.
`counter` and `trip_count` read how a counted loop counts and how many
trips it runs.
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects.elements import constant_value

_LOOP = "stablehlo.while"
_MAX_DEPTH = 200  # values traced back further than this count as changing (and keep Python's stack short)


def _kind(op) -> str:
    """An op's name (a func.func's view answers `.name` with its symbol)."""
    return op.operation.name


def _symbol(op) -> str | None:
    """The symbol name of a function, else None."""
    return ir.StringAttr(op.attributes["sym_name"]).value if "sym_name" in op.attributes else None


def _function_of(op):
    """The func.func holding `op`, and whether a while's region lies between them."""
    parent, looped = op.parent, False
    while parent is not None and _kind(parent) != "func.func":
        looped |= _kind(parent) == _LOOP
        parent = parent.parent
    return parent, looped


def scalar_constant(value) -> int | None:
    """The value of a 0-d integer stablehlo.constant, else None."""
    op = ir.producer(value)
    if op is None or op.name != "stablehlo.constant":
        return None
    array = constant_value(op)
    return int(array) if array.shape == () and array.dtype.kind in "iu" else None


def encloses(loop, op) -> bool:
    """Whether `op` is `loop` or lies inside its regions."""
    while op is not None:
        if op == loop:
            return True
        op = op.parent
    return False


def _integer_scalar_tensor(value) -> bool:
    """Whether `value` is a zero-dimensional tensor of integers (or index)."""
    kind = value.type
    return (isinstance(kind, ir.RankedTensorType) and kind.rank == 0
            and isinstance(kind.element_type, (ir.IntegerType, ir.IndexType)))


def _host_value(value) -> bool:
    """Whether `value` is an integer scalar, tensor or not: what a host running a loop holds itself."""
    return not isinstance(value.type, ir.RankedTensorType) or _integer_scalar_tensor(value)


def computed_from_device(value, loop) -> bool:
    """Whether a trip of `loop` needs device data to compute `value`: the host, running the loop, would wait
    for the device and read it back every trip. Integer scalars (the loop's carried ones, those made before
    it) and constants are the host's, and so is what a trip computes from them alone."""
    seen, pending = set(), [value]
    while pending:
        current = pending.pop()
        op = ir.producer(current)
        if op is None or op == loop or not encloses(loop, op):
            if not _host_value(current):
                return True
            continue
        if op in seen:
            continue
        seen.add(op)
        pending.extend(op.operands)
    return False


def terminator(block):
    """The terminator of a block."""
    operations = block.operations
    return operations[len(operations) - 1]


def counter(loop) -> tuple[int, int, int] | None:
    """(the carried position of the counter, its start, the trips) of a while that counts one carried scalar
    by one from a constant while it is below a constant (the condition one compare LT of that scalar); None
    for other loops."""
    cond, body = loop.regions[0].blocks[0], loop.regions[1].blocks[0]
    ops = list(cond.operations)
    if len(ops) != 2 or ops[0].name != "stablehlo.compare" or "LT" not in str(ops[0].attributes["comparison_direction"]):
        return None
    count, limit = ops[0].operands
    if not isinstance(count, ir.BlockArgument) or count.owner != cond or ops[1].operands[0] != ops[0].results[0]:
        return None
    index, end = count.arg_number, scalar_constant(limit)
    start = scalar_constant(loop.operands[index])
    step = ir.producer(terminator(body).operands[index])
    if end is None or start is None or step is None or step.name != "stablehlo.add":
        return None
    a, b = step.operands
    argument = body.arguments[index]
    if not ((a == argument and scalar_constant(b) == 1) or (b == argument and scalar_constant(a) == 1)):
        return None
    return index, start, max(end - start, 0)


def trip_count(loop) -> int | None:
    """The trips of a counted loop (see counter); None for other loops."""
    counted = counter(loop)
    return None if counted is None else counted[2]


class LoopAnalysis:
    """The loops of one module, its functions and their call sites."""

    def __init__(self, module) -> None:
        self.functions = {_symbol(op): op for op in ir.body_ops(module) if _kind(op) == "func.func"}
        self.call_sites: dict[str, list] = {}
        called_in_loops: list[str] = []
        for op in ir.ops(module):
            if op.name == "func.call":
                callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                self.call_sites.setdefault(callee, []).append(op)
                if self.repeated(op, looped_only=True):
                    called_in_loops.append(callee)
        self.looped: set[str] = set()
        while called_in_loops:  # the functions loop bodies call, and those they call
            name = called_in_loops.pop()
            if name not in self.looped:
                self.looped.add(name)
                called_in_loops.extend(ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                                       for op in ir.ops(self.functions[name]) if op.name == "func.call")

    def repeated(self, op, *, looped_only: bool = False) -> bool:
        """Whether `op` runs on every trip of a loop: a while's region holds it, or (unless `looped_only`,
        while the call graph is being read) its function is one a loop body calls."""
        function, looped = _function_of(op)
        return looped or (not looped_only and function is not None and _symbol(function) in self.looped)

    def invariant(self, value, seen: frozenset = frozenset()) -> bool:
        """Whether `value` is the same on every trip of the loops that run its users."""
        if value in seen or len(seen) > _MAX_DEPTH:
            return False
        seen = seen | {value}
        if isinstance(value, ir.BlockArgument):
            return self._invariant_argument(value, seen)
        op = value.owner
        if _kind(op) == "stablehlo.constant":
            return True
        if not self.repeated(op):
            return True
        return not len(op.regions) and all(self.invariant(operand, seen) for operand in op.operands)

    def _invariant_argument(self, argument, seen: frozenset) -> bool:
        """invariant() of a block argument: a function's when every call passes such a value (the entry's
        always), a while body's when the body hands it back unchanged."""
        owner = argument.owner.owner
        if _kind(owner) == "func.func":
            return all(self.invariant(site.operands[argument.arg_number], seen)
                       for site in self.call_sites.get(_symbol(owner), []))
        if _kind(owner) == _LOOP and argument.owner.region == owner.regions[1]:
            returned = argument.owner.operations[len(argument.owner.operations) - 1]
            return returned.operands[argument.arg_number] == argument
        return False
