"""Host loops: oxla-host-loop-inits and oxla-host-scalar-dispatches.

oxla-host-loop-inits: loops of the host program update their carried tensors in place.

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
devices (no default affinity) are left alone. Two carried values that start
from one value (a decoding loop's key and value caches, both zeros) came out
wrong with any of the loop's starts moved: IREE updated both in one buffer,
and clones or barriers of the shared tensor were folded away. The second of
such starts is rebuilt as a splat of its element passed through an
optimization barrier, a value IREE cannot fold back (256 decoding steps
with f32[4,256,128] caches: 150-163 ms -> 30-33 ms; XLA 9-25 ms, as the
machine's load moved it); a loop
where that is not possible (a shared start that is no splat constant) is
left alone.

A loop that starts from an argument (`fori_loop` over an input array) copied
it whole every trip too: IREE may not write the caller's buffer, and its
copy-on-write cannot tell the first trip, which reads the argument, from the
others, which read the loop's own copy. When nothing but the loop reads the
argument, the pass marks its import `consume`, handing its buffer to the
program, which then copies nothing. A loop IREE rotates (its body before
its test, as for an unrolled one) sits in an `scf.if` whose other branch
hands the argument back for a loop of no trips; that branch and the loop
never both run, so it counts as no other reader. oxla.runtime copies
every argument a program may write before the call (oxla-argument-writes),
so the caller's array stays as it was. An argument read elsewhere too
keeps its per-trip copy: consumed, IREE updated it in place under the
other readers.

oxla-host-scalar-dispatches: a `fori_loop` carries its counter as a tensor<i32>
next to the trip count IREE makes the loop's induction variable, and JAX's
index arithmetic on it (the wrap of a negative `i - 1`, the scatter guard's
range test) became dispatches of scalars whose results the host read back
to index with: three device round trips per trip (1023 trips over the rows
of f32[1024,4096]: 22 ms, the rows' own work 3.4 ms of it; XLA 6.6 ms). The
pass, run first after `flow`, carries a host loop's zero-dimensional integer
tensors as scalars (loaded before it and at each yield, splatted where they
are read), then computes each dispatch whose operands are splatted or
constant scalars and whose body is one zero-dimensional linalg.generic of
arith ops on the host instead: the ops cloned before it, the values it
stored used where the host loaded them (9.9 ms).
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.loop_analysis import computed_from_device
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


def _first_init(loop) -> int:
    """The position of the first operand of `loop` that starts a carried value (after scf.for's bounds
    and step)."""
    return 3 if loop.name == "scf.for" else 0


def _unplaced(value) -> bool:
    """Whether `value` is a tensor made by an op that puts it on no device."""
    producer = ir.producer(value)
    return isinstance(value.type, ir.RankedTensorType) and producer is not None and producer.name in _UNPLACED


def _branch(guard, op) -> int:
    """Which region of `guard` holds `op` (its own block's region, or one an ancestor's block is in); -1
    when `guard` does not hold it."""
    while op.parent is not None and op.parent != guard:
        op = op.parent
    if op.parent is None:  # the top: asking its block would read a null one (the process crashed)
        return -1
    return next((i for i, region in enumerate(guard.regions) if any(b == op.block for b in region.blocks)), -1)


def _skipped_loop_start(use, loop) -> bool:
    """Whether `use` is the `scf.yield` of the other branch of an scf.if around `loop`: IREE guards a
    loop it rotates (the body before the test) with such an if, whose other branch hands the starts
    back for a loop of no trips; that branch and the loop never both run."""
    op = ir.user(use)
    guard = op.parent
    if op.name != "scf.yield" or guard is None or guard.name != "scf.if":
        return False
    inside = _branch(guard, loop)
    return inside != -1 and inside != _branch(guard, op)


def _imported(value, loop):
    """The `hal.tensor.import` that `value` is (through reshapes) and that nothing but `loop` reads, or None.

    A consumed argument read elsewhere too came out wrong (IREE updated it in place under the other
    reader), so only an argument the loop alone reads is handed over (and the other branch of its guard
    may hand it back)."""
    producer = ir.producer(value)
    while producer is not None and len(list(value.uses)) == 1 and producer.name in _VIEWS:
        value = producer.operands[0]
        producer = ir.producer(value)
    readers = [use for use in value.uses if ir.user(use) != loop and not _skipped_loop_start(use, loop)]
    alone = not readers
    return producer if alone and producer is not None and producer.name == "hal.tensor.import" else None


def _may_share(a, b) -> bool:
    """Whether two starting values may be one buffer: the same value, or two constants of one type
    (which IREE may fold into one, whatever op made them)."""
    return a == b or (_unplaced(a) and _unplaced(b) and a.type == b.type)


def _fresh_splat(loop, value):
    """A tensor like the splat constant `value` that IREE cannot fold back into a constant (its element
    passes an optimization barrier), built before `loop`; None when `value` is no splat constant."""
    producer = ir.producer(value)
    element = ir.RankedTensorType(value.type).element_type
    if producer is None or producer.name != "arith.constant" or not isinstance(element, (ir.IntegerType, ir.FloatType)):
        return None
    try:
        dense = ir.DenseElementsAttr(producer.attributes["value"])
    except ValueError:
        return None
    if not dense.is_splat:
        return None
    with ir.InsertionPoint(loop), loop.location:
        scalar = ir.Operation.create("arith.constant", results=[element],
                                     attributes={"value": dense.get_splat_value()}).results[0]
        kept = ir.Operation.create("util.optimization_barrier", results=[element], operands=[scalar]).results[0]
        return _tensor_splat(kept, value.type)


def _separate_starts(loop) -> bool:
    """Gives each carried tensor of `loop` that may share its starting buffer with an earlier one a fresh
    splat of its own; False (and `loop` left as it was) when one is no splat constant."""
    first = _first_init(loop)
    tensors = [p for p in range(first, len(loop.operands)) if isinstance(loop.operands[p].type, ir.RankedTensorType)]
    shared = [p for i, p in enumerate(tensors)
              if any(_may_share(loop.operands[q], loop.operands[p]) for q in tensors[:i])]
    fresh = [_fresh_splat(loop, loop.operands[p]) for p in shared]
    if any(v is None for v in fresh):
        for v in fresh:  # the splats built for the others, now unused
            if v is not None:
                _erase_fresh(v)
        return False
    for p, v in zip(shared, fresh):
        loop.operands[p] = v
    return True


def _erase_fresh(splat) -> None:
    """Erases a splat `_fresh_splat` built and the barrier and constant under it."""
    barrier = ir.producer(splat.owner.operands[0])
    constant = ir.producer(barrier.operands[0])
    for op in (splat.owner.operation, barrier, constant):
        op.erase()


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
            if not _separate_starts(loop):
                continue
            for position in range(_first_init(loop), len(loop.operands)):
                value = loop.operands[position]
                imported = _imported(value, loop)
                if imported is not None:
                    imported.attributes["consume"] = ir.UnitAttr.get()
                elif not _unplaced(value):
                    continue
                loop.operands[position] = _place_before(loop, value, affinity)


# oxla-host-scalar-dispatches -----------------------------------------------------------------------------

# Ops a dispatch that computes scalars may hold besides its one zero-dimensional linalg.generic.
_SCALAR_FRAME = ("arith.constant", "iree_tensor_ext.dispatch.tensor.load", "tensor.empty",
                 "iree_tensor_ext.dispatch.tensor.store", "func.return")


# Integer arith ops the host computes a dispatch's scalars with.
_HOST_ARITH = frozenset(f"arith.{name}" for name in (
    "constant addi subi muli divsi divui remsi remui floordivsi ceildivsi cmpi select andi ori xori shli "
    "shrsi shrui maxsi maxui minsi minui extsi extui trunci index_cast index_castui").split())


def _is_integer(type_) -> bool:
    """Whether `type_` is an integer (i1 included) or index: what host code computes as the device does
    (IREE's VM has no f16 or bf16, and f64 only with an extension), so host arithmetic is kept to these."""
    return isinstance(type_, (ir.IntegerType, ir.IndexType))


def _is_scalar_tensor(type_) -> bool:
    """Whether `type_` is a zero-dimensional tensor of integers."""
    return isinstance(type_, ir.RankedTensorType) and type_.rank == 0 and _is_integer(type_.element_type)


def _tensor_load(value):
    """`flow.tensor.load` of the zero-dimensional tensor `value`: its scalar, at the insertion point."""
    return ir.Operation.create("flow.tensor.load", results=[ir.RankedTensorType(value.type).element_type],
                               operands=[value],
                               attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, 0])}).results[0]


def _tensor_splat(scalar, tensor_type):
    """`flow.tensor.splat` of `scalar` into a zero-dimensional `tensor_type`, at the insertion point."""
    return ir.Operation.create("flow.tensor.splat", results=[tensor_type], operands=[scalar]).results[0]


def _scalar_carried(loop) -> list[int]:
    """Positions of the carried values of host loop `loop` that are zero-dimensional integer tensors (for
    an scf.while, those its operands, both regions' arguments and its results all agree on)."""
    results = [r.type for r in loop.results]
    if loop.name == "scf.while":
        inits = [v.type for v in loop.operands]
        if inits != results:
            return []
    return [i for i, t in enumerate(results) if _is_scalar_tensor(t) and not _passed_from_device(loop, i)]


def _passed_from_device(loop, position: int) -> bool:
    """Whether a trip of `loop` computes carried value `position` from device data (an LU's failure flag
    from its pivot): carried as a host scalar, it would be read back every trip."""
    for region in loop.regions:
        passing = _terminator(region.blocks[0])
        skipped = 1 if passing.name == "scf.condition" else 0  # the condition itself
        if computed_from_device(passing.operands[position + skipped], loop):
            return True
    return False


def _terminator(block):
    """The last op of `block`."""
    return block.operations[len(block.operations) - 1].operation


def _scalar_arguments(block, first: int, positions: list[int], types: list, location) -> None:
    """Gives `block`'s arguments `first + i` (for i in `positions`) their scalar type, splatted back into
    a tensor at the block's start for the ops that read them."""
    with ir.InsertionPoint.at_block_begin(block), location:
        for i in positions:
            argument = block.arguments[first + i]
            tensor_type = argument.type
            argument.set_type(types[i])
            splat = _tensor_splat(argument, tensor_type)
            argument.replace_all_uses_except(splat, splat.owner.operation)


def _load_operands(op, first: int, positions: list[int]) -> None:
    """Loads operands `first + i` (for i in `positions`) of terminator `op` into scalars just before it."""
    with ir.InsertionPoint(op), op.location:
        for i in positions:
            op.operands[first + i] = _tensor_load(op.operands[first + i])


def _carry_scalars(loop) -> None:
    """Rebuilds host loop `loop` (scf.for or scf.while) so that its zero-dimensional integer tensors are
    carried as host scalars: loaded before it, splatted where its regions and the code after it read
    them, loaded again where a trip passes them on."""
    positions = _scalar_carried(loop)
    first = _first_init(loop)
    blocks = [region.blocks[0] for region in loop.regions]
    with ir.InsertionPoint(loop), loop.location:
        inits = list(loop.operands)
        for i in positions:
            inits[first + i] = _tensor_load(inits[first + i])
        types = [v.type for v in inits[first:]]
        new = ir.Operation.create(loop.name, results=types, operands=inits, attributes=build.attributes(loop),
                                  regions=len(blocks))
    for block, region in zip(blocks, new.regions):
        block.append_to(region)
        # scf.condition passes the carried values after the condition; scf.yield passes them all
        terminator = _terminator(block)
        _load_operands(terminator, 1 if terminator.name == "scf.condition" else 0, positions)
        _scalar_arguments(block, 1 if loop.name == "scf.for" else 0, positions, types, loop.location)
    with ir.InsertionPoint.after(new), loop.location:
        for i, old in enumerate(loop.results):
            if i in positions:
                old.replace_all_uses_with(_tensor_splat(new.results[i], old.type))
            else:
                old.replace_all_uses_with(new.results[i])
    loop.erase()


def _entry(module, dispatch):
    """The func.func a flow.dispatch runs, or None."""
    points = ir.ArrayAttr(dispatch.attributes["entry_points"])
    if len(points) != 1:
        return None
    executable, function = str(points[0]).lstrip("@").split("::@")
    for op in ir.body_ops(module):
        if op.name == "flow.executable" and ir.StringAttr(op.attributes["sym_name"]).value == executable:
            for inner in ir.ops(op):
                if inner.name == "func.func" and ir.StringAttr(inner.attributes["sym_name"]).value == function:
                    return inner
    return None


def _scalar_body(func):
    """The function's zero-dimensional linalg.generic when the function only loads integer scalars,
    computes with integer arith ops in that generic and stores its results; else None."""
    ops = ir.block_ops(func.regions[0].blocks[0].operations[0]) if func.regions[0].blocks[0].operations else []
    generics = [op for op in ops if op.name == "linalg.generic"]
    if len(generics) != 1 or any(op.name not in _SCALAR_FRAME for op in ops if op.name != "linalg.generic"):
        return None
    generic = generics[0]
    if len(ir.ArrayAttr(generic.attributes["iterator_types"])):
        return None
    loaded = [r for op in ops if op.name == "iree_tensor_ext.dispatch.tensor.load" for r in op.results]
    inputs = len(generic.operands) - len(generic.results)
    outs = list(generic.regions[0].blocks[0].arguments)[inputs:]
    if not all(any(v == r for r in loaded) for v in list(generic.operands)[:inputs]) or any(list(a.uses) for a in outs):
        return None
    body = [op for op in ir.ops(generic) if op != generic]
    if not all(op.name in _HOST_ARITH or op.name == "linalg.yield" for op in body):
        return None
    values = [v for op in body for v in [*op.operands, *op.results]]
    return generic if all(_is_integer(v.type) for v in values) else None


def _scalar_inputs(dispatch) -> list | None:
    """The host scalars a flow.dispatch's tensor operands were splatted from (constants loaded), or None
    when an operand is anything else or a result is tied to an operand."""
    tied = ir.ArrayAttr(dispatch.attributes["tied_operands"]) if "tied_operands" in dispatch.attributes else []
    if any(ir.IntegerAttr(t).value != -1 for t in tied):
        return None
    if list(ir.DenseI32ArrayAttr(dispatch.attributes["operandSegmentSizes"]))[0] != 0:
        return None
    scalars = []
    for value in dispatch.operands:
        producer = ir.producer(value)
        if not _is_scalar_tensor(value.type) or producer is None:
            return None
        if producer.name == "flow.tensor.splat":
            scalars.append(producer.operands[0])
        elif producer.name == "arith.constant":
            scalars.append(None)  # loaded at the dispatch
        else:
            return None
    return scalars


def _find(pairs: list, value):
    """The value paired with `value` in a list of (old, new) pairs, or None."""
    return next((new for old, new in pairs if old == value), None)


def _inline_scalar_dispatch(dispatch, func, generic, scalars) -> None:
    """Computes the dispatch's results on the host: the generic's arith ops (and the constants they read)
    cloned before the dispatch, its inputs the scalars the operands hold; each result's loads read the
    scalar, its other uses a splat of it."""
    frame = ir.block_ops(func.regions[0].blocks[0].operations[0])
    arguments = list(func.regions[0].blocks[0].arguments)
    stored = {}  # dispatch result -> the generic result stored into its binding
    for op in frame:
        if op.name == "iree_tensor_ext.dispatch.tensor.store":
            position = next(i for i, a in enumerate(arguments) if a == op.operands[1])
            stored[position - len(dispatch.operands)] = next(
                (i for i, r in enumerate(generic.results) if r == op.operands[0]), None)
    if sorted(stored) != list(range(len(dispatch.results))) or None in stored.values():
        return
    where = ir.InsertionPoint(dispatch)
    pairs = []  # (value in the executable, value on the host)
    with where, dispatch.location:
        for op in frame:
            if op.name == "iree_tensor_ext.dispatch.tensor.load":
                position = next(i for i, a in enumerate(arguments) if a == op.operands[0])
                scalar = scalars[position]
                pairs.append((op.results[0], scalar if scalar is not None else _tensor_load(dispatch.operands[position])))
        body = [o for o in ir.ops(generic) if o != generic]
        read = [v for o in body for v in o.operands]
        for op in frame:
            if op.name == "arith.constant" and any(v == op.results[0] for v in read):
                pairs.append((op.results[0], op.clone(ip=where).results[0]))
        block = generic.regions[0].blocks[0]
        for i in range(len(generic.operands) - len(generic.results)):
            pairs.append((block.arguments[i], _find(pairs, generic.operands[i])))
        yielded = []
        for op in body:
            if op.name == "linalg.yield":
                yielded = [_find(pairs, v) for v in op.operands]
                continue
            clone = op.clone(ip=where)
            for k, operand in enumerate(op.operands):
                found = _find(pairs, operand)
                if found is not None:
                    clone.operands[k] = found
            pairs.extend(zip(op.results, clone.results))
    for index, result in enumerate(dispatch.results):
        scalar = yielded[stored[index]]
        for use in list(result.uses):
            if use.owner.name == "flow.tensor.load":
                use.owner.results[0].replace_all_uses_with(scalar)
                use.owner.erase()
        if list(result.uses):
            with where, dispatch.location:
                result.replace_all_uses_with(_tensor_splat(scalar, result.type))
    dispatch.erase()


@register_pass
class HostScalarDispatches(Pass):
    """Computes on the host the scalar dispatches host loops ran and read back every trip."""

    name = "oxla-host-scalar-dispatches"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Carries loops' scalar tensors as host scalars, then inlines the dispatches that compute from them."""
        for loop in [op for op in ir.ops(module) if op.name in _LOOPS and not _in_executable(op)]:
            if _scalar_carried(loop):
                _carry_scalars(loop)
        for dispatch in [op for op in ir.ops(module) if op.name == "flow.dispatch" and not _in_executable(op)]:
            scalars = _scalar_inputs(dispatch)
            if scalars is None or not dispatch.results or not all(_is_scalar_tensor(r.type) for r in dispatch.results):
                continue
            func = _entry(module, dispatch)
            generic = _scalar_body(func) if func is not None else None
            if generic is not None:
                _inline_scalar_dispatch(dispatch, func, generic, scalars)
