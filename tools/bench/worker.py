"""The processes run.py starts: one timed run per thread count, one memory probe per system and model.

    python -m tools.bench.worker time --threads 1 --models ... --systems ... --json out.json
    python -m tools.bench.worker probe --system oxla --model mlp --threads 1

Thread settings (XLA_FLAGS, affinity, IREE's task topology) must be in
place before any framework starts, so each configuration gets a process.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import sys
import time
import traceback

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tools.bench import systems, timing, zoo


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:240] if text else ''}"


def time_models(args) -> dict:
    """Every model on every system, interleaved per model; outputs checked against XLA's."""
    settings = systems.Settings(args.threads, args.cache, args.allocator)
    made = {}
    missing = {}
    for name in args.systems:
        system = systems.make(name, settings)
        reason = system.missing()
        if reason:
            missing[name] = f"missing: {reason}"
            log(f"[{args.threads}T] {name}: {missing[name]}")
        else:
            made[name] = system
    if "xla" not in made:
        raise SystemExit("XLA (jax) is the reference every output is checked against; install jax")
    out = {"threads": args.threads, "models": {}}
    for model_name in args.models:
        try:
            model = zoo.build(model_name)
        except Exception as exc:  # a model that needs a missing library
            out["models"][model_name] = {"status": f"failed to build: {_short(exc)}", "systems": {}}
            log(f"[{args.threads}T] {model_name}: cannot build ({_short(exc)})")
            continue
        row = {"description": model.description, "flops": model.flops, "tolerance": model.tolerance,
               "notes": model.notes, "systems": {n: {"status": m} for n, m in missing.items()}}
        out["models"][model_name] = row
        prepared = {}
        reference = None
        for name, system in sorted(made.items(), key=lambda kv: kv[0] != "xla"):  # XLA first
            entry = row["systems"].setdefault(name, {})
            began = time.perf_counter()
            try:
                ready = system.prepare(model)
                got = ready.call(model.inputs)
            except Exception as exc:
                entry["status"] = f"failed: {_short(exc)}"
                log(f"[{args.threads}T] {model_name} / {name}: {entry['status']}")
                if args.verbose:
                    traceback.print_exc()
                continue
            if reference is None:
                reference = got
            entry["compile_s"] = ready.compile_s
            if ready.cache_hit_s is not None:
                entry["cache_hit_s"] = ready.cache_hit_s
            entry["info"] = ready.info
            err = timing.relative_error(got, reference)
            entry["error"] = err
            if not err <= model.tolerance:
                entry["status"] = f"WRONG (error {err:.1e} > {model.tolerance:.0e})"
                log(f"[{args.threads}T] {model_name} / {name}: {entry['status']}")
                continue
            entry["status"] = "ok"
            prepared[name] = ready
            log(f"[{args.threads}T] {model_name} / {name}: ready in {time.perf_counter() - began:.1f} s "
                f"(compile {ready.compile_s:.2f} s), error {err:.1e}")
        calls = {}
        for name, ready in prepared.items():
            calls[(name, "host")] = lambda r=ready: r.call(model.inputs)
            if ready.resident is not None:
                calls[(name, "resident")] = ready.resident(model.inputs)
        samples = timing.measure(calls, args.repeat, args.min_time)
        for (name, mode), values in samples.items():
            row["systems"][name][mode] = {"median_s": timing.median(values), "min_s": min(values),
                                         "max_s": max(values), "samples": len(values)}
        shown = ", ".join(f"{n} {row['systems'][n]['resident']['median_s'] * 1e3:.3f}"
                          for n in prepared if "resident" in row["systems"][n])
        log(f"[{args.threads}T] {model_name}: resident medians (ms): {shown}")
        del prepared, calls, reference
        gc.collect()
    return out


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _reset_peak() -> bool:
    """Frees what malloc holds and resets the kernel's peak-RSS mark (Linux 4.0+); False where it cannot."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def probe(args) -> dict:
    """Peak memory of one system running one model: resident-set growth over three calls, and its own figures."""
    settings = systems.Settings(args.threads, args.cache, args.allocator)
    system = systems.make(args.system, settings)
    reason = system.missing()
    if reason:
        return {"status": f"missing: {reason}"}
    model = zoo.build(args.model)
    ready = system.prepare(model)
    inputs = [a.copy() for a in model.inputs]
    gc.collect()
    if not _reset_peak():
        return {"status": "no /proc/self/clear_refs here"}
    base = _status_kib("VmRSS")
    for _ in range(3):
        ready.call(inputs)
    peak = _status_kib("VmHWM")
    found = {"status": "ok", "rss_growth_bytes": (peak - base) * 1024, "rss_base_bytes": base * 1024}
    if ready.memory is not None:
        found["reported"] = ready.memory()
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("role", choices=("time", "probe"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--models", nargs="+", default=list(zoo.MODELS))
    p.add_argument("--systems", nargs="+", default=list(systems.SYSTEM_NAMES))
    p.add_argument("--system")
    p.add_argument("--model")
    p.add_argument("--repeat", type=int, default=11)
    p.add_argument("--min-time", type=float, default=0.05)
    p.add_argument("--cache")
    p.add_argument("--allocator")
    p.add_argument("--json")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    systems.configure_process(args.threads)  # before any framework starts its threads
    result = time_models(args) if args.role == "time" else probe(args)
    text = json.dumps(result, default=str)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
