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
"""

from __future__ import annotations

import dataclasses

from oxla import ir
from oxla.transforms.registry import Pass, register_pass

# The reflection entry oxla.runtime reads (oxla.runtime.arrays.ALIGNMENT_KEY; the runtime must not
# import the compiler, nor the compiler the runtime).
ALIGNMENT_KEY = "oxla.binding_alignment"
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
