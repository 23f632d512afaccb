"""oxla-canonicalize-scatter: put every stablehlo.scatter in the one form IREE lowers.

IREE's scatter lowering accepts scatters whose indices are [batch, depth]
(one batch dim, the index vector last), whose indexed operand dims lead,
and whose updates are [batch, slice of the operand]. Any other valid
scatter (no batch dim or several, the index vector first, indexed dims in
the middle, inserted window dims, window dims before scatter dims) is
rewritten into that form with transposes and reshapes; the result is the
same tensor.

oxla-guard-scatter-indices: an update whose window does not fit in the
operand at its index is left out (XLA's semantics, which JAX's `x.at[i]`
relies on: an out-of-range `i` is dropped). IREE's scatter writes it at the
index as given, outside the operand: `x.at[i].add(v)` with `i` past the end
crashed the process. The pass, after the canonicalization, keeps such
updates inside: a scatter that adds, into an operand larger than its
updates, gets them as zeros at index 0; any other gets its operands padded
by one window along the first indexed dimension, the updates sent there,
and the results cut back.

oxla-scatter-slice-updates: padding copies the operand, and canonicalizing
transposes it: for `x.at[i].set(row)` inside a `fori_loop` over the rows of
f32[1024,4096], a 16 MB copy every step (6.7 s against XLA's 16 ms on an
AVX2 Zen 3), and for a decoding loop's `cache.at[:, t].set(k)` two
transposes of the cache every step. Before both passes, a scatter of one
window into one operand (in any layout) becomes a dynamic_update_slice of
the window at the index, combined with the update where the whole window
fits and left as it was where it does not, which IREE writes in place
(19 ms; with oxla-host-scalar-dispatches 9.9 ms). The guard costs time: a segment sum of 65536 rows
of 64 into 1000 (JAX's segment_sum, whose out-of-range ids must drop) took
12-14 ms instead of 9-10 on an AVX2 Zen 3 (zeroing its 16 MB of updates
instead: 17-21 ms, hence the size test).

oxla-llvmcpu-vector-scatter-rows: on the dispatches (after
`executable-sources`), an iree_linalg_ext.scatter of rows into a 2-D
tensor loaded from and stored back to one binding, combining with arith ops
alone (an add, a max, a set), becomes a loop over the update rows: each
row's index read once (through the elementwise ops that computed it, such
as the guard above, inlined), then the row and its target read as vectors
of up to MAX_SCATTER_BLOCK elements, combined, written back. IREE's own
loop reloaded the index for every element (a store to the output might
have changed it, for all LLVM could tell) and ran one element at a time:
65536 rows of 64 into 1000 (`x.at[i].add(rows)`, a segment sum) on an AVX2
Zen 3: 9.6-9.9 ms -> 1.8-1.9 ms through `tools.bench.ops`, XLA 1.4-2.2 ms.
The loop is one workgroup, as IREE's scatter was; indices are clamped into
the rows, which the guard has already made them.
"""

from __future__ import annotations

import math

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.stablehlo_build import dimension_numbers, reshape, shape, transpose
from oxla.transforms.registry import Pass, RewritePass, register_pass


def _format(fields: dict) -> str:
    parts = []
    for name in ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                 "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"):
        if fields.get(name):
            parts.append(f"{name} = [{', '.join(map(str, fields[name]))}]")
    parts.append(f"index_vector_dim = {fields['index_vector_dim']}")
    return f"#stablehlo.scatter<{', '.join(parts)}>"


def is_canonical(op) -> bool:
    """True when the scatter already has IREE's form (or uses batching dims, left alone)."""
    dims = dimension_numbers(op.attributes["scatter_dimension_numbers"])
    if dims.get("input_batching_dims"):
        return True
    n = (len(op.operands) - 1) // 2
    rank, depth = len(shape(op.operands[0])), len(dims.get("scatter_dims_to_operand_dims", []))
    inserted = dims.get("inserted_window_dims", [])
    return (len(shape(op.operands[n])) == 2 and dims["index_vector_dim"] == 1
            and inserted == list(range(len(inserted))) and len(inserted) <= depth
            and dims.get("update_window_dims", []) == list(range(1, rank - len(inserted) + 1))
            and dims.get("scatter_dims_to_operand_dims", []) == list(range(depth)))


def _indices_as_matrix(indices, ivd: int):
    """Indices as [count, depth]: the index vector last, all batch dims folded into one."""
    rank = len(shape(indices))
    if ivd == rank:
        indices = reshape(indices, shape(indices) + [1])
        rank += 1
    indices = transpose(indices, [d for d in range(rank) if d != ivd] + [ivd])
    batch, depth = shape(indices)[:-1], shape(indices)[-1]
    return reshape(indices, [math.prod(batch), depth])


def _updates_as_windows(updates, window: list[int], inserted: list[int], perm: list[int], count: int,
                        collapsed: int):
    """Updates as [count, operand dims in `perm` order minus the first `collapsed`].

    Each remaining operand dim takes its window from the updates, or size 1
    where it was an inserted dim; at most one transpose and one reshape.
    """
    dims = shape(updates)
    scatter_dims = [d for d in range(len(dims)) if d not in window]
    window_of = dict(zip([d for d in range(len(window) + len(inserted)) if d not in inserted], window))
    kept = perm[collapsed:]
    moved = transpose(updates, scatter_dims + [window_of[d] for d in kept if d in window_of])
    return reshape(moved, [count] + [dims[window_of[d]] if d in window_of else 1 for d in kept])


def canonicalize(op):
    """Replaces one scatter by the same scatter in IREE's form; returns the new result values.

    The operands are transposed so that the indexed dims come first; the
    leading indexed dims that were inserted stay collapsed, every other dim is
    a window dim (size 1 where it was inserted); results are transposed back.
    """
    dims = dimension_numbers(op.attributes["scatter_dimension_numbers"])
    n = (len(op.operands) - 1) // 2
    sdod = dims.get("scatter_dims_to_operand_dims", [])
    rank = len(shape(op.operands[0]))
    perm = sdod + [d for d in range(rank) if d not in sdod]
    inverse = [perm.index(d) for d in range(rank)]
    inserted = dims.get("inserted_window_dims", [])
    collapsed = next((i for i, d in enumerate(sdod) if d not in inserted), len(sdod))
    with ir.InsertionPoint(op), op.location:
        indices = _indices_as_matrix(op.operands[n], dims["index_vector_dim"])
        count = shape(indices)[0]
        inputs = [transpose(op.operands[i], perm) for i in range(n)]
        updates = [_updates_as_windows(op.operands[n + 1 + i], dims.get("update_window_dims", []),
                                       inserted, perm, count, collapsed) for i in range(n)]
        new_dims = {"update_window_dims": list(range(1, rank - collapsed + 1)),
                    "inserted_window_dims": list(range(collapsed)),
                    "scatter_dims_to_operand_dims": list(range(len(sdod))), "index_vector_dim": 1}
        attrs = {op.attributes[i].name: op.attributes[i].attr for i in range(len(op.attributes))}
        attrs["scatter_dimension_numbers"] = ir.Attribute.parse(_format(new_dims))
        new = ir.Operation.create("stablehlo.scatter", results=[v.type for v in inputs],
                                  operands=[*inputs, indices, *updates], attributes=attrs, regions=1)
        op.regions[0].blocks[0].append_to(new.regions[0])
        results = [transpose(r, inverse) for r in new.results]
    for old, replacement in zip(op.results, results):
        old.replace_all_uses_with(replacement)
    op.erase()
    return results


@register_pass
class CanonicalizeScatter(RewritePass):
    """Rewrites stablehlo.scatter into the [batch, index] / [batch, window...] form IREE lowers."""

    name = "oxla-canonicalize-scatter"
    roots = ("stablehlo.scatter",)

    def matches(self, op) -> bool:
        return not is_canonical(op)

    def rewrite(self, op) -> None:
        canonicalize(op)


def window_bounds(op) -> list[int] | None:
    """For a canonical scatter of static shapes without batching dims: the largest index along each
    indexed dimension at which the update window still fits (dimension less window size); else None."""
    dims = dimension_numbers(op.attributes["scatter_dimension_numbers"])
    n = (len(op.operands) - 1) // 2
    values = [op.operands[n], op.operands[0], op.operands[n + 1]]
    if dims.get("input_batching_dims") or not is_canonical(op) or not all(
            ir.RankedTensorType(v.type).has_static_shape for v in values):
        return None
    if not isinstance(build.element(op.operands[n]), ir.IntegerType):
        return None
    operand, updates = shape(op.operands[0]), shape(op.operands[n + 1])
    inserted = len(dims.get("inserted_window_dims", []))
    depth = shape(op.operands[n])[1]
    windows = [1 if d < inserted else updates[1 + d - inserted] for d in range(depth)]
    return [operand[d] - windows[d] for d in range(depth)]


def _adds(op) -> bool:
    """Whether the scatter's body adds the update to the operand (one operand)."""
    if len(op.operands) != 3:
        return False
    block = op.regions[0].blocks[0]
    body = [nested for nested in ir.ops(op) if nested != op]
    if [nested.name for nested in body] != ["stablehlo.add", "stablehlo.return"]:
        return False
    add, done = body
    (a, b), (x, y) = list(add.operands), list(block.arguments)
    return ((a == x and b == y) or (a == y and b == x)) and done.operands[0] == add.results[0]


def _fitting(indices, bounds: list[int]):
    """i1[count]: whether each index row lies within [0, bounds] entry by entry."""
    count, depth = shape(indices)
    kind = build.element(indices)
    signed = "UNSIGNED" if ir.IntegerType(kind).is_unsigned else "SIGNED"
    table = build.one("stablehlo.constant", build.tensor([depth], kind), value=f"dense<{bounds}> : tensor<{depth}x{kind}>")
    high = build.broadcast(table, [count, depth], [1])
    low = build.splat(0, build.tensor([count, depth], kind))
    both = build.one("stablehlo.and", build.tensor([count, depth], ir.IntegerType.get_signless(1)),
                     build.compare(indices, low, "GE", signed), build.compare(indices, high, "LE", signed))
    true = build.one("stablehlo.constant", build.tensor([], ir.IntegerType.get_signless(1)), value="dense<true> : tensor<i1>")
    return build.reduce(both, true, [1], "stablehlo.and")


def _where(keep, value, other):
    """select(keep broadcast along value's leading dimension, value, other)."""
    mask = build.broadcast(keep, shape(value), [0])
    return build.one("stablehlo.select", value.type, mask, value, other)


def _sets(op) -> bool:
    """Whether the scatter's body returns the update as it is (`x.at[i].set(v)`; one operand)."""
    block = op.regions[0].blocks[0]
    body = [nested for nested in ir.ops(op) if nested != op]
    return (len(op.operands) == 3 and len(body) == 1 and body[0].name == "stablehlo.return"
            and body[0].operands[0] == block.arguments[1])


def single_update(op) -> bool:
    """Whether a stablehlo.scatter writes one window into one operand: static shapes, integer indices,
    no batching dimensions, and every scatter dimension of its indices of size 1."""
    dims = dimension_numbers(op.attributes["scatter_dimension_numbers"])
    if len(op.operands) != 3 or dims.get("input_batching_dims"):
        return False
    operand, indices, update = op.operands
    if not all(ir.RankedTensorType(v.type).has_static_shape for v in op.operands) \
            or not isinstance(build.element(indices), ir.IntegerType):
        return False
    vector = dims["index_vector_dim"]
    scattered = [n for d, n in enumerate(shape(indices)) if d != vector]
    return math.prod(scattered) == 1 and bool(dims.get("scatter_dims_to_operand_dims"))


def _window(op) -> list[int]:
    """The operand-shaped window a single-update scatter writes: 1 along inserted dimensions, the update's
    window dimensions, in order, along the others."""
    dims = dimension_numbers(op.attributes["scatter_dimension_numbers"])
    sizes = iter(shape(op.operands[2])[d] for d in dims.get("update_window_dims", []))
    inserted = dims.get("inserted_window_dims", [])
    return [1 if d in inserted else next(sizes) for d in range(len(shape(op.operands[0])))]


def _window_combined(op, old, update, window: list[int]):
    """The scatter's body applied to the window `old` and the update: the update itself for a body that
    returns it, else the body (moved from the scatter) mapped over the two element by element."""
    update = reshape(update, window)
    if _sets(op):
        return update
    combined = ir.Operation.create("stablehlo.map", results=[old.type], operands=[old, update],
                                   attributes={"dimensions": build.i64_array(range(len(window)))}, regions=1)
    op.regions[0].blocks[0].append_to(combined.regions[0])
    return combined.results[0]


def slice_update(op):
    """A single-update scatter as a dynamic_update_slice: the window read at the index, combined with the
    update where the whole window fits in the operand, else left as it was (XLA drops such an update),
    and written back; its result."""
    dims = dimension_numbers(op.attributes["scatter_dimension_numbers"])
    operand, indices, update = op.operands
    sizes, window = shape(operand), _window(op)
    targets = dims.get("scatter_dims_to_operand_dims", [])
    flat = reshape(indices, [len(targets)])
    starts = [build.splat(0, build.tensor([], build.element(indices)))] * len(sizes)
    for k, d in enumerate(targets):
        starts[d] = reshape(build.strided_slice(flat, [k], [k + 1], [1]), [])
    fits = _fitting(reshape(flat, [1, len(targets)]), [sizes[d] - window[d] for d in targets])
    old = build.one("stablehlo.dynamic_slice", build.tensor(window, build.element(operand)), operand, *starts,
                    slice_sizes=build.i64_array(window))
    new = _window_combined(op, old, update, window)
    kept = build.one("stablehlo.select", old.type, reshape(fits, []), new, old)
    return build.one("stablehlo.dynamic_update_slice", operand.type, operand, kept, *starts)


@register_pass
class ScatterSliceUpdates(RewritePass):
    """Rewrites a scatter of one window into one operand as a slice update, in place and in any layout."""

    name = "oxla-scatter-slice-updates"
    roots = ("stablehlo.scatter",)

    def matches(self, op) -> bool:
        return single_update(op)

    def rewrite(self, op) -> None:
        """Replaces the scatter by its slice update (module docstring)."""
        build.replace(op, slice_update)


def _guarded(op):
    """The scatter with updates out of the operand kept inside it (module docstring), its results."""
    n = (len(op.operands) - 1) // 2
    bounds = window_bounds(op)
    indices = op.operands[n]
    kind = build.element(indices)
    keep = _fitting(indices, bounds)
    inputs, updates = list(op.operands[:n]), list(op.operands[n + 1:])
    if _adds(op) and math.prod(shape(updates[0])) < math.prod(shape(inputs[0])):
        indices = _where(keep, indices, build.splat(0, indices.type))
        updates = [_where(keep, u, build.splat(0, u.type)) for u in updates]
        return list(_scatter_like(op, inputs, indices, updates))
    rows = shape(op.operands[0])[0]
    spare = rows - bounds[0]  # the window's size along the first indexed dimension
    depth = len(bounds)
    trash = build.one("stablehlo.constant", build.tensor([depth], kind),
                      value=f"dense<{[rows] + [0] * (depth - 1)}> : tensor<{depth}x{kind}>")
    indices = _where(keep, indices, build.broadcast(trash, shape(indices), [1]))
    padding = [(0, spare)] + [(0, 0)] * (len(shape(op.operands[0])) - 1)
    padded = [build.pad(v, build.splat(0, build.tensor([], build.element(v))), padding) for v in inputs]
    return [build.slice_to(r, shape(v)) for r, v in zip(_scatter_like(op, padded, indices, updates), inputs)]


def _scatter_like(op, inputs: list, indices, updates: list):
    """A scatter with `op`'s attributes and body (moved from `op`) over new operands; its results."""
    attributes = build.attributes(op)
    if "unique_indices" in attributes:  # dropped updates may now share an index
        attributes["unique_indices"] = ir.BoolAttr.get(False)
    new = ir.Operation.create(op.name, results=[v.type for v in inputs], operands=[*inputs, indices, *updates],
                              attributes=attributes, regions=1)
    op.regions[0].blocks[0].append_to(new.regions[0])
    return new.results


@register_pass
class GuardScatterIndices(RewritePass):
    """Keeps scatter updates whose window falls outside the operand from being written (XLA drops them)."""

    name = "oxla-guard-scatter-indices"
    roots = ("stablehlo.scatter",)

    def matches(self, op) -> bool:
        return window_bounds(op) is not None

    def rewrite(self, op) -> None:
        """Replaces the scatter by its guarded form (module docstring)."""
        build.replace(op, _guarded)


# Longest part of a row oxla-llvmcpu-vector-scatter-rows reads as one vector (LLVM unrolls it into native
# ones); longer rows go by the longest such part that divides them.
MAX_SCATTER_BLOCK = 256
# Shortest such part it takes (narrower ones gain little over IREE's element-wise loop).
MIN_SCATTER_BLOCK = 8


def row_block(width: int) -> int:
    """The elements of a row the loop reads as one vector: the longest divisor of `width` up to
    MAX_SCATTER_BLOCK, or 0 where that is under MIN_SCATTER_BLOCK (and `width` is not shorter)."""
    block = max(d for d in range(1, min(width, MAX_SCATTER_BLOCK) + 1) if width % d == 0)
    return block if block >= min(width, MIN_SCATTER_BLOCK) else 0


_ROW_LOOP = """
func.func @rows(%indices: {indices_type}, %updates: {updates_type}, %original: {original_type}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %count = arith.constant {count} : index
  %last = arith.constant {last} : index
  %width = arith.constant {width} : index
  %block = arith.constant {block} : index
  %pad = arith.constant {zero} : {element}
  scf.forall (%workgroup) in (1) {{
    %rows = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %original) -> ({original_type}) {{
      %raw = tensor.extract %indices[{index_position}] : {indices_type}
      %index = "oxla.scatter_index"(%raw) : ({index_element}) -> {index_out}
      %wide = arith.index_cast %index : {index_out} to index
      %low = arith.maxsi %wide, %c0 : index
      %row = arith.minsi %low, %last : index
      %done = scf.for %j = %c0 to %width step %block iter_args(%part = %acc) -> ({original_type}) {{
        %update = vector.transfer_read %updates[%i, %j], %pad {{in_bounds = [true]}} : {updates_type}, {vector_type}
        %old = vector.transfer_read %part[%row, %j], %pad {{in_bounds = [true]}} : {original_type}, {vector_type}
        %new = "oxla.scatter_combine"(%update, %old) : ({vector_type}, {vector_type}) -> {vector_type}
        %written = vector.transfer_write %new, %part[%row, %j] {{in_bounds = [true]}} : {vector_type}, {original_type}
        scf.yield %written : {original_type}
      }}
      scf.yield %done : {original_type}
    }}
    "oxla.scatter_store"(%rows) : ({original_type}) -> ()
  }} {{mapping = [#iree_codegen.workgroup_mapping<x>]}}
  return
}}
"""


def _only_arith(block, arguments: int) -> bool:
    """Whether `block` computes from its first `arguments` arguments with arith ops alone (no constants or
    values from outside, whose vector forms would need broadcasts), ending in one yielded value."""
    inside = {block.arguments[i] for i in range(arguments)}
    ops = list(block.operations)
    for op in ops[:-1]:
        name = op.operation.name
        if not name.startswith("arith.") or name == "arith.constant" or len(op.results) != 1:
            return False
        if any(v not in inside for v in op.operands):
            return False
        inside.add(op.results[0])
    return len(ops[-1].operands) == 1


def _elementwise_index_source(value):
    """(the loaded tensor, the generic whose body maps each element of it to an index) for indices an
    elementwise linalg.generic computes from a dispatch.tensor.load alone, (the load, None) for loaded
    indices, None otherwise."""
    owner = value.owner
    if owner.name == "iree_tensor_ext.dispatch.tensor.load":
        return value, None
    if owner.name != "linalg.generic" or len(owner.operands) != 2 or len(owner.results) != 1:
        return None
    maps = ir.ArrayAttr(owner.attributes["indexing_maps"])
    if any(not ir.AffineMapAttr(m).value.is_permutation or str(m) != str(maps[0]) for m in maps):
        return None
    source = owner.operands[0]
    if source.owner.name != "iree_tensor_ext.dispatch.tensor.load" or len(list(value.uses)) != 1:
        return None
    block = owner.regions[0].blocks[0]
    body = list(block.operations)[:-1]
    if any(not o.operation.name.startswith("arith.") or block.arguments[1] in list(o.operands) for o in body):
        return None  # reads its init, or a loop index
    return source, owner


def scatter_rows(op):
    """(indices source, index generic or None, updates, original, store) of an iree_linalg_ext.scatter
    that adds (or combines with arith ops) rows with a `row_block` into a 2-D tensor
    loaded from and stored back to one binding; None for any other op."""
    if op.name != "iree_linalg_ext.scatter" or len(op.operands) != 3 or len(op.results) != 1:
        return None
    updates, indices, original = op.operands
    if str(op.attributes["dimension_map"]) != "array<i64: 0>":
        return None
    kinds = [ir.RankedTensorType(v.type) for v in (updates, indices, original)]
    if not all(k.has_static_shape for k in kinds):
        return None
    if len(kinds[0].shape) != 2 or len(kinds[2].shape) != 2:
        return None
    (count, row), (_, width) = kinds[0].shape, kinds[2].shape
    if width != row or not row_block(row) or list(kinds[1].shape) not in ([count], [count, 1]):
        return None
    if updates.owner.name != "iree_tensor_ext.dispatch.tensor.load":
        return None
    if original.owner.name != "iree_tensor_ext.dispatch.tensor.load":
        return None
    uses = list(op.results[0].uses)
    if len(uses) != 1 or uses[0].owner.name != "iree_tensor_ext.dispatch.tensor.store":
        return None
    store = uses[0].owner
    if store.operands[1] != original.owner.operands[0]:
        return None
    if not _only_arith(op.regions[0].blocks[0], 2):
        return None
    found = _elementwise_index_source(indices)
    if found is None:
        return None
    return found[0], found[1], updates, original, store


def _clone_into(ops, mapping: dict, vector_width: int | None = None) -> None:
    """Builds copies of `ops` at the insertion point, their operands through `mapping` (which gains their
    results); with `vector_width`, as ops on vectors of that width."""
    for op in ops:
        operands = [mapping.get(v, v) for v in op.operands]
        results = [r.type for r in op.results]
        if vector_width is not None:
            results = [ir.VectorType.get([vector_width], t) for t in results]
        attributes = build.attributes(op)
        copy = ir.Operation.create(op.operation.name, results=results, operands=operands, attributes=attributes)
        for old, new in zip(op.results, copy.results):
            mapping[old] = new


def _placed_loop(op, source, updates, original) -> dict:
    """Builds _ROW_LOOP for the scatter just before it, over its operands; its holes by name."""
    count, width = ir.RankedTensorType(updates.type).shape
    element = build.element(updates)
    text = _ROW_LOOP.format(
        indices_type=source.type, updates_type=updates.type, original_type=original.type, count=count,
        last=ir.RankedTensorType(original.type).shape[0] - 1, width=width, block=row_block(width),
        zero="0.0" if isinstance(element, ir.FloatType) else "0", element=element,
        index_position="%i, %c0" if len(ir.RankedTensorType(source.type).shape) == 2 else "%i",
        index_element=build.element(source), index_out=build.element(op.operands[1]),
        vector_type=ir.VectorType.get([row_block(width)], element))
    template = ir.parse(text, allow_unregistered_dialects=True)
    function = next(o for o in template.body.operations if o.operation.name == "func.func")
    entry = function.regions[0].blocks[0]
    placed = list(entry.operations)[:-1]  # all but the return
    for moved in placed:
        moved.move_before(op)
    for argument, value in zip(entry.arguments, (source, updates, original)):
        argument.replace_all_uses_with(value)
    return {o.name: o for o in ir.ops(placed[-1]) if o.name.startswith("oxla.scatter_")}


def _fill(hole, block, vector_width: int | None = None) -> None:
    """Replaces a hole by `block`'s computation (none: its first operand) over the hole's operands."""
    if block is None:
        value = hole.operands[0]
    else:
        body = list(block.operations)
        mapping = dict(zip(block.arguments, hole.operands))
        with ir.InsertionPoint(hole), hole.location:
            _clone_into(body[:-1], mapping, vector_width)
        value = mapping.get(body[-1].operands[0], body[-1].operands[0])
    hole.results[0].replace_all_uses_with(value)
    hole.erase()


def _row_loop(op, source, generic, updates, original, store) -> None:
    """Replaces the scatter by a loop over its update rows, each read and combined as vectors."""
    holes = _placed_loop(op, source, updates, original)
    _fill(holes["oxla.scatter_index"], generic.regions[0].blocks[0] if generic is not None else None)
    width = ir.RankedTensorType(updates.type).shape[1]
    _fill(holes["oxla.scatter_combine"], op.regions[0].blocks[0], row_block(width))
    hole = holes["oxla.scatter_store"]
    store.move_before(hole)
    store.operands[0] = hole.operands[0]
    hole.erase()
    op.erase()
    if generic is not None:
        generic.erase()


@register_pass
class VectorScatterRows(Pass):
    """Runs row scatters (a scatter-add of rows, a segment sum) as a loop that reads each row as vectors."""

    name = "oxla-llvmcpu-vector-scatter-rows"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Rewrites each such scatter of the dispatches (module docstring)."""
        for op in [o for o in ir.ops(module) if o.name == "iree_linalg_ext.scatter"]:
            found = scatter_rows(op)
            if found is not None:
                _row_loop(op, *found)
