"""Differential checks: the reference interpreter against compiled code.

    report = oxla.check.differential(module, [x, w], targets=["llvm-cpu"])
    report.raise_for_mismatch()      # or: assert report.ok, str(report)

`differential` evaluates `function` with `oxla.interpreter` (the oracle),
compiles the module for each target with `oxla.compile`, runs it with
`oxla.runtime`, and compares every result. Integers and booleans must be
equal; floats (complex: each part) may differ by at most 3 units in the
last place (`oxla.testing.checks.ulp_distance`) or by `atol + rtol * |ref|`,
with per-dtype defaults (DEFAULT_TOLERANCES) that `rtol`/`atol` override;
NaN must meet NaN and infinities must match exactly. A target that fails to
compile or run counts as a mismatch whose message says why; an unknown
target name is a ValueError.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from oxla.testing.checks import ulp_distance

MAX_ULP = 3
# dtype name -> (rtol, atol) for float results (complex: of their parts)
DEFAULT_TOLERANCES = {
    "float64": (1e-12, 1e-14), "float32": (1e-5, 1e-6), "float16": (1e-3, 1e-4), "bfloat16": (1e-2, 1e-3),
}
_SMALL_FLOATS = (1e-1, 1e-2)  # f8 and smaller


class MismatchError(AssertionError):
    """A compiled target disagrees with the interpreter (the message is the report)."""


@dataclass
class Comparison:
    """One result of one target against the interpreter's."""

    target: str
    index: int
    ok: bool
    max_error: float = 0.0  # the largest absolute difference (0 for exact matches)
    max_ulp: float = 0.0  # the largest distance in units in the last place (floats)
    message: str = ""

    def __str__(self) -> str:
        if self.index < 0:  # the target itself failed
            return f"  {self.target}: MISMATCH: {self.message}"
        verdict = "ok" if self.ok else "MISMATCH"
        detail = f": {self.message}" if self.message else ""
        return f"  {self.target} result {self.index}: {verdict} (max error {self.max_error:.3g}, {self.max_ulp:.3g} ulp){detail}"


@dataclass
class DifferentialReport:
    """Every comparison of a differential run, per target and result."""

    function: str
    reference: list = field(default_factory=list)  # the interpreter's results
    outputs: dict = field(default_factory=dict)  # target -> its results (absent when it failed)
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.comparisons) and all(c.ok for c in self.comparisons)

    def for_target(self, target: str) -> list[Comparison]:
        return [c for c in self.comparisons if c.target == target]

    def __str__(self) -> str:
        head = f"differential check of @{self.function}: {'ok' if self.ok else 'MISMATCH'}"
        return "\n".join([head] + [str(c) for c in self.comparisons])

    def raise_for_mismatch(self) -> "DifferentialReport":
        """Raises MismatchError (with this report as message) unless every comparison is ok."""
        if not self.ok:
            raise MismatchError(str(self))
        return self


def tolerances(dtype: np.dtype, rtol: float | None, atol: float | None) -> tuple[float, float]:
    """(rtol, atol) for a float dtype: the caller's where given, else the dtype's defaults."""
    name = np.dtype(dtype).name
    if np.dtype(dtype).kind == "c":
        name = "float64" if np.dtype(dtype).itemsize == 16 else "float32"
    default = DEFAULT_TOLERANCES.get(name, _SMALL_FLOATS)
    return (default[0] if rtol is None else rtol), (default[1] if atol is None else atol)


def compare(target: str, index: int, actual, expected, rtol: float | None = None,
            atol: float | None = None) -> Comparison:
    """Compares one result with the interpreter's: exact for integers and booleans, tolerant for floats."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        return Comparison(target, index, False, message=f"shape {actual.shape} != interpreter's {expected.shape}")
    if actual.dtype != expected.dtype:
        return Comparison(target, index, False, message=f"dtype {actual.dtype} != interpreter's {expected.dtype}")
    if expected.size == 0:
        return Comparison(target, index, True)
    if expected.dtype.kind in "biu":
        bad = actual != expected
        error = float(np.max(np.abs(actual.astype(np.float64) - expected.astype(np.float64))))
        return Comparison(target, index, not bad.any(), error, 0.0, _first(bad, actual, expected))
    r, a = tolerances(expected.dtype, rtol, atol)
    parts = [(actual.real, expected.real), (actual.imag, expected.imag)] if expected.dtype.kind == "c" else [
        (actual, expected)]
    bad = np.zeros(expected.shape, dtype=bool)
    worst_error = worst_ulp = 0.0
    for x, e in parts:
        x, e = np.array(x), np.array(e)  # contiguous copies that keep a 0-d shape
        with np.errstate(over="ignore"):  # unsigned differences of bit patterns may wrap; the unused side
            ulp = ulp_distance(x, e) if x.dtype.itemsize in (2, 4, 8) else np.full(x.shape, np.inf)
        x64, e64 = x.astype(np.float64), e.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(x64 - e64)
            near = np.isfinite(diff) & (diff <= a + r * np.abs(e64))
        bad |= ~((ulp <= MAX_ULP) | near)
        finite = np.isfinite(diff)
        worst_error = max(worst_error, float(diff[finite].max()) if finite.any() else 0.0)
        worst_ulp = max(worst_ulp, float(ulp.max()))
    return Comparison(target, index, not bad.any(), worst_error, worst_ulp, _first(bad, actual, expected))


def _first(bad: np.ndarray, actual, expected) -> str:
    """Names the first differing element, or nothing."""
    if not bad.any():
        return ""
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ; first at {where}: "
            f"{actual[where]!r} vs interpreter's {expected[where]!r}")


def _gist(exc: BaseException) -> str:
    """The line of an error that says what went wrong (a diagnostic's message when there is one)."""
    lines = [" ".join(line.split()) for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        if ": error: " in line:
            return line.split(": error: ", 1)[1][:300]
    return (lines[0] if lines else type(exc).__name__)[:300]


def _as_results(value) -> list:
    return list(value) if isinstance(value, tuple) else ([] if value is None else [value])


def _source(module):
    """A module for the interpreter and a source for the compiler (a path is read once)."""
    from oxla import ir

    if isinstance(module, os.PathLike) or (isinstance(module, str) and "\n" not in module and os.path.exists(module)):
        return ir.parse_file(os.fspath(module))
    return ir.parse(module) if isinstance(module, (str, bytes, bytearray)) else module


def differential(module, inputs, targets=("llvm-cpu",), function: str = "main", rtol: float | None = None,
                 atol: float | None = None) -> DifferentialReport:
    """Runs `function` on `inputs` with the interpreter and with each compiled target; compares the results."""
    import oxla
    from oxla import interpreter, runtime
    from oxla.pipelines.targets import resolve

    if isinstance(targets, str):
        targets = [targets]
    for target in targets:
        resolve(target)  # an unknown target name is the caller's mistake: ValueError now
    module = _source(module)
    inputs = list(inputs)
    reference = interpreter.evaluate(module, function, *inputs)
    report = DifferentialReport(function, reference)
    for target in targets:
        try:
            loaded = runtime.load(oxla.compile(module, target))
            outputs = _as_results(loaded[function](*inputs))
        except Exception as exc:  # a target that fails is a finding of the check, not a crash of it
            report.comparisons.append(Comparison(target, -1, False, message=f"{type(exc).__name__}: {_gist(exc)}"))
            continue
        report.outputs[target] = outputs
        if len(outputs) != len(reference):
            report.comparisons.append(Comparison(target, -1, False, message=(
                f"{len(outputs)} results, the interpreter has {len(reference)}")))
            continue
        report.comparisons += [compare(target, i, out, ref, rtol, atol)
                               for i, (out, ref) in enumerate(zip(outputs, reference))]
    return report
