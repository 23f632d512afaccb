#!/usr/bin/env python3
"""Writes the generated coverage docs: docs/stablehlo_ops.md (the StableHLO op classes and builders) and
docs/importers.md (the importers' operator tables). --check: exit 1 if either is out of date, write nothing."""

import argparse
import importlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# doc path (from the repository root) -> module whose markdown() generates it
DOCS = {
    "docs/stablehlo_ops.md": "oxla.dialects.stablehlo.coverage",
    "docs/importers.md": "oxla.importers.coverage",
}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 when a doc is stale")
    args = p.parse_args()
    stale = []
    for doc, module in DOCS.items():
        text = importlib.import_module(module).markdown()
        path = os.path.join(ROOT, doc)
        if args.check:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    stale.append(doc)
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {doc}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run python tools/gen_coverage.py")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
