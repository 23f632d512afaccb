#!/usr/bin/env python3
"""Write docs/conformance.md from oxla-conformance JSON results.

    oxla-conformance ../shared/conformance/testdata --no-fail --json /tmp/cpu.json
    python tools/conformance_report.py /tmp/cpu.json [more.json ...] -o docs/conformance.md

Each JSON file is one target's run; the report gives the pass rate, the
results by dtype and by op, and every program that did not pass with its
reason, so the list of failures in the docs is always the measured one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict


def load(path: str) -> tuple[str, list[dict]]:
    with open(path) as f:
        data = json.load(f)
    return data["target"], data["results"]


def _split(name: str) -> tuple[str, str]:
    from oxla.testing.conformance import split_name

    return split_name(name)


def section(target: str, results: list[dict], command: str) -> str:
    """One target's part of the report, in Markdown."""
    statuses = Counter(r["status"] for r in results)
    passed = statuses.get("pass", 0)
    lines = [f"## {target}", "",
             f"{passed} of {len(results)} programs pass ({100 * passed / len(results):.1f}%); "
             + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())) + ".", "",
             f"Command: `{command}`", ""]
    groups: dict[str, dict[str, list[bool]]] = {"dtype": defaultdict(list), "op": defaultdict(list)}
    for r in results:
        op, dtype = _split(r["name"])
        groups["dtype"][dtype].append(r["status"] == "pass")
        groups["op"][op].append(r["status"] == "pass")
    for key, table in groups.items():
        failing = {k: v for k, v in table.items() if not all(v)}
        row = ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(failing.items()))
        lines += [f"By {key}, where anything fails: {row or 'none'}.", ""]
    lines += ["| program | result | phase | reason |", "|---|---|---|---|"]
    for r in sorted(results, key=lambda r: r["name"]):
        if r["status"] != "pass":
            reason = r["reason"].replace("|", "\\|").replace("\n", " ")[:240]
            lines.append(f"| {r['name']} | {r['status']} | {r.get('phase') or ''} | {reason} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="JSON files written by oxla-conformance --json")
    parser.add_argument("-o", dest="output", help="the Markdown file (default stdout)")
    parser.add_argument("--command", default="oxla-conformance ../shared/conformance/testdata --target={target} "
                        "--no-fail --json results.json", help="the command shown for each target")
    args = parser.parse_args()
    parts = ["# StableHLO conformance", "",
             "Results of `oxla-conformance` on the programs in `../shared/conformance/testdata` (top level):",
             "each program is compiled with `oxla.compile` for the target, run with `oxla.runtime`, and judged",
             "by its own `check.*` calls with the StableHLO interpreter's semantics (`oxla/testing/checks.py`).",
             "Regenerate with `python tools/conformance_report.py <json files> -o docs/conformance.md`.", ""]
    for path in args.results:
        target, results = load(path)
        parts.append(section(target, results, args.command.format(target=target)))
    text = "\n".join(parts)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
