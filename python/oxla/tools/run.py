"""oxla-run: run a function of a .vmfb (or of StableHLO, compiled on the fly) on a device.

    oxla-run model.vmfb --function=main --input=2x3xf32=1,2,3,4,5,6 --input=@x.npy
    oxla-run model.mlir --device=vulkan --input="4xi32=[1 2 3 4]" --output=@y.npy
    oxla-run model.mlir --interpret --input=2x3xf32=1      # evaluated by oxla.interpreter, no compiler

Inputs use iree-run-module's form: `SHAPExTYPE=values` (values separated by
spaces or commas, brackets ignored; one value fills the whole tensor),
`TYPE=value` for a scalar tensor, or `@file.npy`. Results print the same way.
"""

from __future__ import annotations

import argparse
import os
import sys

# The target that compiles for each runtime device, for .mlir inputs.
DEVICE_TARGETS = {"local-task": "llvm-cpu", "local-sync": "llvm-cpu", "vulkan": "vulkan-spirv",
                  "cuda": "cuda", "hip": "rocm"}

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="oxla-run", description=__doc__.splitlines()[0])
    p.add_argument("module", help="a .vmfb, or StableHLO (.mlir/.mlirbc) to compile first")
    p.add_argument("--function", default="main", help="the function to call (default main)")
    p.add_argument("--input", action="append", default=[], help="an argument (repeat in order)")
    p.add_argument("--output", action="append", default=[], help="@file.npy to save a result (repeat in order)")
    p.add_argument("--device", default="local-task", help="local-task | local-sync | vulkan | cuda | hip")
    p.add_argument("--target", help="for StableHLO inputs: the compilation target (default: the device's)")
    p.add_argument("--list-functions", action="store_true", help="print the module's functions and exit")
    p.add_argument("--interpret", action="store_true",
                   help="evaluate StableHLO with the reference interpreter instead of compiling it")
    p.add_argument("--step-limit", type=int, help="with --interpret: stop after this many evaluated ops")
    return p


def load_module(path: str, device: str, target: str | None):
    """Loads a .vmfb, or compiles StableHLO for the device and loads the result."""
    from oxla import runtime

    with open(path, "rb") as f:
        head = f.read(256)
    if b"IREE" in head[:128]:
        return runtime.load(path, device=device)
    from oxla.pipelines import compile

    return runtime.load(compile(path, target or DEVICE_TARGETS.get(device, "llvm-cpu")), device=device)


def run(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from oxla.errors import OxlaError
    from oxla.runtime.values import format_value, parse_input

    def fail(message: str) -> int:
        print(f"oxla-run: error: {message}", file=sys.stderr)
        return 1

    if not os.path.exists(args.module):
        return fail(f"could not open '{args.module}': No such file or directory")
    if args.interpret:
        return run_interpreted(args, fail)
    try:
        inputs = [parse_input(text) for text in args.input]
        module = load_module(args.module, args.device, args.target)
    except OxlaError as exc:
        print(exc, file=sys.stderr)
        return 1
    except (ValueError, RuntimeError) as exc:  # bad --input (InputError) or a load failure
        return fail(str(exc))
    if args.list_functions:
        for signature in module.functions():
            print(signature)
        return 0
    if args.function not in module:
        names = ", ".join(s.name for s in module.functions())
        return fail(f"no function '{args.function}' in the module; it has: {names}")
    try:
        results = module[args.function](*inputs)
    except (TypeError, ValueError, RuntimeError) as exc:
        return fail(str(exc))
    results = results if isinstance(results, tuple) else (() if results is None else (results,))
    print(f"EXEC @{args.function}")
    for index, value in enumerate(results):
        print(f"result[{index}]: hal.buffer_view")
        print(format_value(value))
    return save_outputs(args.output, results, fail)


def run_interpreted(args, fail) -> int:
    """--interpret: evaluates the function with oxla.interpreter and prints its results the same way."""
    from oxla import ir
    from oxla.errors import OxlaError
    from oxla.interpreter import CheckFailure, EvaluationError, EvaluationLimitExceeded, Interpreter
    from oxla.runtime.values import format_value, parse_input

    try:
        inputs = [parse_input(text) for text in args.input]
        interpreter = Interpreter(ir.parse_file(args.module), step_limit=args.step_limit)
    except OxlaError as exc:
        print(exc, file=sys.stderr)
        return 1
    except ValueError as exc:  # a bad --input or --step-limit
        return fail(str(exc))
    functions = interpreter.compiled.functions
    if args.list_functions:
        for name, function in functions.items():
            params = ", ".join(t.text for t in function.arg_types)
            print(f"@{name}({params}) -> ({', '.join(t.text for t in function.result_types)})")
        return 0
    if args.function not in functions:
        return fail(f"no function '{args.function}' in the module; it has: {', '.join(functions)}")
    try:
        results = interpreter.call(args.function, *inputs)
    except (ValueError, NotImplementedError, EvaluationError, EvaluationLimitExceeded) as exc:
        return fail(str(exc))
    if interpreter.failures:
        return fail(str(CheckFailure("; ".join(interpreter.failures))))
    print(f"EXEC @{args.function}")
    for index, value in enumerate(results):
        print(f"result[{index}]: {'tensor' if hasattr(value, 'dtype') else type(value).__name__}")
        print(format_value(value) if hasattr(value, "dtype") else repr(value))
    return save_outputs(args.output, tuple(results), fail)


def save_outputs(targets: list[str], results: tuple, fail) -> int:
    """Writes results to the --output=@file.npy targets, in order."""
    import numpy as np

    if len(targets) > len(results):
        return fail(f"{len(targets)} --output given for {len(results)} results")
    for target, value in zip(targets, results):
        if not target.startswith("@"):
            return fail(f"--output must look like @file.npy, not '{target}'")
        np.save(target[1:], np.asarray(value))
    return 0


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    from oxla.tools._startup import console_main

    console_main("oxla-run", run, argv)


if __name__ == "__main__":
    main()
