"""oxla-run: run a function of a .vmfb (or of StableHLO, compiled on the fly) on a device.

    oxla-run model.vmfb --function=main --input=2x3xf32=1,2,3,4,5,6 --input=@x.npy
    oxla-run model.mlir --device=vulkan --input="4xi32=[1 2 3 4]" --output=@y.npy

Inputs use iree-run-module's form: `SHAPExTYPE=values` (values separated by
spaces or commas, brackets ignored; one value fills the whole tensor),
`TYPE=value` for a scalar tensor, or `@file.npy`. Results print the same way.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

# The target that compiles for each runtime device, for .mlir inputs.
DEVICE_TARGETS = {"local-task": "llvm-cpu", "local-sync": "llvm-cpu", "vulkan": "vulkan-spirv",
                  "cuda": "cuda", "hip": "rocm"}

_INPUT = re.compile(r"^((?:\d+x)*)([a-z][\w<>]*)=(.*)$", re.S)


class InputError(ValueError):
    """An --input that cannot be read."""


def parse_input(text: str):
    """Turns one --input value into a numpy array."""
    import numpy as np

    from oxla.runtime.dtypes import from_mlir

    if text.startswith("@"):
        try:
            return np.load(text[1:], allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read '{text[1:]}': {exc}") from None
    match = _INPUT.match(text.strip())
    if not match:
        raise InputError(f"'{text}' is not SHAPExTYPE=VALUES, TYPE=VALUE or @file.npy")
    dims, type_name, values = match.groups()
    element = from_mlir(type_name)
    if element is None:
        raise InputError(f"unknown element type '{type_name}' in '{text}'")
    shape = tuple(int(d) for d in dims.split("x") if d)
    words = [w for w in re.split(r"[\s,\[\]]+", values) if w]
    try:
        if element.dtype == np.bool_:
            flat = np.array([w.lower() in ("1", "true") for w in words], dtype=np.bool_)
        elif element.dtype.kind == "c":
            flat = np.array([complex(w.replace("i", "j")) for w in words], dtype=element.dtype)
        else:
            flat = np.array([float(w) if element.dtype.kind == "f" or element.dtype.kind == "V" else int(w, 0)
                             for w in words]).astype(element.dtype)
    except ValueError as exc:
        raise InputError(f"bad value in '{text}': {exc}") from None
    size = int(np.prod(shape)) if shape else 1
    if flat.size == 1 and size != 1:
        flat = np.full(size, flat[0], dtype=element.dtype)
    if flat.size != size:
        raise InputError(f"'{text}' has {flat.size} values for shape {shape or '()'} ({size} needed)")
    return flat.reshape(shape)


def format_value(value) -> str:
    """`2x3xf32=[1 2 3][4 5 6]`, as iree-run-module prints buffer views."""
    import numpy as np

    from oxla.runtime.dtypes import from_dtype

    value = np.asarray(value)
    element = from_dtype(value.dtype)
    type_name = element.mlir if element else value.dtype.name
    prefix = "".join(f"{d}x" for d in value.shape) + type_name

    def fmt(v) -> str:
        if value.dtype == np.bool_:
            return "1" if v else "0"
        if value.dtype.kind == "c":
            return f"{v.real:g}+{v.imag:g}i" if v.imag >= 0 else f"{v.real:g}{v.imag:g}i"
        return f"{float(v):g}" if value.dtype.kind in "fV" else str(int(v))

    def nest(a) -> str:
        if a.ndim == 0:
            return fmt(a[()])
        if a.ndim == 1:
            return "[" + " ".join(fmt(v) for v in a) + "]"
        return "".join(nest(sub) for sub in a)

    return f"{prefix}={nest(value)}"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="oxla-run", description=__doc__.splitlines()[0])
    p.add_argument("module", help="a .vmfb, or StableHLO (.mlir/.mlirbc) to compile first")
    p.add_argument("--function", default="main", help="the function to call (default main)")
    p.add_argument("--input", action="append", default=[], help="an argument (repeat in order)")
    p.add_argument("--output", action="append", default=[], help="@file.npy to save a result (repeat in order)")
    p.add_argument("--device", default="local-task", help="local-task | local-sync | vulkan | cuda | hip")
    p.add_argument("--target", help="for StableHLO inputs: the compilation target (default: the device's)")
    p.add_argument("--list-functions", action="store_true", help="print the module's functions and exit")
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

    def fail(message: str) -> int:
        print(f"oxla-run: error: {message}", file=sys.stderr)
        return 1

    if not os.path.exists(args.module):
        return fail(f"could not open '{args.module}': No such file or directory")
    try:
        inputs = [parse_input(text) for text in args.input]
        module = load_module(args.module, args.device, args.target)
    except OxlaError as exc:
        print(exc, file=sys.stderr)
        return 1
    except (InputError, ValueError, RuntimeError) as exc:
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
