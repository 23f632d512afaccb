"""oxla-unread-carried-values: while loops whose body reads every value they carry, as IREE needs.

IREE 3.13 crashes on a stablehlo.while whose body does not read a value
it carries (its condition may). Its global loop-invariant code motion
turns the while into a do-while behind an scf.if, whose first region runs
the body and then the condition on the body's results; canonicalization
drops the value the body does not read from that region's inputs (the
condition still hands it on), and the stream conversion of the scf.while
then builds an op that fails to verify, or crashes iree-compile outright
(SIGSEGV, with oxla's flags). `lax.while_loop` over a tolerance the body
recomputes from other values is such a loop, and so are loops that
oxla-unroll-loops has unrolled from a `fori_loop` that writes into a
closed-over array; counted loops that IREE turns into scf.for escape it.

This pass gives IREE loops whose body reads every carried value:
- A value that neither the condition nor the body reads
  (`lax.fori_loop(0, n, lambda i, a: x.at[i].set(0), x)`, which hands x,
  not a, to each trip) is what the last trip made, or its start when no
  trip runs. The loop stops carrying it, and a copy of the body ops that
  make it runs once after the loop, on the values they read at the start
  of the last trip. That start must be known before the loop: the ops may
  read values the loop hands back unchanged (their start) and a counted
  loop's counter (its start plus the trips less one); whether a trip ran
  is then the trip count, or the condition on the loop's inputs. The ops
  must be free of side effects (calls included) and, where the condition
  runs once more, so must it. A trip no longer computes what only the last
  trip's result needs.
- Any other such value (the condition reads it, or its last start is not
  known) is read by the body: it hands back select(c, what it made, the
  value carried in), c the condition recomputed on the trip's inputs,
  true on every trip but not to IREE's eyes. Where the condition has side
  effects the two pass through a stablehlo.optimization_barrier instead
  (barriers were tried first for every such value: IREE's Vulkan runtime
  failed on the Jacobi loops' previous norm, a constant at the start,
  "queue_dealloca buffer was not returned by queue_alloca", and the
  random_gamma conformance program failed now and then on local-task,
  "transient buffer has not been committed").

oxla.compile runs this pass before the legalizations that build loops of
their own, which compile and run as built: read in the body, the previous
norm that the complex Jacobi loops of eigh and svd test against the new
one came out as NaN eigenvalues on llvm-cpu (with oxla-host-loop-inits
and oxla-host-scalar-dispatches after `flow`), although the same shape of
loop in a program (a previous norm whose result is used) crashed IREE
unless read.
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.dce import attributes_of, erase_dead_ops, is_pure, live_slice
from oxla.transforms.loop_analysis import counter, terminator
from oxla.transforms.registry import Pass, register_pass


def _pure(op, functions: dict, calling: tuple = ()) -> bool:
    """Whether running `op` once instead of every trip changes nothing: free of side effects, the
    functions it calls included."""
    if op.name != "func.call":
        return is_pure(op)
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    function = functions.get(callee)
    if function is None or callee in calling:
        return False
    return all(inner.name == "func.return" or _pure(inner, functions, calling + (callee,))
               for inner in ir.body_ops(function))


def _block_ops(block) -> list:
    """The ops of a block, as Operations."""
    return [child.operation for child in block.operations]


def _unread(loop) -> list[int]:
    """The carried values the body does not read."""
    body = loop.regions[1].blocks[0]
    return [k for k in range(len(loop.results)) if not list(body.arguments[k].uses)]


def _last_starts(loop, counted) -> dict:
    """The carried values whose start on the loop's last trip is known before the loop: those each trip hands
    back unchanged (their start) and a counted loop's counter (its start plus trips less one, an int)."""
    body = loop.regions[1].blocks[0]
    returned = list(terminator(body).operands)
    known = {a: loop.operands[a] for a, argument in enumerate(body.arguments) if returned[a] == argument}
    if counted is not None and counted[2] > 0:
        index, start, trips = counted
        known[index] = start + trips - 1
    return known


def _plan(loop, body_unread: list[int], counted, functions: dict):
    """(the values the loop may stop carrying, the body ops that make the used ones, the starts those ops
    read, the values the body must read)."""
    cond = loop.regions[0].blocks[0]
    body = loop.regions[1].blocks[0]
    returned = list(terminator(body).operands)
    tested = [k for k in body_unread if list(cond.arguments[k].uses)]
    unread = [k for k in body_unread if k not in tested]
    if counted is not None and counted[2] == 0:
        return unread, [], {}, tested  # no trip runs: each value is its start
    ops = _block_ops(body)
    starts = _last_starts(loop, counted)
    condition_pure = counted is not None or all(_pure(op, functions) for op in _block_ops(cond)[:-1])
    dropped, kept, live, read = [], list(tested), set(), set()
    for k in unread:
        used = bool(list(loop.results[k].uses))
        made_by, reads = live_slice(body, [returned[k]] if used else [])
        if used and not condition_pure:  # the condition would run once more, on the loop's inputs
            kept.append(k)
        elif reads <= starts.keys() and all(_pure(ops[i], functions) for i in made_by):
            dropped.append(k)
            live |= made_by
            read |= reads
        else:
            kept.append(k)
    return dropped, [ops[i] for i in sorted(live)], {a: starts[a] for a in read}, kept


def _without(loop, unread: list[int]):
    """A copy of `loop`, built before it, that does not carry the `unread` values; the old regions' ops move
    over and the kept results' users move to it. The old loop is left empty."""
    keep = [i for i in range(len(loop.results)) if i not in unread]
    operands = list(loop.operands)
    with loop.location:
        new = ir.Operation.create("stablehlo.while", results=[loop.results[i].type for i in keep],
                                  operands=[operands[i] for i in keep], attributes=attributes_of(loop), regions=2,
                                  ip=ir.InsertionPoint(loop))
    for r in (0, 1):
        old = loop.regions[r].blocks[0]
        block = new.regions[r].blocks.append(*[operands[i].type for i in keep],
                                             arg_locs=[old.arguments[i].location for i in keep])
        for position, i in enumerate(keep):
            old.arguments[i].replace_all_uses_with(block.arguments[position])
        for op in _block_ops(old):
            block.append(op)
    last = terminator(new.regions[1].blocks[0])
    returned = list(last.operands)
    with loop.location:
        ir.Operation.create(last.name, operands=[returned[i] for i in keep], ip=ir.InsertionPoint(last))
    last.erase()
    for position, i in enumerate(keep):
        loop.results[i].replace_all_uses_with(new.results[position])
    return new, keep


def _copied(ops: list, mapping: dict) -> None:
    """Copies `ops` at the insertion point, their operands (nested ones too) remapped through `mapping`,
    which learns each copy's results."""
    for op in ops:
        mapping.update(zip(op.results, ir.clone_remapped(op, mapping).results))


def _rewrite(loop, unread: list[int], made_by: list, starts: dict, counted) -> None:
    """Rebuilds `loop` without the `unread` values and computes the used ones after it, from the starts of
    its last trip, where a trip ran (else they keep their start). `counted`: the loop's counter()."""
    old_body = loop.regions[1].blocks[0]
    positions = {argument: a for a, argument in enumerate(old_body.arguments)}
    made = {k: positions.get(value, value) for k, value in enumerate(terminator(old_body).operands)
            if k in unread and list(loop.results[k].uses)}
    results = {k: loop.results[k] for k in made}
    inits = list(loop.operands)
    new, keep = _without(loop, unread)
    with ir.InsertionPoint(loop), loop.location:
        body, cond = new.regions[1].blocks[0], new.regions[0].blocks[0]
        mapping = {body.arguments[keep.index(a)]: build.splat(start, body.arguments[keep.index(a)].type)
                   if isinstance(start, int) else start for a, start in starts.items()}
        ran = None
        if counted is None:  # did a trip run: the condition on the loop's inputs
            checks = dict(zip(cond.arguments, new.operands))
            _copied(_block_ops(cond)[:-1], checks)
            ran = checks.get(terminator(cond).operands[0], terminator(cond).operands[0])
        elif counted[2] == 0:
            mapping = None
        if mapping is not None:
            _copied(made_by, mapping)
        for k, result in results.items():
            value = made[k] if not isinstance(made[k], int) else body.arguments[keep.index(made[k])]
            value = inits[k] if mapping is None else mapping.get(value, value)
            if ran is not None:
                value = build.one("stablehlo.select", value.type, ran, value, inits[k])
            result.replace_all_uses_with(value)
    loop.erase()
    erase_dead_ops(body, results=False)


def _read_in_body(loop, values: list[int], functions: dict) -> None:
    """Makes the body read each of `values`: it hands back select(c, made, carried in), c the condition
    recomputed on the trip's inputs (true on every trip, which IREE cannot know); where the condition has
    side effects, the two pass through an optimization_barrier instead."""
    if not values:
        return
    cond, body = loop.regions[0].blocks[0], loop.regions[1].blocks[0]
    last = terminator(body)
    with ir.InsertionPoint(last), loop.location:
        tests = _block_ops(cond)[:-1]
        if all(_pure(op, functions) for op in tests):
            mapping = dict(zip(cond.arguments, body.arguments))
            _copied(tests, mapping)
            tested = terminator(cond).operands[0]
            holds = mapping.get(tested, tested)
            for k in values:
                made = last.operands[k]
                last.operands[k] = build.one("stablehlo.select", made.type, holds, made, body.arguments[k])
            return
        for k in values:
            made = last.operands[k]
            barrier = build.create("stablehlo.optimization_barrier", [body.arguments[k].type, made.type],
                                   [body.arguments[k], made])
            last.operands[k] = barrier[1]


@register_pass
class ReadCarriedValues(Pass):
    """Lets the body of each while loop read every value it carries (IREE crashes on loops whose body does not)."""

    name = "oxla-unread-carried-values"

    def run(self, module) -> None:
        functions = {ir.StringAttr(op.attributes["sym_name"]).value: op
                     for op in ir.body_ops(module) if op.name == "func.func"}
        for loop in [op for op in ir.ops(module, post_order=True) if op.name == "stablehlo.while"]:
            body_unread = _unread(loop)
            if not body_unread:
                continue
            counted = counter(loop)
            dropped, made_by, starts, kept = _plan(loop, body_unread, counted, functions)
            _read_in_body(loop, kept, functions)
            if dropped:
                _rewrite(loop, dropped, made_by, starts, counted)
