// --split-input-file works on the bytes: non-UTF-8 bytes reach the parser
// untouched, and lines are counted at "\n" only, as MLIR counts them (a form
// feed or U+2028 in a comment starts no new line), so error locations, source
// lines and carets match the file.
// RUN: %PYTHON -c "import sys; open(sys.argv[1], 'wb').write(b'// form feed \x0c and line separator \xe2\x80\xa8 here\nfunc.func @f() attributes {s = \"\xff\xfe\"} {\n  return\n}\n// -----\n// \x0c\n\nfunc.func @g() {\n  %%0 = arith.bogus : i32\n}\n')" %t.bytes.mlir
// RUN: not oxla-opt %t.bytes.mlir --split-input-file 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR --input-file %t.err
// The same without splitting: the first chunk alone.
// RUN: %PYTHON -c "import sys; open(sys.argv[1], 'wb').write(b'// \x0c \xe2\x80\xa8\nfunc.func @f() attributes {s = \"\xff\xfe\"} {\n  %%0 = arith.bogus : i32\n}\n')" %t.one.mlir
// RUN: not oxla-opt %t.one.mlir 2>&1 | FileCheck %s --check-prefix=ONE

// CHECK:      func.func @f() attributes {s = "\FF\FE"}
// CHECK-NOT:  \EF\BF\BD

// ERR:      bytes.mlir:9:8: error: custom op 'arith.bogus' is unknown
// ERR-NEXT:   %0 = arith.bogus : i32
// ERR-NEXT:        ^
// ONE:      one.mlir:3:8: error: custom op 'arith.bogus' is unknown
// ONE-NEXT:   %0 = arith.bogus : i32
