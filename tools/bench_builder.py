#!/usr/bin/env python3
"""Times building a 20,000-op StableHLO module with oxla's builders (target: under 2 s).

Two ways, each the median of --repeat runs in this process:
- `ops`: the op builders (`oxla.dialects.stablehlo`), 20,000 ops in one function;
- `program`: the program builder (`oxla.builder`), Tensor arithmetic whose
  broadcasting and promotion add their own ops, counted in the module.
Each run builds, then verifies the module once; both times are printed.
"""

import argparse
import statistics
import time

from oxla import ir
from oxla.builder import Program, Tensor
from oxla.dialects import stablehlo as shlo


def build_with_op_builders(n_ops: int):
    """n_ops element-wise ops chained through one function, built with the op builders."""
    program = Program()

    def body(x, y):
        a, b = x.value, y.value
        for i in range(n_ops // 4):
            c = shlo.add(a, b)
            d = shlo.multiply(c, a)
            e = shlo.maximum(d, b)
            a, b = shlo.tanh(e), c
        return Tensor(a)

    program.function(body, args=[((64, 64), "f32"), ((64, 64), "f32")])
    return program.module


def build_with_tensors(n_ops: int):
    """A chain of Tensor expressions (a matmul, scalars broadcast, a keepdims max) of about n_ops ops."""
    program = Program()

    def step(h, w):
        h = (h @ w) * 0.5 + h
        return h - h.max(axis=1, keepdims=True)

    def body(x, w):
        h = step(x, w)
        per_step = len(h.value.owner.operation.block.operations)
        for _ in range(n_ops // per_step - 1):
            h = step(h, w)
        return h

    program.function(body, args=[((32, 32), "f32"), ((32, 32), "f32")])
    return program.module


def time_one(build, n_ops: int) -> tuple[float, float, int]:
    """(build seconds, verify seconds, ops in the module) for one run."""
    t0 = time.perf_counter()
    module = build(n_ops)
    t1 = time.perf_counter()
    with ir.context():
        module.operation.verify()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, len(module.body.operations[0].regions[0].blocks[0].operations)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", type=int, default=20000, help="ops per module (default 20000)")
    p.add_argument("--repeat", type=int, default=5, help="runs per way (default 5)")
    args = p.parse_args()
    for name, build in (("ops", build_with_op_builders), ("program", build_with_tensors)):
        runs = [time_one(build, args.ops) for _ in range(args.repeat)]
        b = statistics.median(r[0] for r in runs)
        v = statistics.median(r[1] for r in runs)
        print(f"{name:8s} {runs[0][2]:6d} ops: build {b:.3f} s (median of {args.repeat}), verify {v:.3f} s, "
              f"{b / runs[0][2] * 1e6:.1f} us/op; target < 2 s: {'met' if b + v < 2.0 else 'MISSED'}")


if __name__ == "__main__":
    main()
