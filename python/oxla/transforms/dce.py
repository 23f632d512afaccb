"""oxla-dce: remove pure ops whose results nobody uses, and private functions nobody calls."""

from __future__ import annotations

from oxla import ir
from oxla.transforms.registry import Pass, register_pass

# Dialects whose ops are free of side effects, except the ones listed.
# Ops of any other dialect are kept: without an effects query in the
# bindings, only what is known to be pure may go.
PURE_DIALECTS: dict[str, frozenset[str]] = {
    "stablehlo": frozenset({
        "stablehlo.custom_call", "stablehlo.send", "stablehlo.recv", "stablehlo.infeed",
        "stablehlo.outfeed", "stablehlo.after_all", "stablehlo.all_reduce", "stablehlo.all_gather",
        "stablehlo.all_to_all", "stablehlo.reduce_scatter", "stablehlo.collective_permute",
        "stablehlo.collective_broadcast", "stablehlo.partition_id", "stablehlo.replica_id",
        "stablehlo.rng", "stablehlo.optimization_barrier", "stablehlo.composite",
        "stablehlo.return",
    }),
    "chlo": frozenset(),
    "arith": frozenset(),
    "math": frozenset(),
    "tensor": frozenset(),
}
# Terminators inside region bodies do not make the enclosing op impure.
_TERMINATORS = frozenset({"stablehlo.return", "func.return"})


def is_pure(op) -> bool:
    """True when erasing `op` (results unused) cannot change what the program does.

    An op with regions (reduce, sort, while, ...) is pure only when every op
    in its bodies is, so a side-effecting custom_call in a reducer keeps it.
    """
    dialect = op.name.split(".", 1)[0]
    exceptions = PURE_DIALECTS.get(dialect)
    if exceptions is None or op.name in exceptions or _is_call_like(op):
        return False
    return all(
        child.operation.name in _TERMINATORS or is_pure(child.operation)
        for region in op.regions for block in region.blocks for child in block.operations
    )


def _is_call_like(op) -> bool:
    """Ops that refer to functions may run effects there: never erased here."""
    return "callee" in op.attributes or "called_computations" in op.attributes


def _unused(op) -> bool:
    return len(op.results) > 0 and all(not list(r.uses) for r in op.results)


def erase_dead_ops(block) -> int:
    """Erases dead pure ops of `block` and its nested regions, last to first; returns how many."""
    erased = 0
    for child in reversed(list(block.operations)):
        op = child.operation
        if _unused(op) and is_pure(op):
            op.erase()
            erased += 1
            continue
        for region in op.regions:
            for inner in region.blocks:
                erased += erase_dead_ops(inner)
    return erased


def referenced_symbols(op) -> set[str]:
    """Names of every symbol referenced from an attribute anywhere under `op`."""
    names: set[str] = set()

    def collect(attr) -> None:
        if isinstance(attr, ir.FlatSymbolRefAttr):
            names.add(attr.value)
        elif isinstance(attr, ir.SymbolRefAttr):
            names.add(str(attr).split("::")[0].lstrip("@").strip('"'))
        elif isinstance(attr, ir.ArrayAttr):
            for item in attr:
                collect(item)
        elif isinstance(attr, ir.DictAttr):
            for named in attr:
                collect(named.attr)

    def visit(child):
        attrs = child.attributes
        for i in range(len(attrs)):
            named = attrs[i]
            if named.name != "sym_name":
                collect(named.attr)

    ir.walk(op, visit)
    return names


def erase_unused_private_functions(module_op) -> int:
    """Erases private functions of the module that no symbol reference reaches."""
    erased = 0
    while True:
        used = referenced_symbols(module_op)
        dead = [
            child.operation for region in module_op.regions for block in region.blocks
            for child in block.operations
            if child.operation.name == "func.func"
            and _visibility(child.operation) == "private"
            and _sym_name(child.operation) not in used
        ]
        if not dead:
            return erased
        for op in dead:
            op.erase()
        erased += len(dead)


def _sym_name(op) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def _visibility(op) -> str:
    attrs = op.attributes
    return ir.StringAttr(attrs["sym_visibility"]).value if "sym_visibility" in attrs else "public"


@register_pass
class DeadCodeElimination(Pass):
    """Removes unused side-effect-free ops and unreferenced private functions."""

    name = "oxla-dce"
    anchor = "builtin.module"
    functions: bool = True

    def run(self, op) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    for inner_region in child.operation.regions:
                        for inner in inner_region.blocks:
                            erase_dead_ops(inner)
        if self.functions:
            erase_unused_private_functions(op)
