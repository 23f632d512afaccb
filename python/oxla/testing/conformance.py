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
import re
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
    """('abs', 'float32') from 'abs_float32_20_20.mlir': the op and first dtype in the file name
    (a case of a split file, 'add.mlir#3', is named after its file)."""
    name = name.split("#", 1)[0]
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


# -- the interpreter backend ---------------------------------------------------

BACKENDS = ("compiler", "interpreter")
_RUN_ARGS = re.compile(r'--args="\[(.*?)\]"')


def run_job(path: str, target: str = "llvm-cpu", device: str | None = None, backend: str = "compiler",
            reference: str | None = None) -> list[Result]:
    """One file's results: compiled and run (backend "compiler"), or evaluated by the interpreter."""
    if backend == "interpreter":
        return interpret_program(path, reference)
    if backend != "compiler":
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not '{backend}'")
    return [run_program(path, target, device)]


def interpret_program(path: str, reference: str | None = None) -> list[Result]:
    """Evaluates a program, or each `// -----` case of a file, with oxla.interpreter.

    Checks (`check.*` ops and custom calls) are evaluated where they stand.
    The entry is @main, else every function without parameters. A @main
    with parameters gets the values of a RUN line's `--args=[...]`, or,
    when the program checks nothing, is compared with the compiled
    `reference` target on generated inputs (oxla.check.differential).
    """
    from oxla.tools.opt import split_chunks

    with open(path, "rb") as f:
        data = f.read()
    chunks = split_chunks(data, path, True)
    arguments = run_line_arguments(data.decode("utf-8", "replace"))
    base, out = os.path.basename(path), []
    for index, chunk in enumerate(chunks):
        name = base if len(chunks) == 1 else f"{base}#{index}"
        result = _interpret_case(name, path, chunk.data.decode("utf-8", "replace"), arguments, reference)
        if result is not None:
            out.append(result)
    return out


def run_line_arguments(text: str) -> list | None:
    """The arrays a `// RUN: ... --interpret --args="[dense<1> : tensor<2xi32>, ...]"` line passes, if any."""
    from oxla.dialects.elements import to_numpy
    from oxla.interpreter.check_ops import split_top_level

    for line in text.splitlines():
        match = _RUN_ARGS.search(line) if line.startswith("// RUN:") else None
        if match:
            try:
                with ir.context():
                    return [to_numpy(ir.Attribute.parse(item)) for item in split_top_level(match.group(1), ",")]
            except Exception:  # a RUN line written to be rejected: no arguments
                return None
    return None


def _interpret_case(name: str, path: str, text: str, arguments, reference: str | None) -> Result | None:
    """The Result of one case (None when the case defines no function)."""
    import time

    from oxla.errors import OxlaError
    from oxla.interpreter import Interpreter
    from oxla.interpreter.check_ops import to_generic

    began = time.perf_counter()

    def done(status: str, reason: str = "") -> Result:
        return Result(name, status, reason.strip()[:600], "", time.perf_counter() - began)

    try:
        module = ir.parse(to_generic(text), name=path, allow_unregistered_dialects=True)
        interpreter = Interpreter(module)
    except (OxlaError, NotImplementedError) as exc:
        return done("unsupported", _first_line(exc))
    functions = interpreter.compiled.functions
    if not functions:
        return None
    entries = ["main"] if "main" in functions else [n for n, f in functions.items() if not f.arg_types]
    try:
        if not entries:
            return done("unsupported", "no @main and no function without parameters")
        if functions[entries[0]].arg_types and arguments is None:
            if reference is None:
                return done("unsupported", "@main takes arguments and checks nothing: compare it with a reference target")
            return _differential(name, module, functions["main"], reference, done)
        for entry in entries:
            interpreter.call(entry, *(arguments if functions[entry].arg_types else ()))
    except NotImplementedError as exc:
        return done("unsupported", str(exc))
    except Exception as exc:  # the program's result, not the runner's
        return done("run-error", f"{type(exc).__name__}: {_first_line(exc)}")
    if interpreter.failures:
        return done("fail", "; ".join(interpreter.failures))
    return done("pass", "" if interpreter.checks else "no checks: evaluated without error")


def sample_inputs(function, size: int = 3, seed: int = 0) -> list:
    """Arguments for a function whose dynamic dimensions all take `size`: leading integer scalars
    (shape polymorphism's dimension variables) are `size`, later ones (indices, mostly) 0, other values random."""
    import numpy as np

    from oxla.interpreter.types import DYNAMIC, user_dtype

    rng = np.random.default_rng(seed)
    out = []
    for t in function.arg_types:
        shape = tuple(size if d == DYNAMIC else d for d in t.shape)
        dtype = user_dtype(t.element)
        if not shape and dtype.kind in "iu":
            out.append(np.array(0 if any(np.ndim(v) for v in out) else size, dtype=dtype))
        elif dtype == np.bool_:
            out.append(rng.random(shape) < 0.5)
        elif dtype.kind in "iu":
            out.append(rng.integers(0 if dtype.kind == "u" else -5, 6, shape).astype(dtype))
        elif dtype.kind == "c":
            out.append((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype))
        else:
            out.append(rng.standard_normal(shape).astype(dtype))
    return out


def _differential(name: str, module, function, reference: str, done) -> Result:
    """Compares the interpreter with the compiled `reference` target on sample inputs."""
    from oxla.check import differential

    report = differential(module, sample_inputs(function), targets=[reference])
    broken = [c for c in report.comparisons if c.index < 0]
    if broken:
        return done("reference-error", broken[0].message)
    return done("pass" if report.ok else "fail", "" if report.ok else str(report).split("\n", 1)[-1])


# -- isolation ---------------------------------------------------------------

RECYCLE_AFTER = 100  # programs one worker process runs before it is replaced


def _worker(connection) -> None:
    """Runs programs sent over `connection` until told to stop (None)."""
    while (job := connection.recv()) is not None:
        connection.send(run_job(*job))


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


def run_isolated(paths: list[str], target: str, device: str | None, timeout: float = 300.0,
                 backend: str = "compiler", reference: str | None = None):
    """Yields each program's Result (each case's, for split files run by the interpreter), run in a
    worker process that is replaced when a program kills it (a trap in generated code, say) or runs
    past `timeout` seconds."""
    worker, done = _Worker(), 0
    # Compiling workers are recycled (IREE's heap, see below); interpreting ones live longer.
    recycle_after = RECYCLE_AFTER if backend == "compiler" else 10 * RECYCLE_AFTER
    try:
        for path in paths:
            # Long-lived workers have been seen to corrupt their heap after
            # hundreds of programs (inside IREE): start afresh now and then,
            # and give a program that crashed or hung one more try in a fresh worker.
            if done == recycle_after:
                worker.close()
                worker, done = _Worker(), 0
            for attempt in (1, 2):
                results = worker.run((path, target, device, backend, reference), timeout)
                done += 1
                if results is not None:
                    break
                alive = worker.process.is_alive()
                worker.close()
                worker, done = _Worker(), 0
                reason = f"ran past {timeout:g} s" if alive else "the program killed the process running it"
                results = [Result(os.path.basename(path), "timeout" if alive else "crash", reason)]
            yield from results
    finally:
        worker.close()
