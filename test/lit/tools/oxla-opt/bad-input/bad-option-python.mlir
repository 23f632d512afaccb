// A bad option of a Python pass is an error naming the pass, the option and
// what it expects; exit status 1, before the input is read.
// RUN: not oxla-opt %s --oxla-dce=functions=maybe 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: %expect-exit 1 oxla-opt %s --oxla-dce=functions=maybe
// RUN: not oxla-opt %s -p 'builtin.module(oxla-dce{functions=maybe})' 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not oxla-opt %s --oxla-dce=fuctions=false 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: %expect-exit 1 oxla-opt %s --oxla-dce=fuctions=false
// RUN: not oxla-opt %s -p 'builtin.module(oxla-print-op-stats{json=yes})' 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: not oxla-opt %s -p 'builtin.module(oxla-strip-locations{all=true})' 2>&1 | FileCheck %s --check-prefix=NONE
// An unterminated option block is a pipeline syntax error with its column.
// RUN: not oxla-opt %s -p 'builtin.module(oxla-dce{functions=false)' 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// RUN: not oxla-opt %t.does-not-exist.mlir --oxla-dce=functions=maybe 2>&1 | FileCheck %s --check-prefix=VALUE

// VALUE-NOT:  Traceback
// VALUE:      oxla-opt: error: invalid value 'maybe' for option 'functions' of pass 'oxla-dce': expected bool
// VALUE-NOT:  could not open
// VALUE-NOT:  Traceback
// NAME:       oxla-opt: error: unknown option 'fuctions' for pass 'oxla-dce'; did you mean 'functions'?
// JSON:       oxla-opt: error: invalid value 'yes' for option 'json' of pass 'oxla-print-op-stats': expected bool
// NONE:       oxla-opt: error: unknown option 'all' for pass 'oxla-strip-locations'
// UNBALANCED:      oxla-opt: error: pass pipeline:1:24: error: unbalanced '{' in pass options
// UNBALANCED-NEXT: builtin.module(oxla-dce{functions=false)
// UNBALANCED-NEXT: ^

func.func @f() {
  return
}
