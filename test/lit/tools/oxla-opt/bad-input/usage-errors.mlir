// Command-line mistakes are usage errors with exit status 1 (not argparse's 2).
// RUN: not oxla-opt %s -x 2>&1 | FileCheck %s --check-prefix=UNKNOWN-SHORT
// RUN: %expect-exit 1 oxla-opt %s -x
// RUN: not oxla-opt %s -o 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT
// RUN: %expect-exit 1 oxla-opt %s -o
// RUN: not oxla-opt %s -p 2>&1 | FileCheck %s --check-prefix=NO-PIPELINE
// RUN: not oxla-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO-INPUTS
// RUN: %expect-exit 1 oxla-opt %s %s

// UNKNOWN-SHORT-NOT: Traceback
// UNKNOWN-SHORT:     oxla-opt: error: unrecognized arguments: -x
// NO-OUTPUT:         oxla-opt: error: argument -o: expected one argument
// NO-PIPELINE:       oxla-opt: error: argument --pass-pipeline/-p: expected one argument
// TWO-INPUTS:        oxla-opt: error: unrecognized arguments: {{.*}}usage-errors.mlir

func.func @f() {
  return
}
