#!/usr/bin/env python3
"""A portable `not` for lit: runs a command and inverts its exit status.

    not cmd args...          exit 0 when cmd failed normally, 1 when it succeeded
    not --crash cmd args...  exit 0 only when cmd died of a signal

A command that dies of a signal (a crash) is a failure of plain `not`: a
crashing tool must never pass a test that expects an ordinary error.
"""

import subprocess
import sys


def main(argv):
    expect_crash = bool(argv) and argv[0] == "--crash"
    if expect_crash:
        argv = argv[1:]
    if not argv:
        sys.stderr.write("not: usage: not [--crash] command [args...]\n")
        return 2
    try:
        status = subprocess.call(argv)
    except OSError as exc:
        sys.stderr.write("not: cannot run %s: %s\n" % (argv[0], exc.strerror))
        return 1
    crashed = status < 0  # killed by signal -status
    if expect_crash:
        return 0 if crashed else 1
    if crashed:
        sys.stderr.write("not: %s crashed (signal %d)\n" % (argv[0], -status))
        return 1
    return 0 if status != 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
