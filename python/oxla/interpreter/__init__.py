"""oxla.interpreter: StableHLO evaluated with numpy, following the specification.

    from oxla import interpreter
    [y] = interpreter.evaluate(module_or_text, "main", x)

`evaluate` parses (when given text), compiles every function once into
numpy kernels (see `core`), checks the arguments against the function's
signature (ValueError naming the argument), and returns the results as
numpy arrays (i4 and friends as ml_dtypes types, tuples as tuples).
With `replicas * partitions > 1` every process runs the function on the
same arguments and the result is one list of results per process, in
process order (replica-major).

An op the interpreter cannot evaluate raises NotImplementedError naming the
op and its location; `step_limit` bounds the number of ops evaluated per
process (EvaluationLimitExceeded); a failing `check.*` op of the program
raises CheckFailure once the evaluation is done. `Interpreter` keeps a
compiled module to call several times.
"""

from __future__ import annotations

import math

import numpy as np

from oxla import ir
from oxla.interpreter.core import (CheckFailure, Compiler, EvaluationError, EvaluationLimitExceeded, State,
                                   UnsupportedOp)
from oxla.interpreter.types import from_user

__all__ = ["evaluate", "Interpreter", "EvaluationError", "EvaluationLimitExceeded", "CheckFailure",
           "UnsupportedOp"]


class Interpreter:
    """A module compiled for evaluation; `call` runs one of its functions."""

    def __init__(self, module, *, step_limit: int | None = None, replicas: int = 1, partitions: int = 1):
        if isinstance(module, (str, bytes, bytearray)):
            module = ir.parse(module)
        for name, value in (("replicas", replicas), ("partitions", partitions)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        if step_limit is not None and (not isinstance(step_limit, int) or step_limit < 0):
            raise ValueError(f"step_limit must be a non-negative integer or None, not {step_limit!r}")
        self.module = module
        self.replicas, self.partitions = replicas, partitions
        self.step_limit = math.inf if step_limit is None else step_limit
        self.failures: list[str] = []  # what failed `check.*` ops said
        self.checks = 0  # how many `check.*` ops were evaluated
        self.outfeed: list = []  # values written by stablehlo.outfeed
        self.probes: dict[str, list[np.ndarray]] = {}  # values recorded by interpreter.probe
        self.printed: list[str] = []  # what interpreter.print printed
        self.compiled = Compiler(module)

    def functions(self) -> list[str]:
        """The names of the module's functions."""
        return list(self.compiled.functions)

    def call(self, function: str = "main", *args):
        """Evaluates `function` on `args`; its results (one list per process when there are several)."""
        fn = self._function(function)
        stored = self.arguments(fn, args)
        if self.replicas * self.partitions == 1:
            state = State(self, self.step_limit)
            with np.errstate(all="ignore"):
                out = fn.call(state, stored)
            return [t.to_user(v) for t, v in zip(fn.result_types, out)]
        from oxla.interpreter.collectives import run_processes

        grid = [[fn] * self.partitions for _ in range(self.replicas)]
        outs = run_processes(self, grid, [stored] * (self.replicas * self.partitions))
        return [[t.to_user(v) for t, v in zip(fn.result_types, out)] for out in outs]

    def _function(self, name: str):
        if not isinstance(name, str) or name not in self.compiled.functions:
            raise ValueError(f"function: no function @{name} in the module; it has "
                             + ", ".join(f"@{n}" for n in self.compiled.functions))
        return self.compiled.functions[name]

    @staticmethod
    def arguments(fn, args) -> list:
        """The caller's arguments checked against `fn`'s signature and turned into stored values."""
        if len(args) != len(fn.arg_types):
            raise ValueError(f"arguments: @{fn.name} takes {len(fn.arg_types)} arguments, {len(args)} given")
        return [from_user(a, t, f"argument {i} of @{fn.name}") for i, (a, t) in enumerate(zip(args, fn.arg_types))]


def evaluate(module_or_text, function: str = "main", *arrays, step_limit: int | None = None, replicas: int = 1,
             partitions: int = 1) -> list:
    """Evaluates `function` of a module (or MLIR text) on numpy arrays; its results as numpy arrays."""
    interpreter = Interpreter(module_or_text, step_limit=step_limit, replicas=replicas, partitions=partitions)
    out = interpreter.call(function, *arrays)
    if interpreter.failures:
        raise CheckFailure("; ".join(interpreter.failures))
    return out
