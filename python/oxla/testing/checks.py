"""The StableHLO `check` semantics, on numpy arrays.

These are the comparisons the StableHLO reference interpreter applies to
`check.expect_eq`, `check.expect_almost_eq` and `check.expect_close`; each
returns None when the check holds, else a short reason.
"""

from __future__ import annotations

import numpy as np


def _parts(a: np.ndarray) -> list[np.ndarray]:
    """Complex arrays compare part by part; others are one part."""
    return [a.real, a.imag] if np.iscomplexobj(a) else [a]


def _shape_problem(actual: np.ndarray, expected: np.ndarray) -> str | None:
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != expected {expected.shape}"
    return None


def _first_mismatch(bad: np.ndarray, actual: np.ndarray, expected: np.ndarray, what: str) -> str | None:
    """Describes the first failing element, or None when nothing failed."""
    if not bad.any():
        return None
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ ({what}); first at {index}: "
            f"{actual[index]!r} vs expected {expected[index]!r}")


def expect_eq(actual: np.ndarray, expected: np.ndarray) -> str | None:
    """Exact for integers and booleans, IEEE `==` for floats (NaN never equal), complex part-wise."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    problem = _shape_problem(actual, expected)
    if problem:
        return problem
    if actual.dtype.kind in "biu":
        bad = actual != expected
    else:
        bad = np.zeros(actual.shape, dtype=bool)
        for a, e in zip(_parts(actual), _parts(expected)):
            bad |= ~(a.astype(np.float64) == e.astype(np.float64))
    return _first_mismatch(bad, actual, expected, "exact")


def expect_almost_eq(actual: np.ndarray, expected: np.ndarray, tolerance: float = 1e-3) -> str | None:
    """Equal, both NaN, or within `tolerance` (absolute, in double precision); infinities must match."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    problem = _shape_problem(actual, expected)
    if problem:
        return problem
    if actual.dtype.kind in "biu":
        return _first_mismatch(actual != expected, actual, expected, "exact")
    bad = np.zeros(actual.shape, dtype=bool)
    for a, e in zip(_parts(actual), _parts(expected)):
        a, e = a.astype(np.float64), e.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            ok = (a == e) | (np.isnan(a) & np.isnan(e)) | (np.isfinite(a) & np.isfinite(e) & (np.abs(a - e) <= tolerance))
        bad |= ~ok
    return _first_mismatch(bad, actual, expected, f"tolerance {tolerance}")


_UINT_OF_WIDTH = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def ulp_distance(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Units in the last place between two float arrays of one dtype (inf where unbounded)."""
    utype = _UINT_OF_WIDTH[actual.dtype.itemsize]
    bits = actual.dtype.itemsize * 8
    sign = utype(1) << utype(bits - 1)
    a_bits, e_bits = actual.view(utype), expected.view(utype)
    a_mag, e_mag = a_bits & ~sign, e_bits & ~sign
    same_sign = (a_bits & sign) == (e_bits & sign)
    # In integers: float64 cannot hold a 64-bit magnitude exactly.
    apart = np.where(a_mag > e_mag, a_mag - e_mag, e_mag - a_mag)
    dist = np.where(same_sign, apart, a_mag + e_mag).astype(np.float64)
    a64, e64 = actual.astype(np.float64), expected.astype(np.float64)
    a_nan, e_nan = np.isnan(a64), np.isnan(e64)
    unbounded = (a_nan != e_nan) | ((np.isinf(a64) | np.isinf(e64)) & (a64 != e64))
    dist = np.where(unbounded, np.inf, dist)
    return np.where((a_bits == e_bits) | (a_nan & e_nan), 0.0, dist)


def expect_close(actual: np.ndarray, expected: np.ndarray, max_ulp: int = 3, min_ulp: int = 0) -> str | None:
    """At most `max_ulp` (and at least `min_ulp`) units in the last place apart; complex by the worse part."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    problem = _shape_problem(actual, expected)
    if problem:
        return problem
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != expected {expected.dtype}"
    if actual.dtype.kind in "biu":
        return _first_mismatch(actual != expected, actual, expected, "exact")
    dist = np.zeros(actual.shape)
    for a, e in zip(_parts(actual), _parts(expected)):
        dist = np.maximum(dist, ulp_distance(np.ascontiguousarray(a), np.ascontiguousarray(e)))
    return _first_mismatch((dist > max_ulp) | (dist < min_ulp), actual, expected, f"ulp in [{min_ulp}, {max_ulp}]")


CHECKS = {
    "expect_eq": expect_eq,
    "expect_almost_eq": expect_almost_eq,
    "expect_close": expect_close,
}
