// Truncated MLIR bytecode is an error that says what is missing, at the
// file's 0:0 location (bytecode has no lines); exit status 1, no traceback.
// Locations stripped first, so the bytes (and where the cut falls) do not depend on this file's path.
// RUN: oxla-opt %s --oxla-strip-locations --emit-bytecode -o %t.mlirbc
// RUN: %PYTHON -c "import sys; data = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(data[:len(data) // 2])" %t.mlirbc %t.half.mlirbc
// RUN: not oxla-opt %t.half.mlirbc 2>&1 | FileCheck %s
// RUN: %expect-exit 1 oxla-opt %t.half.mlirbc
// On stdin, and with --split-input-file (which leaves bytecode whole).
// RUN: not oxla-opt - --split-input-file < %t.half.mlirbc 2>&1 | FileCheck %s --check-prefix=STDIN
// Only the magic number.
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(b'ML\xefR')" | not oxla-opt 2>&1 | FileCheck %s --check-prefix=MAGIC
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(b'ML\xefR')" | %expect-exit 1 oxla-opt
// The magic number, then garbage (a NUL included: bytecode may hold NULs).
// RUN: %PYTHON -c "import sys; sys.stdout.buffer.write(b'ML\xefR' + bytes(range(0, 256, 7)))" | not oxla-opt 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GARBAGE

// CHECK-NOT:  Traceback
// CHECK:      half.mlirbc:0:0: error: attempting to parse {{.+}}
// CHECK-NEXT: half.mlirbc:0:0: note: in bytecode version {{[0-9]+}} produced by: MLIR
// CHECK-NOT:  Traceback
// CHECK-NOT:  module
// STDIN:      <stdin>:0:0: error: attempting to parse {{.+}}
// STDIN-NOT:  Traceback
// MAGIC:      <stdin>:0:0: error: attempting to parse a byte at the end of the bytecode
// MAGIC-NOT:  Traceback
// GARBAGE:    <stdin>:0:0: error: bytecode version {{[0-9]+}} is newer than the current version
// GARBAGE-NOT: Traceback

func.func @f(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = stablehlo.add %x, %x : tensor<16xf32>
  %c = stablehlo.constant dense<1.0> : tensor<16xf32>
  %1 = stablehlo.multiply %0, %c : tensor<16xf32>
  return %1 : tensor<16xf32>
}
