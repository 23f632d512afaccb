"""oxla-hlo-opt: the default optimizer reaches a fixed point, keeps every result, and oxla.compile runs it."""

from __future__ import annotations

import glob
import os
import re
import sys

import numpy as np
import pytest

from oxla import interpreter, ir, transforms
from oxla.transforms.hlo_opt import OptimizeReport, fingerprint, optimize

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench_hlo_opt  # noqa: E402  (the benchmark's module generator)

PROGRAM = """func.func @main(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %m = stablehlo.multiply %x, %one : tensor<4xf32>
  %t = stablehlo.transpose %m, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = stablehlo.constant dense<0.5> : tensor<4xf32>
  %c = stablehlo.multiply %a, %b : tensor<4xf32>
  %s1 = stablehlo.add %t, %c : tensor<4xf32>
  %s2 = stablehlo.add %t, %c : tensor<4xf32>
  %r = stablehlo.multiply %s1, %s2 : tensor<4xf32>
  %dead = stablehlo.exponential %r : tensor<4xf32>
  %z = stablehlo.subtract %i, %i : tensor<4xi32>
  %k = stablehlo.add %z, %i : tensor<4xi32>
  return %r, %k : tensor<4xf32>, tensor<4xi32>
}
"""


def _ops(module) -> list[str]:
    return [op.name for op in ir.ops(module) if op.name not in ("builtin.module", "func.func", "func.return")]


def test_a_round_of_every_step_reaches_a_fixed_point():
    module = ir.parse(PROGRAM)
    report = optimize(module)
    assert isinstance(report, OptimizeReport) and report.converged and report.iterations <= 3
    assert report.folded >= 1
    assert set(report.seconds) >= {"simplify", "fold", "canonicalize+cse", "dce"}
    assert sorted(_ops(module)) == sorted(["stablehlo.constant", "stablehlo.add", "stablehlo.multiply"])
    text = ir.to_text(module)
    again = optimize(module)
    assert again.iterations == 1 and again.converged and ir.to_text(module) == text


def test_results_are_unchanged_on_special_inputs():
    module = ir.parse(PROGRAM)
    optimized = ir.parse(PROGRAM)
    optimize(optimized)
    x = np.array([np.nan, -0.0, np.inf, 3.5], np.float32)
    i = np.array([np.iinfo(np.int32).min, -1, 0, 7], np.int32)
    for want, got in zip(interpreter.evaluate(module, "main", x, i), interpreter.evaluate(optimized, "main", x, i)):
        assert want.tobytes() == got.tobytes()


def test_the_iteration_cap_holds():
    module = ir.parse(bench_hlo_opt.generate(200))
    report = optimize(module, max_iterations=1)
    assert report.iterations == 1 and not report.converged


def test_the_pass_and_its_options(capfd):
    module = ir.parse(PROGRAM)
    transforms.run(module, "builtin.module(oxla-hlo-opt{max-iterations=2 fast-math=false})")
    assert "stablehlo.exponential" not in ir.to_text(module)
    from oxla.transforms import list_passes

    assert "oxla-hlo-opt" in list_passes() and "oxla-fold-constants" in list_passes()


def test_fast_math_reaches_the_simplifier():
    text = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<4xf32>
  %r = stablehlo.add %x, %z : tensor<4xf32>
  return %r : tensor<4xf32>
}"""
    exact, relaxed = ir.parse(text), ir.parse(text)
    optimize(exact)
    optimize(relaxed, fast_math=True)
    assert "stablehlo.add" in ir.to_text(exact) and "stablehlo.add" not in ir.to_text(relaxed)


def test_fingerprint_ignores_locations_only():
    a = ir.parse('func.func @f(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32> loc("a.py":1:1)\n}')
    b = ir.parse('func.func @f(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32> loc("b.py":2:2)\n}')
    c = ir.parse('func.func @g(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}')
    assert fingerprint(a.operation) == fingerprint(b.operation) != fingerprint(c.operation)


def test_other_dialects_are_left_alone():
    text = """func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, f32) {
  %a = "test.opaque"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %c = arith.constant 2.0 : f32
  return %a, %c : tensor<4xf32>, f32
}"""
    with ir.allow_unregistered():
        module = ir.parse(text, allow_unregistered_dialects=True)
        optimize(module)
        assert '"test.opaque"' in ir.to_text(module)


def test_a_generated_block_keeps_its_results():
    text = bench_hlo_opt.generate(120)
    module, optimized = ir.parse(text), ir.parse(text)
    optimize(optimized)
    assert len(_ops(optimized)) < len(_ops(module)) / 2
    rng = np.random.default_rng(0)
    h = rng.normal(size=(8, 16)).astype(np.float32)
    w = (rng.normal(size=(16, 16)) / 4).astype(np.float32)
    [want] = interpreter.evaluate(module, "main", h, w)
    [got] = interpreter.evaluate(optimized, "main", h, w)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)  # folding bias*2 in f32 either way: exact
    assert want.tobytes() == got.tobytes()


# oxla-dce's rebuilt multi-result ops compute what the originals did ---------------------------------------------

def _dce_cases():
    path = os.path.join(ROOT, "test", "lit", "transforms", "oxla-dce.mlir")
    with open(path) as f:
        chunks = re.split(r"^// -----[ \t]*$", f.read(), flags=re.MULTILINE)
    names = []
    for chunk in chunks:
        if "custom_call" in chunk or "test." in chunk or "func.func private" in chunk:
            continue  # effects, unknown ops and symbol tests: nothing to evaluate
        names.extend((chunk, name) for name in re.findall(r"func\.func @(\w+)", chunk))
    return names


DCE_CASES = _dce_cases()


@pytest.mark.parametrize("chunk,function", DCE_CASES, ids=[name for _, name in DCE_CASES])
def test_dce_keeps_results(chunk, function):
    from oxla.transforms.dce import DeadCodeElimination
    from test_simplify_rules import inputs, _argument_types

    before, after = ir.parse(chunk), ir.parse(chunk)
    DeadCodeElimination().run(after.operation)
    assert not ir.verify(after)
    types = _argument_types(before, function)
    for args in inputs(types, seed=len(function), random_trials=2):
        if function.startswith("while"):  # bound the loops: start the counter (or flag) at zero
            args = [np.zeros_like(args[0])] + args[1:]
        try:
            want = interpreter.evaluate(before, function, *args, step_limit=100_000)
        except interpreter.EvaluationLimitExceeded:
            continue
        except NotImplementedError as exc:
            pytest.skip(f"the interpreter cannot evaluate @{function}: {exc}")
        got = interpreter.evaluate(after, function, *args, step_limit=100_000)
        for w, g in zip(want, got):
            w, g = np.asarray(w), np.asarray(g)
            # Bit for bit, except which NaN a reduction returns: its order is the implementation's.
            nan = np.isnan(w) & np.isnan(g) if w.dtype.kind in "fc" else np.zeros(w.shape, bool)
            assert np.where(nan, 0, w).tobytes() == np.where(nan, 0, g).tobytes()


# oxla.compile and oxla-compile ------------------------------------------------------------------------------------

ADD_ZERO = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<-0.0> : tensor<4xf32>
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %d = stablehlo.multiply %c, %c : tensor<4xf32>
  %a = stablehlo.add %x, %z : tensor<4xf32>
  %r = stablehlo.add %a, %d : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def test_compile_optimizes_by_default_and_can_skip_it():
    from oxla import runtime
    from oxla.pipelines import compile

    seen = {}
    hooks = {"after:start": lambda m: seen.setdefault("on", sorted(set(_ops(m))))}
    on = compile(ADD_ZERO, hooks=hooks)
    assert on.optimized and "oxla-hlo-opt" in on.phase_seconds
    assert seen["on"] == ["stablehlo.add", "stablehlo.constant"]
    off = compile(ADD_ZERO, optimize=False)
    assert not off.optimized and "oxla-hlo-opt" not in off.phase_seconds
    x = np.array([-0.0, np.nan, 1.5, -3.0], np.float32)
    a, b = runtime.load(on).main(x), runtime.load(off).main(x)
    assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    resumed = compile(compile(ADD_ZERO, compile_to="input"), compile_from="input")
    assert not resumed.optimized  # only a compile that starts from StableHLO optimizes


def test_oxla_compile_no_optimize(tmp_path, capsys):
    from oxla.tools.compile import run

    src = tmp_path / "p.mlir"
    src.write_text(ADD_ZERO)
    assert run([str(src), "-o", str(tmp_path / "a.vmfb"), "--timing"]) == 0
    assert "oxla-hlo-opt" in capsys.readouterr().err
    assert run([str(src), "-o", str(tmp_path / "b.vmfb"), "--timing", "--no-optimize"]) == 0
    assert "oxla-hlo-opt" not in capsys.readouterr().err
    for flags, multiply in (([], False), (["--no-optimize"], True)):
        dump = tmp_path / f"dump{len(flags)}"
        assert run([str(src), "--compile-to=input", f"--dump-phases={dump}", "-o", str(tmp_path / "x.mlir")]
                   + flags) == 0
        assert ("stablehlo.multiply" in (dump / "00-start.mlir").read_text()) == multiply


def test_the_benchmark_generator_is_valid():
    module = ir.parse(bench_hlo_opt.generate(1000))
    assert not ir.verify(module)
    assert abs(bench_hlo_opt.count_ops(module) - 1000) < bench_hlo_opt.OPS_PER_BLOCK
