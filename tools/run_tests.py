#!/usr/bin/env python3
"""Runs every oxla test: the pytest suite, then the lit suite.

    python tools/run_tests.py            # both suites
    python tools/run_tests.py --quick    # stop at the first failing suite

Exits non-zero when any test fails or when a suite ran no test at all.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def suites() -> list[tuple[str, list[str]]]:
    """The suites, each as (name, command), run with this Python's environment."""
    bin_dir = os.path.dirname(sys.executable)
    lit = os.path.join(bin_dir, "lit")
    jobs = str(min(2, os.cpu_count() or 1))
    # pytest-xdist (in the test extras) spreads the tests over the cores. On a 2-core host the gain was
    # within noise (pytest 20.5 and 22.7 min with two workers, 22.2 with one): IREE's compiles use both.
    spread = ["-n", jobs] if importlib.util.find_spec("xdist") and jobs != "1" else []
    return [
        ("pytest", [sys.executable, "-m", "pytest", "-q", *spread, "test/python"]),
        ("lit", [lit if os.path.exists(lit) else "lit", "-sv", "-j", jobs, "test/lit"]),
    ]


def main() -> int:
    quick = "--quick" in sys.argv[1:]
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    failed = []
    for name, cmd in suites():
        print(f"== {name}: {' '.join(cmd)}", flush=True)
        if subprocess.run(cmd, cwd=ROOT, env=env).returncode != 0:
            failed.append(name)
            if quick:
                break
    print(f"== {'FAILED: ' + ', '.join(failed) if failed else 'all suites passed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
