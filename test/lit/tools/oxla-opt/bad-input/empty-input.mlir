// An empty input is not an error, as with mlir-opt: it is an empty module
// (exit status 0), whether it comes from a file or stdin, holds only blanks
// and comments, or is an empty chunk of a split file.
// RUN: rm -f %t.empty && touch %t.empty
// RUN: oxla-opt %t.empty 2>&1 | FileCheck %s
// RUN: %expect-exit 0 oxla-opt %t.empty
// RUN: oxla-opt < %t.empty 2>&1 | FileCheck %s
// RUN: %PYTHON -c "print('  \n\n// only a comment\n')" | oxla-opt 2>&1 | FileCheck %s
// Passes run on it like on any module.
// RUN: oxla-opt %t.empty --oxla-dce --cse --canonicalize --oxla-print-op-stats 2>&1 | FileCheck %s --check-prefix=PASSES
// It round-trips through bytecode.
// RUN: oxla-opt %t.empty --emit-bytecode | oxla-opt 2>&1 | FileCheck %s
// Split: each empty chunk gives an empty module.
// RUN: %PYTHON -c "print('// -----\n// -----')" | oxla-opt --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT
// --verify-diagnostics on it: nothing expected, nothing reported.
// RUN: oxla-opt %t.empty --verify-diagnostics 2>&1 | FileCheck %s

// CHECK-NOT:  error
// CHECK:      module {
// CHECK-NEXT: }
// CHECK-NOT:  {{.}}

// PASSES:      Operations encountered:
// PASSES:        total{{ +}}, 0
// PASSES:      module {
// PASSES-NEXT: }

// SPLIT:      module {
// SPLIT-NEXT: }
// SPLIT-NEXT: // -----
// SPLIT-NEXT: module {
// SPLIT-NEXT: }
// SPLIT-NEXT: // -----
// SPLIT-NEXT: module {
// SPLIT-NEXT: }
// SPLIT-NOT:  {{.}}
