// An input that cannot be read is an error naming it and the reason; exit
// status 1, no output.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: not oxla-opt %t.dir/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %expect-exit 1 oxla-opt %t.dir/missing.mlir
// RUN: not oxla-opt %t.dir/missing.mlir --cse -o %t.dir/out.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// A directory is not a file.
// RUN: not oxla-opt %t.dir 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// RUN: %expect-exit 1 oxla-opt %t.dir

// MISSING-NOT: Traceback
// MISSING:     oxla-opt: error: could not open input file '{{.*}}missing.mlir': No such file or directory
// MISSING-NOT: module
// MISSING-NOT: Traceback
// DIRECTORY:   oxla-opt: error: could not open input file '{{.*}}.dir': Is a directory
// DIRECTORY-NOT: Traceback
