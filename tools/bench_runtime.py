#!/usr/bin/env python3
"""Per-call time of oxla.runtime against raw iree.runtime on the same vmfb.

    python tools/bench_runtime.py                       # add of two f32[4], local-task
    python tools/bench_runtime.py --device local-sync --reps 201 --number 500
    python tools/bench_runtime.py --vmfb add.vmfb --shape 4  # a vmfb of your own: main(f32, f32)
    python tools/bench_runtime.py --max-ratio 1.3            # exit 1 above the budget

Runs the callers interleaved (raw, oxla, raw, oxla, ...), each for `--number`
calls per repetition, and prints the median per-call time of each and the
ratio oxla / raw. "raw" is `iree.runtime.load_vm_flatbuffer(...).main(a, b)`,
which returns a lazy DeviceArray; "raw+asarray" also turns it into a numpy
array, which is what oxla.runtime returns.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

ADD = """
func.func @main(%a: tensor<{n}xf32>, %b: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = stablehlo.add %a, %b : tensor<{n}xf32>
  return %0 : tensor<{n}xf32>
}}
"""
BACKEND = {"local-task": "llvm-cpu", "local-sync": "llvm-cpu", "vulkan": "vulkan-spirv", "cuda": "cuda", "hip": "rocm"}


def compile_add(n: int, device: str) -> bytes:
    """The benchmark program, compiled for the device's backend (needs iree-base-compiler)."""
    from iree.compiler.tools import compile_str

    backend = BACKEND[device]
    extra = ["--iree-llvmcpu-target-cpu=host"] if backend == "llvm-cpu" else []
    return compile_str(ADD.format(n=n), target_backends=[backend], extra_args=extra)


def callers(vmfb: bytes, device: str, a: np.ndarray, b: np.ndarray) -> dict:
    """name -> zero-argument callable making one call, checked to give a + b."""
    import iree.runtime as rt

    import oxla.runtime as ort

    raw = rt.load_vm_flatbuffer(vmfb, driver=device).main
    mod = ort.load(vmfb, device=device).main
    out = {
        "raw": lambda: raw(a, b),
        "raw+asarray": lambda: np.asarray(raw(a, b)),
        "oxla": lambda: mod(a, b),
    }
    for name, call in list(out.items()):
        try:
            ok = np.allclose(np.asarray(call()), a + b)
        except Exception as e:  # raw readback fails on Vulkan, the reason oxla stages results
            reason = f"{type(e).__name__}: {str(e)[:90]}"
            if name == "raw":  # the call itself works; only its result cannot be read
                print(f"{name}: timed without a result check ({reason})")
                continue
            print(f"{name}: skipped ({reason})")
            del out[name]
            continue
        if not ok:
            sys.exit(f"{name} returned a wrong result")
    return out


def measure(calls: dict, reps: int, number: int) -> dict[str, list[float]]:
    """Per-call seconds of each caller, one sample per repetition, callers interleaved."""
    samples = {name: [] for name in calls}
    for call in calls.values():  # warm up
        for _ in range(number):
            call()
    order = list(calls.items())
    for rep in range(reps):
        for name, call in order if rep % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            for _ in range(number):
                call()
            samples[name].append((time.perf_counter() - start) / number)
    return samples


def main(argv: list[str] | None = None) -> int:
    """Parse options, run the benchmark, print medians and ratios."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="local-task")
    p.add_argument("--vmfb", help="a vmfb whose main takes and returns f32[--shape] (default: compile an add)")
    p.add_argument("--shape", type=int, default=4)
    p.add_argument("--reps", type=int, default=101)
    p.add_argument("--number", type=int, default=200)
    p.add_argument("--max-ratio", type=float, help="exit 1 when median oxla / raw exceeds this (e.g. 1.3)")
    args = p.parse_args(argv)
    vmfb = open(args.vmfb, "rb").read() if args.vmfb else compile_add(args.shape, args.device)
    a = np.arange(args.shape, dtype=np.float32)
    b = np.full(args.shape, 0.5, dtype=np.float32)
    calls = callers(vmfb, args.device, a, b)
    samples = measure(calls, args.reps, args.number)
    med = {name: statistics.median(s) for name, s in samples.items()}
    print(f"device {args.device}, f32[{args.shape}] add, {args.reps} reps x {args.number} calls, interleaved")
    for name, m in med.items():
        print(f"  {name:12s} median {m * 1e6:8.2f} us/call   (min {min(samples[name]) * 1e6:8.2f})")
    ratio = med["oxla"] / med["raw"] if "raw" in med and "oxla" in med else None
    if "oxla" in med:
        for base in ("raw", "raw+asarray"):
            if base in med:
                print(f"  ratio oxla / {base}: {med['oxla'] / med[base]:.3f}")
    if args.max_ratio and ratio is not None and ratio > args.max_ratio:
        print(f"FAIL: oxla / raw = {ratio:.3f} > {args.max_ratio}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
