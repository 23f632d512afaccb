#!/usr/bin/env python3
"""Benchmark oxla-opt against iree-opt, measured side by side in one run.

    python tools/bench_opt.py [--repeat 9] [--ops 20000] [--json out.json]

Prints medians and the ratios the foundation promises:
  1. whole-process time on a 1-op module:               oxla-opt / iree-opt <= 1.5
  2. canonicalize,cse on a generated N-op StableHLO module: oxla-opt / iree-opt <= 1.1
  3. a Python pass that walks every op of that module and changes nothing: < 100 ms
Runs are interleaved (oxla, iree, oxla, ...) so machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

from benchlib import tool


def one_op_module() -> str:
    return (
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n"
        "  return %0 : tensor<4xf32>\n}\n"
    )


def big_module(n_ops: int) -> str:
    """A function with about n_ops StableHLO ops: chains with repeats for cse to find."""
    lines = ["func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {"]
    kinds = ["add", "multiply", "subtract", "maximum"]
    prev, other, prev_in = "%a", "%b", "%a"
    for i in range(n_ops):
        if i % 10 == 9:  # a duplicate of the previous op: work for cse
            lines.append(f"  %v{i} = stablehlo.{kinds[(i - 1) % 4]} {prev_in}, {other} : tensor<8x8xf32>")
        else:
            lines.append(f"  %v{i} = stablehlo.{kinds[i % 4]} {prev}, {other} : tensor<8x8xf32>")
            prev_in = prev
        prev, other = f"%v{i}", prev
    lines.append(f"  return {prev} : tensor<8x8xf32>\n}}")
    return "\n".join(lines) + "\n"


def time_command(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def interleaved(commands: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """Median wall time of each command, runs interleaved, after one warm-up each."""
    for cmd in commands.values():
        time_command(cmd)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, cmd in commands.items():
            samples[name].append(time_command(cmd))
    return {name: statistics.median(values) for name, values in samples.items()}


def walk_pass_time(path: str, repeat: int) -> tuple[float, int]:
    """Median time of a Python pass that visits every op and changes nothing."""
    from oxla import ir, transforms

    seen = [0]

    @transforms.register_pass
    class WalkEverything(transforms.Pass):
        """Visits every op and changes nothing (benchmark)."""

        name = "oxla-bench-walk"

        def run(self, op) -> None:
            def visit(_):
                seen[0] += 1
                return ir.WalkResult.ADVANCE

            op.walk(visit)

    module = ir.parse_file(path)
    pipeline = transforms.PassPipeline("builtin.module(oxla-bench-walk)")
    times = []
    for _ in range(repeat):
        seen[0] = 0
        start = time.perf_counter()
        pipeline.run(module)
        times.append(time.perf_counter() - start)
    return statistics.median(times), seen[0]



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--ops", type=int, default=20000)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    oxla_opt, iree_opt = tool("oxla-opt"), tool("iree-opt")
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        small, big = os.path.join(tmp, "one.mlir"), os.path.join(tmp, "big.mlir")
        with open(small, "w") as f:
            f.write(one_op_module())
        with open(big, "w") as f:
            f.write(big_module(args.ops))

        t = interleaved({"oxla-opt": [oxla_opt, small], "iree-opt": [iree_opt, small]}, args.repeat)
        results["one-op module, whole process"] = {**t, "ratio": t["oxla-opt"] / t["iree-opt"], "target": 1.5}

        pipe = "--pass-pipeline=builtin.module(canonicalize,cse)"
        t = interleaved({"oxla-opt": [oxla_opt, big, pipe], "iree-opt": [iree_opt, big, pipe]}, args.repeat)
        results[f"{args.ops}-op module, canonicalize,cse"] = {
            **t, "ratio": t["oxla-opt"] / t["iree-opt"], "target": 1.1}

        seconds, visited = walk_pass_time(big, args.repeat)
        results[f"Python walk pass over {visited} ops"] = {"oxla": seconds, "target_s": 0.1}

    print(f"{'benchmark':<48} {'oxla s':>9} {'iree s':>9} {'ratio':>7} {'target':>8}")
    for name, r in results.items():
        if "ratio" in r:
            ok = "ok" if r["ratio"] <= r["target"] else "MISSED"
            print(f"{name:<48} {r['oxla-opt']:>9.4f} {r['iree-opt']:>9.4f} {r['ratio']:>7.2f} "
                  f"{'<= ' + str(r['target']):>8} {ok}")
        else:
            ok = "ok" if r["oxla"] < r["target_s"] else "MISSED"
            print(f"{name:<48} {r['oxla']:>9.4f} {'':>9} {'':>7} {'< 0.1 s':>8} {ok}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
