"""oxla-host-loop-inits: loops of the host program update their carried tensors in place.

A `lax.scan` or `fori_loop` reaches IREE as an `scf.for` (or `scf.while`) of
the host program whose carried tensors start as constants: the zeros the
stacked outputs are written into, the initial state. A constant has no device
of its own, so IREE's stream conversion cannot tell where the loop's carried
value lives and moves it to the device at the top of every trip: a copy of the
whole carried tensor per step. For a scan that stacks its outputs the copies
grow with the steps, quadratic in all (1024 steps over f32[4096] on an AVX2
Zen 3: 2.96 s, XLA 5.7 ms). This pass, run after IREE's `flow` phase, moves
each constant a host loop starts from to the module's device first
(`flow.tensor.transfer` to its default affinity), so the carried value's
device is known and the loop's updates happen in place. Modules with several
devices (no default affinity) are left alone.

A loop that starts from an argument (`fori_loop` over an input array) copied
it whole every trip too: IREE may not write the caller's buffer, and its
copy-on-write cannot tell the first trip, which reads the argument, from the
others, which read the loop's own copy. When nothing but the loop reads the
argument, the pass marks its import `consume`, handing its buffer to the
program, which then copies nothing. oxla.runtime copies every argument a
program may write before the call (oxla-argument-writes), so the caller's
array stays as it was. An argument read elsewhere too keeps its per-trip
copy: consumed, IREE updated it in place under the other readers.
"""

from __future__ import annotations

from oxla import ir
from oxla.transforms.registry import Pass, register_pass

# Host loops whose operands (or some of them) are their carried values' starting points.
_LOOPS = ("scf.for", "scf.while")
# Ops that make a tensor without placing it on a device.
_UNPLACED = ("arith.constant", "flow.tensor.constant", "flow.tensor.splat")
# Ops that pass a tensor on under another type without copying it.
_VIEWS = ("flow.tensor.reshape", "flow.tensor.bitcast")
# The module attribute naming the one device IREE assigns everything to.
_DEFAULT_AFFINITY = "stream.affinity.default"


def _in_executable(op) -> bool:
    """Whether `op` is device code (inside a `flow.executable`), not the host program."""
    parent = op.parent
    while parent is not None:
        if parent.name in ("flow.executable", "stream.executable", "hal.executable"):
            return True
        parent = parent.parent
    return False


def _inits(loop) -> list:
    """The operands of `loop` that start its carried values (scf.for's bounds and step are not)."""
    operands = list(loop.operands)
    return operands[3:] if loop.name == "scf.for" else operands


def _producer(value):
    """The Operation that defines `value`, or None for a block argument."""
    return value.owner.operation if isinstance(value, ir.OpResult) else None


def _unplaced(value) -> bool:
    """Whether `value` is a tensor made by an op that puts it on no device."""
    producer = _producer(value)
    return isinstance(value.type, ir.RankedTensorType) and producer is not None and producer.name in _UNPLACED


def _imported(value):
    """The `hal.tensor.import` that `value` is (through reshapes) and that nothing else reads, or None.

    A consumed argument read elsewhere too came out wrong (IREE updated it in place under the other
    reader), so only an argument the loop alone reads is handed over."""
    producer = _producer(value)
    while producer is not None and len(list(value.uses)) == 1 and producer.name in _VIEWS:
        value = producer.operands[0]
        producer = _producer(value)
    alone = len(list(value.uses)) == 1
    return producer if alone and producer is not None and producer.name == "hal.tensor.import" else None


def _place_before(loop, value, affinity):
    """A `flow.tensor.transfer` of `value` to `affinity`, built just before `loop`."""
    with ir.InsertionPoint(loop), loop.location:
        return ir.Operation.create("flow.tensor.transfer", results=[value.type], operands=[value],
                                   attributes={"target": affinity}).results[0]


@register_pass
class HostLoopInits(Pass):
    """Lets host loops update their carried tensors in place: constant starts placed, argument starts consumed."""

    name = "oxla-host-loop-inits"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Gives each host loop's constant starting values the module's device, and consumes its arguments."""
        attributes = module.attributes
        if _DEFAULT_AFFINITY not in attributes:
            return
        affinity = attributes[_DEFAULT_AFFINITY]
        loops = [op for op in ir.ops(module) if op.name in _LOOPS and not _in_executable(op)]
        for loop in loops:
            offset = 3 if loop.name == "scf.for" else 0
            for index, value in enumerate(_inits(loop)):
                imported = _imported(value)
                if imported is not None:
                    imported.attributes["consume"] = ir.UnitAttr.get()
                if imported is not None or _unplaced(value):
                    loop.operands[offset + index] = _place_before(loop, value, affinity)
