// A pass name that is neither a Python nor a native pass is an error that
// names the closest known passes; exit status 1, nothing is read or printed.
// RUN: not oxla-opt %s --oxla-dc 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: %expect-exit 1 oxla-opt %s --oxla-dc
// RUN: not oxla-opt %s --canonicalise 2>&1 | FileCheck %s --check-prefix=NATIVE
// RUN: not oxla-opt %s -p 'builtin.module(csee)' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: %expect-exit 1 oxla-opt %s -p 'builtin.module(csee)'
// RUN: not oxla-opt %s -p 'builtin.module(cse,func.func(canonicalze))' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not oxla-opt %s -p 'builtin.module(oxla-strip-location)' 2>&1 | FileCheck %s --check-prefix=PYTHON
// Nothing close: no suggestion.
// RUN: not oxla-opt %s --zzz-qqq-xxx 2>&1 | FileCheck %s --check-prefix=FAR
// It fails before reading the input: a missing file is not even opened.
// RUN: not oxla-opt %t.does-not-exist.mlir --oxla-dc 2>&1 | FileCheck %s --check-prefix=FLAG

// FLAG-NOT:  Traceback
// FLAG:      oxla-opt: error: unknown pass 'oxla-dc'; did you mean 'oxla-dce'{{.*}}?
// FLAG-NOT:  module
// FLAG-NOT:  Traceback
// NATIVE:    oxla-opt: error: unknown pass 'canonicalise'; did you mean 'canonicalize'{{.*}}?
// PIPELINE:  oxla-opt: error: unknown pass 'csee'; did you mean 'cse'{{.*}}?
// NESTED:    oxla-opt: error: unknown pass 'canonicalze'; did you mean 'canonicalize'{{.*}}?
// PYTHON:    oxla-opt: error: unknown pass 'oxla-strip-location'; did you mean 'oxla-strip-locations'{{.*}}?
// FAR:       oxla-opt: error: unknown pass 'zzz-qqq-xxx'{{$}}
// FAR-NOT:   did you mean

func.func @f() {
  return
}
