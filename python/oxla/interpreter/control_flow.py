"""Control flow and structure: func.call, while, if, case, tuples, optimization_barrier, composite,
custom_call (dispatched on its target name through `CUSTOM_CALLS`)."""

from __future__ import annotations

from typing import Callable

from oxla.interpreter import attrs
from oxla.interpreter.core import UnsupportedOp, register, results

# custom_call target name -> kernel builder (op, compiler) -> stateful kernel
CUSTOM_CALLS: dict[str, Callable] = {}


def custom_call_target(*names: str):
    """Declares the kernel builder of custom_call targets (the check.* ones, say)."""

    def add(build):
        for name in names:
            CUSTOM_CALLS[name] = build
        return build

    return add


@register("func.call", "stablehlo.call", stateful=True, storage=True)
def _call(op, c):
    """Calls a function of the module in a fresh frame."""
    function = c.function(attrs.symbol(op, "callee"))
    return lambda state, *args: results(op, function.call(state, args))


@register("stablehlo.composite", stateful=True, storage=True)
def _composite(op, c):
    """Evaluates the composite's decomposition function."""
    function = c.function(attrs.symbol(op, "decomposition"))
    return lambda state, *args: results(op, function.call(state, args))


@register("stablehlo.while", stateful=True, storage=True)
def _while(op, c):
    """Runs `body` while `cond` holds, threading the loop-carried values."""
    cond, body = c.region(op, 0), c.region(op, 1)

    def kernel(state, *values):
        values = list(values)
        while cond.run(state, values)[0]:
            values = body.run(state, values)
        return results(op, values)

    return kernel


@register("stablehlo.if", stateful=True, storage=True)
def _if(op, c):
    """Runs the true or the false branch."""
    true_branch, false_branch = c.region(op, 0), c.region(op, 1)
    return lambda state, pred: results(op, (true_branch if pred[()] else false_branch).run(state, []))


@register("stablehlo.case", stateful=True, storage=True)
def _case(op, c):
    """Runs branch `index`; an index out of range runs the last branch."""
    branches = [c.region(op, i) for i in range(len(op.regions))]

    def kernel(state, index):
        i = int(index[()])
        return results(op, branches[i if 0 <= i < len(branches) else -1].run(state, []))

    return kernel


@register("stablehlo.optimization_barrier", storage=True)
def _optimization_barrier(op, c):
    """Its operands, unchanged."""
    return lambda *values: results(op, list(values))


class Future:
    """What async_start gives: the results of its body, which the interpreter computes at once."""

    __slots__ = ("values",)

    def __init__(self, values: list):
        self.values = values


@register("stablehlo.async_start", stateful=True, storage=True)
def _async_start(op, c):
    """Runs the body now (the spec lets a backend run it synchronously); the future holds its results."""
    body = c.region(op, 0)
    takes_operands = len(op.regions[0].blocks[0].arguments) > 0
    return lambda state, *values: Future(body.run(state, list(values) if takes_operands else []))


@register("stablehlo.async_done", storage=True)
def _async_done(op, c):
    """The results the future holds."""
    return lambda future: results(op, list(future.values))


@register("stablehlo.tuple", storage=True)
def _tuple(op, c):
    return lambda *values: tuple(values)


@register("stablehlo.get_tuple_element", storage=True)
def _get_tuple_element(op, c):
    index = attrs.integer(op, "index")
    return lambda value: value[index]


@register("stablehlo.custom_call", stateful=True, storage=True)
def _custom_call(op, c):
    """Known targets (CUSTOM_CALLS) are evaluated; any other is unsupported."""
    target = attrs.string(op, "call_target_name")
    build = CUSTOM_CALLS.get(target)
    if build is None:
        raise UnsupportedOp(f"custom_call target '{target}' is not known to the interpreter")
    return build(op, c)
