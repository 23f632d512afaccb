#!/usr/bin/env python3
"""Benchmark oxla.compile against iree-compile with identical flags, in one run.

    python tools/bench_compile.py [--repeat 7]

For each program (the bundled examples and a 1024x1024 f32 matmul) it
prints the median wall time of
  - oxla.compile in a warm process (the API),
  - the oxla-compile console program (a fresh process each time),
  - iree-compile as a process, given exactly the flags oxla used (Artifact.flags),
and the ratios to iree-compile. Target: oxla.compile <= 1.1x iree-compile.
Runs are interleaved so that machine noise hits every system alike.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import tempfile
import time

from benchlib import tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MATMUL = """func.func @matmul(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
"""



def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench_program(path: str, repeat: int, out_dir: str) -> dict[str, float]:
    """Median seconds of each way of compiling `path`, interleaved."""
    from oxla.pipelines import compile

    artifact = compile(path)  # warm-up; also tells the exact flags
    iree_cmd = [tool("iree-compile"), path, *artifact.flags, "-o", os.path.join(out_dir, "iree.vmfb")]
    oxla_cmd = [tool("oxla-compile"), path, "-o", os.path.join(out_dir, "oxla.vmfb")]
    subprocess.run(iree_cmd, check=True)
    runs = {"oxla.compile": lambda: compile(path),
            "oxla-compile": lambda: subprocess.run(oxla_cmd, check=True),
            "iree-compile": lambda: subprocess.run(iree_cmd, check=True)}
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, fn in runs.items():
            samples[name].append(timed(fn))
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        matmul = os.path.join(tmp, "matmul_1024.mlir")
        with open(matmul, "w") as f:
            f.write(MATMUL)
        programs = sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir"))) + [matmul]
        print(f"{'program':<22} {'oxla.compile':>13} {'oxla-compile':>13} {'iree-compile':>13} "
              f"{'api/iree':>9} {'cli/iree':>9}")
        for path in programs:
            t = bench_program(path, args.repeat, tmp)
            print(f"{os.path.basename(path):<22} {t['oxla.compile']:>12.3f}s {t['oxla-compile']:>12.3f}s "
                  f"{t['iree-compile']:>12.3f}s {t['oxla.compile'] / t['iree-compile']:>9.2f} "
                  f"{t['oxla-compile'] / t['iree-compile']:>9.2f}", flush=True)


if __name__ == "__main__":
    main()
