"""Console programs defer numpy's import; code that uses numpy must not notice."""

import subprocess
import sys

CHECK = """
import sys
from oxla.tools._startup import fast_start
fast_start()
from oxla import ir
assert type(sys.modules["numpy"]).__name__ == "_DeferredModule", "numpy was imported eagerly"
with ir.context():
    import numpy as np
    attr = ir.DenseElementsAttr.get(np.arange(4, dtype=np.float32))
    assert str(attr) == "dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>", attr
import numpy
assert sys.modules["numpy"] is numpy and numpy.ndarray is np.ndarray
import numpy.linalg, ml_dtypes
assert numpy.zeros(2, dtype=ml_dtypes.bfloat16).dtype.name == "bfloat16"
print("ok")
"""


def test_deferred_numpy_still_works_when_used():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_already_imported_modules_are_left_alone():
    import numpy

    from oxla.tools._startup import defer_import

    defer_import("numpy")
    assert sys.modules["numpy"] is numpy


REDUCTION = """
import sys
import oxla
oxla.compile('''func.func @main(%x: tensor<64x32xf32>) -> tensor<32xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<64x32xf32>, tensor<f32>) -> tensor<32xf32>
  return %s : tensor<32xf32>
}''', target="llvm-cpu", cache=False)
print("linalg" if "iree.compiler.dialects.linalg" in sys.modules else "ok")
"""


def test_compiling_leaves_the_bindings_linalg_module_unimported():
    """Its import (0.12 s) would be the largest fixed cost of a process's first compile."""
    out = subprocess.run([sys.executable, "-c", REDUCTION], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
