#!/usr/bin/env python3
"""Fits the polynomial coefficients of oxla-expand-math (python/oxla/transforms/math_kernels.py).

    python tools/fit_math_polynomials.py            # print the table and each fit's error
    python tools/fit_math_polynomials.py --write    # also rewrite the generated block in math_kernels.py

Each polynomial is a weighted minimax (Remez exchange) fit, in 80-digit
arithmetic (mpmath), of the part of a function that the kernel does not
compute exactly (for sin: (sin r - r) / r^3 as a polynomial in z = r^2),
with the weight that turns its error into the relative error of the whole
function. For each precision tier ("f64": results of f64 ops, "f32": results
that are rounded to f32 or narrower) the smallest degree whose error, with
the coefficients rounded to doubles, stays under the tier's target is kept.
The "f32-ops" tier serves kernels that compute in f32 itself (fast paths,
within two ulps): its coefficients are rounded to f32, and only the fits that
name it get one.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from typing import Callable

import mpmath as mp
import numpy as np

mp.mp.dps = 80
# Target relative error of each fit (before its coefficients are rounded to
# doubles) per tier: well under an ulp of the tier's results.
TIERS = {"f64": mp.mpf(2) ** -60, "f32": mp.mpf(2) ** -46, "f32-ops": mp.mpf(2) ** -27}
# How each tier's coefficients are stored: the precision its kernels compute in.
ROUNDING = {"f64": float, "f32": float, "f32-ops": lambda c: float(np.float32(float(c)))}
DOUBLE_TIERS = ("f64", "f32")
KERNELS = os.path.join(os.path.dirname(__file__), "..", "python", "oxla", "transforms", "math_kernels.py")
BEGIN, END = "# BEGIN GENERATED TABLES", "# END GENERATED TABLES"
TINY = mp.mpf(10) ** -30  # removable singularities at 0 are evaluated here


@dataclass(frozen=True)
class Fit:
    """One polynomial: approximates target(v) on [lo, hi]; weight(v) * error is the function's relative error."""

    name: str
    lo: float
    hi: float
    target: Callable
    weight: Callable
    doc: str
    tiers: tuple[str, ...] = DOUBLE_TIERS


def _root(z):
    """sqrt(z), kept off the removable singularity at 0."""
    return mp.sqrt(max(z, TINY))


def _nonzero(v):
    """v moved off 0 (to +-TINY), where targets have a removable singularity."""
    return v if abs(v) > TINY else (TINY if v >= 0 else -TINY)


FITS = [
    Fit("sin", 0.0, 0.7854 ** 2,
        lambda z: (mp.sin(_root(z)) - _root(z)) / _root(z) ** 3,
        lambda z: _root(z) ** 3 / mp.sin(_root(z)),
        "sin(r) = r + r^3 * P(r^2), |r| <= pi/4"),
    Fit("cos", 0.0, 0.7854 ** 2,
        lambda z: (mp.cos(_root(z)) - 1 + max(z, TINY) / 2) / max(z, TINY) ** 2,
        lambda z: max(z, TINY) ** 2 / mp.cos(_root(z)),
        "cos(r) = 1 - r^2/2 + r^4 * P(r^2), |r| <= pi/4"),
    Fit("atan", 0.0, 0.0626 ** 2,
        lambda z: (mp.atan(_root(z)) - _root(z)) / _root(z) ** 3,
        lambda z: _root(z) ** 3 / mp.atan(_root(z)),
        "atan(u) = u + u^3 * P(u^2), |u| <= 1/16"),
    Fit("expm1", -0.3467, 0.3467,
        lambda r: (mp.expm1(_nonzero(r)) - _nonzero(r) - _nonzero(r) ** 2 / 2) / _nonzero(r) ** 3,
        lambda r: _nonzero(r) ** 3 / mp.expm1(_nonzero(r)),
        "expm1(r) = r + r^2/2 + r^3 * P(r), |r| <= log(2)/2", DOUBLE_TIERS + ("f32-ops",)),
    Fit("tanh", 0.0, 0.625 ** 2,
        lambda z: (mp.tanh(_root(z)) - _root(z)) / _root(z) ** 3,
        lambda z: _root(z) ** 3 / mp.tanh(_root(z)),
        "tanh(a) = a + a^3 * P(a^2), |a| <= 0.625", ("f32-ops",)),
    Fit("log", 0.0, 0.1716 ** 2,
        lambda z: (2 * mp.atanh(_root(z)) - 2 * _root(z) - 2 * _root(z) ** 3 / 3) / _root(z) ** 5,
        lambda z: _root(z) ** 5 / (2 * mp.atanh(_root(z))),
        "log((1+s)/(1-s)) = 2s + 2s^3/3 + s^5 * P(s^2), |s| <= 3 - 2*sqrt(2)", DOUBLE_TIERS + ("f32-ops",)),
    Fit("cbrt", 1.0, 2.0,
        lambda m: mp.cbrt(m),
        lambda m: 1 / mp.cbrt(m),
        "cbrt(m) ~ P(m) on [1, 2]: the start of the Newton iterations"),
]
TARGET_OVERRIDE = {
    # pow multiplies log(x) by y: exp(y*log(x)) has the absolute error of
    # y*log(x), up to ~745 (f64) or ~150 (f32) times log's relative error.
    "log": {"f64": mp.mpf(2) ** -66, "f32": mp.mpf(2) ** -55},
    # cbrt's polynomial only starts the Halley/Newton iterations.
    "cbrt": {"f64": mp.mpf(2) ** -18, "f32": mp.mpf(2) ** -18},
}


def _poly(coeffs, v):
    """sum(coeffs[i] * v^i)."""
    acc = mp.mpf(0)
    for c in reversed(coeffs):
        acc = acc * v + c
    return acc


def _error(fit: Fit, coeffs, v):
    """The fit's weighted error at v: the relative error of the function it serves."""
    return fit.weight(v) * (_poly(coeffs, v) - fit.target(v))


def _extremum(f, a, b, samples: int = 24):
    """The point of [a, b] where |f| is largest: dense sampling, then golden-section refinement."""
    grid = [a + (b - a) * i / samples for i in range(samples + 1)]
    values = [abs(f(x)) for x in grid]
    i = max(range(len(grid)), key=values.__getitem__)
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, samples)]
    ratio = (mp.sqrt(5) - 1) / 2
    for _ in range(40):
        x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if abs(f(x1)) > abs(f(x2)):
            hi = x2
        else:
            lo = x1
    best = (lo + hi) / 2
    return max([best, grid[i]], key=lambda x: abs(f(x)))


def _sign_change(f, a, b, steps: int = 90):
    """A point where f changes sign between a and b (bisection: robust on flat, noisy errors)."""
    fa = f(a)
    for _ in range(steps):
        mid = (a + b) / 2
        fm = f(mid)
        if fm == 0:
            return mid
        if (fm < 0) == (fa < 0):
            a, fa = mid, fm
        else:
            b = mid
    return (a + b) / 2


def remez(fit: Fit, n: int, iterations: int = 30):
    """Weighted minimax coefficients (n of them, lowest degree first) and the reached max error."""
    a, b = mp.mpf(fit.lo), mp.mpf(fit.hi)
    points = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / n) for i in range(n + 1)]
    coeffs, level = None, None
    for _ in range(iterations):
        matrix = mp.matrix(n + 1, n + 1)
        rhs = mp.matrix(n + 1, 1)
        for i, x in enumerate(points):
            for j in range(n):
                matrix[i, j] = x ** j
            matrix[i, n] = (-1) ** i / fit.weight(x)
            rhs[i] = fit.target(x)
        solution = mp.lu_solve(matrix, rhs)
        coeffs, level = [solution[j] for j in range(n)], abs(solution[n])
        err = lambda x: _error(fit, coeffs, x)  # noqa: E731
        roots = []
        for x0, x1 in zip(points, points[1:]):
            e0, e1 = err(x0), err(x1)
            if e0 * e1 < 0:
                roots.append(_sign_change(err, x0, x1))
            else:
                roots.append((x0 + x1) / 2)
        edges = [a, *roots, b]
        points = [_extremum(err, lo, hi) for lo, hi in zip(edges, edges[1:])]
        worst = max(abs(err(x)) for x in points)
        if worst <= level * (1 + mp.mpf(10) ** -6):
            break
    return coeffs, level


def rounded_error(fit: Fit, coeffs, tier: str = "f64") -> mp.mpf:
    """Max weighted error with the coefficients rounded as the tier stores them (dense grid plus refinement)."""
    stored = [mp.mpf(ROUNDING[tier](c)) for c in coeffs]
    err = lambda x: _error(fit, stored, x)  # noqa: E731
    a, b = mp.mpf(fit.lo), mp.mpf(fit.hi)
    pieces = 64
    return max(abs(err(_extremum(err, a + (b - a) * i / pieces, a + (b - a) * (i + 1) / pieces, 8)))
               for i in range(pieces))


def fit_tier(fit: Fit, tier: str) -> tuple[list[float], float]:
    """The lowest-degree fit whose minimax error meets the tier's target; its error once rounded."""
    target = TARGET_OVERRIDE.get(fit.name, {}).get(tier, TIERS[tier])
    for n in range(2, 24):
        coeffs, level = remez(fit, n)
        if level <= target:
            return [ROUNDING[tier](c) for c in coeffs], float(rounded_error(fit, coeffs, tier))
    raise RuntimeError(f"no fit of {fit.name} reaches the {tier} target")


def _split(value, bits: int | None = None) -> tuple[float, float]:
    """value as hi + lo doubles; hi keeps `bits` significant bits (so small multiples of it are exact)."""
    hi = float(value)
    if bits is not None:
        exponent = int(mp.floor(mp.log(abs(value), 2)))
        hi = float(mp.floor(value * mp.mpf(2) ** (bits - 1 - exponent)) * mp.mpf(2) ** (exponent + 1 - bits))
    return hi, float(value - hi)


def _parts(value, widths: list[int | None]) -> tuple[float, ...]:
    """value as a sum of doubles, the i-th keeping widths[i] significant bits (None: all 53)."""
    parts, rest = [], mp.mpf(value)
    for bits in widths:
        part = _split(rest, bits)[0]
        parts.append(part)
        rest -= part
    return tuple(parts)


def _two_over_pi_words(width: int, count: int) -> list[int]:
    """2/pi = sum of word[i] * 2^(-width*(i+1)): its bits, `width` at a time."""
    with mp.workdps(int((width * count + 64) * 0.302) + 20):
        scaled = mp.floor(2 / mp.pi * mp.mpf(2) ** (width * count))
    value = int(scaled)
    return [(value >> (width * (count - 1 - i))) & ((1 << width) - 1) for i in range(count)]


def constants() -> dict[str, object]:
    """Constants the kernels need, each split so that its parts are exact where the kernels need it."""
    return {
        "PIO2": _split(mp.pi / 2),
        # Cody-Waite: k * part is exact for k < 2^20 in the first three parts.
        "PIO2_PARTS": _parts(mp.pi / 2, [33, 33, 33, None]),
        "PI": _split(mp.pi),
        "LN2": _split(mp.log(2), 42),  # k * LN2[0] is exact for |k| < 2^11
        "LOG2E": float(1 / mp.log(2)),
        # For kernels in f32 arithmetic: k * LN2_F32[0] is exact for |k| < 2^8.
        "LN2_F32": tuple(float(np.float32(part)) for part in _split(mp.log(2), 16)),
        "TWO_THIRDS": _split(mp.mpf(2) / 3),
        "ATAN_EIGHTHS": tuple(_split(mp.atan(mp.mpf(j) / 8)) for j in range(9)),
        "CBRT_STEPS": (1.0, float(mp.cbrt(2)), float(mp.cbrt(4))),
        # Payne-Hanek reduction: 26-bit words for any double, 28-bit words for 24-bit inputs.
        "TWO_OVER_PI_26": tuple(_two_over_pi_words(26, 48)),
        "TWO_OVER_PI_28": tuple(_two_over_pi_words(28, 8)),
    }


def _wrapped(head: str, value, tail: str, width: int = 110) -> list[str]:
    """`head + repr(value) + tail` as lines of at most `width` characters (tuples split between items)."""
    text = head + repr(value) + tail
    if len(text) <= width or not isinstance(value, tuple):
        return [text]
    indent = " " * (len(head) - len(head.lstrip()) + 4)
    lines, line = [head + "("], indent
    for item in value:
        piece = repr(item) + ", "
        if len(line) + len(piece) > width:
            lines.append(line.rstrip())
            line = indent
        line += piece
    lines.append(line.rstrip())
    lines.append(" " * (len(indent) - 4) + ")" + tail)
    return lines


def table() -> tuple[str, list[str]]:
    """The generated Python block and a report line per fit."""
    lines = [BEGIN, "# Written by tools/fit_math_polynomials.py; rerun it (with --write) to regenerate.",
             "# Constants, split into double parts where one double is not precise enough.", "CONSTANTS = {"]
    for name, value in constants().items():
        lines += _wrapped(f'    "{name}": ', value, ",")
    lines += ["}", "# name -> tier -> coefficients, lowest degree first.", "POLYNOMIALS = {"]
    report = []
    for fit in FITS:
        lines.append(f"    # {fit.doc}")
        lines.append(f'    "{fit.name}": {{')
        for tier in fit.tiers:
            coeffs, error = fit_tier(fit, tier)
            report.append(f"{fit.name:6} {tier:7}: degree {len(coeffs) - 1:2}, max relative error {error:.3g} "
                          f"(2^{float(mp.log(error, 2)):.1f})")
            lines.append(f"        # {tier}: max relative error {error:.2g}")
            lines += _wrapped(f'        "{tier}": ', tuple(coeffs), ",")
        lines.append("    },")
    lines += ["}", END]
    return "\n".join(lines), report


def write(block: str, path: str = KERNELS) -> None:
    """Replaces the generated block of math_kernels.py."""
    with open(path) as f:
        text = f.read()
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path} has no generated block ({BEGIN} ... {END})")
    with open(path, "w") as f:
        f.write(pattern.sub(lambda _: block, text))


def main(argv: list[str] | None = None) -> int:
    """Prints the fits (and their errors on stderr); --write updates math_kernels.py."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the generated block of math_kernels.py")
    args = parser.parse_args(argv)
    block, report = table()
    print("\n".join(report), file=sys.stderr)
    print(block)
    if args.write:
        write(block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
