"""Loading: corrupt or foreign input is a ModuleLoadError, and the runtime never needs the compiler."""

import os
import subprocess
import sys

import numpy as np
import pytest
from runtime_testing import compile_mlir

import oxla.runtime as ort

SRC = """
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.fixture(scope="module")
def vmfb():
    return compile_mlir(SRC)


def _flip_bytes(data: bytes, seed: int) -> bytes:
    """`data` with 16 random bytes inverted."""
    out = bytearray(data)
    for i in np.random.default_rng(seed).integers(0, len(out), 16):
        out[i] ^= 0xFF
    return bytes(out)


def test_corrupt_inputs_raise_module_load_error(vmfb):
    cases = {
        "random": np.random.default_rng(0).bytes(4096),
        "empty": b"",
        "truncated": vmfb[: len(vmfb) // 2],
        "header only": vmfb[:64],
        "zeros": bytes(len(vmfb)),
        **{f"flipped {seed}": _flip_bytes(vmfb, seed) for seed in range(6)},
    }
    for name, data in cases.items():
        with pytest.raises(ort.ModuleLoadError, match=r"is not a valid IREE VM module \(\.vmfb\): \w") as e:
            ort.load(data)
        assert isinstance(e.value, ValueError), name
        assert "\n" not in str(e.value) and ".c:" not in str(e.value), name


def test_text_file_gets_a_hint(tmp_path):
    path = tmp_path / "model.vmfb"
    path.write_text(SRC)
    with pytest.raises(ort.ModuleLoadError) as e:
        ort.load(path)
    assert str(e.value).startswith(f"{str(path)!r} is not a valid IREE VM module (.vmfb): ")
    assert "the data is text, starting 'func.func @add(" in str(e.value)
    with pytest.raises(ort.ModuleLoadError, match="MLIR source text"):
        ort.load(SRC)


def test_foreign_binary_file(tmp_path):
    path = tmp_path / "archive.zip"
    path.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 8)
    with pytest.raises(ort.ModuleLoadError, match="archive.zip' is not a valid IREE VM module"):
        ort.load(str(path))


def test_artifact_without_bytes_is_a_type_error():
    class Artifact:
        vmfb = None

    with pytest.raises(TypeError, match="object with a .vmfb bytes attribute; got Artifact"):
        ort.load(Artifact())


# Runs in a fresh interpreter where importing iree.compiler (or oxla's compiler side) fails.
NO_COMPILER = r"""
import importlib.abc, sys

class NoCompiler(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "iree.compiler" or name.startswith("iree.compiler."):
            raise ImportError(f"{name} is blocked in this test")
        return None

sys.meta_path.insert(0, NoCompiler())
import numpy as np
import oxla.runtime as ort

mod = ort.load(open(sys.argv[1], "rb").read(), device="local-sync")
out = mod.add(np.arange(4, dtype=np.float32), np.full(4, 0.5, np.float32))
assert out.tolist() == [0.5, 1.5, 2.5, 3.5], out
assert str(mod.functions()[0]) == "add(%input0: tensor<4xf32>, %input1: tensor<4xf32>) -> tensor<4xf32>"
leaked = sorted(m for m in sys.modules if m.startswith(("iree.compiler", "oxla.ir", "oxla._iree", "oxla.transforms")))
assert not leaked, leaked
try:
    import iree.compiler
except ImportError:
    print("ok")
"""


def test_runtime_works_without_the_compiler(vmfb, tmp_path):
    path = tmp_path / "add.vmfb"
    path.write_bytes(vmfb)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", NO_COMPILER, str(path)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
