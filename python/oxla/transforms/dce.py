"""oxla-dce: remove pure ops whose results nobody uses, unused results of multi-result ops, and private
functions nobody calls.

Results are dropped from a pure multi-result op only where the other results
cannot tell: a variadic `reduce` or `reduce_window` loses input i (with its
init value and result) when result i is unused and no kept result's body
computation reads the body arguments of input i; `sort` loses operand i when
its result is unused and the comparator does not read its two arguments;
`while` loses carried value i when its result is unused, the condition does
not read it and no kept carried value is computed from it; `if` and `case`
lose unused results. The op is rebuilt with the kept operands, its body ops
that the kept results need moved into the new op. `optimization_barrier`
keeps all its results: it is a barrier.
"""

from __future__ import annotations

import dataclasses

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


def erase_dead_ops(block, *, results: bool = True) -> int:
    """Erases dead pure ops of `block` and its nested regions, last to first; returns how many ops were
    erased or rebuilt without unused results (`results=False`: only whole ops go)."""
    erased = 0
    for child in reversed(list(block.operations)):
        op = child.operation
        if _unused(op) and is_pure(op):
            op.erase()
            erased += 1
            continue
        if results and len(op.results) > 1:
            smaller = drop_unused_results(op)
            if smaller is not None:
                op = smaller
                erased += 1
        for region in op.regions:
            for inner in region.blocks:
                erased += erase_dead_ops(inner, results=results)
    return erased


# Unused results of multi-result ops ---------------------------------------------------------------------------------

def drop_unused_results(op):
    """Rebuilds a pure reduce, reduce_window, sort, while, if or case without the results it can lose exactly.

    Returns the new op (the old one is erased), or None when nothing can go.
    """
    plan = _PLANS.get(op.name)
    if plan is None or all(_used(r) for r in op.results):
        return None
    if not is_pure(op) or any(len(region.blocks) != 1 for region in op.regions):
        return None
    keep = plan(op)
    if keep is None or len(keep) == len(op.results) or not keep:
        return None
    if attributes_of(op) is None or any(attributes_of(list(_body(op, r).operations)[-1]) is None
                                       for r in range(len(op.regions))):
        return None
    return _rebuild(op, keep)


def _used(value) -> bool:
    return any(True for _ in value.uses)


def live_slice(block, roots) -> tuple[set, set[int]]:
    """The ops of `block` that `roots` (values) depend on, and the indices of the block arguments they read.

    An op with regions depends on every value its regions use from above.
    """
    position = {}
    ops = [child.operation for child in block.operations]
    for index, child in enumerate(ops):
        for result in child.results:
            position[result] = index
    arg_index = {arg: i for i, arg in enumerate(block.arguments)}
    live: set[int] = set()
    args: set[int] = set()
    work = list(roots)
    while work:
        value = work.pop()
        if value in arg_index:
            args.add(arg_index[value])
            continue
        index = position.get(value)
        if index is None or index in live:
            continue  # defined above the block, or already seen
        live.add(index)
        work.extend(_reads(ops[index]))
    return live, args


def _reads(op) -> list:
    """The op's operands and the values its regions use from above."""
    values = list(op.operands)
    if len(op.regions):
        inside: set = set()

        def visit(child):
            for region in child.regions:
                for block in region.blocks:
                    inside.update(block.arguments)
            values.extend(v for v in child.operands if v not in inside)
            inside.update(child.results)

        ir.walk(op, visit)
    return values


def _body(op, index: int = 0):
    return op.regions[index].blocks[0]


def _returned(block) -> list:
    ops = list(block.operations)
    return list(ops[-1].operands) if ops else []


def _closure(used: set[int], depends) -> list[int]:
    """The smallest set holding `used` and closed under `depends(i)` (indices that result i needs)."""
    keep, work = set(used), list(used)
    while work:
        for j in depends(work.pop()):
            if j not in keep:
                keep.add(j)
                work.append(j)
    return sorted(keep)


def _plan_reduce(op) -> list[int] | None:
    """reduce/reduce_window: result i needs the inputs whose body arguments (i, n+i) its computation reads."""
    n = len(op.results)
    body = _body(op)
    if len(list(op.operands)) != 2 * n or len(list(body.arguments)) != 2 * n:
        return None
    returned = _returned(body)
    used = {i for i, r in enumerate(op.results) if _used(r)}
    return _closure(used, lambda i: {a % n for a in live_slice(body, [returned[i]])[1]})


def _plan_sort(op) -> list[int] | None:
    """sort: every result needs the operands whose two comparator arguments (2i, 2i+1) the comparator reads."""
    n = len(op.results)
    comparator = _body(op)
    if len(list(op.operands)) != n or len(list(comparator.arguments)) != 2 * n:
        return None
    read = {a // 2 for a in live_slice(comparator, _returned(comparator))[1]}
    return sorted(read | {i for i, r in enumerate(op.results) if _used(r)})


def _plan_while(op) -> list[int] | None:
    """while: the carried values used after the loop or by the condition, and those the kept ones are made from."""
    n = len(op.results)
    cond, body = _body(op, 0), _body(op, 1)
    if len(list(op.operands)) != n or len(list(cond.arguments)) != n or len(list(body.arguments)) != n:
        return None
    returned = _returned(body)
    used = {i for i, r in enumerate(op.results) if _used(r)} | live_slice(cond, _returned(cond))[1]
    return _closure(used, lambda i: live_slice(body, [returned[i]])[1])


def _plan_branches(op) -> list[int] | None:
    """if/case: each result comes from its own return operand of every branch."""
    if any(len(list(_body(op, r).arguments)) for r in range(len(op.regions))):
        return None
    return [i for i, r in enumerate(op.results) if _used(r)]


_PLANS = {
    "stablehlo.reduce": _plan_reduce,
    "stablehlo.reduce_window": _plan_reduce,
    "stablehlo.sort": _plan_sort,
    "stablehlo.while": _plan_while,
    "stablehlo.if": _plan_branches,
    "stablehlo.case": _plan_branches,
}


def _kept_positions(op, keep: list[int]) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """For the kept results: which operands stay, and per region which block arguments and returns stay."""
    n = len(op.results)
    name = op.name
    if name in ("stablehlo.reduce", "stablehlo.reduce_window"):
        both = keep + [n + i for i in keep]
        return both, [both], [keep]
    if name == "stablehlo.sort":
        return keep, [[a for i in keep for a in (2 * i, 2 * i + 1)]], [[0]]
    if name == "stablehlo.while":
        return keep, [keep, keep], [[0], keep]
    branches = len(op.regions)  # if, case: the predicate or index stays
    return [0], [[] for _ in range(branches)], [keep for _ in range(branches)]


def _readable_attributes(op, skip=()) -> dict:
    """The op's attributes by name, leaving out those the bindings cannot hand to Python (complex dense
    elements: reading them through a NamedAttribute aborts the process; by name it raises TypeError)."""
    attrs = op.attributes
    found = {}
    for name in [attrs[i].name for i in range(len(attrs))]:
        if name in skip:
            continue
        try:
            found[name] = attrs[name]
        except TypeError:
            continue
    return found


def attributes_of(op) -> dict | None:
    """All the op's attributes by name, or None when one cannot be read."""
    found = _readable_attributes(op)
    return found if len(found) == len(op.attributes) else None


def _rebuild(op, keep: list[int]):
    """A copy of `op` with only the `keep` results, built before it; the old op's users move over; it is erased."""
    operand_keep, arg_keep, return_keep = _kept_positions(op, keep)
    operands = list(op.operands)
    new = ir.Operation.create(
        op.name, results=[op.results[i].type for i in keep], operands=[operands[i] for i in operand_keep],
        attributes=attributes_of(op), regions=len(op.regions), loc=op.location, ip=ir.InsertionPoint(op))
    for r in range(len(op.regions)):
        _move_body(op.regions[r].blocks[0], new.regions[r], arg_keep[r], return_keep[r])
    for k, i in enumerate(keep):
        op.results[i].replace_all_uses_with(new.results[k])
    # No Python object may refer to an op inside `op` once it is erased (the bindings would
    # touch freed memory when collecting it): the helper above kept them all to itself.
    op.erase()
    return new


def _move_body(old_block, region, arg_keep: list[int], return_keep: list[int]) -> None:
    """Gives `region` a block with the kept arguments, the ops of `old_block` the kept returns need, and a
    terminator returning them."""
    old_args = list(old_block.arguments)
    new_block = region.blocks.append(*[old_args[i].type for i in arg_keep],
                                     arg_locs=[old_args[i].location for i in arg_keep])
    returned = _returned(old_block)
    roots = [returned[i] for i in return_keep]
    live, _ = live_slice(old_block, roots)
    children = [c.operation for c in old_block.operations]
    terminator = children[-1]
    new_terminator = ir.Operation.create(
        terminator.name, operands=roots, attributes=attributes_of(terminator),
        loc=terminator.location, ip=ir.InsertionPoint(new_block))
    # After the new terminator exists, so that a block argument it returns as is moves over too.
    for k, i in enumerate(arg_keep):
        old_args[i].replace_all_uses_with(new_block.arguments[k])
    for index in sorted(live):
        children[index].move_before(new_terminator)


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
        for attr in _readable_attributes(child, skip=("sym_name",)).values():
            collect(attr)

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
    """Removes unused side-effect-free ops, unused results of multi-result ops and unreferenced private functions."""

    name = "oxla-dce"
    anchor = "builtin.module"
    functions: bool = True
    results: bool = dataclasses.field(default=True, metadata={
        "help": "also drop unused results of reduce, reduce_window, sort, while, if and case"})

    def run(self, op) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    for inner_region in child.operation.regions:
                        for inner in inner_region.blocks:
                            erase_dead_ops(inner, results=self.results)
        if self.functions:
            erase_unused_private_functions(op)
