// expected-* comments aim at lines as MLIR counts them ("\n" only): a form
// feed, vertical tab or U+2028 in an earlier comment moves nothing.
// RUN: %PYTHON -c "import sys; open(sys.argv[1], 'wb').write(b'// \x0c \x0b \xe2\x80\xa8 \x1c\nfunc.func @f() {\n  // expected-error @+1 {{custom op \'arith.bogus\' is unknown}}\n  %%0 = arith.bogus : i32\n}\n')" %t.mlir
// RUN: oxla-opt %t.mlir --verify-diagnostics 2>&1 | FileCheck %s --allow-empty
// RUN: %PYTHON -c "import sys; open(sys.argv[1], 'wb').write(b'// \x0c\nfunc.func @f() {\n  %%0 = arith.bogus : i32  // expected-error {{custom op}}\n}\n// -----\n// \xe2\x80\xa8\nfunc.func @g() {\n  // expected-error @below {{custom op}}\n  %%0 = arith.bogus : i32\n}\n')" %t.split.mlir
// RUN: oxla-opt %t.split.mlir --split-input-file --verify-diagnostics 2>&1 | FileCheck %s --allow-empty

// CHECK-NOT: {{.}}
