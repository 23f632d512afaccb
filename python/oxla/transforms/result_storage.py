"""oxla-result-storage-entries: let a CPU module write large results straight into the caller's arrays.

oxla.runtime hands back each result as a numpy array that owns its memory,
so a function's results were copied out of the buffers IREE allocated for
them: 3.2 ms of the elementwise chain's call for its 16 MB result. This
pass, run on StableHLO before IREE's input phase, adds beside each public
function whose results are all static tensors of at least `min-bytes` in
all a public entry `__oxla_into.<name>`: the same arguments, then one more
per result, marked `iree.abi.output = <i>`, which IREE takes as the storage
of result i, so the dispatch that computes it writes there. oxla.runtime
calls that entry on CPU devices with fresh aligned arrays and returns them.

The entry only calls the function, so IREE's deduplication keeps one copy
of each dispatch; only the host-side schedule is compiled twice. The
runtime ignores an entry whose declaration does not match the function's.
"""

from __future__ import annotations

import dataclasses
import math

from oxla import ir
from oxla.transforms.registry import Pass, register_pass

# The prefix of the entries' names (oxla.runtime.module reads the same text: the runtime must not import
# the compiler, nor the compiler the runtime).
ENTRY_PREFIX = "__oxla_into."
# Results smaller than this in all are copied out: a copy of 1 MiB takes tens of microseconds, and each
# entry adds host code to compile.
MIN_RESULT_BYTES = 1 << 20
_KEPT_RESULT_ATTRS = ("iree.abi.encoding",)  # what a result's storage argument repeats (its logical type)


def _result_bytes(function_type) -> int | None:
    """The bytes of all of a function type's results, or None unless each is a static tensor of numbers."""
    total = 0
    for result in function_type.results:
        try:
            shaped = ir.RankedTensorType(result)
        except ValueError:
            return None
        element = shaped.element_type
        scale = 2 if isinstance(element, ir.ComplexType) else 1
        inner = ir.ComplexType(element).element_type if scale == 2 else element
        width = getattr(inner, "width", None)
        if not shaped.has_static_shape or not width:
            return None
        total += math.prod(shaped.shape) * scale * -(-width // 8)
    return total


def _attr_list(func, name: str, count: int) -> list[dict[str, str]]:
    """A function's argument or result attributes (`arg_attrs`, `res_attrs`) as text, one dict per value."""
    if name not in func.attributes:
        return [{} for _ in range(count)]
    dicts = [ir.DictAttr(a) for a in ir.ArrayAttr(func.attributes[name])]
    return [{d[i].name: str(d[i].attr) for i in range(len(d))} for d in dicts]


def _dictionary(entries: dict[str, str]) -> str:
    """` {a = x, b = y}`, or nothing for no entries."""
    return " {" + ", ".join(f"{k} = {v}" for k, v in entries.items()) + "}" if entries else ""


def entry_text(func) -> str:
    """The `__oxla_into.<name>` entry of a public func.func, as MLIR text (after a declaration of the
    function, for ir.append_definitions)."""
    name = ir.StringAttr(func.attributes["sym_name"]).value
    ftype = _function_type(func)
    inputs, results = [str(t) for t in ftype.inputs], [str(t) for t in ftype.results]
    arg_attrs = _attr_list(func, "arg_attrs", len(inputs))
    res_attrs = _attr_list(func, "res_attrs", len(results))
    params = [f"%a{i}: {t}{_dictionary(a)}" for i, (t, a) in enumerate(zip(inputs, arg_attrs))]
    for i, (t, a) in enumerate(zip(results, res_attrs)):
        kept = {k: v for k, v in a.items() if k in _KEPT_RESULT_ATTRS}
        params.append(f"%r{i}: {t}{_dictionary({'iree.abi.output': f'{i} : index', **kept})}")
    returns = ", ".join(f"{t}{_dictionary(a)}" for t, a in zip(results, res_attrs))
    values = ", ".join(f"%out#{i}" for i in range(len(results)))
    signature = f"({', '.join(inputs)}) -> ({', '.join(results)})"
    return "\n".join([
        f"func.func private @{_symbol(name)}{signature}",  # lets the entry verify before it joins the module
        f"func.func @{_symbol(ENTRY_PREFIX + name)}({', '.join(params)}) -> ({returns}) {{",
        f"  %out:{len(results)} = func.call @{_symbol(name)}({', '.join(f'%a{i}' for i in range(len(inputs)))})"
        f" : {signature}",
        f"  return {values} : {', '.join(results)}",
        "}",
    ])


def _function_type(func) -> ir.FunctionType:
    """A func.func's type."""
    return ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)


def _symbol(name: str) -> str:
    """A symbol name as MLIR text, quoted."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_public(func) -> bool:
    """Whether a func.func is a public definition (an external declaration has no body)."""
    attrs = func.attributes
    visibility = ir.StringAttr(attrs["sym_visibility"]).value if "sym_visibility" in attrs else "public"
    return visibility == "public" and len(func.regions[0].blocks) > 0


@register_pass
class ResultStorageEntries(Pass):
    """Adds to each public function with large static results an entry that writes them into caller storage."""

    name = "oxla-result-storage-entries"
    anchor = "builtin.module"
    min_bytes: int = dataclasses.field(default=MIN_RESULT_BYTES, metadata={
        "help": "functions whose results are smaller in all keep copying them out"})

    def run(self, module) -> None:
        """Appends the entry of each public func.func that has none and whose results qualify."""
        functions = [op for op in ir.body_ops(module) if op.name == "func.func"]
        names = {ir.StringAttr(op.attributes["sym_name"]).value for op in functions}
        texts = []
        for func in functions:
            name = ir.StringAttr(func.attributes["sym_name"]).value
            if not _is_public(func) or name.startswith(ENTRY_PREFIX) or ENTRY_PREFIX + name in names:
                continue
            size = _result_bytes(_function_type(func))
            if size is not None and size >= max(self.min_bytes, 1):
                texts.append(entry_text(func))
        if texts:
            ir.append_definitions(module, "\n".join(texts))
