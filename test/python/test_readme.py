"""The README's examples run as written."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _readme_block(marker: str, lang: str) -> str:
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    after = text.split(marker, 1)[1]
    return re.search(rf"```{lang}\n(.*?)```", after, re.S).group(1)


def test_write_your_own_pass_example():
    code = _readme_block("readme-example: write-a-pass", "python")
    assert len([line for line in code.splitlines() if line.strip()]) <= 16
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "func.func @main" in out.stdout
    assert "@unused_gelu" not in out.stdout  # oxla-dce ran after the Python pass


def test_the_example_pass_rejects_f64():
    code = _readme_block("readme-example: write-a-pass", "python").split("module = ")[0]
    code += (
        "m = ir.parse('func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {\\n"
        "  %0 = stablehlo.add %x, %x : tensor<2xf64>\\n  return %0 : tensor<2xf64>\\n}', name='f.mlir')\n"
        "try:\n    transforms.run(m, 'builtin.module(func.func(oxla-check-no-f64))')\n"
        "except transforms.PassFailure as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert "f.mlir:2:8: error: stablehlo.add computes in f64" in out.stdout, out.stderr


def test_build_example():
    code = _readme_block("readme-example: build", "python")
    code += "\nr = mlp(np.ones((64, 784), np.float32), np.ones((784, 10), np.float32))\n"
    code += "print(r.shape, round(float(r.sum()), 3), norm(np.array([[1.0, 3.0]], np.float32)))\n"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "func.func @mlp(%arg0: tensor<64x784xf32>, %arg1: tensor<784x10xf32>) -> tensor<64x10xf32>" in out.stdout
    assert "stablehlo.dot_general" in out.stdout
    assert "(64, 10) 64.0 [[0.25 0.75]]" in out.stdout


def test_main_command_runs_on_the_bundled_example():
    pipeline = "builtin.module(oxla-print-op-stats,oxla-dce,func.func(cse),oxla-print-op-stats)"
    opt = os.path.join(os.path.dirname(sys.executable), "oxla-opt")
    out = subprocess.run([opt, "examples/mlp.mlir", f"--pass-pipeline={pipeline}"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "@unused_gelu" not in out.stdout and out.stdout.count("stablehlo.exponential") == 1
    totals = [line.split()[-1] for line in out.stderr.splitlines() if line.strip().startswith("total")]
    assert totals == ["31", "26"]


def test_compile_and_run_example():
    code = _readme_block("readme-example: compile-and-run", "python") + "\nprint(probs.sum(axis=1).round(5).tolist())\n"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1.0, 1.0, 1.0, 1.0]"  # softmax rows
