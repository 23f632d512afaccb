#!/usr/bin/env python3
"""Writes docs/importers.md, the operator coverage of the JAX, PyTorch and ONNX importers (--check: compare only)."""

import argparse
import os
import sys

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "importers.md")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--check", action="store_true", help="exit 1 if the file is not current instead of writing it")
    args = p.parse_args()
    from oxla.importers.coverage import markdown

    text = markdown()
    if args.check:
        with open(DOC, encoding="utf-8") as f:
            current = f.read() == text
        print("docs/importers.md is " + ("current" if current else "out of date: run tools/gen_importer_coverage.py"))
        return 0 if current else 1
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
