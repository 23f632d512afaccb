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
