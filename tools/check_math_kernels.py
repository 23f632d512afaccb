#!/usr/bin/env python3
"""Checks oxla-expand-math's f32 kernels on every f32 input against numpy's f64 functions.

    python tools/check_math_kernels.py [--ops stablehlo.tanh] [--step 1]

The kernels that compute in f32 arithmetic (math.Expansion.f32_ops) cannot be
proven within an ulp by their fits alone: this compiles each for llvm-cpu,
runs it on every f32 bit pattern (or every `step`-th), and compares with the
f64 function rounded to f32 (within 1e-15 relative, so a distance of one ulp
means within an ulp of the correctly rounded result). Prints, per op, the
histogram of ulp distances and the worst input; exits 1 above `--max-ulp`.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

# op -> numpy's f64 function, for the ops with an f32-arithmetic kernel.
REFERENCES = {"stablehlo.tanh": np.tanh, "stablehlo.log_plus_one": np.log1p, "stablehlo.exponential_minus_one": np.expm1}
CHUNK = 1 << 22


def sweep(op: str, step: int) -> tuple[np.ndarray, float, float]:
    """(histogram of ulp distances 0..7+, worst distance, an input that has it) over every step-th f32."""
    import oxla
    import oxla.runtime as ort
    from oxla.testing.checks import ulp_distance

    t = f"tensor<{CHUNK}xf32>"
    module = ort.load(oxla.compile(f"func.func @main(%x: {t}) -> {t} {{\n  %0 = {op} %x : {t}\n"
                                   f"  return %0 : {t}\n}}\n"), device="local-sync")
    histogram, worst, worst_at = np.zeros(8, np.int64), 0.0, 0.0
    for start in range(0, 1 << 32, CHUNK * step):
        bits = np.arange(start, min(start + CHUNK * step, 1 << 32), step, dtype=np.uint64).astype(np.uint32)
        x = bits.view(np.float32)
        padded = np.zeros(CHUNK, np.float32)
        padded[:x.size] = x
        got = np.asarray(module.main(padded))[:x.size]
        with np.errstate(invalid="ignore", over="ignore"):
            expected = REFERENCES[op](x.astype(np.float64)).astype(np.float32)
        normal = np.abs(x) >= np.finfo(np.float32).smallest_normal
        with np.errstate(invalid="ignore"):
            distance = np.where(normal, ulp_distance(got, expected), 0)
        histogram += np.bincount(np.minimum(distance, 7).astype(np.int64), minlength=8)
        if distance.max() > worst:
            worst, worst_at = float(distance.max()), float(x[distance.argmax()])
    return histogram, worst, worst_at


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", nargs="+", default=list(REFERENCES), choices=list(REFERENCES))
    parser.add_argument("--step", type=int, default=1, help="check every step-th bit pattern (default: all)")
    parser.add_argument("--max-ulp", type=float, default=1.0)
    args = parser.parse_args(argv)
    failed = False
    for op in args.ops:
        histogram, worst, at = sweep(op, args.step)
        counts = ", ".join(f"{d}{'+' if d == 7 else ''}: {n}" for d, n in enumerate(histogram) if n)
        print(f"{op}: {histogram.sum()} inputs; ulp distances {counts}; worst {worst:g} at {at!r}")
        failed |= worst > args.max_ulp
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
