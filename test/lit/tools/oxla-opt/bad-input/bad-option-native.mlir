// A bad option of a native pass is an error naming the pipeline element and
// LLVM's complaint; exit status 1, and LLVM's own stderr text does not leak.
// RUN: not oxla-opt %s --canonicalize=max-iterations=lots 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: %expect-exit 1 oxla-opt %s --canonicalize=max-iterations=lots
// RUN: not oxla-opt %s -p 'builtin.module(func.func(canonicalize{max-iterations=lots}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VALUE
// RUN: not oxla-opt %s -p 'builtin.module(canonicalize{region-simplify=sometimes})' 2>&1 | FileCheck %s --check-prefix=ENUM
// RUN: not oxla-opt %s --cse=no-such-option=1 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: %expect-exit 1 oxla-opt %s --cse=no-such-option=1
// RUN: not oxla-opt %s -p 'builtin.module(oxla-dce,cse{no-such-option=1})' 2>&1 | FileCheck %s --check-prefix=NAME

// VALUE-NOT:  Traceback
// VALUE:      oxla-opt: error: invalid pass pipeline 'canonicalize{max-iterations=lots}': for the --max-iterations option: 'lots' value invalid for long argument!
// VALUE-NOT:  {{.}}
// ENUM:       oxla-opt: error: invalid pass pipeline 'canonicalize{region-simplify=sometimes}': for the --region-simplify option: Cannot find option named 'sometimes'!
// NAME-NOT:   Traceback
// NAME:       oxla-opt: error: invalid pass pipeline 'cse{no-such-option=1}': {{.*}}no such option no-such-option
// NAME-NOT:   {{.}}

func.func @f() {
  return
}
