// Bytes that are not UTF-8, without NULs: MLIR's lexer rejects them at their
// position; exit status 1, no traceback.
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(bytes(range(128, 256)) + b'\n')" | not oxla-opt 2>&1 \
// RUN:   | FileCheck %s
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(bytes(range(128, 256)) + b'\n')" | %expect-exit 1 oxla-opt
// Inside an otherwise valid function, at line 2 column 8.
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(b'func.func @f() {\n  %%0 = \xff\xfe\x80 : i32\n}\n')" \
// RUN:   | not oxla-opt 2>&1 | FileCheck %s --check-prefix=INSIDE
// Latin-1 text with --split-input-file.
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(b'func.func @caf\xe9() {\n  return\n}\n')" \
// RUN:   | not oxla-opt --split-input-file 2>&1 | FileCheck %s --check-prefix=LATIN1
// In a comment the bytes are skipped, as mlir-opt does: that input is fine.
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(b'// \xff\xfe\n func.func @f() {\n  return\n}\n')" \
// RUN:   | oxla-opt | FileCheck %s --check-prefix=COMMENT

// CHECK-NOT: Traceback
// CHECK:     <stdin>:1:1: error: unexpected character
// CHECK-NOT: Traceback
// INSIDE:    <stdin>:2:8: error:
// INSIDE-NOT: Traceback
// LATIN1:    <stdin>:1:15: error:
// LATIN1-NOT: Traceback
// COMMENT:   func.func @f()
