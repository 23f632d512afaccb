#!/usr/bin/env python3
"""`expect_exit.py N cmd args...`: runs cmd (its output passes through) and exits
0 when cmd exited with exactly status N, 1 otherwise (a crash never matches)."""

import subprocess
import sys


def main(argv):
    if len(argv) < 2 or not argv[0].lstrip("-").isdigit():
        sys.stderr.write("expect_exit: usage: expect_exit.py STATUS command [args...]\n")
        return 2
    expected = int(argv[0])
    try:
        status = subprocess.call(argv[1:])
    except OSError as exc:
        sys.stderr.write("expect_exit: cannot run %s: %s\n" % (argv[1], exc.strerror))
        return 1
    if status == expected:
        return 0
    what = "signal %d" % -status if status < 0 else "status %d" % status
    sys.stderr.write("expect_exit: %s exited with %s, expected status %d\n" % (argv[1], what, expected))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
