#!/usr/bin/env python3
"""oxla's benchmark suite: the zoo on oxla, XLA, IREE, torch and ONNX Runtime, side by side.

    python -m tools.bench.run                       # everything, 1 and 2 threads
    python tools/bench/run.py --threads 1 --models gemm_f32 mlp --repeat 21

For each thread count a fresh process (pinned to that many cores, every
system told to use that many threads) builds each model, prepares it on every
system, checks every output against XLA's (a mismatch beyond the model's
tolerance is reported WRONG and not timed), then times all systems
interleaved: warm-up, calls batched into samples of --min-time seconds,
--repeat samples each, medians. Two ways of calling are timed: "resident"
(inputs already on the device, results left there: the compiled code) and
"host" (numpy in, numpy out: what a user of each API gets).

Then, one process per system and model, peak memory: resident-set growth
over three calls, and the device bytes each system reports (IREE's allocator
statistics, XLA's buffer assignment). And the FMA peak of a core
(fma_peak.c), the ceiling for the f32 GEMM.

Writes --json and a PNG chart (--chart), and regenerates the table in
docs/performance.md between `<!-- bench:begin -->` and `<!-- bench:end -->`
when the run covers the whole zoo on both thread counts (or with --docs).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tools.bench import systems, timing, zoo

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DOCS = os.path.join(ROOT, "docs", "performance.md")
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
# torch.compile recompiles in every process (minutes over the zoo): probed only when asked.
PROBED_BY_DEFAULT = ("oxla", "xla", "iree-default", "iree-best", "torch", "onnxruntime")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _worker(args: list[str], timeout: float | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "tools.bench.worker", *args]
    return subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True, timeout=timeout)


def fma_peak(cache: str, threads: int) -> float | None:
    """GFLOP/s of `threads` cores running FMA chains (one pinned process per core), or None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None
    exe = os.path.join(cache, "fma_peak")
    if not os.path.exists(exe):
        built = subprocess.run([cc, "-O2", "-march=native", os.path.join(HERE, "fma_peak.c"), "-o", exe],
                               capture_output=True, text=True)
        if built.returncode != 0:
            log(f"fma_peak.c does not build here: {built.stderr.strip()[:200]}")
            return None
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(threads))
    if len(cpus) < threads:
        return None
    procs = []
    for cpu in cpus[:threads]:
        pin = ["taskset", "-c", str(cpu)] if shutil.which("taskset") else []
        procs.append(subprocess.Popen([*pin, exe, "0.2"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      text=True))
    return sum(float(p.communicate()[0].strip() or 0) for p in procs)


def run_threads(args, threads: int, cache: str) -> dict:
    out = os.path.join(cache, f"time-{threads}.json")
    cmd = ["time", "--threads", str(threads), "--models", *args.models, "--systems", *args.systems,
           "--repeat", str(args.repeat), "--min-time", str(args.min_time), "--cache", cache, "--json", out]
    if args.allocator:
        cmd += ["--allocator", args.allocator]
    log(f"== {threads} thread{'s' if threads > 1 else ''}")
    done = _worker(cmd)
    if done.returncode != 0:
        raise SystemExit(f"the {threads}-thread run failed (exit {done.returncode})")
    with open(out) as f:
        return json.load(f)


def run_probes(args, cache: str, timed: dict) -> dict:
    """{model: {system: probe result}} for the systems that ran right in the 1-thread run."""
    found: dict[str, dict] = {}
    ran = timed.get(1) or next(iter(timed.values()))
    for model, row in ran["models"].items():
        for name, entry in row.get("systems", {}).items():
            if name not in args.probe or entry.get("status") != "ok":
                continue
            cmd = ["probe", "--system", name, "--model", model, "--threads", "1", "--cache", cache]
            try:
                done = _worker(cmd, timeout=900)
                result = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {
                    "status": f"probe failed (exit {done.returncode})"}
            except (subprocess.TimeoutExpired, ValueError, IndexError) as exc:
                result = {"status": f"probe failed: {type(exc).__name__}"}
            found.setdefault(model, {})[name] = result
            growth = result.get("rss_growth_bytes")
            log(f"memory {model} / {name}: " + (f"{growth / 2**20:.1f} MiB RSS growth" if growth is not None
                                                 else result.get("status", "?")))
    return found


def versions() -> dict:
    from importlib import metadata

    found = {}
    for package in ("iree-base-compiler", "iree-base-runtime", "jax", "jaxlib", "torch", "onnxruntime",
                    "transformers", "numpy"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = None
    return found


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def summarize(results: dict) -> None:
    """Adds ratios to XLA (per thread count and mode) and geomeans to `results` in place."""
    for run in results["runs"].values():
        geo: dict[str, dict[str, list[float]]] = {}
        for row in run["models"].values():
            entries = row.get("systems", {})
            for mode in ("resident", "host"):
                base = entries.get("xla", {}).get(mode, {}).get("median_s")
                for name, entry in entries.items():
                    m = entry.get(mode, {}).get("median_s")
                    if base and m:
                        entry[mode]["ratio_to_xla"] = m / base
                        geo.setdefault(mode, {}).setdefault(name, []).append(m / base)
        run["geomean_ratio_to_xla"] = {mode: {n: timing.geomean(v) for n, v in per.items()}
                                       for mode, per in geo.items()}
        run["worst_ratio_to_xla"] = {mode: {n: max(v) for n, v in per.items()} for mode, per in geo.items()}


# ---------------------------------------------------------------------------
# Output: chart and docs table
# ---------------------------------------------------------------------------


def chart(results: dict, path: str) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return "matplotlib is not installed (pip install -e '.[bench]')"
    runs = results["runs"]
    fig, axes = plt.subplots(len(runs), 1, figsize=(13, 4.2 * len(runs)), squeeze=False)
    for ax, (threads, run) in zip(axes[:, 0], sorted(runs.items())):
        models = [m for m, row in run["models"].items() if row.get("systems")]
        names = [s for s in results["systems"] if s != "xla"]
        width = 0.8 / max(1, len(names))
        for i, name in enumerate(names):
            values = [run["models"][m]["systems"].get(name, {}).get("resident", {}).get("ratio_to_xla")
                      for m in models]
            xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(models))]
            ax.bar([x for x, v in zip(xs, values) if v], [v for v in values if v], width, label=name)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xticks(range(len(models)))
        ax.set_xticklabels(models, rotation=15)
        ax.set_ylabel("latency / XLA (log; lower is faster)")
        ax.set_title(f"{threads} thread{'s' if int(threads) > 1 else ''}: median latency relative to XLA "
                     "(inputs resident on the device)")
        ax.legend(ncol=4, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} us"


def _cell(entry: dict, mode: str) -> str:
    status = entry.get("status", "")
    if status != "ok":
        return status.split(":")[0] if status.startswith(("missing", "failed")) else status.split(" (")[0]
    timed = entry.get(mode)
    if not timed:
        return ""
    ratio = timed.get("ratio_to_xla")
    return f"{_ms(timed['median_s'])} ({ratio:.2f})" if ratio is not None else _ms(timed["median_s"])


def latency_table(results: dict, threads: str, mode: str) -> list[str]:
    run = results["runs"][threads]
    names = results["systems"]
    lines = ["| model | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for model, row in run["models"].items():
        entries = row.get("systems", {})
        if not entries:
            lines.append(f"| {model} | {row.get('status', '')} |")
            continue
        lines.append(f"| {model} | " + " | ".join(_cell(entries.get(n, {}), mode) for n in names) + " |")
    geo = run.get("geomean_ratio_to_xla", {}).get(mode, {})
    worst = run.get("worst_ratio_to_xla", {}).get(mode, {})
    lines.append("| **geomean ratio** | " + " | ".join(f"**{geo[n]:.2f}**" if geo.get(n) else "" for n in names) + " |")
    lines.append("| worst ratio | " + " | ".join(f"{worst[n]:.2f}" if worst.get(n) else "" for n in names) + " |")
    return lines


def docs_section(results: dict) -> str:
    runs = results["runs"]
    out = [f"Generated by `python -m tools.bench.run` on {results['date']}: {results['cpu']}, "
           f"{results['cpus']} cores, IREE {results['versions'].get('iree-base-compiler')}, "
           f"jax {results['versions'].get('jax')}, torch {results['versions'].get('torch')}, "
           f"onnxruntime {results['versions'].get('onnxruntime')}. Medians of {results['repeat']} interleaved "
           f"samples; in brackets the ratio to XLA in the same run (below 1: faster than XLA). "
           f"`WRONG`: outputs differ from XLA's beyond the model's tolerance (not timed); "
           f"`missing`: not installed; `failed`: the system cannot run the model. "
           f"The run also writes every sample's summary to `bench-results.json` and a chart to "
           f"`bench-results.png`.", ""]
    for threads in sorted(runs):
        plural = "s" if int(threads) > 1 else ""
        out += [f"**{threads} thread{plural}, inputs resident on the device** (the compiled code's latency; "
                "oxla's vmfb runs through iree.runtime here):", ""]
        out += latency_table(results, threads, "resident") + [""]
        out += [f"**{threads} thread{plural}, numpy in, numpy out** (each API as a user calls it):", ""]
        out += latency_table(results, threads, "host") + [""]
    gemm = _gemm_line(results)
    if gemm:
        out += [gemm, ""]
    compile_rows = _compile_table(results)
    if compile_rows:
        out += ["Compile time (seconds, from the JAX function to something callable; 1-thread run). The first "
                "columns start from empty caches; the cache hits are a second compile with each system's "
                "persistent compile cache holding the program (oxla's `cache=`, JAX's compilation cache), "
                "so they include the import from JAX and the tracing:", ""]
        out += compile_rows + [""]
    memory_rows = _memory_table(results)
    if memory_rows:
        out += ["Peak memory of three calls (numpy in and out), one process per system and model: growth "
                "of the resident set over its size after loading (MiB), and in brackets the device bytes "
                "the system itself accounts for (IREE's allocator peak, including inputs, outputs and "
                "buffers made at load, but not the host arrays oxla reads in place; XLA's buffer "
                "assignment: arguments, outputs and temporaries):", ""]
        out += memory_rows + [""]
    return "\n".join(out)


def _gemm_line(results: dict) -> str | None:
    peak = results.get("fma_peak_gflops", {}).get("1")
    run = results["runs"].get("1")
    if not run or "gemm_f32" not in run["models"]:
        return None
    row = run["models"]["gemm_f32"]
    flops = row.get("flops")
    parts = []
    for name in results["systems"]:
        m = row.get("systems", {}).get(name, {}).get("resident", {}).get("median_s")
        if m and flops:
            gf = flops / m / 1e9
            parts.append(f"{name} {gf:.0f}" + (f" ({gf / peak:.0%})" if peak else ""))
    head = (f"f32 GEMM on one core, GFLOP/s (share of the FMA peak of {peak:.0f} GFLOP/s measured by "
            f"`fma_peak.c` in the same run): ") if peak else "f32 GEMM on one core, GFLOP/s: "
    return head + ", ".join(parts) + "."


def _compile_table(results: dict) -> list[str]:
    run = results["runs"].get("1") or next(iter(results["runs"].values()))
    names = [n for n in ("oxla", "xla", "iree-default", "iree-best", "torch.compile", "onnxruntime")
             if n in results["systems"]]
    lines = ["| model | " + " | ".join(names) + " | oxla / xla | oxla, cache hit | xla, cache hit | oxla / xla |",
             "|---" * (len(names) + 5) + "|"]

    def ratio(e: dict, field: str) -> str:
        ox, xl = e.get("oxla", {}).get(field), e.get("xla", {}).get(field)
        return f"{ox / xl:.1f}" if ox and xl else ""

    def seconds(value) -> str:
        return "" if value is None else f"{value:.2f}" if value >= 0.1 else f"{value:.3f}"

    for model, row in run["models"].items():
        e = row.get("systems", {})
        cold = [seconds(e.get(n, {}).get("compile_s")) for n in names]
        hits = [seconds(e.get(n, {}).get("cache_hit_s")) for n in ("oxla", "xla")]
        lines.append(f"| {model} | " + " | ".join(cold) + f" | {ratio(e, 'compile_s')} | " + " | ".join(hits)
                     + f" | {ratio(e, 'cache_hit_s')} |")
    return lines


def _memory_table(results: dict) -> list[str]:
    memory = results.get("memory") or {}
    if not memory:
        return []
    names = [n for n in results["systems"] if any(n in per for per in memory.values())]
    lines = ["| model | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for model, per in memory.items():
        cells = []
        for n in names:
            r = per.get(n)
            if not r or r.get("status") != "ok":
                cells.append("" if not r else r.get("status", "")[:20])
                continue
            cell = f"{r['rss_growth_bytes'] / 2**20:.1f}"
            device = (r.get("reported") or {}).get("device_bytes")
            if device:
                cell += f" ({device / 2**20:.1f})"
            cells.append(cell)
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return lines


def update_docs(path: str, section: str) -> None:
    with open(path) as f:
        text = f.read()
    block = f"{BEGIN}\n{section.rstrip()}\n{END}"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        text = head + block + tail
    else:
        text = text.rstrip() + "\n\n## The benchmark suite\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, nargs="+", choices=(1, 2), default=[1, 2])
    p.add_argument("--models", nargs="+", choices=list(zoo.MODELS), default=list(zoo.MODELS))
    p.add_argument("--systems", nargs="+", choices=list(systems.SYSTEM_NAMES), default=list(systems.SYSTEM_NAMES))
    p.add_argument("--repeat", type=int, default=11, help="samples per system and model (default 11)")
    p.add_argument("--min-time", type=float, default=0.05, help="seconds per sample; calls are batched")
    p.add_argument("--probe", nargs="*", default=None,
                   help=f"systems to measure peak memory of (default: {' '.join(PROBED_BY_DEFAULT)}; "
                        "none: --probe with no names)")
    p.add_argument("--allocator", help="IREE allocator for the iree-* systems, e.g. caching")
    p.add_argument("--cache", help="keep compiled artifacts here between runs (default: a temporary directory)")
    p.add_argument("--json", default="bench-results.json")
    p.add_argument("--chart", default="bench-results.png")
    p.add_argument("--docs", nargs="?", const=DOCS, default=None,
                   help="regenerate the table in this file even for a partial run (default: docs/performance.md, "
                        "updated on full runs only)")
    p.add_argument("--no-docs", action="store_true")
    p.add_argument("--from-json", metavar="PATH",
                   help="measure nothing: redraw the chart and the docs table from an earlier run's JSON")
    args = p.parse_args(argv)
    if args.from_json:
        with open(args.from_json) as f:
            results = json.load(f)
        return report(results, args, full=set(results["runs"]) == {"1", "2"}
                      and all(set(r["models"]) == set(zoo.MODELS) for r in results["runs"].values()))
    args.probe = list(PROBED_BY_DEFAULT) if args.probe is None else args.probe
    args.probe = [s for s in args.probe if s in args.systems]
    if "xla" not in args.systems:
        args.systems.insert(0, "xla")

    scratch = None
    cache = args.cache
    if not cache:
        scratch = tempfile.TemporaryDirectory(prefix="oxla-bench-")
        cache = scratch.name
    os.makedirs(cache, exist_ok=True)
    try:
        results = {
            "date": datetime.date.today().isoformat(),
            "cpu": cpu_name(),
            "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "versions": versions(),
            "repeat": args.repeat,
            "min_time_s": args.min_time,
            "systems": args.systems,
            "iree_best_flags": list(systems.IREE_BEST_FLAGS),
            "fma_peak_gflops": {},
            "runs": {},
        }
        for threads in args.threads:
            results["fma_peak_gflops"][str(threads)] = fma_peak(cache, threads)
            log(f"FMA peak, {threads} core{'s' if threads > 1 else ''}: {results['fma_peak_gflops'][str(threads)]} GFLOP/s")
        timed = {t: run_threads(args, t, cache) for t in args.threads}
        results["runs"] = {str(t): r for t, r in timed.items()}
        summarize(results)
        if args.probe:
            results["memory"] = run_probes(args, cache, timed)
    finally:
        if scratch:
            scratch.cleanup()

    with open(args.json, "w") as f:
        json.dump(results, f, indent=1, default=str)
    log(f"wrote {args.json}")
    return report(results, args, full=set(args.models) == set(zoo.MODELS) and set(args.threads) == {1, 2})


def report(results: dict, args, full: bool) -> int:
    """Draws the chart, prints the docs section, and writes it into the docs when asked or complete."""
    problem = chart(results, args.chart)
    log(f"chart: {problem}" if problem else f"wrote {args.chart}")
    section = docs_section(results)
    print(section)
    if not args.no_docs and (args.docs or full):
        update_docs(args.docs or DOCS, section)
        log(f"updated {args.docs or DOCS}")
    elif not args.no_docs:
        log("docs not updated (a partial run); pass --docs to update them anyway")
    return 0


if __name__ == "__main__":
    sys.exit(main())
