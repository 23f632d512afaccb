#!/usr/bin/env python3
"""Writes docs/stablehlo_ops.md, the op-coverage table of oxla.dialects.stablehlo (--check: only compare)."""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "stablehlo_ops.md")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--check", action="store_true", help="exit 1 if the file is not current instead of writing it")
    args = p.parse_args()
    from oxla.dialects.stablehlo.coverage import markdown

    text = markdown()
    if args.check:
        with open(DOC, encoding="utf-8") as f:
            current = f.read() == text
        print("docs/stablehlo_ops.md is " + ("current" if current else "out of date: run tools/gen_op_coverage.py"))
        return 0 if current else 1
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
