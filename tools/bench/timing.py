"""Timing and checking shared by run.py and flags.py: interleaved samples, medians, errors against XLA."""

from __future__ import annotations

import math
import statistics
import time
from typing import Callable

import numpy as np


def calibrate(call: Callable[[], object], min_time: float, warmup: int = 2) -> tuple[int, float]:
    """Warms `call` up; returns (calls per sample so one sample lasts about min_time, a first per-call estimate)."""
    for _ in range(warmup):
        call()
    began = time.perf_counter()
    call()
    once = max(time.perf_counter() - began, 1e-7)
    number = max(1, min(10_000, math.ceil(min_time / once)))
    return number, once


def measure(calls: dict[str, Callable[[], object]], repeat: int, min_time: float,
            progress: Callable[[str], None] | None = None) -> dict[str, list[float]]:
    """Per-call seconds of each callable, `repeat` samples each, interleaved (order reversed every other round)."""
    numbers = {}
    for name, call in calls.items():
        numbers[name], _ = calibrate(call, min_time)
    samples: dict[str, list[float]] = {name: [] for name in calls}
    order = list(calls.items())
    for rep in range(repeat):
        for name, call in order if rep % 2 == 0 else order[::-1]:
            n = numbers[name]
            began = time.perf_counter()
            for _ in range(n):
                call()
            samples[name].append((time.perf_counter() - began) / n)
        if progress:
            progress(f"{rep + 1}/{repeat}")
    return samples


def median(values: list[float]) -> float:
    return statistics.median(values)


def relative_error(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    """max |got - want| / max |want| over all outputs (inf when shapes differ or a value is not finite)."""
    if len(got) != len(want):
        return math.inf
    worst = 0.0
    for g, w in zip(got, want):
        wide = np.complex128 if np.iscomplexobj(g) or np.iscomplexobj(w) else np.float64
        g, w = np.asarray(g).astype(wide), np.asarray(w).astype(wide)
        if g.shape != w.shape:
            return math.inf
        diff = np.abs(g - w)
        if not np.all(np.isfinite(diff)):
            return math.inf
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        worst = max(worst, float(np.max(diff)) / (scale or 1.0) if w.size else 0.0)
    return worst


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None
