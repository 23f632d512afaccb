"""oxla-in-place-slice-updates: slices computed from the tensor they update.

A loop that updates a slice of a carried tensor from values it reads in
that tensor, `x = x.at[i].set(0.5 * x[i - 1] + x[i])` in a `fori_loop`, or a
decoding step's `cache.at[:, t].set(k)` whose out-of-range guard keeps the
old window, reaches IREE as a dispatch computing the slice from the tensor,
followed by the update; so does each piece of a concatenation along an
inner dimension (rotary embeddings' two halves), copied into its strided
window. This pass, run after IREE's dispatch creation, settles such pairs
before IREE's stream phase does:

- IREE updates the tensor from JAX's form with a dispatch of its own (a
  `slow_memcpy`): every trip allocates a buffer for the slice, records two
  dispatches and frees the buffer (1023 trips over the rows of
  f32[1024,4096] on an AVX2 Zen 3: 5.3-8.0 us a trip, the rows' own work
  about 2.6 us of it). Where every element the first dispatch writes
  depends only on elements of the tensor at the same place, the pass
  merges the two: the producer binds the tensor read-write, its result
  tied to it, and stores the slice there (5.4-7.2 -> 2.7-4.1 ms a call,
  inputs resident).
- Where the update is a `flow.tensor.update` (the loop's own counter as the
  index, as in a scan, or no loop at all), IREE's stream phase places the
  producer's result in the updated tensor (`emplace-allocations`) even when
  the producer reads that tensor elsewhere, and the producer then
  overwrites elements before it reads them: `x.at[i, 1:].set(x[i, :-1] +
  1)` and `x.at[i].set(x[i, ::-1] + x[i - 1])` came out wrong. The pass
  passes such a slice through an optimization barrier, so IREE keeps it in
  a buffer of its own and copies it in after the producer has run.
- IREE's dispatch creation itself makes one in-place copy dispatch of a
  slice moved within the tensor, `x.at[i, 1:].set(x[i, :-1])` in a
  `fori_loop`: its vector loads and stores run in order, so each store
  overwrote elements a later load was to read. The pass splits an in-place
  dispatch that reads its tensor through a window that may share elements
  with the one it writes into a dispatch computing the slice and a fenced
  update, as above, where the written window is one run of memory (a
  flow.tensor.update writes a byte range: a strided window split so came
  out wrong); copies between windows known to be apart stay in place.

"Only at the same place" means: the tensor is read only through windows of
the written slice's sizes (and the slice's type), placed as the written
one in every dimension wider than one, and what is read reaches the stored
value only through element-wise ops that read it where they write. Then no
element is written before another element's read of it, in whatever
order or however many workgroups the dispatch runs. A producer that does
not read the tensor is left alone (IREE updates in place after it, and
writing a convolution's result straight into a channel slice of the
concatenation it feeds made a grouped convolution 20x slower), unless it
only computes element-wise (linalg.generic ops without reductions): then
it takes the tensor as a new argument and stores into its window, where
IREE computed the piece into a buffer and copied it with a `slow_memcpy`
dispatch. Rotary embeddings over f32[8,512,16,64] (`tools.bench.ops`
`rotary_halves`, one pinned Zen 3 core, paired): 3.61 -> 1.99 ms, four
dispatches to two (XLA 1.9-3.0 ms). A piece IREE collapses to fewer
dimensions (one whole tensor's element-wise result) reaches the copy
through a reshape and keeps it.

The same goes for an element-wise dispatch with several results, each
copied into its window of one tensor: the steps of a `lax.scan` unrolled
four to a trip (`oxla-unroll-loops`), whose rows go into the stacked
outputs. Each result the copy alone reads is stored there by the dispatch
itself; the step's carry, which the next trip reads too, keeps its copy
(stored twice, IREE could not distribute the stores over workgroups). The
scan of c = 0.9 c + x[t] over f32[1024,4096] (`tools.bench.ops` `scan`,
one Zen 3 core, paired): 4.22 -> 2.86 ms, two threads 6.56 -> 4.23 ms.
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.dispatch_tensors import dispatch_tensor_type
from oxla.transforms.registry import Pass, register_pass

_DISPATCH = "flow.dispatch.workgroups"
_LOAD = "iree_tensor_ext.dispatch.tensor.load"
_STORE = "iree_tensor_ext.dispatch.tensor.store"
_ORDINAL = "iree_tensor_ext.dispatch.workload.ordinal"
# Ops that pass a tensor on without computing it.
_VIEWS = ("flow.tensor.reshape", "flow.tensor.bitcast", "flow.tensor.clone")
# Ops that relayout a tensor element by element without moving an element to another position.
_RELAYOUTS = ("iree_encoding.set_encoding", "iree_encoding.unset_encoding")
# flow.dispatch.workgroups operand groups, in order.
_WORKLOAD, _ARGUMENTS, _ARGUMENT_DIMS, _RESULT_DIMS = range(4)
# The dynamic-value marker in static_offsets.
_DYNAMIC = -(2 ** 63)


def _groups(op) -> list[list]:
    """The op's operands split into its operandSegmentSizes groups (a flow.dispatch.workgroups op's:
    workload, arguments, their dims, result dims)."""
    operands, groups, start = list(op.operands), [], 0
    for size in ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]):
        groups.append(operands[start:start + size])
        start += size
    return groups


def _tied(op) -> list[int]:
    """Each result's tied argument position (-1 where it has none)."""
    if "tied_operands" not in op.attributes:
        return [-1] * len(op.results)
    return [ir.IntegerAttr(a).value for a in ir.ArrayAttr(op.attributes["tied_operands"])]


def _body(op):
    """The workgroup body's block."""
    return op.regions[0].blocks[0]


def _access_groups(access) -> list[list]:
    """A load's or a store's operand groups past the stored value: the binding, its dims, the offsets,
    sizes and strides."""
    return _groups(access)[-5:]


def _window(access, dispatch):
    """(offsets, sizes) of a load or store with static sizes and unit strides: each offset an int or
    the outer value it reads (None where the body computes it); None for other accesses."""
    groups = _access_groups(access)
    dims, offsets, sizes, strides = groups[1:]
    if dims or sizes or strides or any(s != 1 for s in build.i64s(access, "static_strides", [])):
        return None
    dynamic = iter(offsets)
    offsets = build.i64s(access, "static_offsets", [])
    return ([_outer(next(dynamic), dispatch) if o == _DYNAMIC else o for o in offsets],
            build.i64s(access, "static_sizes", []))


def _is_whole(access, shape) -> bool:
    """Whether a load or store reads or writes all of a tensor of `shape`, statically."""
    return (not any(_access_groups(access)[1:])
            and all(o == 0 for o in build.i64s(access, "static_offsets", []))
            and build.i64s(access, "static_sizes", []) == list(shape)
            and all(s == 1 for s in build.i64s(access, "static_strides", [])))


def _known(value):
    """An index value as an int where a constant defines it, else the value itself."""
    known = ir.constant_int(value) if isinstance(value.type, ir.IndexType) else None
    return value if known is None else known


def _outer(value, dispatch, *, known: bool = True):
    """The value outside `dispatch` that `value` (a body block argument, or a workload ordinal of one)
    stands for, an int where a constant defines it (if `known`); None if it is computed inside."""
    op = ir.producer(value)
    if op is not None and op.name == _ORDINAL:
        value = op.operands[0]
    elif op is not None:
        return None
    if value.owner != _body(dispatch):
        return None
    arguments = _groups(dispatch)[_ARGUMENTS]
    number = ir.BlockArgument(value).arg_number
    if number >= len(arguments):
        return None
    return _known(arguments[number]) if known else arguments[number]


def _same(a, b) -> bool:
    """Whether two offsets (ints, outer values or None) are known to be equal."""
    if a is None or b is None or isinstance(a, int) != isinstance(b, int):
        return False
    return a == b


def _views_of(value) -> set:
    """`value` and what it is a view of, through reshapes, bitcasts and clones (IREE may give a clone
    its source's storage)."""
    seen = set()
    while value is not None:
        seen.add(value)
        op = ir.producer(value)
        value = op.operands[0] if op is not None and op.name in _VIEWS else None
    return seen


def _arguments_viewing(dispatch, target) -> list:
    """The dispatch's arguments that are `target` or share its storage (_views_of)."""
    shared = _views_of(target)
    return [value for value in _groups(dispatch)[_ARGUMENTS] if shared & _views_of(value)]


def _unit_dims_dropped(shape) -> list[int]:
    """The dimensions of `shape` wider than one, in order (what a reshape of unit dimensions keeps)."""
    return [d for d in shape if d != 1]


def _slice_update(dispatch):
    """(update position, target position, store) when `dispatch` only copies one of its tensor arguments
    whole into a slice of another, which its one result is tied to, at offsets it is given; else None."""
    groups = _groups(dispatch)
    if groups[_ARGUMENT_DIMS] or groups[_RESULT_DIMS] or len(dispatch.results) != 1:
        return None
    target = _tied(dispatch)[0]
    ops = [op for op in ir.body_ops(dispatch) if op.name not in (_ORDINAL, "arith.constant", "flow.return")]
    if target < 0 or [op.name for op in ops] != [_LOAD, _STORE]:
        return None
    load, store = ops
    body = _body(dispatch)
    source = load.operands[0]
    if not isinstance(source, ir.BlockArgument) or source.owner != body or source.arg_number == target:
        return None
    update = groups[_ARGUMENTS][source.arg_number]
    window = _window(store, dispatch)
    if (store.operands[0] != load.results[0] or store.operands[1] != body.arguments[target]
            or not isinstance(update.type, ir.RankedTensorType)
            or not _is_whole(load, update.type.shape)
            or window is None or any(o is None for o in window[0])):
        return None
    return source.arg_number, target, store


def _producer(update):
    """The dispatch whose one result, read by nothing else, is `update`, with static shapes; else None."""
    producer = ir.producer(update)
    if producer is None or producer.name != _DISPATCH or len(producer.results) != 1:
        return None
    groups = _groups(producer)
    if groups[_ARGUMENT_DIMS] or groups[_RESULT_DIMS] or _tied(producer) != [-1]:
        return None
    return producer if len(list(update.uses)) == 1 else None


def _result_store(producer, number: int = 0):
    """The store that writes the producer's result `number` (one without a tied argument) whole, if it is
    the binding's one use."""
    arguments = len(_groups(producer)[_ARGUMENTS])
    untied = [i for i, t in enumerate(_tied(producer)) if t < 0]
    if number not in untied:
        return None
    binding = _body(producer).arguments[arguments + untied.index(number)]
    uses = [ir.user(use) for use in binding.uses]
    if len(uses) != 1 or uses[0].name != _STORE or uses[0].operands[1] != binding:
        return None
    shape = ir.RankedTensorType(producer.results[number].type).shape
    return uses[0] if _is_whole(uses[0], shape) else None


def _element_wise(op) -> bool:
    """Whether `op` is a linalg.generic without reduction loops."""
    return op.name == "linalg.generic" and "reduction" not in str(op.attributes["iterator_types"])


def _aligned_elementwise(op, operand_number: int) -> bool:
    """Whether `op` is an element-wise linalg.generic reading operand `operand_number` where it writes."""
    if not _element_wise(op):
        return False
    maps = [str(m) for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    return all(maps[operand_number] == m for m in maps[len(maps) - len(op.results):])


def _placed_as(read, written) -> bool:
    """Whether a window (offsets, sizes; None if unknown) has the sizes of `written` and sits where it
    does in every dimension wider than one."""
    if read is None or read[1] != written[1]:
        return False
    return all(size == 1 or _same(a, b) for a, b, size in zip(read[0], written[0], written[1]))


def _reads_in_place(producer, position: int, window, result_store) -> bool:
    """Whether the producer reads its argument at `position` only where it would write: through loads
    of the written window's sizes and the stored value's type, placed as the window is in every
    dimension wider than one, whose values reach only element-wise ops at matching positions (and the
    result's store)."""
    stored = str(result_store.operands[0].type)
    reached = []
    for use in _body(producer).arguments[position].uses:
        load = ir.user(use)
        read = _window(load, producer) if load.name == _LOAD else None
        if not _placed_as(read, window) or str(load.results[0].type) != stored:
            return False
        reached.append(load.results[0])
    while reached:
        for use in reached.pop().uses:
            op = ir.user(use)
            if op == result_store and use.operand_number == 0:
                continue
            if op.name not in _RELAYOUTS and not _aligned_elementwise(op, use.operand_number):
                return False
            reached.extend(op.results)
    return True


def _writes_where_it_reads(producer, target, window):
    """The position of `target` among the producer's arguments when the producer (one result) reads
    the target, and no view of it, only where its value would be written into the target's `window`
    (_reads_in_place); None otherwise."""
    if _arguments_viewing(producer, target) != [target]:
        return None
    position = _index(_groups(producer)[_ARGUMENTS], target)
    result_store = _result_store(producer)
    if result_store is None or not _reads_in_place(producer, position, window, result_store):
        return None
    return position


def _mergeable(update):
    """(producer, the target's position among its arguments, the update's store) when the slice-update
    dispatch `update` copies the result of a dispatch that reads the target only where the result goes
    (_writes_where_it_reads); else None."""
    found = _slice_update(update)
    if found is None:
        return None
    source, target, store = found
    arguments = _groups(update)[_ARGUMENTS]
    producer = _producer(arguments[source])
    if producer is None or producer.block != update.block:
        return None
    loaded = [op for op in ir.body_ops(update) if op.name == _LOAD][0].results[0].type
    if str(loaded) != str(producer.results[0].type):
        return None
    if _element_wise_apart(producer, arguments[target]):
        return producer, None, store
    position = _writes_where_it_reads(producer, arguments[target], _window(store, update))
    return None if position is None else (producer, position, store)


# What an element-wise dispatch holds besides its linalg.generic ops.
_ELEMENT_WISE_PLUMBING = (_LOAD, _STORE, _ORDINAL, "arith.constant", "tensor.empty", "flow.return")


def _element_wise_apart(producer, target) -> bool:
    """Whether the producer computes its result element-wise (linalg.generic ops without reductions) and
    reads neither `target` nor a view of it: a piece of a concatenation along an inner dimension,
    which IREE computes into a buffer of its own and copies into the strided window (`slow_memcpy`)."""
    if _arguments_viewing(producer, target) or _result_store(producer) is None:
        return False
    return _computes_element_wise(producer)


def _computes_element_wise(producer) -> bool:
    """Whether a dispatch holds linalg.generic ops, none with a reduction, and nothing but plumbing else."""
    ops = ir.body_ops(producer)
    return any(op.name == "linalg.generic" for op in ops) and all(
        op.name in _ELEMENT_WISE_PLUMBING or _element_wise(op) for op in ops)


def _made_by(value, op) -> bool:
    """Whether `value` is a result of `op`."""
    defining = ir.producer(value)
    return defining is not None and defining == op


def _before(value, op) -> bool:
    """Whether `value`, which dominates a later op of `op`'s block, is defined before `op`: a block
    argument, a result of an op outside the block, or of an op of the block ahead of `op`."""
    defining = ir.producer(value)
    if defining is None or defining.block != op.block:
        return True
    for candidate in op.block.operations:
        if candidate == defining:
            return True
        if candidate == op:
            return False
    return False


def _stackable(update):
    """(producer, result number, store) when the slice-update dispatch `update` copies whole a result,
    read by nothing else, of an element-wise dispatch of its block that computes more results (the steps
    of an unrolled scan, stacked into its outputs), into a target that is either made before the
    producer and read by the update alone, or the producer's own in-place result (where an earlier
    update was stacked); the producer reads neither the target nor a view of it, and the update's
    offsets are known before it. None otherwise (_mergeable takes a one-result producer). A result
    read elsewhere too (the scan's carry) keeps its copy: stored twice, IREE could not distribute the
    stores over workgroups."""
    found = _slice_update(update)
    if found is None:
        return None
    source, target, store = found
    arguments = _groups(update)[_ARGUMENTS]
    value, tensor = arguments[source], arguments[target]
    producer = ir.producer(value)
    if producer is None or producer.name != _DISPATCH or producer.block != update.block:
        return None
    groups = _groups(producer)
    number = ir.OpResult(value).result_number
    loaded = [op for op in ir.body_ops(update) if op.name == _LOAD][0].results[0].type
    if (groups[_ARGUMENT_DIMS] or groups[_RESULT_DIMS] or str(loaded) != str(value.type)
            or len(list(value.uses)) != 1 or _result_store(producer, number) is None
            or not _computes_element_wise(producer)
            or not all(_before(_outer(v, update, known=False), producer) for v in _access_groups(store)[2])):
        return None
    if _made_by(tensor, producer):
        position = _tied(producer)[ir.OpResult(tensor).result_number]
        binding, written = _body(producer).arguments[position], groups[_ARGUMENTS][position]
        only_stored = all(ir.user(u).name == _STORE for u in binding.uses)
        return (producer, number, store) if only_stored and _arguments_viewing(producer, written) == [written] else None
    if len(list(tensor.uses)) != 1 or not _before(tensor, producer) or _arguments_viewing(producer, tensor):
        return None
    return producer, number, store


def _hazardous(update) -> bool:
    """Whether a flow.tensor.update writes a value a dispatch computed from the tensor it updates (or a
    view of it) other than where the value goes: IREE places such a dispatch's result in the updated
    tensor (its stream phase's emplace-allocations) even so, and the dispatch then overwrites elements
    before it reads them (`x.at[i, 1:].set(x[i, :-1] + 1)` in a scan came out wrong)."""
    target, target_dims, starts, (value,), value_dims = _groups(update)
    source, unit_only = value, True
    while ir.producer(source) is not None and ir.producer(source).name in _VIEWS:
        view = ir.producer(source)
        unit_only &= _unit_dims_dropped(view.operands[0].type.shape) == _unit_dims_dropped(source.type.shape)
        source = view.operands[0]
    producer = ir.producer(source)
    if producer is None or producer.name != _DISPATCH:
        return False
    if not _arguments_viewing(producer, target[0]):
        return False
    if (target_dims or value_dims or not unit_only or _producer(source) is None
            or not value.type.has_static_shape):
        return True
    window = ([_known(v) for v in starts], list(value.type.shape))
    return _writes_where_it_reads(producer, target[0], window) is None


def _overlapping_store(dispatch):
    """The store of a dispatch that updates its one tied tensor in place after reading that tensor
    through a window placed elsewhere that may share elements with the written one (a row shifted within
    itself, `x.at[i, 1:].set(x[i, :-1])`, which IREE makes one copy dispatch of: its vector loads and
    stores run in order, so it overwrites elements before reading them), when the store writes one run of
    memory at offsets known outside it; else None. (A circular padding's copy of columns 1:3 to 5:7 shares
    none and stays: split, its strided window came out wrong as a flow.tensor.update.)"""
    groups = _groups(dispatch)
    if groups[_ARGUMENT_DIMS] or groups[_RESULT_DIMS] or len(dispatch.results) != 1 or _tied(dispatch)[0] < 0:
        return None
    users = [ir.user(use) for use in _body(dispatch).arguments[_tied(dispatch)[0]].uses]
    stores = [op for op in users if op.name == _STORE]
    loads = [op for op in users if op.name == _LOAD]
    if len(stores) != 1 or not loads or len(loads) + 1 != len(users):
        return None
    written = _window(stores[0], dispatch)
    shape = _groups(dispatch)[_ARGUMENTS][_tied(dispatch)[0]].type.shape
    if written is None or any(o is None for o in written[0]) or not _contiguous(written[1], shape):
        return None  # flow.tensor.update writes one run of memory
    reads = [_window(load, dispatch) for load in loads]
    if all(_placed_as(read, written) or _disjoint(read, written) for read in reads):
        return None
    return stores[0]


def _contiguous(sizes, shape) -> bool:
    """Whether a window of `sizes` in a tensor of `shape` is one run of memory: whole in every dimension
    after its first wider than one."""
    wide = [i for i, size in enumerate(sizes) if size != 1]
    return not wide or list(sizes[wide[0] + 1:]) == list(shape[wide[0] + 1:])


def _disjoint(read, written) -> bool:
    """Whether two windows (offsets, sizes) are known to share no element: apart in some dimension whose
    offsets are both constants."""
    if read is None:
        return False
    return any(isinstance(a, int) and isinstance(b, int) and (a + m <= b or b + n <= a)
               for a, m, b, n in zip(read[0], read[1], written[0], written[1]))


def _split(dispatch, store) -> None:
    """Replaces an in-place dispatch (_overlapping_store) by one that computes the stored value into a
    tensor of its own and a fenced flow.tensor.update of it into the tensor where it was stored."""
    position = _tied(dispatch)[0]
    tensor = _groups(dispatch)[_ARGUMENTS][position]
    body = _body(dispatch)
    value = store.operands[0]
    context = dispatch.context
    index = ir.IndexType.get(context=context)
    written = dispatch_tensor_type("writeonly", value.type)
    result_binding = body.add_argument(written, dispatch.location)
    rank = value.type.rank
    with ir.InsertionPoint(store), store.location:
        ir.Operation.create(_STORE, operands=[value, result_binding], attributes={
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, 0, 0, 0, 0], context=context),
            "static_offsets": ir.DenseI64ArrayAttr.get([0] * rank, context=context),
            "static_sizes": ir.DenseI64ArrayAttr.get(list(value.type.shape), context=context),
            "static_strides": ir.DenseI64ArrayAttr.get([1] * rank, context=context)})
    dynamic = iter([_outer(v, dispatch, known=False) for v in _access_groups(store)[2]])
    offsets, sizes = build.i64s(store, "static_offsets", []), build.i64s(store, "static_sizes", [])
    store.erase()
    body.arguments[position].set_type(dispatch_tensor_type("readonly", tensor.type))
    with ir.InsertionPoint(dispatch), dispatch.location:
        computed = _rebuilt(dispatch, [value.type], _groups(dispatch)[_ARGUMENTS], tied=[-1])
        starts = [next(dynamic) if o == _DYNAMIC else ir.Operation.create(
            "arith.constant", results=[index], attributes={"value": ir.IntegerAttr.get(index, o)}).results[0]
            for o in offsets]
        window = ir.RankedTensorType.get(sizes, value.type.element_type)
        slice_ = computed.results[0]
        if str(window) != str(value.type):
            slice_ = ir.Operation.create("flow.tensor.reshape", results=[window], operands=[slice_], attributes={
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, 0], context=context)}).results[0]
        update = ir.Operation.create("flow.tensor.update", results=[tensor.type],
                                     operands=[tensor, *starts, _barrier(slice_)], attributes={
                                         "operandSegmentSizes": ir.DenseI32ArrayAttr.get(
                                             [1, 0, len(starts), 1, 0], context=context)})
    dispatch.results[0].replace_all_uses_with(update.results[0])
    dispatch.erase()


def _barrier(value):
    """`value` passed through a util.optimization_barrier made at the insertion point: IREE then keeps it
    in a buffer of its own rather than placing it in the tensor it updates."""
    return ir.Operation.create("util.optimization_barrier", results=[value.type], operands=[value]).results[0]


def _rebuilt(dispatch, result_types: list, arguments: list, *, tied: list[int]):
    """A flow.dispatch.workgroups made at the insertion point from `dispatch`'s workload, attributes and
    regions (moved, so `dispatch` is left empty to be erased), taking `arguments` (static shapes: no
    dims) and giving results of `result_types`, each tied to the argument position in `tied` (-1: none)."""
    context = dispatch.context
    workload = _groups(dispatch)[_WORKLOAD]
    attributes = {name: dispatch.attributes[name] for name in dispatch.attributes}
    attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([len(workload), len(arguments), 0, 0],
                                                                 context=context)
    index = ir.IndexType.get(context=context)
    attributes["tied_operands"] = ir.ArrayAttr.get([ir.IntegerAttr.get(index, t) for t in tied], context=context)
    rebuilt = ir.Operation.create(_DISPATCH, results=list(result_types), operands=[*workload, *arguments],
                                  attributes=attributes, regions=2)
    _body(dispatch).append_to(rebuilt.regions[0])
    dispatch.regions[1].blocks[0].append_to(rebuilt.regions[1])
    return rebuilt


def _fence(update) -> None:
    """Passes the value a flow.tensor.update writes through an optimization barrier, so IREE keeps it in
    a buffer of its own and copies it into the target after its producer has run."""
    groups = _groups(update)  # target, target dims, start indices, value, value dims
    with ir.InsertionPoint(update), update.location:
        update.operands[sum(len(g) for g in groups[:3])] = _barrier(groups[3][0])


def _merge(update, producer, position, store) -> None:
    """Replaces `update` and its `producer` by one dispatch: the producer's, storing its value into the
    update's target (bound read-write, its result tied to it) where the update stored it. `position` is
    the target's among the producer's arguments, None where the producer does not take it."""
    arguments = list(_groups(producer)[_ARGUMENTS])
    target = _tied(update)[0]
    body = _body(producer)
    bindings = list(body.arguments)[:len(arguments)]  # the merged body's argument for each of `arguments`
    result_binding = body.arguments[len(arguments)]
    result_store = _result_store(producer)
    target_binding_type = _body(update).arguments[target].type
    if position is None:  # the producer does not read the target: it gets it as a new argument
        arguments.append(_groups(update)[_ARGUMENTS][target])
        bindings.append(body.add_argument(target_binding_type, producer.location))
        position = len(arguments) - 1
    bindings[position].set_type(target_binding_type)
    offsets = _offset_bindings(store, update, producer, arguments, bindings)
    with ir.InsertionPoint(result_store), result_store.location:
        _store_as(store, result_store.operands[0], bindings[position], offsets)
    result_store.erase()
    body.erase_argument(result_binding.arg_number)
    with ir.InsertionPoint(update), update.location:
        merged = _rebuilt(producer, [update.results[0].type], arguments, tied=[position])
    update.results[0].replace_all_uses_with(merged.results[0])
    update.erase()
    producer.erase()


def _offset_bindings(store, update, producer, arguments: list, bindings: list) -> list:
    """The update's dynamic store offsets as values of the producer's body: the outer values they stand
    for, appended to `arguments` (and a new body argument to `bindings`) where the producer lacks them."""
    offsets = []
    for value in _access_groups(store)[2]:
        outer = _outer(value, update, known=False)
        if outer not in arguments:
            arguments.append(outer)
            bindings.append(_body(producer).add_argument(outer.type, producer.location))
        offsets.append(bindings[_index(arguments, outer)])
    return offsets


def _store_as(store, value, binding, offsets: list) -> None:
    """Stores `value` into `binding` at the insertion point, in the window `store` writes (its static
    offsets, sizes and strides; `offsets` for its dynamic offsets)."""
    ir.Operation.create(_STORE, operands=[value, binding, *offsets], attributes={
        name: store.attributes[name] for name in ("operandSegmentSizes", "static_offsets", "static_sizes", "static_strides")})


def _stack(update, producer, number: int, store) -> None:
    """Makes `producer` (_stackable) store its result `number` where `update` copies it instead, into the
    update's target bound read-write (tied to a new result, or to the producer's own where the target
    is one), and drops the update and the result."""
    arguments = list(_groups(producer)[_ARGUMENTS])
    tied = _tied(producer)
    body = _body(producer)
    bindings = list(body.arguments)[:len(arguments)]
    untied = [i for i, t in enumerate(tied) if t < 0]
    result_bindings = list(body.arguments)[len(arguments):]
    value_store = _result_store(producer, number)
    target = _tied(update)[0]
    tensor = _groups(update)[_ARGUMENTS][target]
    own = ir.OpResult(tensor).result_number if _made_by(tensor, producer) else None
    if own is None:
        arguments.append(tensor)
        bindings.append(body.add_argument(_body(update).arguments[target].type, producer.location))
    position = tied[own] if own is not None else len(arguments) - 1
    offsets = _offset_bindings(store, update, producer, arguments, bindings)
    terminator = list(body.operations)[-1]
    with ir.InsertionPoint(terminator), store.location:  # after every store before it: the updates' order
        _store_as(store, value_store.operands[0], bindings[position], offsets)
    value_store.erase()
    # Result bindings follow the argument bindings: the kept ones move past the arguments added.
    for result, binding in zip(untied, result_bindings):
        if result != number:
            binding.replace_all_uses_with(body.add_argument(binding.type, producer.location))
    for binding in reversed(result_bindings):
        body.erase_argument(binding.arg_number)
    kept = [i for i in range(len(tied)) if i != number]
    types, ties = [producer.results[i].type for i in kept], [tied[i] for i in kept]
    if own is None:
        types.append(update.results[0].type)
        ties.append(position)
    with ir.InsertionPoint(producer), producer.location:
        stacked = _rebuilt(producer, types, arguments, tied=ties)
    for new, old in zip(stacked.results, kept):
        producer.results[old].replace_all_uses_with(new)
    update.results[0].replace_all_uses_with(stacked.results[kept.index(own) if own is not None else len(kept)])
    update.erase()
    producer.erase()


def _index(values: list, value) -> int:
    """The position of `value` in `values` (compared as values, not as Python objects)."""
    return next(i for i, v in enumerate(values) if v == value)


@register_pass
class InPlaceSliceUpdates(Pass):
    """Writes slices computed from the tensor they update in place where safe; keeps IREE from it where not.

    A slice-update dispatch after a dispatch that reads the tensor only where the slice goes is merged into
    it (_mergeable), one copying a result of an element-wise dispatch with more results has that dispatch
    store it (_stackable); an in-place dispatch reading its tensor elsewhere than it writes is split apart
    (_overlapping_store), and a flow.tensor.update IREE would let its dispatch write under its own reads is
    fenced (_hazardous)."""

    name = "oxla-in-place-slice-updates"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Merges each mergeable slice-update dispatch into its producer or splits it if it overlaps, then
        fences the hazardous updates (the class docstring), from one walk of the module."""
        # Only dispatches with a tied result: neither the producers a merge erases nor the dispatches a
        # split makes have one, and the updates a split makes are fenced already.
        tied, updates = [], []
        for op in ir.ops(module):
            if op.name == _DISPATCH and len(op.results) == 1 and _tied(op)[0] >= 0:
                tied.append(op)
            elif op.name == "flow.tensor.update":
                updates.append(op)
        for dispatch in tied:
            found = _mergeable(dispatch)
            if found is not None:
                _merge(dispatch, *found)
                continue
            found = _stackable(dispatch)
            if found is not None:
                _stack(dispatch, *found)
                continue
            store = _overlapping_store(dispatch)
            if store is not None:
                _split(dispatch, store)
        for update in updates:
            if _hazardous(update):
                _fence(update)
