"""oxla-print-op-stats: how many ops of each kind a module holds."""

from __future__ import annotations

import json as _json
import sys
from collections import Counter

from oxla import ir
from oxla.transforms.registry import Pass, register_pass


def count_ops(op) -> Counter:
    """Counts the ops nested in `op` (not `op` itself) by full name."""
    counts: Counter = Counter()
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                ir.walk(child, lambda nested: counts.update((nested.name,)))
    return counts


def format_stats(counts: Counter) -> str:
    """Renders per-dialect totals, each followed by its ops, sorted by name."""
    by_dialect: dict[str, Counter] = {}
    for name, n in counts.items():
        by_dialect.setdefault(name.split(".", 1)[0], Counter())[name] = n
    width = max((len(name) for name in counts), default=0)
    lines = ["Operations encountered:", "-----------------------"]
    for dialect in sorted(by_dialect):
        ops = by_dialect[dialect]
        lines.append(f"  {dialect:<{width + 2}} , {sum(ops.values())}")
        lines.extend(f"    {name:<{width}} , {ops[name]}" for name in sorted(ops))
    lines.append(f"  {'total':<{width + 2}} , {sum(counts.values())}")
    return "\n".join(lines) + "\n"


_WRITTEN: set[str] = set()


@register_pass
class PrintOpStats(Pass):
    """Prints the number of ops per dialect and per op name (to stderr, or appended to `output`)."""

    name = "oxla-print-op-stats"
    anchor = None
    json: bool = False
    output: str = "-"

    def run(self, op) -> None:
        counts = count_ops(op)
        text = _json.dumps(dict(sorted(counts.items())), indent=2) + "\n" if self.json else format_stats(counts)
        if self.output == "-":
            sys.stderr.write(text)
            sys.stderr.flush()
            return
        # One process may run the pass many times (per function, per input
        # chunk): the first report replaces the file, later ones are appended.
        mode = "a" if self.output in _WRITTEN else "w"
        _WRITTEN.add(self.output)
        with open(self.output, mode) as f:
            f.write(text)
