#!/usr/bin/env python3
"""What one of oxla's llvm-cpu defaults is worth: the zoo compiled with and without it, paired.

    python -m tools.bench.ab --without oxla-llvmcpu-mmt4d-register-tiles gemm_f32 bert [--threads 2]
    python -m tools.bench.ab --flag=--iree-llvmcpu-enable-ukernels=default gemm_f32 mlp

For each model it compiles the default pipeline ("default") and a variant
("variant": the codegen passes named by --without left out, the --flag
flags added), reports each one's compile seconds (median of --compiles),
then, unless both compiled to the same bytes, times both with their inputs
resident on one IREE device, interleaved, and prints the medians, their
ratio (variant / default; above 1: the default is faster), and whether the
outputs are bit for bit the same.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tools.bench import systems, timing, zoo  # noqa: E402


def compile_both(source: str, without: list[str], flags: list[str], compiles: int) -> dict[str, tuple[bytes, float]]:
    """{"default" | "variant": (vmfb, median compile seconds)}; the variant leaves the passes `without` out."""
    import oxla

    made = {}
    for name, disabled, extra in (("default", [], []), ("variant", without, flags)):
        seconds = []
        for _ in range(compiles):
            began = time.perf_counter()
            artifact = oxla.compile(source, target="llvm-cpu", flags=extra, disable_passes=disabled)
            seconds.append(time.perf_counter() - began)
        made[name] = (artifact.vmfb, timing.median(seconds))
    return made


def compare(model_name: str, without: list[str], flags: list[str], threads: int, repeat: int, compiles: int) -> str:
    """One line for one zoo model: compile seconds, run times, ratio, and whether outputs agree."""
    from oxla import ir

    model = zoo.build(model_name)
    source = ir.to_text(systems.imported_module(model).module)
    made = compile_both(source, without, flags, compiles)
    line = (f"{model_name:18s} compile {made['default'][1]:6.2f} s -> {made['variant'][1]:6.2f} s")
    if made["default"][0] == made["variant"][0]:
        return line + "  same bytes"
    device = systems.iree_device("local-sync" if threads == 1 else "local-task", "caching")
    runs = {name: systems._iree_resident(vmfb, device, model.inputs) for name, (vmfb, _) in made.items()}
    outs = {name: [np.asarray(r.to_host()) for r in _as_list(run())] for name, run in runs.items()}
    same = all(np.array_equal(a, b) for a, b in zip(outs["default"], outs["variant"]))
    samples = timing.measure(runs, repeat, min_time=0.05)
    base, other = timing.median(samples["default"]), timing.median(samples["variant"])
    return (line + f"  run {base * 1e3:9.3f} ms -> {other * 1e3:9.3f} ms  ratio {other / base:.3f}"
            f"  outputs {'identical' if same else 'differ'}")


def _as_list(results) -> list:
    return list(results) if isinstance(results, (list, tuple)) else [results]


def main(argv: list[str] | None = None) -> int:
    from oxla.pipelines.targets import TARGETS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", choices=sorted(zoo.MODELS), metavar="MODEL",
                        help=f"zoo models: {', '.join(zoo.MODELS)}")
    parser.add_argument("--without", action="append", default=[], metavar="PASS",
                        help="leave this codegen pass out of the variant (repeatable)")
    parser.add_argument("--flag", action="append", default=[], metavar="FLAG",
                        help="add this compiler flag to the variant (repeatable; write --flag=--iree-...)")
    parser.add_argument("--threads", type=int, default=1, choices=(1, 2))
    parser.add_argument("--repeat", type=int, default=11, help="interleaved samples per variant (default 11)")
    parser.add_argument("--compiles", type=int, default=3, help="compiles per variant, for the median (default 3)")
    args = parser.parse_args(argv)
    if not args.without and not args.flag:
        parser.error("name what the variant changes: --without PASS and/or --flag FLAG")
    systems.configure_process(args.threads)
    try:
        TARGETS["llvm-cpu"].codegen_passes_without(args.without)
    except ValueError as exc:
        parser.error(str(exc))
    changes = [f"without {p}" for p in args.without] + [f"with {f}" for f in args.flag]
    print(f"variant: the default {', '.join(changes)}; {args.threads} thread{'s' if args.threads > 1 else ''}")
    for name in args.models:
        print(compare(name, args.without, args.flag, args.threads, args.repeat, args.compiles), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
