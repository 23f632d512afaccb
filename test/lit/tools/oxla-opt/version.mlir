// --version names oxla's version and the pinned IREE compiler; it reads no input.
// RUN: oxla-opt --version | FileCheck %s
// RUN: oxla-opt --version %t.does-not-exist.mlir | FileCheck %s
// RUN: %expect-exit 0 oxla-opt --version

// CHECK: oxla {{[0-9]+\.[0-9]+\.[0-9]+[^ ]*}} (iree-base-compiler {{[0-9]+\.[0-9]+\.[0-9]+[^ ]*}})
