#!/usr/bin/env python3
"""What oxla-hlo-opt does to real programs: op counts, compile time and run time before and after.

The programs are the benchmark zoo's MLP, ResNet block and transformer block,
exported from JAX (tools/bench/zoo.py) and the same three written as
ordinary torch modules and exported with torch.export; both go through
oxla's importers. For each: StableHLO ops before and after oxla-hlo-opt, the
optimizer's time, oxla.compile time with optimize=False and True, the
median run time of each compiled module on llvm-cpu (local-sync, one
thread), and whether their outputs agree. Writes the table into
docs/optimizer.md between its report markers (--no-write: print only).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "optimizer.md")
BEGIN, END = "<!-- report:begin -->", "<!-- report:end -->"
sys.path.insert(0, ROOT)


def torch_models() -> dict:
    """The three models as ordinary torch modules with example inputs (NCHW for the convolutions)."""
    import torch
    from torch import nn

    torch.manual_seed(0)

    class Block(nn.Module):
        def __init__(self, c: int):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, c, 3, padding=1)

        def forward(self, x):
            return torch.relu(self.conv2(torch.relu(self.conv1(x))) + x)

    mlp = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10),
                        nn.Softmax(dim=-1))
    encoder = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, activation="gelu", batch_first=True,
                                         norm_first=True)
    return {
        "mlp": (mlp.eval(), (torch.randn(64, 784),)),
        "resnet_block": (Block(64).eval(), (torch.randn(1, 64, 56, 56),)),
        "transformer_block": (encoder.eval(), (torch.randn(1, 128, 256),)),
    }


def imported_programs(names: list[str]):
    """(framework, model name, ImportedModel, flat numpy inputs) for each model from each framework."""
    from oxla.importers.jax import import_jax
    from oxla.importers.torch import import_torch
    from tools.bench import zoo

    for name in names:
        model = zoo.build(name)
        imported = import_jax(model.fn, *model.inputs)
        yield "jax", name, imported, imported.flatten_inputs(*model.inputs)
    for name, (module, args) in torch_models().items():
        if name in names:
            imported = import_torch(module, args)
            yield "torch", name, imported, imported.flatten_inputs(*args)


def count_ops(module) -> int:
    """Ops inside the module's functions (not counting the functions and the module)."""
    from oxla import ir

    return sum(1 for op in ir.ops(module) if op.name not in ("builtin.module", "func.func"))


def run_time(artifact, function: str, inputs: list, repeat: int) -> tuple[float, list]:
    """(median seconds per call after a warm-up, the outputs) on local-sync."""
    import oxla.runtime as rt

    fn = rt.load(artifact.vmfb, device="local-sync")[function]
    outputs = fn(*inputs)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*inputs)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]


def measure(framework: str, name: str, imported, inputs: list, repeat: int) -> dict:
    """One row of the report."""
    import oxla
    from oxla import ir, transforms

    text = str(imported.module)
    optimized = ir.parse(text)
    t0 = time.perf_counter()
    transforms.run(optimized, "builtin.module(oxla-hlo-opt)")
    opt_seconds = time.perf_counter() - t0
    row = {"framework": framework, "model": name, "ops_before": count_ops(imported.module),
           "ops_after": count_ops(optimized), "hlo_opt_s": opt_seconds}
    results = {}
    for optimize in (False, True):
        t0 = time.perf_counter()
        artifact = oxla.compile(ir.parse(text), "llvm-cpu", optimize=optimize)
        key = "on" if optimize else "off"
        row[f"compile_{key}_s"] = time.perf_counter() - t0
        seconds, results[optimize] = run_time(artifact, imported.function, inputs, repeat)
        row[f"run_{key}_ms"] = seconds * 1e3
    row["same_outputs"] = all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(results[False], results[True]))
    return row


def table(rows: list[dict]) -> str:
    """The report as a Markdown table."""
    lines = ["| program | ops before | ops after | oxla-hlo-opt | compile off / on | run off / on | outputs |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['framework']} {r['model']} | {r['ops_before']} | {r['ops_after']} | {r['hlo_opt_s']:.2f} s | "
                     f"{r['compile_off_s']:.2f} s / {r['compile_on_s']:.2f} s | "
                     f"{r['run_off_ms']:.2f} ms / {r['run_on_ms']:.2f} ms | "
                     f"{'same' if r['same_outputs'] else 'DIFFER'} |")
    return "\n".join(lines)


def write_doc(text: str) -> None:
    """Replaces the report between the markers of docs/optimizer.md."""
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(f"{head}{BEGIN}\n{text}\n{END}{tail}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp,resnet_block,transformer_block")
    p.add_argument("--repeat", type=int, default=20, help="timed calls per compiled module (default 20)")
    p.add_argument("--no-write", action="store_true", help="print the table without updating docs/optimizer.md")
    args = p.parse_args()
    os.environ.setdefault("IREE_TASK_TOPOLOGY_GROUP_COUNT", "1")
    rows = [measure(*program, repeat=args.repeat) for program in imported_programs(args.models.split(","))]
    text = table(rows) + f"\n\nMeasured {time.strftime('%Y-%m-%d')} with `python tools/hlo_opt_report.py` " \
                         f"(run times: medians of {args.repeat} calls)."
    print(text)
    if not args.no_write:
        write_doc(text)


if __name__ == "__main__":
    main()
