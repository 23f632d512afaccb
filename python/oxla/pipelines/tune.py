"""Autotuning: compile a program with a few llvm-cpu flag sets, time each here, keep the fastest.

    art = compile_tuned("model.mlir")          # or oxla-compile model.mlir --tune
    art.tuning.chosen, art.tuning.medians      # what won, and every candidate's median latency

Each candidate (CANDIDATES) is a full flag set that replaces the target's
default one. Its program runs on this machine's CPU (`local-sync`, the
caller's thread) with generated inputs; outputs must agree with the first
candidate's, and the fastest median wins. The choice and its .vmfb are cached
(an index.json and one .vmfb per entry) under a key of everything that shapes
the result, so the next call with the same program is served without
compiling or timing.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from oxla.pipelines import compiler
from oxla.pipelines.cache import (
    artifact_from_record, artifact_record, atomic_write, first_line, key_of, program_bytes)
from oxla.pipelines.compiler import Artifact, CompileError, FunctionSignature
from oxla.pipelines.targets import LLVM_CPU_FLAG_SETS, resolve

DATA_TILING = "--iree-opt-data-tiling=true"
_DEFAULT_SET = dict(LLVM_CPU_FLAG_SETS)["o3-data-tiling"]


@dataclass(frozen=True)
class Candidate:
    """One configuration to try: a name, the flag set replacing the target's default, and why it is here."""

    name: str
    flags: tuple[str, ...]
    reason: str


def _replaced(flags: tuple[str, ...], name: str, value: str) -> tuple[str, ...]:
    """`flags` with flag `name` set to `value` (the flags are a set: one value per name)."""
    return tuple(f for f in flags if f.split("=")[0] != name) + (f"{name}={value}",)


CANDIDATES: tuple[Candidate, ...] = (
    Candidate("o3-data-tiling", _DEFAULT_SET,
              "oxla's default: fastest over the bench zoo; the baseline others must agree with"),
    Candidate("data-tiling", dict(LLVM_CPU_FLAG_SETS)["data-tiling"],
              "no O3 fusion: on some programs fewer, larger dispatches are slower"),
    Candidate("o3", tuple(f for f in _DEFAULT_SET if f != DATA_TILING),
              "no data tiling: packing costs more than it gains on small or matmul-free programs"),
    Candidate("o3-data-tiling-ukernels", _DEFAULT_SET + ("--iree-llvmcpu-enable-ukernels=all",),
              "IREE's hand-written microkernels for matmuls and packing, on CPUs where they beat codegen"),
    Candidate("o3-data-tiling-global-o3", _replaced(_DEFAULT_SET, "--iree-global-optimization-opt-level", "O3"),
              "global optimization at O3 propagates transposes: slower on BERT, faster elsewhere"),
)

DEVICE = "local-sync"  # runs on the caller's thread: one core, no task-system noise
BUDGET_S = 0.25  # seconds of timed calls per candidate (after the warm-up)
MIN_REPEATS = 3
# A candidate replaces an earlier one only when its median is this much lower: differences
# smaller than timing noise would otherwise flip the choice from one run to the next.
MARGIN = 0.02
_INDEX = "index.json"
_CACHE_FORMAT = 1
# rtol, atol by the byte size of a float element (complex: of its parts).
_TOLERANCES = {1: (1.25e-1, 1e-1), 2: (2e-2, 1e-2), 4: (1e-3, 1e-4), 8: (1e-7, 1e-9)}


class TuningError(ValueError):
    """The program or the options cannot be tuned (and why), or no candidate compiled and ran."""


@dataclass
class TuningResult:
    """What tuning chose and measured, set as `Artifact.tuning` on the artifact compile_tuned returns."""

    chosen: str
    medians: dict[str, float]  # candidate -> median latency in seconds, for those that compiled, ran and agreed
    skipped: dict[str, str]  # candidate -> why it was not timed or not chosen
    from_cache: bool
    key: str
    cache_dir: str = ""

    def lines(self) -> list[str]:
        """A per-candidate table, the choice marked, for --timing."""
        out = [f"tuning ({'from cache' if self.from_cache else 'measured'}, key {self.key[:16]})"]
        out += [f"{'*' if n == self.chosen else ' '} {n:<28} {s * 1e3:>10.4f} ms" for n, s in self.medians.items()]
        out += [f"  {n:<28} skipped: {why}" for n, why in self.skipped.items()]
        return out + [f"chosen: {self.chosen}"]


@dataclass
class _Measured:
    """One candidate that compiled, ran and agreed with the baseline: its artifact and median latency."""

    artifact: Artifact
    median: float


def default_cache_dir() -> Path:
    """Where tuning results live unless cache_dir= says: $OXLA_CACHE_DIR, else ~/.cache/oxla/tune."""
    env = os.environ.get("OXLA_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "oxla" / "tune"


def cache_key(source, target: str, chip: str, options: dict) -> str:
    """The hash of everything that shapes the tuned artifact: program, target, options, oxla, IREE, CPU."""
    return key_of(program_bytes(source), {"target": target, "chip": chip, "options": options,
                                          "candidates": [asdict(c) for c in CANDIDATES]})


def _check_supported(target, compile_to, compile_from, hooks) -> None:
    """Raises TuningError for options under which tuning cannot run or would mean nothing."""
    if compile_to or compile_from or hooks:
        raise TuningError("tuning compiles whole programs: compile_to, compile_from and hooks are not "
                          "supported with it")
    if target.name != "llvm-cpu":
        raise TuningError(f"tuning times candidates on this machine's CPU, so it supports target llvm-cpu only, "
                          f"not {target.name}")


def entry_function(signatures: dict[str, FunctionSignature]) -> FunctionSignature:
    """The function tuning times: `main`, or the only public function."""
    if "main" in signatures:
        return signatures["main"]
    if len(signatures) == 1:
        return next(iter(signatures.values()))
    if not signatures:
        raise TuningError("cannot tune a program without a public function: there is nothing to time")
    raise TuningError(f"cannot tune: no function is named main and there are {len(signatures)} public "
                      f"functions ({', '.join(signatures)}); make the others private")


def generate_inputs(signature: FunctionSignature, seed: int = 0) -> list[np.ndarray]:
    """Arguments for the function from its static types: small normal floats, small ints, random bools."""
    from oxla.runtime.signature import parse_type

    rng = np.random.default_rng(seed)
    inputs = []
    for index, type_text in enumerate(signature.inputs):
        kind, shape, element = parse_type(type_text)
        if kind == "other" or element is None:
            raise TuningError(f"cannot tune @{signature.name}: argument {index + 1} has type {type_text}, "
                              "for which no input can be generated")
        if None in shape:
            raise TuningError(f"cannot tune @{signature.name}: argument {index + 1} ({type_text}) has a dynamic "
                              "shape; tuning needs static shapes to generate inputs")
        inputs.append(_random_array(rng, shape, element.dtype))
    return inputs


def _random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """One random argument: floats normal * 0.5, ints in [0, 4), bools fair coins."""
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 4, shape).astype(dtype)
    if dtype.kind == "c":
        return (0.5 * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))).astype(dtype)
    return (0.5 * rng.standard_normal(shape)).astype(np.float32).astype(dtype)  # bf16, f8: via f32


def median_latency(call, budget_s: float) -> float:
    """The median wall time of `call()`: repeated until budget_s has passed, at least MIN_REPEATS times."""
    times: list[float] = []
    started = time.perf_counter()
    while len(times) < MIN_REPEATS or time.perf_counter() - started < budget_s:
        began = time.perf_counter()
        call()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def _run(artifact: Artifact, entry: str, inputs: list[np.ndarray], budget_s: float) -> tuple[list, float]:
    """Loads the artifact on the caller's thread, runs it once (warm-up, outputs) and times it."""
    import oxla.runtime

    function = oxla.runtime.load(artifact, device=DEVICE)[entry]
    result = function(*inputs)
    outputs = list(result) if isinstance(result, tuple) else ([] if result is None else [result])
    return outputs, median_latency(lambda: function(*inputs), budget_s)


def _tolerance(dtype: np.dtype) -> tuple[float, float] | None:
    """(rtol, atol) for a float or complex dtype; None for exact comparison."""
    if dtype.kind == "c":
        return _TOLERANCES.get(dtype.itemsize // 2, _TOLERANCES[8])
    if dtype.kind == "f" or (dtype.kind == "V" and dtype.itemsize <= 2):  # ml_dtypes floats are kind 'V'
        return _TOLERANCES.get(dtype.itemsize, _TOLERANCES[8])
    return None


def disagreement(expected: list[np.ndarray], actual: list[np.ndarray]) -> str | None:
    """Why `actual` differs from `expected` beyond the dtype's tolerance (NaN equals NaN), or None."""
    if len(expected) != len(actual):
        return f"{len(actual)} results instead of {len(expected)}"
    for index, (want, got) in enumerate(zip(expected, actual)):
        want, got = np.asarray(want), np.asarray(got)
        if want.shape != got.shape or want.dtype != got.dtype:
            return f"result {index} is {got.dtype}{list(got.shape)}, not {want.dtype}{list(want.shape)}"
        tol = _tolerance(want.dtype)
        if tol is None:
            same = np.array_equal(want, got)
        else:
            wide = np.complex128 if want.dtype.kind == "c" else np.float64
            want, got = want.astype(wide), got.astype(wide)
            same = np.allclose(got, want, rtol=tol[0], atol=tol[1], equal_nan=True)
        if not same:
            return f"result {index} differs (max abs difference {_max_difference(want, got)})"
    return None


def _max_difference(want: np.ndarray, got: np.ndarray) -> str:
    """The largest absolute difference between two arrays, for messages."""
    with np.errstate(invalid="ignore"):
        diff = np.abs(want.astype(np.complex128) - got.astype(np.complex128)) if want.size else np.zeros(1)
    return f"{np.nanmax(diff):.3g}" if np.isfinite(diff).any() else "non-finite"


def _effective(base: tuple[str, ...], extra: list[str]) -> dict[str, str]:
    """The flag values that result from `base` followed by `extra` (later flags win)."""
    return dict(compiler.split_flag(f) for f in (*base, *extra))


def _overrides(candidate: Candidate, base: tuple[str, ...]) -> list[str]:
    """Flags that turn compile()'s first flag set `base` into the candidate's: its flags, and base's others reset."""
    defaults = compiler.flag_defaults()
    own = {compiler.split_flag(f)[0] for f in candidate.flags}
    resets = [f"{name}={defaults.get(name, '')}" for name, _ in map(compiler.split_flag, base) if name not in own]
    return [f for f in candidate.flags if f not in base] + resets


def _plan(module, target, user_flags: list[str]) -> tuple[list[tuple[Candidate, list[str]]], str, dict[str, str]]:
    """The candidates to compile with their extra flags for compile(), compile()'s first set, why others are skipped."""
    has_complex = compiler.has_complex(module)
    base_name, base = target.flag_sets_for(has_complex)[0]
    plan, skipped, seen = [], {}, {}
    for candidate in CANDIDATES:
        if has_complex and DATA_TILING in candidate.flags:
            skipped[candidate.name] = "data tiling crashes IREE 3.13 on complex values"
            continue
        extra = _overrides(candidate, base) + user_flags
        effective = json.dumps(_effective(base, extra), sort_keys=True)
        if effective in seen:
            skipped[candidate.name] = f"the same flags as {seen[effective]}"
            continue
        seen[effective] = candidate.name
        plan.append((candidate, extra))
    return plan, base_name, skipped


def _measure_all(module, plan, base_name: str, options: dict, entry: FunctionSignature, budget_s: float,
                 skipped: dict[str, str]) -> dict[str, _Measured]:
    """Compiles, runs and times each planned candidate; the ones that fail or disagree go into `skipped`."""
    from oxla.runtime import InvocationError, ModuleLoadError

    inputs = generate_inputs(entry)
    measured: dict[str, _Measured] = {}
    reference: tuple[str, list] | None = None
    first_error: Exception | None = None
    for candidate, extra in plan:
        try:
            artifact = compiler.compile(module, **options, flags=extra)
        except (CompileError, ValueError) as exc:
            first_error = first_error or exc
            skipped[candidate.name] = f"failed to compile: {first_line(exc)}"
            continue
        if measured and artifact.flag_set != base_name:  # only the baseline may be compile()'s fallback
            skipped[candidate.name] = f"IREE failed with its flags (compile() fell back to '{artifact.flag_set}')"
            continue
        try:
            outputs, median = _run(artifact, entry.name, inputs, budget_s)
        except (InvocationError, ModuleLoadError) as exc:
            skipped[candidate.name] = f"failed to run: {first_line(exc)}"
            continue
        why = reference and disagreement(reference[1], outputs)
        if why:
            skipped[candidate.name] = f"outputs disagree with {reference[0]}'s: {why}"
            continue
        reference = reference or (candidate.name, outputs)
        measured[candidate.name] = _Measured(artifact, median)
    if not measured and first_error is not None:
        raise first_error
    if not measured:
        raise TuningError("no candidate compiled and ran: " + "; ".join(f"{n}: {w}" for n, w in skipped.items()))
    return measured


def fastest(medians: dict[str, float]) -> str:
    """The candidate with the lowest median; an earlier one keeps its place against one less than MARGIN faster."""
    chosen = next(iter(medians))
    for name, median in medians.items():
        if median < medians[chosen] * (1 - MARGIN):
            chosen = name
    return chosen


# --- the cache ---------------------------------------------------------------------------------------------


def _read_index(directory: Path) -> dict:
    """The cache index's entries; a missing index is empty, an unreadable one warns and counts as empty."""
    path = directory / _INDEX
    try:
        data = json.loads(path.read_text())
    except (FileNotFoundError, NotADirectoryError):  # no cache yet: nothing to warn about
        return {}
    except (OSError, ValueError) as exc:
        warnings.warn(f"oxla tuning cache {path} is unreadable ({first_line(exc)}); ignoring it and re-tuning",
                      stacklevel=4)
        return {}
    if not isinstance(data, dict) or data.get("format") != _CACHE_FORMAT or not isinstance(data.get("entries"), dict):
        warnings.warn(f"oxla tuning cache {path} is not an index oxla wrote; ignoring it and re-tuning", stacklevel=4)
        return {}
    return data["entries"]


def _load_cached(directory: Path, key: str) -> Artifact | None:
    """The cached artifact for `key` with its TuningResult, or None (warning when the entry is damaged)."""
    entry = _read_index(directory).get(key)
    if entry is None:
        return None
    try:
        vmfb = (directory / entry["vmfb"]).read_bytes()
        if hashlib.sha256(vmfb).hexdigest() != entry["vmfb_sha256"]:
            raise ValueError("the .vmfb does not match its recorded hash")
        artifact = artifact_from_record(entry["artifact"], vmfb)
        result = TuningResult(entry["chosen"], dict(entry["medians"]), dict(entry["skipped"]), True, key,
                              str(directory))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        warnings.warn(f"oxla tuning cache entry {key[:16]} in {directory} is damaged ({first_line(exc)}); "
                      "re-tuning", stacklevel=3)
        return None
    artifact.tuning = result
    return artifact


def _store(directory: Path, key: str, artifact: Artifact, result: TuningResult) -> None:
    """Adds the choice and its .vmfb to the cache; a cache that cannot be written warns, tuning still succeeds."""
    entry = {"chosen": result.chosen, "medians": result.medians, "skipped": result.skipped,
             "vmfb": f"{key}.vmfb", "vmfb_sha256": hashlib.sha256(artifact.vmfb).hexdigest(),
             "artifact": artifact_record(artifact), "created": time.time()}
    try:
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write(directory / entry["vmfb"], artifact.vmfb)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a damaged index was reported when it was read
            entries = _read_index(directory)  # re-read: another process may have added entries meanwhile
        entries[key] = entry
        atomic_write(directory / _INDEX, json.dumps({"format": _CACHE_FORMAT, "entries": entries}, indent=1).encode())
    except OSError as exc:
        warnings.warn(f"cannot write the oxla tuning cache in {directory}: {first_line(exc)}", stacklevel=3)


# --- the entry point ---------------------------------------------------------------------------------------


def compile_tuned(
    source,
    target: str = "llvm-cpu",
    *,
    compile_to: str | None = None,
    compile_from: str | None = None,
    hooks=None,
    cpu: str | None = None,
    gpu: str | None = None,
    keep_f64: bool | None = None,
    opt_level: str | None = None,
    flags: list[str] | tuple[str, ...] = (),
    legalize: bool = True,
    optimize: bool = True,
    disable_passes=(),
    cache_dir: str | os.PathLike | None = None,
    retune: bool = False,
    budget_s: float = BUDGET_S,
) -> Artifact:
    """oxla.compile with the fastest of CANDIDATES on this CPU; the artifact's `.tuning` says what was measured.

    Takes compile()'s arguments (compile_to, compile_from and hooks raise
    TuningError, as do targets other than llvm-cpu and programs whose entry
    has dynamic shapes). opt_level and flags apply on top of every candidate.
    cache_dir: where choices are kept (default_cache_dir()); retune=True
    measures again and replaces the cached choice. budget_s: seconds of timed
    calls per candidate.
    """
    tgt, chip = resolve(target)
    chip = cpu or gpu or chip or tgt.default_chip
    _check_supported(tgt, compile_to, compile_from, hooks)
    keep = tgt.keep_f64 if keep_f64 is None else keep_f64
    disabled = sorted(set(disable_passes))
    tgt.codegen_passes_without(disabled)  # a name the target does not run fails before any work
    options = {"flags": list(flags), "opt_level": opt_level, "keep_f64": keep, "legalize": legalize,
               "optimize": optimize, "disable_passes": disabled}
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    key = cache_key(source, tgt.name, chip, options)
    cached = None if retune else _load_cached(directory, key)
    if cached is not None:
        return cached

    module = compiler.as_module(source)
    entry = entry_function(compiler.signatures(module))
    tail = ([f"--iree-opt-level={opt_level}"] if opt_level else []) + list(flags)
    plan, base_name, skipped = _plan(module, tgt, tail)
    compile_options = {"target": f"{tgt.name}:{chip}", "keep_f64": keep, "opt_level": opt_level,
                       "legalize": legalize, "optimize": optimize, "disable_passes": disabled}
    measured = _measure_all(module, plan, base_name, compile_options, entry, budget_s, skipped)
    chosen = fastest({name: m.median for name, m in measured.items()})
    medians = {name: m.median for name, m in measured.items()}
    result = TuningResult(chosen, medians, skipped, False, key, str(directory))
    artifact = measured[chosen].artifact
    _store(directory, key, artifact, result)
    artifact.tuning = result
    return artifact
