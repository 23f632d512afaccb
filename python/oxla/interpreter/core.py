"""The evaluation engine: func.func bodies compiled once into step lists, run on numpy arrays.

Compiling walks each function once: every SSA value gets a slot in its
function's frame, and every op becomes a `Step` whose kernel was built by
the op's entry in the dispatch table (`register`), with its attributes
already read. Running a block is then a loop over steps that reads operand
slots, calls the kernel and stores the results, coerced to the result
types (dtype, narrow-integer wrap-around, quantization) in one place.

Regions (bodies of while, reduce, sort...) are compiled the same way into
`Block`s that share their function's frame, so they see the values defined
above them. A block made only of elementwise ops is marked `pointwise`:
ops such as reduce or scatter then run it once on whole arrays instead of
once per element.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from oxla import ir
from oxla.interpreter import attrs
from oxla.interpreter.types import TypeInfo, info


class EvaluationError(RuntimeError):
    """An op failed while being evaluated (the message names it and its location)."""


class EvaluationLimitExceeded(RuntimeError):
    """The evaluation ran more ops than its step limit allows (a program that loops forever, say)."""


class CheckFailure(AssertionError):
    """A `check.*` op of the program found a value different from what it expected."""


class UnsupportedOp(NotImplementedError):
    """An op, or a form of it, that the interpreter cannot evaluate."""


@dataclass(frozen=True)
class OpDef:
    """How to evaluate one op: its kernel builder and what the engine must know about it."""

    build: Callable  # (op, compiler) -> kernel
    pointwise: bool  # elementwise on any shape: may run vectorized inside region bodies
    stateful: bool  # the kernel takes the evaluation State first (regions, calls, collectives)
    storage: bool  # works on stored values as they are, even quantized ones


REGISTRY: dict[str, OpDef] = {}


def register(*names: str, pointwise: bool = False, stateful: bool = False, storage: bool = False):
    """Declares the kernel builder of one or more ops (the dispatch table's only writer)."""

    def add(build):
        for name in names:
            REGISTRY[name] = OpDef(build, pointwise, stateful, storage)
        return build

    return add


def table() -> dict[str, OpDef]:
    """The dispatch table, with every op family loaded (once)."""
    from oxla.interpreter import families  # noqa: F401  (registers the kernels)

    return REGISTRY


class Step:
    """One op ready to run: its kernel, operand and result slots, and result coercions."""

    __slots__ = ("kernel", "ins", "outs", "finish", "stateful", "op")

    def __init__(self, kernel, ins, outs, finish, stateful, op):
        self.kernel, self.ins, self.outs, self.finish, self.stateful, self.op = kernel, ins, outs, finish, stateful, op


class Block:
    """A compiled block: argument slots, steps, and the slots its terminator returns."""

    __slots__ = ("args", "steps", "returns", "pointwise", "arg_types", "result_types")

    def __init__(self, args, steps, returns, pointwise, arg_types, result_types):
        self.args, self.steps, self.returns = args, steps, returns
        self.pointwise, self.arg_types, self.result_types = pointwise, arg_types, result_types

    def run(self, state: "State", values) -> list:
        """Evaluates the block on `values` in the current frame; the terminator's operands."""
        frame = state.frame
        for slot, value in zip(self.args, values):
            frame[slot] = value
        step = None
        try:
            for step in self.steps:
                state.count += 1
                if state.count > state.limit:
                    raise EvaluationLimitExceeded(
                        f"evaluation stopped after {state.limit} steps at {step.op.name} ({attrs.location(step.op)})")
                args = [frame[i] for i in step.ins]
                out = step.kernel(state, *args) if step.stateful else step.kernel(*args)
                if len(step.outs) == 1:
                    frame[step.outs[0]] = step.finish[0](out)
                elif step.outs:
                    for slot, finish, value in zip(step.outs, step.finish, out):
                        frame[slot] = finish(value)
        except (EvaluationLimitExceeded, CheckFailure, EvaluationError, ProcessAborted):
            raise
        except UnsupportedOp as exc:
            if getattr(exc, "located", False):
                raise
            raise _located(UnsupportedOp, step.op, str(exc)) from None
        except NotImplementedError as exc:
            raise _located(UnsupportedOp, step.op, str(exc)) from exc
        except Exception as exc:
            raise _located(EvaluationError, step.op, f"{type(exc).__name__}: {exc}") from exc
        return [frame[i] for i in self.returns]


class ProcessAborted(RuntimeError):
    """Another process of a parallel evaluation failed; this one stops too."""


def _located(kind, op, message: str):
    """An exception of `kind` whose message starts with the op's name and location."""
    exc = kind(f"{op.name} at {attrs.location(op)}: {message}")
    exc.located = True
    return exc


class Function:
    """A compiled func.func: its signature and body."""

    def __init__(self, name: str, op):
        self.name, self.op = name, op
        ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        self.arg_types = [info(t) for t in ftype.inputs]
        self.result_types = [info(t) for t in ftype.results]
        self.body: Block | None = None
        self.slots = 0
        self.problem = f"@{name} has no body (a declaration) and cannot be evaluated"

    def call(self, state: "State", args) -> list:
        """Runs the body in a fresh frame."""
        if self.body is None:
            raise UnsupportedOp(self.problem)
        saved = state.frame
        state.frame = [None] * self.slots
        try:
            return self.body.run(state, args)
        finally:
            state.frame = saved


class Compiler:
    """Turns every function of a module into a `Function` (all at once, so that evaluation never touches MLIR)."""

    def __init__(self, module):
        self.module = module
        self.functions: dict[str, Function] = {}
        self._ops = table()
        body = module.body if hasattr(module, "body") else module.regions[0].blocks[0]
        funcs = [op.operation for op in body.operations if op.operation.name == "func.func"]
        for op in funcs:
            name = attrs.string(op, "sym_name")
            self.functions[name] = Function(name, op)
        for function in self.functions.values():
            self._compile_function(function)

    def function(self, name: str) -> Function:
        """The compiled function called `name` (UnsupportedOp when the module has none)."""
        if name not in self.functions:
            raise UnsupportedOp(f"no function @{name} in the module")
        return self.functions[name]

    def _compile_function(self, function: Function) -> None:
        region = function.op.regions[0]
        if len(region.blocks) == 0:
            return
        if len(region.blocks) != 1:  # raised if the function is called, not for merely being in the module
            function.problem = f"@{function.name} has {len(region.blocks)} blocks; only single-block bodies are supported"
            return
        self._slots: dict = {}
        function.body = self.block(region.blocks[0])
        function.slots = len(self._slots)

    def _slot(self, value) -> int:
        slots = self._slots
        if value not in slots:
            slots[value] = len(slots)
        return slots[value]

    def region(self, op, index: int = 0) -> Block:
        """The op's region `index`, compiled into the current function's frame."""
        blocks = op.regions[index].blocks
        if len(blocks) != 1:
            raise UnsupportedOp(f"{op.name}: region {index} must have exactly one block")
        return self.block(blocks[0])

    def block(self, block) -> Block:
        """Compiles one block (its terminator's operands become the block's results)."""
        args = [self._slot(a) for a in block.arguments]
        ops = [op.operation for op in block.operations]
        terminator = ops[-1] if ops and ops[-1].name in _TERMINATORS else None
        body = ops[:-1] if terminator is not None else ops
        steps = [self.step(op) for op in body]
        returns = [self._slot(v) for v in terminator.operands] if terminator is not None else []
        pointwise = all(self._ops.get(s.op.name, _UNKNOWN).pointwise and not len(s.op.regions) for s in steps)
        arg_types = [info(a.type) for a in block.arguments]
        result_types = [info(v.type) for v in terminator.operands] if terminator is not None else []
        return Block(args, steps, returns, pointwise, arg_types, result_types)

    def step(self, op) -> Step:
        """Builds the Step of one op from its dispatch-table entry (a raising one when it has none)."""
        definition = self._ops.get(op.name)
        ins = [self._slot(v) for v in op.operands]
        outs = [self._slot(v) for v in op.results]
        if definition is None:
            return Step(_unsupported(op, f"the interpreter cannot evaluate '{op.name}'"), ins, outs, [], False, op)
        try:
            result_types = [info(r.type) for r in op.results]
            kernel = definition.build(op, self)
            quantized = not definition.storage and _has_quantized(op)
        except NotImplementedError as exc:
            return Step(_unsupported(op, str(exc)), ins, outs, [], False, op)
        if quantized:
            kernel = _dequantizing(kernel, [info(v.type) for v in op.operands], definition.stateful)
            finish = [t.finish for t in result_types]
        else:
            finish = [t.store for t in result_types]
        return Step(kernel, ins, outs, finish, definition.stateful, op)


_TERMINATORS = frozenset({"func.return", "stablehlo.return", "mhlo.return", "chlo.return"})
_UNKNOWN = OpDef(None, False, False, False)


def _unsupported(op, message: str):
    """A kernel that raises when the op is reached: unknown ops fail only if evaluated."""

    def kernel(*_):
        raise UnsupportedOp(message)

    return kernel


def _has_quantized(op) -> bool:
    return any("!quant." in str(v.type) for v in list(op.operands) + list(op.results))


def _dequantizing(kernel, operand_types: list[TypeInfo], stateful: bool):
    """Wraps a kernel so that it sees dequantized operands (its results are quantized by the step)."""
    convert = [t.compute if t.kind == "tensor" and t.quant is not None else None for t in operand_types]

    def plain(*args):
        return kernel(*[c(a) if c else a for c, a in zip(convert, args)])

    def with_state(state, *args):
        return kernel(state, *[c(a) if c else a for c, a in zip(convert, args)])

    return with_state if stateful else plain


class State:
    """One process's evaluation: the current frame, the step count and its limit, the process's place."""

    def __init__(self, interpreter, limit: float, process=None):
        self.interpreter = interpreter
        self.frame: list = []
        self.count = 0
        self.limit = limit
        self.process = process  # collectives.Process, for replica_id, partition_id and communication
        self.failures: list[str] = interpreter.failures


def results(op, values: list):
    """A kernel's return value: the single result itself, else the list."""
    return values[0] if len(op.results) == 1 else values


def run_pointwise(state: State, block: Block, operands: list[np.ndarray]) -> list[np.ndarray]:
    """Applies a region elementwise to broadcast-compatible arrays: once on whole arrays when
    the body is pointwise, else element by element."""
    shape = np.broadcast_shapes(*[np.shape(a) for a in operands]) if operands else ()
    if block.pointwise:
        outs = block.run(state, operands)
        return [np.broadcast_to(o, shape) if np.shape(o) != shape else o for o in outs]
    arrays = [np.broadcast_to(a, shape) for a in operands]
    outs = [np.empty(shape, dtype=t.storage) for t in block.result_types]
    for index in np.ndindex(*shape):
        values = block.run(state, [np.asarray(a[index]) for a in arrays])
        for out, value in zip(outs, values):
            out[index] = value
    return outs
