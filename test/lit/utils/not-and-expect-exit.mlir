// The lit helpers themselves: `not` inverts a normal exit status and keeps a
// crash (death by signal) a failure; %expect-exit wants one exact status.

// A normal failure, whatever its status, is what `not` wants.
// RUN: not %PYTHON -c "raise SystemExit(1)"
// RUN: not %PYTHON -c "raise SystemExit(3)"
// Success is a failure of `not`, with exit status 1.
// RUN: %expect-exit 1 not %PYTHON -c "pass"
// A crash is a failure of plain `not`, and it says so.
// RUN: %expect-exit 1 not %PYTHON -c "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CRASH
// CRASH: crashed (signal 11)
// `not --crash` wants exactly that.
// RUN: not --crash %PYTHON -c "import os, signal; os.kill(os.getpid(), signal.SIGABRT)"
// RUN: %expect-exit 1 not --crash %PYTHON -c "raise SystemExit(1)"
// %expect-exit passes the output through and checks the status exactly.
// RUN: %expect-exit 3 %PYTHON -c "print('out'); raise SystemExit(3)" | FileCheck %s --check-prefix=PASS
// PASS: out
// RUN: %expect-exit 1 %expect-exit 2 %PYTHON -c "raise SystemExit(3)" 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: expect_exit: {{.*}} exited with status 3, expected status 2
