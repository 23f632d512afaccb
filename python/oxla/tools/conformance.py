"""oxla-conformance: compile and run StableHLO conformance programs, judged by their own checks.

    oxla-conformance ../shared/conformance/testdata --target=llvm-cpu --json=results.json
    oxla-conformance DIR --filter='abs_*' --target=vulkan-spirv
    oxla-conformance ../shared/conformance/interpret --backend=interpreter
    oxla-conformance ../shared/conformance/testdata/dynamic --backend=interpreter --reference=llvm-cpu

With --backend=interpreter, oxla.interpreter evaluates the programs instead
(each `// -----` case of a file on its own); programs that check nothing and
take arguments are compared with the --reference target, if one is given.

Prints one line per program and a summary by op and by dtype; exits 1 when
any program does not pass (0 with --no-fail).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
from collections import Counter, defaultdict


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="oxla-conformance", description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="+", help="conformance .mlir files or folders of them (top level only)")
    p.add_argument("--target", default="llvm-cpu", help="compilation target (default llvm-cpu)")
    p.add_argument("--backend", choices=("compiler", "interpreter"), default="compiler",
                   help="compile and run the programs (default), or evaluate them with the interpreter")
    p.add_argument("--reference", metavar="TARGET",
                   help="interpreter backend: compare programs that check nothing with this compiled target")
    p.add_argument("--device", help="runtime device (default: the target's)")
    p.add_argument("--filter", default="*", help="only programs whose file name matches this glob")
    p.add_argument("--json", help="write every result to this JSON file")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds one program may take (default 300)")
    p.add_argument("--quiet", action="store_true", help="print failures only, then the summary")
    p.add_argument("--no-fail", action="store_true", help="exit 0 even when programs fail")
    return p


def program_paths(paths: list[str], pattern: str) -> list[str]:
    """The .mlir programs named or contained (top level) in `paths`, sorted."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            found += [os.path.join(path, n) for n in sorted(os.listdir(path)) if n.endswith(".mlir")]
        else:
            found.append(path)
    return [p for p in found if fnmatch.fnmatch(os.path.basename(p), pattern)]


def summary(results) -> str:
    """Pass counts overall, by status, by dtype and by op (worst first)."""
    statuses = Counter(r.status for r in results)
    passed = statuses.get("pass", 0)
    lines = [f"{passed}/{len(results)} passed ({100 * passed / max(len(results), 1):.1f}%): "
             + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))]
    for key in ("dtype", "op"):
        groups: dict[str, list] = defaultdict(list)
        for r in results:
            groups[getattr(r, key)].append(r.status == "pass")
        rows = sorted(groups.items(), key=lambda kv: (sum(kv[1]) / len(kv[1]), kv[0]))
        lines.append(f"by {key}: " + ", ".join(f"{name} {sum(v)}/{len(v)}" for name, v in rows))
    return "\n".join(lines)


def run(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from oxla.testing.conformance import run_isolated

    paths = program_paths(args.paths, args.filter)
    if not paths:
        print("oxla-conformance: error: no program matches", file=sys.stderr)
        return 1
    results = []
    for result in run_isolated(paths, args.target, args.device, args.timeout, args.backend, args.reference):
        results.append(result)
        if not args.quiet or result.status != "pass":
            where = f" [{result.phase}]" if result.phase else ""
            print(f"{result.status.upper():<13} {result.name}{where}"
                  + (f": {result.reason}" if result.reason else ""), flush=True)
    print(summary(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"target": args.target, "backend": args.backend, "results": [vars(r) for r in results]}, f,
                      indent=1)
    return 0 if args.no_fail or all(r.status == "pass" for r in results) else 1


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    from oxla.tools._startup import console_main

    console_main("oxla-conformance", run, argv)


if __name__ == "__main__":
    main()
