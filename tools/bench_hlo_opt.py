#!/usr/bin/env python3
"""Times oxla-hlo-opt on generated StableHLO modules of 5k, 10k, 20k and 40k ops (target: 20k under 5 s, linear).

Each module is one function made of repeated blocks of a realistic mix
that the optimizer has work on: identities (x * 1, x + -0.0, full slices),
chains (transpose of transpose, reshape of reshape, convert round trips),
constant arithmetic (different in every block) and broadcasts of splats to
fold, duplicated ops for cse,
dead ops, and real work that stays (dot_general, tanh, maximum, add, reduce).
Every size is parsed fresh for each run; the time is `optimize()` alone, the
median of --repeat runs. Printed per size: ops before and after, seconds,
microseconds per op, rounds, and the ratio to the previous (half) size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

# One block: %h (8x16 f32) in, %h out; OPS_PER_BLOCK ops of which about a third survive.
_BLOCK = """\
    %one{i} = stablehlo.constant dense<1.0> : tensor<8x16xf32>
    %m{i} = stablehlo.multiply %h{i}, %one{i} : tensor<8x16xf32>
    %nz{i} = stablehlo.constant dense<-0.0> : tensor<8x16xf32>
    %s{i} = stablehlo.add %m{i}, %nz{i} : tensor<8x16xf32>
    %t{i} = stablehlo.transpose %s{i}, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %tt{i} = stablehlo.transpose %t{i}, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %r{i} = stablehlo.reshape %tt{i} : (tensor<8x16xf32>) -> tensor<128xf32>
    %rr{i} = stablehlo.reshape %r{i} : (tensor<128xf32>) -> tensor<8x16xf32>
    %ca{i} = stablehlo.constant dense<2.0> : tensor<16xf32>
    %cb{i} = stablehlo.constant dense<[{bias}]> : tensor<16xf32>
    %cc{i} = stablehlo.multiply %ca{i}, %cb{i} : tensor<16xf32>
    %b{i} = stablehlo.broadcast_in_dim %cc{i}, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    %y{i} = stablehlo.add %rr{i}, %b{i} : tensor<8x16xf32>
    %d{i} = stablehlo.dot_general %y{i}, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %e{i} = stablehlo.tanh %d{i} : tensor<8x16xf32>
    %f{i} = stablehlo.tanh %d{i} : tensor<8x16xf32>
    %zs{i} = stablehlo.constant dense<0.0> : tensor<f32>
    %z{i} = stablehlo.broadcast_in_dim %zs{i}, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %g{i} = stablehlo.maximum %e{i}, %z{i} : tensor<8x16xf32>
    %dead{i} = stablehlo.exponential %g{i} : tensor<8x16xf32>
    %sl{i} = stablehlo.slice %g{i} [0:8, 0:16] : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %up{i} = stablehlo.convert %sl{i} : (tensor<8x16xf32>) -> tensor<8x16xf64>
    %dn{i} = stablehlo.convert %up{i} : (tensor<8x16xf64>) -> tensor<8x16xf32>
    %sum{i} = stablehlo.reduce(%dn{i} init: %zs{i}) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %sb{i} = stablehlo.broadcast_in_dim %sum{i}, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
    %q{i} = stablehlo.add %dn{i}, %f{i} : tensor<8x16xf32>
    %h{j} = stablehlo.subtract %q{i}, %sb{i} : tensor<8x16xf32>
"""
# The reduce counts its body (add, return) as ops too.
OPS_PER_BLOCK = _BLOCK.count("\n") + 2
SIZES = (5_000, 10_000, 20_000, 40_000)


def generate(n_ops: int) -> str:
    """MLIR text of one function of about `n_ops` ops (the blocks above, chained)."""
    blocks = max(1, n_ops // OPS_PER_BLOCK)
    lines = ["func.func @main(%h0: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {"]
    # Each block's bias differs, so every block has its own constant expression to fold.
    lines += [_BLOCK.format(i=i, j=i + 1, bias=", ".join(f"{(i * 16 + k) * 0.25}" for k in range(16)))
              for i in range(blocks)]
    lines.append(f"    return %h{blocks} : tensor<8x16xf32>\n}}\n")
    return "\n".join(lines)


def count_ops(module) -> int:
    """Ops in the module, nested ones included, the module itself and its functions not."""
    from oxla import ir

    return sum(1 for op in ir.ops(module) if op.name not in ("builtin.module", "func.func"))


def time_one(n_ops: int) -> tuple[float, int, int, int]:
    """(seconds, ops before, ops after, rounds) of one optimize() run on a freshly parsed module."""
    from oxla import ir
    from oxla.transforms.hlo_opt import optimize

    module = ir.parse(generate(n_ops))
    before = count_ops(module)
    began = time.perf_counter()
    report = optimize(module)
    seconds = time.perf_counter() - began
    return seconds, before, count_ops(module), report.iterations


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="module sizes in ops")
    p.add_argument("--repeat", type=int, default=3, help="runs per size (default 3)")
    args = p.parse_args(argv)
    time_one(500)  # warm up: imports, pattern sets, the native pass registry
    previous = None
    met = True
    print(f"{'ops':>7} {'after':>7} {'seconds':>8} {'us/op':>7} {'rounds':>6} {'ratio':>6}")
    for size in args.sizes:
        runs = [time_one(size) for _ in range(args.repeat)]
        seconds = statistics.median(r[0] for r in runs)
        _, before, after, rounds = runs[0]
        ratio = f"{seconds / previous:.2f}" if previous else ""
        print(f"{before:7d} {after:7d} {seconds:8.3f} {seconds / before * 1e6:7.1f} {rounds:6d} {ratio:>6}")
        if 19_000 <= size <= 21_000 and seconds >= 5.0:
            met = False
        previous = seconds
    print(f"median of {args.repeat} runs per size; target 20k ops under 5 s: {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
