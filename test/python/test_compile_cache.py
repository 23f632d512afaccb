"""oxla.compile(cache=...): whole artifacts kept on disk by program, options, oxla, IREE and CPU."""

import json
import os

import numpy as np
import pytest
from cache_changes import CHANGES, changed

import oxla
import oxla.runtime
from oxla.errors import ParseError
from oxla import ir
from oxla.pipelines import cache, compile
from oxla.pipelines import compiler as compiler_module

ADD = """func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.fixture
def compiles(monkeypatch):
    """Counts the programs IREE's phases actually ran on."""
    seen = []
    real = compiler_module._Compiler.run_phases

    def counting(self, module, start, stop, hooks, times):
        seen.append(stop)
        return real(self, module, start, stop, hooks, times)

    monkeypatch.setattr(compiler_module._Compiler, "run_phases", counting)
    return seen


def _run(artifact) -> np.ndarray:
    module = oxla.runtime.load(artifact.vmfb, device="local-sync")
    return module.main(np.arange(4, dtype=np.float32), np.ones(4, np.float32))


def test_the_second_compile_reads_the_artifact_back(compiles, tmp_path):
    first = compile(ADD, cache=tmp_path)
    second = compile(ADD, cache=tmp_path)
    assert len(compiles) == 1 and not first.from_cache and second.from_cache
    assert second.vmfb == first.vmfb and second.flags == first.flags and second.phase_seconds == {}
    assert second.target is first.target and second.chip == first.chip and second.flag_set == first.flag_set
    assert second.codegen_passes == first.codegen_passes and second.optimized == first.optimized
    assert str(second.signatures["main"]) == str(first.signatures["main"])
    np.testing.assert_array_equal(_run(second), [1, 2, 3, 4])
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json", ".vmfb"]


@pytest.mark.parametrize("change", CHANGES)
def test_anything_that_shapes_the_artifact_misses(change, compiles, monkeypatch, tmp_path):
    compile(ADD, cache=tmp_path)
    source, options = changed(change, ADD, lambda s: s.replace("stablehlo.add", "stablehlo.multiply"), monkeypatch)
    again = compile(source, cache=tmp_path, **options)
    assert not again.from_cache and len(compiles) == 2
    assert len(list(tmp_path.glob("*.vmfb"))) == 2


def test_modules_and_paths_are_keyed_by_their_bytes_and_the_callers_module_is_untouched(compiles, tmp_path):
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    module = ir.parse(ADD)
    before = ir.to_text(module)
    for source in (module, str(path)):
        compile(source, cache=tmp_path / "c")
        assert compile(source, cache=tmp_path / "c").from_cache
    assert ir.to_text(module) == before and len(compiles) == 2


def test_the_environment_names_the_default_directory_and_false_turns_it_off(compiles, monkeypatch, tmp_path):
    monkeypatch.setenv(cache.ENVIRONMENT, os.fspath(tmp_path))
    compile(ADD)
    assert compile(ADD).from_cache and compile(ADD, cache=True).from_cache
    assert not compile(ADD, cache=False).from_cache and len(compiles) == 2
    monkeypatch.delenv(cache.ENVIRONMENT)
    assert cache.compile_cache_dir(None) is None and cache.compile_cache_dir(False) is None
    assert cache.compile_cache_dir(True) == cache.Path.home() / ".cache" / "oxla" / "compile"
    assert cache.compile_cache_dir(tmp_path) == tmp_path


def test_partial_compiles_and_hooks_are_not_cached(tmp_path):
    compile(ADD, cache=tmp_path, compile_to="flow")
    compile(ADD, cache=tmp_path, hooks={"after:input": lambda module: None})
    assert not list(tmp_path.iterdir())


def test_a_damaged_entry_warns_and_is_compiled_again(compiles, tmp_path):
    compile(ADD, cache=tmp_path)
    (vmfb,) = tmp_path.glob("*.vmfb")
    vmfb.write_bytes(b"not a vmfb")
    with pytest.warns(UserWarning, match="is damaged .*does not match its recorded hash"):
        again = compile(ADD, cache=tmp_path)
    assert not again.from_cache and len(compiles) == 2
    np.testing.assert_array_equal(_run(again), [1, 2, 3, 4])
    assert compile(ADD, cache=tmp_path).from_cache  # the entry was written again
    (meta,) = tmp_path.glob("*.json")
    meta.write_text("{")
    with pytest.warns(UserWarning, match="is damaged"):
        assert not compile(ADD, cache=tmp_path).from_cache
    meta.write_text(json.dumps({"format": 99}))
    with pytest.warns(UserWarning, match="not an entry this oxla wrote"):
        assert not compile(ADD, cache=tmp_path).from_cache


def test_a_cache_that_cannot_be_written_warns_and_the_compile_succeeds(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the directory would go")
    with pytest.warns(UserWarning, match="cannot write the oxla compile cache"):
        artifact = compile(ADD, cache=blocker / "cache")
    np.testing.assert_array_equal(_run(artifact), [1, 2, 3, 4])


def test_errors_still_name_the_file_with_the_cache_on(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @main() {\n  %0 = stablehlo.bogus\n}\n")
    with pytest.raises(ParseError, match="bad.mlir:2"):
        compile(str(path), cache=tmp_path / "c")
