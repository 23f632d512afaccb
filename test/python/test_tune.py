"""Autotuning (oxla.pipelines.tune): candidates timed on this CPU, the fastest kept, the choice cached."""

import json
import os

import ml_dtypes
import numpy as np
import pytest
from cache_changes import CHANGES, changed

import oxla.runtime
from oxla import ir
from oxla.pipelines import compiler, tune
from oxla.pipelines.compiler import CompileError
from oxla.pipelines.tune import TuningError, compile_tuned

MATMUL = """func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
"""
ADD = """func.func @add(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.add %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}
"""
DYNAMIC = """func.func @main(%a: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = stablehlo.negate %a : tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
"""
NAMES = [c.name for c in tune.CANDIDATES]


@pytest.fixture
def compiles(monkeypatch):
    """Counts oxla.pipelines.compiler.compile calls (tuning compiles through it)."""
    calls = []
    real = compiler.compile

    def spy(*args, **kwargs):
        calls.append(kwargs.get("flags"))
        return real(*args, **kwargs)

    monkeypatch.setattr(compiler, "compile", spy)
    return calls


@pytest.fixture
def two_candidates(monkeypatch):
    """Tunes over the first two candidates only, timed by a stub: the cache tests need no real timing."""
    monkeypatch.setattr(tune, "CANDIDATES", tune.CANDIDATES[:2])
    monkeypatch.setattr(tune, "median_latency", lambda call, budget_s: 1e-3)


def fake_medians(monkeypatch, seconds: list[float]):
    """Makes the n-th timed candidate take seconds[n]: the choice becomes deterministic."""
    values = iter(seconds)
    monkeypatch.setattr(tune, "median_latency", lambda call, budget_s: next(values))


def run_matmul(artifact):
    """Runs the tuned matmul on inputs of its own and returns (result, numpy's)."""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((8, 16), np.float32), rng.standard_normal((16, 4), np.float32)
    return oxla.runtime.load(artifact, device="local-sync").main(a, b), a @ b


def test_the_fastest_candidate_is_chosen_and_computes_correctly(monkeypatch, tmp_path):
    fake_medians(monkeypatch, [3.0, 2.0, 1.0, 4.0, 5.0])
    art = compile_tuned(MATMUL, cache_dir=tmp_path)
    result = art.tuning
    assert result.chosen == "o3" and not result.from_cache and result.skipped == {}
    assert result.medians == dict(zip(NAMES, [3.0, 2.0, 1.0, 4.0, 5.0]))
    assert art.flags[-1] == "--iree-opt-data-tiling=false"  # o3 is the default set without data tiling
    got, want = run_matmul(art)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_close_second_does_not_displace_an_earlier_candidate():
    assert tune.fastest({"a": 1.0, "b": 0.99, "c": 1.2}) == "a"
    assert tune.fastest({"a": 1.0, "b": 0.9, "c": 0.89}) == "b"


def test_end_to_end_on_this_cpu_writes_the_cache(tmp_path):
    art = compile_tuned(MATMUL, cache_dir=tmp_path, budget_s=0.01)
    result = art.tuning
    assert result.chosen in result.medians and set(result.medians) | set(result.skipped) == set(NAMES)
    assert all(0 < s < 1 for s in result.medians.values())
    got, want = run_matmul(art)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    index = json.loads((tmp_path / "index.json").read_text())
    entry = index["entries"][result.key]
    assert entry["chosen"] == result.chosen and (tmp_path / entry["vmfb"]).read_bytes() == art.vmfb
    assert not list(tmp_path.glob("*.tmp"))  # the atomic writes left no temporaries


def test_the_second_call_is_served_from_the_cache(two_candidates, compiles, tmp_path):
    first = compile_tuned(MATMUL, cache_dir=tmp_path)
    assert len(compiles) == 2
    second = compile_tuned(MATMUL, cache_dir=tmp_path)
    assert len(compiles) == 2  # nothing compiled, nothing timed
    assert second.tuning.from_cache and second.tuning.key == first.tuning.key
    assert second.tuning.chosen == first.tuning.chosen and second.tuning.medians == first.tuning.medians
    assert second.vmfb == first.vmfb and second.flags == first.flags and second.phase_seconds == {}
    assert str(second.signatures["main"]) == str(first.signatures["main"])
    got, want = run_matmul(second)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # A module, and a path, are keyed by their bytes, so their second calls hit too.
    path = tmp_path / "matmul.mlir"
    path.write_text(MATMUL)
    for source in (ir.parse(MATMUL), str(path)):
        compile_tuned(source, cache_dir=tmp_path)
        assert compile_tuned(source, cache_dir=tmp_path).tuning.from_cache
    assert compile_tuned(MATMUL, cache_dir=tmp_path, retune=True).tuning.from_cache is False


@pytest.mark.parametrize("change", CHANGES)
def test_a_changed_input_misses_the_cache(change, two_candidates, compiles, monkeypatch, tmp_path):
    first = compile_tuned(MATMUL, cache_dir=tmp_path)
    source, kwargs = changed(change, MATMUL, lambda s: s.replace("stablehlo.dot", "stablehlo.dot "), monkeypatch)
    again = compile_tuned(source, cache_dir=tmp_path, **kwargs)
    assert not again.tuning.from_cache and again.tuning.key != first.tuning.key and len(compiles) == 4


def test_a_corrupt_cache_warns_and_retunes(two_candidates, compiles, tmp_path):
    first = compile_tuned(MATMUL, cache_dir=tmp_path)
    (tmp_path / "index.json").write_text("{not json")
    with pytest.warns(UserWarning, match="unreadable"):
        again = compile_tuned(MATMUL, cache_dir=tmp_path)
    assert not again.tuning.from_cache and len(compiles) == 4
    assert compile_tuned(MATMUL, cache_dir=tmp_path).tuning.from_cache  # the index was rewritten
    (tmp_path / f"{first.tuning.key}.vmfb").write_bytes(b"truncated")
    with pytest.warns(UserWarning, match="damaged"):
        assert not compile_tuned(MATMUL, cache_dir=tmp_path).tuning.from_cache


def test_a_cache_that_cannot_be_written_warns_and_still_returns_the_choice(two_candidates, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    with pytest.warns(UserWarning, match="cannot write the oxla tuning cache"):
        art = compile_tuned(MATMUL, cache_dir=blocked / "cache")
    assert art.tuning.chosen == "o3-data-tiling" and not art.tuning.from_cache


def test_an_index_of_another_format_is_ignored(two_candidates, tmp_path):
    (tmp_path / "index.json").write_text('{"format": 99, "entries": {}}')
    with pytest.warns(UserWarning, match="not an index oxla wrote"):
        compile_tuned(MATMUL, cache_dir=tmp_path)
    assert json.loads((tmp_path / "index.json").read_text())["format"] == tune._CACHE_FORMAT


def test_a_candidate_that_fails_to_compile_is_skipped(monkeypatch, tmp_path):
    real = compiler.compile

    def failing_ukernels(*args, flags=(), **kwargs):
        if "--iree-llvmcpu-enable-ukernels=all" in flags:
            raise CompileError("executable-targets", [])
        return real(*args, flags=flags, **kwargs)

    monkeypatch.setattr(compiler, "compile", failing_ukernels)
    fake_medians(monkeypatch, [2.0, 2.0, 2.0, 1.0])  # the ukernels candidate is not timed: global-o3 gets 1.0
    result = compile_tuned(MATMUL, cache_dir=tmp_path).tuning
    assert result.skipped == {
        "o3-data-tiling-ukernels": "failed to compile: compilation failed in phase 'executable-targets': "
                                   "no diagnostic was emitted"}
    assert result.chosen == "o3-data-tiling-global-o3"


def test_a_candidate_with_wrong_outputs_is_rejected(monkeypatch, tmp_path):
    monkeypatch.setattr(tune, "CANDIDATES", tune.CANDIDATES[:3])
    real = tune._run
    calls = []

    def wrong_second(artifact, entry, inputs, budget_s):
        outputs, _ = real(artifact, entry, inputs, 0.0)
        calls.append(artifact)
        if len(calls) == 2:
            return [outputs[0] + 0.5], 0.001  # the fastest, but wrong
        return outputs, 1.0

    monkeypatch.setattr(tune, "_run", wrong_second)
    result = compile_tuned(MATMUL, cache_dir=tmp_path).tuning
    assert result.chosen == "o3-data-tiling" and set(result.medians) == {"o3-data-tiling", "o3"}
    assert result.skipped["data-tiling"].startswith("outputs disagree with o3-data-tiling's: result 0 differs")


@pytest.mark.parametrize("source, kwargs, message", [
    (MATMUL, {"target": "cuda"}, "supports target llvm-cpu only, not cuda"),
    (MATMUL, {"compile_to": "flow"}, "compile_to, compile_from and hooks are not supported"),
    (MATMUL, {"hooks": {"after:flow": lambda m: None}}, "compile_to, compile_from and hooks are not supported"),
    (DYNAMIC, {}, r"argument 1 \(tensor<\?x16xf32>\) has a dynamic shape"),
    (MATMUL.replace("func.func @main", "func.func private @main"), {}, "without a public function"),
    (ADD + ADD.replace("@add", "@sub"), {}, "no function is named main"),
])
def test_programs_and_options_that_cannot_be_tuned(source, kwargs, message, compiles, tmp_path):
    with pytest.raises(TuningError, match=message) as info:
        compile_tuned(source, cache_dir=tmp_path, **kwargs)
    assert isinstance(info.value, ValueError) and compiles == []


def test_the_only_public_function_is_the_entry(two_candidates, tmp_path):
    art = compile_tuned(ADD, cache_dir=tmp_path)
    assert art.tuning.chosen == "o3-data-tiling"
    out = oxla.runtime.load(art).add(np.arange(4, dtype=np.int32), np.ones(4, np.int32))
    np.testing.assert_array_equal(out, [1, 2, 3, 4])


def test_complex_programs_skip_the_data_tiling_candidates():
    module = ir.parse("""func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
      %0 = stablehlo.add %a, %a : tensor<2xcomplex<f32>>
      return %0 : tensor<2xcomplex<f32>>
    }""")
    plan, base, skipped = tune._plan(module, compiler.resolve("llvm-cpu")[0], [])
    assert base == "o3" and [c.name for c, _ in plan] == ["o3"] and plan[0][1] == []
    assert set(skipped) == set(NAMES) - {"o3"}


def test_generated_inputs_follow_the_signature():
    sig = compiler.FunctionSignature("f", ("tensor<64xbf16>", "tensor<3x4xi32>", "tensor<64xi1>", "tensor<f32>"), ())
    bf16, ints, bools, scalar = tune.generate_inputs(sig)
    assert bf16.dtype == ml_dtypes.bfloat16 and bf16.shape == (64,) and 0 < np.abs(bf16.astype(np.float32)).max() < 4
    assert ints.dtype == np.int32 and ints.min() >= 0 and ints.max() < 4
    assert bools.dtype == np.bool_ and bools.any() and not bools.all()
    assert scalar.shape == () and scalar.dtype == np.float32
    assert all(np.array_equal(x, y) for x, y in zip(tune.generate_inputs(sig), tune.generate_inputs(sig)))


def test_outputs_agree_within_the_dtype_tolerance():
    nan = np.array([1.0, np.nan], np.float32)
    assert tune.disagreement([nan], [nan.copy()]) is None
    assert tune.disagreement([nan], [nan + 1e-5]) is None
    assert tune.disagreement([nan], [nan + 1e-2]) == "result 0 differs (max abs difference 0.01)"
    assert tune.disagreement([nan], [np.ones(2, np.float32)]) is not None  # NaN equals only NaN
    bf = np.array([1.0, 2.0], ml_dtypes.bfloat16)
    assert tune.disagreement([bf], [(bf.astype(np.float32) * 1.008).astype(ml_dtypes.bfloat16)]) is None
    assert tune.disagreement([np.array([1, 2])], [np.array([1, 3])]) == "result 0 differs (max abs difference 1)"
    assert tune.disagreement([np.zeros(2)], [np.zeros(3)]).startswith("result 0 is float64[3]")
    assert tune.disagreement([np.zeros(2)], []) == "0 results instead of 1"


def test_the_key_names_this_cpu_and_the_sources_and_the_cache_has_a_default(monkeypatch, tmp_path):
    from oxla.pipelines import cache

    assert cache.device_fingerprint() and cache.source_stamp().startswith(oxla.__version__ + "+")
    monkeypatch.delenv("OXLA_CACHE_DIR", raising=False)
    assert tune.default_cache_dir() == tune.Path.home() / ".cache" / "oxla" / "tune"
    monkeypatch.setenv("OXLA_CACHE_DIR", os.fspath(tmp_path))
    assert tune.default_cache_dir() == tmp_path


def test_compile_tune_true_tunes_through_the_environment_cache(two_candidates, monkeypatch, tmp_path):
    monkeypatch.setenv("OXLA_CACHE_DIR", os.fspath(tmp_path))
    first = compiler.compile(MATMUL, tune=True)
    assert not first.tuning.from_cache and os.listdir(tmp_path)
    again = compiler.compile(MATMUL, tune=True)
    assert again.tuning.from_cache and again.vmfb == first.vmfb
    assert again.codegen_passes == first.codegen_passes and again.flags == first.flags
