#!/usr/bin/env python3
"""Where a zoo model's or an op's time goes on oxla: each dispatch's time inside the running program.

    python -m tools.bench.dispatches gemm_f32 gemm_bf16 tanh_rnn --repeat 5 [--threads 2]

Compiles each model (a zoo model, or a row of tools.bench.ops) with oxla's
defaults, runs it with `iree-benchmark-module` on one core (`local-sync`,
IREE's caching allocator, the model's own inputs; with --threads N,
`local-task` with N workers), ITERATIONS calls a repetition, with IREE's
host-execution profiling on, and prints `iree-profile statistics` per
dispatch: calls per program call, mean time, and share of the program's
time. The calls are counted, not read from the profile: a program with a
loop submits a command buffer per trip, each a row of its own there. A
call's time is its command buffers' time: host work between them (a loop's
trips) is not in it. Dispatches
measured this way see the caches as the program leaves them, unlike IREE's
per-dispatch benchmarks (`--iree-hal-dump-executable-benchmarks-to`), whose
buffers are never written: every read hits one zero page, so a 1024^3 f32
matmul dispatch measures 8.7 ms there and 9.2 ms in the program.

On CPUs with AMX, oxla's bf16 matmuls use its tiles, which Linux grants a
process only when it asks (oxla.runtime does); the benchmark tool does
not, so it runs with a small library preloaded that asks (built with the
machine's C compiler).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from oxla.runtime import drivers  # noqa: E402
from tools.bench import ops, systems, zoo  # noqa: E402

# One row of `iree-profile statistics`: a dispatch's name, call count and mean time with its unit.
_ROW = re.compile(r"host_execute (\S+)\s+count=(\d+) total=\S+ \S+ avg=(\S+) (\S+)")
_TOTAL = re.compile(r"host_execute_queue \S+ \S+ execute\s+count=(\d+) total=\S+ \S+ avg=(\S+) (\S+)")
_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
ITERATIONS = 20  # program calls per benchmark repetition


def _tool(name: str) -> str:
    """An IREE runtime tool (systems.iree_tool); SystemExit when there is none."""
    found = shutil.which(systems.iree_tool(name))
    if found is None:
        raise SystemExit(f"{name} not found (it comes with iree-base-runtime)")
    return found


# A library whose constructor asks Linux for the AMX tile state in the process that loads it.
_TILE_STATE_SHIM = """#include <sys/syscall.h>
#include <unistd.h>
__attribute__((constructor)) static void request_tile_state(void) { syscall(SYS_arch_prctl, 0x1023, 18); }
"""


def tool_environment(workdir: str) -> dict[str, str]:
    """The environment for IREE's tools: with _TILE_STATE_SHIM preloaded where Linux grants AMX's tile
    state (oxla's AMX kernels fault without it); SystemExit when that needs a C compiler there is none of."""
    env = dict(os.environ)
    if not drivers.request_tile_state():
        return env
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SystemExit("this CPU has AMX: running oxla's kernels under iree-benchmark-module needs a C compiler "
                         "to build the library that asks Linux for the tile state")
    source, library = os.path.join(workdir, "tile_state.c"), os.path.join(workdir, "tile_state.so")
    with open(source, "w") as f:
        f.write(_TILE_STATE_SHIM)
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", library, source], check=True, capture_output=True)
    env["LD_PRELOAD"] = " ".join(filter(None, [library, env.get("LD_PRELOAD")]))
    return env


def input_flag(path: str, array) -> str:
    """`--input=SHAPExTYPE=@file` for `array`, written raw to `path` (IREE reads bf16 this way too)."""
    array.tofile(path)
    named = {"bfloat16": "bf16", "bool": "i1", "complex64": "cf64", "complex128": "cf128"}
    element = named.get(array.dtype.name) or {"f": "f", "i": "i", "u": "ui"}[array.dtype.kind] + str(8 * array.dtype.itemsize)
    return f"--input={'x'.join(map(str, array.shape))}x{element}=@{path}"


def device_flags(threads: int) -> list[str]:
    """The benchmark tool's device flags for `threads` workers: the caller's thread alone for one."""
    if threads <= 1:
        return ["--device=local-sync"]
    return ["--device=local-task", f"--task_topology_group_count={threads}"]


def profile(name: str, repeat: int, workdir: str, threads: int = 1) -> list[tuple[str, int, float]]:
    """(dispatch, calls, mean seconds) of one model, with ("total", calls, seconds) for a whole call last."""
    import oxla
    from oxla import ir

    model = zoo.build(name) if name in zoo.MODELS else ops.build(name)
    artifact = oxla.compile(ir.to_text(systems.imported_module(model).module), target="llvm-cpu")
    vmfb = os.path.join(workdir, f"{name}.vmfb")
    artifact.save(vmfb)
    inputs = [input_flag(os.path.join(workdir, f"{name}.{i}.bin"), a) for i, a in enumerate(model.inputs)]
    trace = os.path.join(workdir, f"{name}.ireeprof")
    one_core = threads <= 1 and shutil.which("taskset")
    pin = ["taskset", "-c", str(min(os.sched_getaffinity(0)))] if one_core else []
    subprocess.run([*pin, _tool("iree-benchmark-module"), f"--module={vmfb}", *device_flags(threads),
                    "--device_allocator=caching", "--function=main", *inputs, f"--benchmark_repetitions={repeat}",
                    f"--benchmark_min_time={ITERATIONS}x",
                    "--device_profiling_mode=host-execution", f"--device_profiling_output={trace}"],
                   check=True, capture_output=True, env=tool_environment(workdir))
    report = subprocess.run([_tool("iree-profile"), "statistics", trace], check=True, capture_output=True,
                            text=True).stdout
    return parse_statistics(report, calls=repeat * ITERATIONS)


def parse_statistics(report: str, calls: int) -> list[tuple[str, int, float]]:
    """(dispatch, calls, mean seconds) from `iree-profile statistics` text, and ("total", calls, mean seconds
    of a whole call) last: every execution's time over the `calls` the program was profiled for (a loop
    records a command buffer every trip, each an execute row of its own)."""
    rows = [(m[1], int(m[2]), float(m[3]) * _SECONDS[m[4]]) for m in _ROW.finditer(report)]
    executes = [(int(m[1]), float(m[2]) * _SECONDS[m[3]]) for m in _TOTAL.finditer(report)]
    if executes:
        rows.append(("total", calls, sum(count * mean for count, mean in executes) / calls))
    return rows


def report(name: str, rows: list[tuple[str, int, float]], threads: int) -> str:
    """The printed table: each dispatch's mean time, its calls per program call, and its share of a call."""
    dispatch_rows = rows[:-1] if rows and rows[-1][0] == "total" else rows
    calls = rows[-1][1] if len(dispatch_rows) < len(rows) else min((r[1] for r in rows), default=1)
    whole = rows[-1][2] if len(dispatch_rows) < len(rows) else sum(r[1] * r[2] for r in rows) / max(calls, 1)
    lines = [f"{name}: {whole * 1e3:.3f} ms per call ({threads} thread{'s' if threads > 1 else ''})"]
    for dispatch, count, seconds in dispatch_rows:
        per_call = count / max(calls, 1)
        share = 100 * seconds * per_call / whole if whole else 0.0
        times = f" x{per_call:g}" if per_call != 1 else ""
        lines.append(f"  {seconds * 1e3:9.3f} ms{times:<5} {share:5.1f}%  {dispatch}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", choices=[*zoo.MODELS, *ops.OPS], metavar="MODEL",
                        help=f"zoo models ({', '.join(zoo.MODELS)}) or tools.bench.ops rows")
    parser.add_argument("--repeat", type=int, default=5, help="benchmark repetitions (default 5)")
    parser.add_argument("--threads", type=int, default=1,
                        help="workers: 1 runs on the caller's thread (local-sync), more on local-task (default 1)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="oxla-dispatches-") as workdir:
        for name in args.models:
            rows = profile(name, args.repeat, workdir, args.threads)
            print(report(name, rows, args.threads))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
