// A malformed pipeline is an error with the column and a caret under it;
// exit status 1, before any input is read.
// RUN: not oxla-opt %s -p 'builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// RUN: %expect-exit 1 oxla-opt %s -p 'builtin.module(cse'
// RUN: not oxla-opt %s -p 'builtin.module(cse))' 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not oxla-opt %s -p 'builtin.module(,cse)' 2>&1 | FileCheck %s --check-prefix=EMPTY-ELEMENT
// RUN: not oxla-opt %s -p 'cse(canonicalize)' 2>&1 | FileCheck %s --check-prefix=NOT-AN-OP
// RUN: not oxla-opt %s -p 'builtin.module(func.func)' 2>&1 | FileCheck %s --check-prefix=BARE-ANCHOR
// RUN: %expect-exit 1 oxla-opt %s -p 'builtin.module(func.func)'
// RUN: not oxla-opt %t.does-not-exist.mlir -p 'builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=UNCLOSED

// UNCLOSED-NOT:  Traceback
// UNCLOSED:      oxla-opt: error: pass pipeline:1:19: error: expected ')', found end of pipeline
// UNCLOSED-NEXT:   builtin.module(cse
// UNCLOSED-NEXT:                     ^
// UNCLOSED-NOT:  Traceback
// EXTRA:         oxla-opt: error: pass pipeline:1:20: error: unexpected ')'
// EMPTY-ELEMENT: oxla-opt: error: pass pipeline:1:16: error: expected a pass or op name, found ','
// NOT-AN-OP:     oxla-opt: error: pass pipeline:1:1: error: 'cse' is not an op name (op anchors look like 'func.func')
// BARE-ANCHOR:   oxla-opt: error: pass pipeline:1:16: error: op anchor 'func.func' must be followed by '(' and a nested pipeline

func.func @f() {
  return
}
