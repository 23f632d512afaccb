// Binary garbage with NUL bytes on stdin: one error at the first NUL, exit
// status 1, no traceback. The bytes are (37 i + 11) mod 256: the first NUL
// is byte 145, on line 2 (after the newline at byte 83), column 62.
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(bytes((37 * i + 11) % 256 for i in range(512)))" \
// RUN:   | not oxla-opt 2>&1 | FileCheck %s
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(bytes((37 * i + 11) % 256 for i in range(512)))" \
// RUN:   | %expect-exit 1 oxla-opt -
// The same from a file, and with --split-input-file.
// RUN: %PYTHON -c "import sys; open(sys.argv[1], 'wb').write(bytes((37 * i + 11) % 256 for i in range(512)))" %t.bin
// RUN: not oxla-opt %t.bin --split-input-file 2>&1 | FileCheck %s --check-prefix=FILE
// A single NUL after valid text.
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(b'module {\n}\n\0')" | not oxla-opt - 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TAIL

// CHECK-NOT: Traceback
// CHECK:     <stdin>:2:62: error: input contains a NUL byte: not MLIR text or bytecode
// CHECK-NOT: error:
// CHECK-NOT: Traceback
// FILE:      {{.*}}.bin:2:62: error: input contains a NUL byte: not MLIR text or bytecode
// FILE-NOT:  Traceback
// TAIL:      <stdin>:3:1: error: input contains a NUL byte
