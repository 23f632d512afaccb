"""tools/bench/systems.py: what measuring a system leaves behind."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_MEASURE_XLA_CACHE_HIT = """
import os, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from tools.bench import systems, zoo
model = zoo.Model("tiny", "x + 1", lambda x: x + 1, [np.ones(8, np.float32)])
assert systems._xla_cache_hit_seconds(model) > 0
print(sorted(os.listdir(sys.argv[2])))
"""


def test_the_jax_cache_directory_is_removed_when_the_process_exits(tmp_path):
    pytest.importorskip("jax")
    done = subprocess.run([sys.executable, "-c", _MEASURE_XLA_CACHE_HIT, ROOT, str(tmp_path)],
                          env={**os.environ, "TMPDIR": str(tmp_path), "JAX_PLATFORMS": "cpu"},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    during = [name for name in eval(done.stdout.strip().splitlines()[-1]) if name.startswith("oxla-bench-jax-cache-")]
    assert len(during) == 1  # the measurement used its own cache directory...
    assert not [name for name in os.listdir(tmp_path) if name.startswith("oxla-bench-jax-cache-")]  # ...and took it along
