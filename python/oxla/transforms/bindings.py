"""oxla-binding-alignment: let a CPU module read host arrays where numpy put them.

IREE compiles every dispatch on the assumption that its buffer bindings start
on a 64-byte boundary (`stream.alignment = 64` on each `!stream.binding`, from
the stream dialect's default resource configuration), so a host array may be
handed to it in place only when its data is so aligned. numpy's arrays start
on 16-byte boundaries (the C allocator's), so oxla.runtime had to copy nearly
every argument: 0.7 ms of the f32[4096,1024] row sum's 0.9 ms. This pass,
run after IREE's `stream` phase, lowers every dispatch binding's assumed
alignment to `alignment` bytes and records that in each public function's
reflection as `oxla.binding_alignment`, where oxla.runtime reads it to decide
what it may read in place. Modules without that record keep the 64-byte rule.

Buffers IREE allocates itself are still placed on 64-byte boundaries; only the
code's assumption changes. On CPUs, vector loads from unaligned addresses are
correct and cost at most a split cache line; resident run times over the
benchmark zoo moved by 2% or less (docs/performance.md).

oxla-argument-writes: say which arguments a function may overwrite.

IREE lets a dispatch write its result into an argument's buffer when the
program does not read the argument afterwards: a sort, a scatter or a
dynamic_update_slice then works in place on the caller's data (IREE issue
16168). Where the runtime hands a host array to the module in place, that
would change the caller's array. This pass, also run after `stream`, follows
each imported argument through the commands that use it and records in each
public function's reflection, as `oxla.written_arguments`, the indices of
arguments some command may write (comma-separated; empty when none).
oxla.runtime copies those arguments, and every argument of a function
without the record.
"""

from __future__ import annotations

import dataclasses

from oxla import ir
from oxla.transforms.registry import Pass, register_pass

# The reflection entry oxla.runtime reads (oxla.runtime.arrays.ALIGNMENT_KEY; the runtime must not
# import the compiler, nor the compiler the runtime).
ALIGNMENT_KEY = "oxla.binding_alignment"
# The reflection entry listing the arguments a function may write (oxla.runtime.arrays.WRITTEN_KEY).
WRITTEN_KEY = "oxla.written_arguments"
_FUNCTIONS = ("util.func", "func.func")


def _public_functions(module) -> list:
    """The module's public top-level functions."""
    found = []
    for op in ir.body_ops(module):
        visibility = op.attributes["sym_visibility"] if "sym_visibility" in op.attributes else None
        if op.name in _FUNCTIONS and (visibility is None or str(visibility) == '"public"'):
            found.append(op)
    return found


def _dispatch_functions(module) -> list:
    """The functions of the module's `stream.executable`s: one per dispatch, bindings as arguments."""
    found = []

    def visit(op):
        outer = op.parent.parent if op.parent is not None else None
        if op.name == "func.func" and outer is not None and outer.name == "stream.executable":
            found.append(op)

    ir.walk(module, visit)
    return found


def _entries(dictionary) -> dict:
    """A DictAttr's entries as a Python dict of name -> attribute."""
    named = ir.DictAttr(dictionary)
    return {named[i].name: named[i].attr for i in range(len(named))}


def _with_entry(reflection, key: str, value: str):
    """A copy of the `iree.reflection` dictionary `reflection` (or a new one) with key = value."""
    entries = _entries(reflection) if reflection is not None else {}
    entries[key] = ir.StringAttr.get(value, context=ir.context())
    return ir.DictAttr.get(entries, context=ir.context())


def _lower_binding_alignments(func, alignment: int) -> None:
    """Sets `stream.alignment` of each `!stream.binding` argument of `func` above `alignment` to it."""
    arg_attrs = func.attributes["arg_attrs"] if "arg_attrs" in func.attributes else None
    if arg_attrs is None:
        return
    context = ir.context()
    index = ir.IndexType.get(context=context)
    lowered = []
    for attrs in ir.ArrayAttr(arg_attrs):
        entries = _entries(attrs)
        current = entries.get("stream.alignment")
        if current is not None and ir.IntegerAttr(current).value > alignment:
            entries["stream.alignment"] = ir.IntegerAttr.get(index, alignment)
        lowered.append(ir.DictAttr.get(entries, context=context))
    func.attributes["arg_attrs"] = ir.ArrayAttr.get(lowered, context=context)


@register_pass
class BindingAlignment(Pass):
    """Lets CPU dispatches take buffers aligned to `alignment` bytes (not 64), and records that for oxla.runtime."""

    name = "oxla-binding-alignment"
    anchor = "builtin.module"
    alignment: int = dataclasses.field(default=16, metadata={
        "help": "the byte boundary buffers may start on (a power of two; 16: what numpy's arrays get)"})

    def run(self, module) -> None:
        """Lowers the dispatches' binding alignments and adds the reflection entry to public functions."""
        if self.alignment < 1 or self.alignment & (self.alignment - 1):
            raise ValueError(f"{self.name}: alignment must be a power of two, got {self.alignment}")
        for func in _dispatch_functions(module):
            _lower_binding_alignments(func, self.alignment)
        for func in _public_functions(module):
            old = func.attributes["iree.reflection"] if "iree.reflection" in func.attributes else None
            func.attributes["iree.reflection"] = _with_entry(old, ALIGNMENT_KEY, str(self.alignment))


# Bits of a `stream.cmd.dispatch` resource access (IREE's ResourceAccessBitfield).
_WRITE = 2
# Ops that read a buffer view argument's metadata only.
_VIEW_QUERIES = frozenset({"hal.buffer_view.assert", "hal.buffer_view.dim", "hal.buffer_view.rank",
                           "hal.buffer_view.element_type", "hal.buffer_view.encoding_type"})
# Ops that use a resource without writing it or passing it on.
_INERT_USES = frozenset({"stream.tensor.export", "stream.resource.size", "stream.cmd.flush",
                         "stream.cmd.invalidate"})


def _segments(op) -> list[int]:
    """The op's operand segment sizes."""
    return list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))


def _writes_captured(block_argument) -> bool:
    """Whether a command of a `stream.cmd.execute` region may write the captured resource."""
    for use in block_argument.uses:
        op, index = use.owner, use.operand_number
        if op.name == "stream.cmd.dispatch":
            sizes = _segments(op)
            first = sizes[0] + sizes[1]  # resources come after the workload and the uniform operands
            accesses = [ir.IntegerAttr(a).value for a in ir.ArrayAttr(op.attributes["resource_accesses"])]
            if not first <= index < first + sizes[2] or accesses[index - first] & _WRITE:
                return True
        elif op.name == "stream.cmd.copy" and index == 0:  # the copy's source
            continue
        elif op.name not in _INERT_USES:
            return True
    return False


def _aliases(op, index: int) -> list:
    """Results of `op` that are its operand `index`'s resource under another name (none when it is not
    passed on)."""
    if op.name == "stream.timepoint.await" and index < len(op.results):
        return [op.results[index]]
    if op.name in ("stream.resource.subview", "stream.timepoint.barrier") and index == 0:
        return [op.results[0]]
    return []


def _may_write(resource) -> bool:
    """Whether the function may write the imported `resource`: a command that writes it, or any use this
    analysis does not know (assumed to write)."""
    pending = [resource]
    while pending:
        value = pending.pop()
        for use in value.uses:
            op, index = use.owner, use.operand_number
            if op.name == "stream.cmd.execute":
                if index >= _segments(op)[0]:
                    continue  # a size or the awaited timepoint
                if _writes_captured(op.regions[0].blocks[0].arguments[index]):
                    return True
            elif op.name in _INERT_USES:
                continue
            else:
                passed_on = _aliases(op, index)
                if not passed_on:
                    return True
                pending.extend(passed_on)
    return False


def written_arguments(func) -> list[int]:
    """Indices of a public function's arguments whose buffers its commands may write (after `stream`)."""
    arguments = func.regions[0].blocks[0].arguments
    written = set()
    for argument in arguments:
        for use in argument.uses:
            op = use.owner
            if op.name == "stream.tensor.import" and _may_write(op.results[0]):
                written.add(argument.arg_number)
            elif op.name != "stream.tensor.import" and op.name not in _VIEW_QUERIES:
                written.add(argument.arg_number)  # a use the analysis does not follow
    return sorted(written)


@register_pass
class ArgumentWrites(Pass):
    """Records in each public function's reflection which arguments its commands may write (after `stream`)."""

    name = "oxla-argument-writes"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Adds the `oxla.written_arguments` entry to each public function."""
        for func in _public_functions(module):
            if not func.regions or not func.regions[0].blocks:
                continue  # a declaration: nothing to record
            old = func.attributes["iree.reflection"] if "iree.reflection" in func.attributes else None
            text = ",".join(str(i) for i in written_arguments(func))
            func.attributes["iree.reflection"] = _with_entry(old, WRITTEN_KEY, text)
