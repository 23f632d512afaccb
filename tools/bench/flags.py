#!/usr/bin/env python3
"""Which iree-compile flags make IREE fastest on this machine: every candidate set on the zoo, against XLA.

    python -m tools.bench.flags [--threads 1] [--models ...] [--sets ...] [--repeat 7] [--allocator caching]

For each model it compiles the model with every candidate flag set (through
the `iree-compile` program, as the iree-* systems do), checks the outputs
against XLA's, then times XLA and all sets interleaved in one process and
prints median latency ratios to XLA, one column per set, with the geomean over
the models. The sets are in CANDIDATES: IREE's defaults, the steps to oxla's
llvm-cpu defaults ("chosen": oxla/pipelines/targets.py, and IREE_BEST_FLAGS in
systems.py), that set less each of its flags, and with each flag that was
tried and rejected.

    python -m tools.bench.flags --trials 10 --models transformer_block --sets chosen chosen-32k

compiles each model N times with each set instead, and counts the failures
(iree-compile is not deterministic: some data-tiled programs exceed the
stack allocation limit in some runs only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tools.bench import systems, timing, zoo

BASE = systems.IREE_DEFAULT_FLAGS
HOST = BASE + ("--iree-llvmcpu-target-cpu=host",)
O3 = ("--iree-opt-level=O3",)
DT = ("--iree-opt-data-tiling",)
G1 = ("--iree-global-optimization-opt-level=O1",)
STACK = ("--iree-llvmcpu-stack-allocation-limit=65536",)
CHOSEN = HOST + O3 + DT + G1 + STACK  # oxla's llvm-cpu default (oxla/pipelines/targets.py)
CANDIDATES: dict[str, tuple[str, ...]] = {
    "default": BASE,  # IREE's own: generic x86-64, O0, no data tiling
    "host": HOST,
    "host-dt": HOST + DT,
    "host-O3": HOST + O3 + STACK,
    "host-O3-dt": HOST + O3 + DT + STACK,  # global optimization at O3 too
    "chosen": CHOSEN,
    "chosen-32k": HOST + O3 + DT + G1,  # IREE's own 32 KiB stack allocation limit
    "+ukernels": CHOSEN + ("--iree-llvmcpu-enable-ukernels=all",),
    "+llvm-loops": CHOSEN + ("--iree-llvmcpu-loop-vectorization", "--iree-llvmcpu-loop-unrolling",
                             "--iree-llvmcpu-loop-interleaving"),
    "+reassoc": CHOSEN + ("--iree-llvmcpu-reassociate-fp-reductions=true",),
    "+split-red": CHOSEN + ("--iree-dispatch-creation-enable-split-reduction",),
    "+aggr-fusion": CHOSEN + ("--iree-dispatch-creation-enable-aggressive-fusion",),
    "+im2col": CHOSEN + ("--iree-global-opt-use-im2col-for-convs",),
    "+conv-dt": CHOSEN + ("--iree-dispatch-creation-experimental-set-data-tiling-ops=convolution",),
    "chosen@caching": CHOSEN,  # the same vmfb on a device with IREE's caching allocator
}


def timed(prepared, model, host: bool):
    """The call to time: host arrays in and out, or inputs already on the device."""
    if host:
        return lambda: prepared.call(model.inputs)
    return prepared.resident(model.inputs)


def trials(args) -> int:
    """Compiles each model --trials times with each set; prints how many compiles failed and why."""
    import subprocess

    from oxla import ir

    for model_name in args.models:
        text = ir.to_text(systems.imported_module(zoo.build(model_name)).module).encode()
        for spec in args.sets:
            name = spec.partition("=")[0]
            flags = CANDIDATES.get(name) or CANDIDATES[name.partition("@")[0]]
            errors = []
            for _ in range(args.trials):
                proc = subprocess.run([systems.iree_compile_tool(), "-", *flags, "-o", os.devnull],
                                      input=text, capture_output=True)
                if proc.returncode:
                    errors.append(systems._first_error(proc.stderr.decode(errors="replace")))
            reasons = sorted({e.split("error: ", 1)[-1][:100] for e in errors})
            print(f"{model_name:18s} {name:14s} {len(errors)}/{args.trials} failed  {'; '.join(reasons)}",
                  flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=1, choices=(1, 2))
    p.add_argument("--models", nargs="+", default=list(zoo.MODELS), choices=list(zoo.MODELS))
    p.add_argument("--sets", nargs="+", default=list(CANDIDATES),
                   help="names from CANDIDATES, or name=flag,flag (added to the host CPU flags); "
                        "a name ending in @caching runs on a device with IREE's caching allocator")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--min-time", type=float, default=0.05, help="seconds per sample (calls are batched)")
    p.add_argument("--host", action="store_true",
                   help="time host arrays in and out (default: inputs resident on the device, as the code's own latency)")
    p.add_argument("--allocator", help="iree.runtime allocator, e.g. caching (default: the device's own)")
    p.add_argument("--cache", help="directory for compiled vmfbs (default: a temporary one)")
    p.add_argument("--json", default="flags-results.json")
    p.add_argument("--trials", type=int, help="compile each model this many times per set and count failures")
    args = p.parse_args(argv)

    systems.configure_process(args.threads)
    if args.trials:
        return trials(args)
    sets = {}
    for spec in args.sets:
        name, _, extra = spec.partition("=")
        if extra:
            sets[name] = HOST + tuple(f for f in extra.split(",") if f)
        else:
            sets[name] = CANDIDATES.get(name) or CANDIDATES[name.partition("@")[0]]
    with tempfile.TemporaryDirectory() as scratch:
        settings = systems.Settings(args.threads, args.cache or scratch, args.allocator)
        xla = systems.make("xla", settings)
        iree = {}
        for name, flags in sets.items():  # "name@caching": the same flags on a device with that allocator
            allocator = name.partition("@")[2] or args.allocator
            own = systems.Settings(args.threads, settings.cache, allocator)
            iree[name] = systems.Iree(own, name, flags)
        results = {"threads": args.threads, "mode": "host" if args.host else "resident", "allocator": args.allocator or "default", "sets": sets, "models": {}}
        for model_name in args.models:
            model = zoo.build(model_name)
            ref = xla.prepare(model)
            want = ref.call(model.inputs)
            calls = {"xla": timed(ref, model, args.host)}
            row = {"status": {}, "error": {}, "compile_s": {"xla": ref.compile_s}}
            for name, system in iree.items():
                try:
                    prepared = system.prepare(model)
                except Exception as exc:  # a failed compile is a result too
                    row["status"][name] = f"failed: {str(exc)[:200]}"
                    continue
                err = timing.relative_error(prepared.call(model.inputs), want)
                row["error"][name] = err
                row["compile_s"][name] = prepared.compile_s
                if err > model.tolerance:
                    row["status"][name] = f"WRONG (error {err:.1e})"
                    continue
                row["status"][name] = "ok"
                calls[name] = timed(prepared, model, args.host)
            samples = timing.measure(calls, args.repeat, args.min_time)
            med = {name: timing.median(s) for name, s in samples.items()}
            row["median_s"] = med
            row["ratio"] = {name: m / med["xla"] for name, m in med.items()}
            results["models"][model_name] = row
            shown = "  ".join(f"{n}={row['ratio'][n]:.2f}" if n in row["ratio"] else f"{n}={row['status'][n][:6]}"
                              for n in sets)
            print(f"{model_name:18s} xla {med['xla'] * 1e3:8.3f} ms  {shown}", flush=True)
    print("\ngeomean ratio to XLA (models where the set ran and was right):")
    for name in sets:
        ratios = [row["ratio"][name] for row in results["models"].values() if name in row["ratio"]]
        g = timing.geomean(ratios)
        worst = max(ratios) if ratios else None
        results.setdefault("geomean", {})[name] = g
        print(f"  {name:14s} {g if g is None else round(g, 3)}  (worst {worst and round(worst, 2)}, "
              f"{len(ratios)}/{len(results['models'])} models)")
    with open(args.json, "w") as f:
        json.dump(results, f, indent=1, default=str)
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
