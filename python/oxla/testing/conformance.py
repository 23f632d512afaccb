"""Turning StableHLO conformance programs into programs a device can run and a host can judge.

A conformance program's `@main` takes nothing, gets its operands from
`call @inputs()`, computes, and checks results in place with
`stablehlo.custom_call @check.expect_*(actual, expected)` or `check.*` ops.
`prepare` rewrites it so that:

- the values of `@inputs()` become arguments of `@main` (so the compiler
  builds real kernels instead of folding constants), and `@inputs` becomes
  public so the runner can call it for those values;
- every check is removed and its (actual, expected) pair becomes two results
  of `@main`, compared on the host with `oxla.testing.checks`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from oxla import ir

# check op forms: name -> (kind, attribute holding the expected value or None)
_CHECK_OPS = {
    "check.expect_eq": ("expect_eq", None),
    "check.expect_almost_eq": ("expect_almost_eq", None),
    "check.expect_close": ("expect_close", None),
    "check.expect_eq_const": ("expect_eq", "value"),
    "check.expect_almost_eq_const": ("expect_almost_eq", "value"),
}


class UnsupportedProgram(ValueError):
    """The program does not have the conformance shape (no @main, no checks...)."""


@dataclass
class Check:
    """One check of a program: how to compare, and where its pair sits in @main's results."""

    kind: str
    actual: int
    expected: int
    options: dict = field(default_factory=dict)


@dataclass
class Prepared:
    """A rewritten program: the module, its checks, and the function giving @main's arguments."""

    module: ir.Module
    checks: list[Check]
    inputs_function: str | None


def prepare(module: ir.Module) -> Prepared:
    """Rewrites a conformance program in place (see the module docstring)."""
    main = _function(module, "main")
    block = main.regions[0].blocks[0]
    inputs_function = _inputs_to_arguments(module, block)
    with ir.context(), main.location:
        pairs = _checks_to_values(block)
        if not pairs:
            raise UnsupportedProgram("the program checks nothing")
        values = [v for _, a, e, _ in pairs for v in (a, e)]
        _replace_return(block, values)
        _set_signature(main, block, values)
    checks = [Check(kind, 2 * i, 2 * i + 1, options) for i, (kind, _, _, options) in enumerate(pairs)]
    return Prepared(module, checks, inputs_function)


def _function(module: ir.Module, name: str):
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    raise UnsupportedProgram(f"no @{name} function")


def _callee(op) -> str | None:
    return ir.FlatSymbolRefAttr(op.attributes["callee"]).value if op.name == "func.call" else None


def _inputs_to_arguments(module: ir.Module, block) -> str | None:
    """Replaces `call @inputs()` results with new arguments of @main; makes @inputs public."""
    calls = [op.operation for op in block.operations
             if _callee(op.operation) == "inputs" and len(op.operation.operands) == 0]
    if not calls:
        return None
    if len(calls) > 1:
        raise UnsupportedProgram("@inputs is called more than once")
    call = calls[0]
    for result in call.results:
        result.replace_all_uses_with(block.add_argument(result.type, call.location))
    call.erase()
    inputs = _function(module, "inputs")
    if "sym_visibility" in inputs.attributes:
        del inputs.attributes["sym_visibility"]
    return "inputs"


def _check_form(op) -> tuple[str, str | None] | None:
    """(kind, expected-value attribute) for a check op or custom call, else None."""
    if op.name == "stablehlo.custom_call":
        target = ir.StringAttr(op.attributes["call_target_name"]).value
        if target.startswith("check."):
            return _CHECK_OPS.get(target, (target.removeprefix("check."), None))
        return None
    return _CHECK_OPS.get(op.name)


def _checks_to_values(block) -> list[tuple[str, object, object, dict]]:
    """Removes every check of the block; returns (kind, actual, expected, options) for each."""
    pairs = []
    for child in list(block.operations):
        op = child.operation
        form = _check_form(op)
        if form is None:
            continue
        kind, const_attr = form
        actual = op.operands[0]
        if const_attr is not None:
            with ir.InsertionPoint(op):
                value = op.attributes[const_attr]
                expected = ir.Operation.create("stablehlo.constant", results=[value.type],
                                               attributes={"value": value}).result
        else:
            expected = op.operands[1]
        pairs.append((kind, actual, expected, _options(op)))
        op.erase()
    return pairs


def _options(op) -> dict:
    """Tolerances a check carries (`tolerance`, `min_ulp_difference`, `max_ulp_difference`)."""
    found = {}
    for name, key in (("tolerance", "tolerance"), ("max_ulp_difference", "max_ulp"), ("min_ulp_difference", "min_ulp")):
        if name in op.attributes:
            attr = op.attributes[name]
            found[key] = attr.value if hasattr(attr, "value") else float(str(attr).split(":")[0])
    return found


def _replace_return(block, values) -> None:
    old = block.operations[len(block.operations) - 1].operation
    with ir.InsertionPoint(old):
        ir.Operation.create("func.return", operands=values)
    old.erase()


def _set_signature(main, block, values) -> None:
    """Updates @main's type to its new arguments and results; drops stale arg/result attributes."""
    arg_types = [arg.type for arg in block.arguments]
    main.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(arg_types, [v.type for v in values]))
    for stale in ("arg_attrs", "res_attrs"):
        if stale in main.attributes:
            del main.attributes[stale]


# -- running ---------------------------------------------------------------

_DTYPE_WORDS = ("bfloat16", "float16", "float32", "float64", "complex64", "complex128", "bool",
                "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "int4", "uint4")


@dataclass
class Result:
    """What happened to one program: status is pass, fail, compile-error, run-error or unsupported."""

    name: str
    status: str
    reason: str = ""
    phase: str = ""
    seconds: float = 0.0

    @property
    def op(self) -> str:
        return split_name(self.name)[0]

    @property
    def dtype(self) -> str:
        return split_name(self.name)[1]


def split_name(name: str) -> tuple[str, str]:
    """('abs', 'float32') from 'abs_float32_20_20.mlir': the op and first dtype in the file name."""
    words = name.removesuffix(".mlir").split("_")
    for i, word in enumerate(words):
        if word in _DTYPE_WORDS:
            return "_".join(words[:i]) or words[0], word
    return "_".join(w for w in words if w and not w[0].isdigit()) or name, "none"


def run_program(path: str, target: str = "llvm-cpu", device: str | None = None) -> Result:
    """Prepares, compiles and runs one conformance program; judges it with its own checks."""
    import time

    from oxla.errors import OxlaError
    from oxla.pipelines import CompileError, compile
    from oxla.testing.checks import CHECKS

    name, began = os.path.basename(path), time.perf_counter()

    def done(status: str, reason: str = "", phase: str = "") -> Result:
        return Result(name, status, reason.strip(), phase, time.perf_counter() - began)

    try:
        prepared = prepare(ir.parse_file(path))
    except (UnsupportedProgram, OxlaError) as exc:
        return done("unsupported", str(exc))
    try:
        artifact = compile(prepared.module, target)
    except CompileError as exc:
        return done("compile-error", _first_line(exc), exc.phase)
    except OxlaError as exc:
        return done("compile-error", _first_line(exc))
    try:
        from oxla import runtime

        module = runtime.load(artifact, device=device or artifact.driver)
        args = _as_tuple(module[prepared.inputs_function]()) if prepared.inputs_function else ()
        outputs = _as_tuple(module.main(*args))
    except Exception as exc:  # any runtime failure is this program's result, not the runner's
        return done("run-error", f"{type(exc).__name__}: {_first_line(exc)}")
    problems = []
    for check in prepared.checks:
        judge = CHECKS.get(check.kind)
        if judge is None:
            return done("unsupported", f"unknown check '{check.kind}'")
        problem = judge(outputs[check.actual], outputs[check.expected], **check.options)
        if problem:
            problems.append(f"{check.kind}: {problem}")
    return done("fail", "; ".join(problems)) if problems else done("pass")


def _as_tuple(value) -> tuple:
    return value if isinstance(value, tuple) else (() if value is None else (value,))


def _first_line(exc: BaseException) -> str:
    """The message without compiler noise: the first diagnostic line that says something."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        if "undefined symbol" in line:  # a link failure: name what is missing
            return line.strip()[:300]
    for line in lines:
        if ": error: " in line:
            return line.split(": error: ", 1)[1][:300]
    return (lines[0] if lines else type(exc).__name__)[:300]


# -- isolation ---------------------------------------------------------------

RECYCLE_AFTER = 100  # programs one worker process runs before it is replaced


def _worker(connection) -> None:
    """Runs programs sent over `connection` until told to stop (None)."""
    while (job := connection.recv()) is not None:
        connection.send(run_program(*job))


class _Worker:
    """A process that runs one program at a time; replaced when a program kills or hangs it."""

    def __init__(self) -> None:
        import multiprocessing

        self.connection, theirs = multiprocessing.Pipe()
        self.process = multiprocessing.get_context("spawn").Process(target=_worker, args=(theirs,), daemon=True)
        self.process.start()

    def run(self, job: tuple, timeout: float):
        """The program's Result, or None when the worker died or ran past `timeout`."""
        self.connection.send(job)
        try:
            if self.connection.poll(timeout):
                return self.connection.recv()
        except (EOFError, ConnectionError):
            pass
        return None

    def close(self) -> None:
        self.process.kill()
        self.process.join()


def run_isolated(paths: list[str], target: str, device: str | None, timeout: float = 300.0):
    """Yields each program's Result, run in a worker process that is replaced when
    a program kills it (a trap in generated code, say) or runs past `timeout` seconds."""
    worker, done = _Worker(), 0
    try:
        for path in paths:
            # Long-lived workers have been seen to corrupt their heap after
            # hundreds of programs (inside IREE): start afresh now and then,
            # and give a program that crashed or hung one more try in a fresh worker.
            if done == RECYCLE_AFTER:
                worker.close()
                worker, done = _Worker(), 0
            for attempt in (1, 2):
                result = worker.run((path, target, device), timeout)
                done += 1
                if result is not None:
                    break
                alive = worker.process.is_alive()
                worker.close()
                worker, done = _Worker(), 0
                reason = f"ran past {timeout:g} s" if alive else "the program killed the process running it"
                result = Result(os.path.basename(path), "timeout" if alive else "crash", reason)
            yield result
    finally:
        worker.close()
