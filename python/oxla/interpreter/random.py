"""Random numbers: rng_bit_generator bit-exact with XLA's THREE_FRY and PHILOX generators, and rng.

rng_bit_generator's state is u64[2] for THREE_FRY ([key, counter]) and
u64[2] or u64[3] for PHILOX ([key, counter...] as XLA's expander reads it).
DEFAULT is PHILOX, as on XLA's CPU and GPU backends. `rng`'s values are
implementation-defined: they come from numpy's generator, seeded so that a
program gives the same values on every run.
"""

from __future__ import annotations

import numpy as np

from oxla.interpreter import attrs
from oxla.interpreter.core import UnsupportedOp, register
from oxla.interpreter.types import info

U32, U64 = np.uint32, np.uint64
_MASK32 = U64(0xFFFFFFFF)


def _rotl(v: np.ndarray, distance: int) -> np.ndarray:
    return (v << U32(distance)) | (v >> U32(32 - distance))


def threefry2x32(x0: np.ndarray, x1: np.ndarray, k0: int, k1: int) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 with 20 rounds (Salmon et al., SC 2011) on uint32 arrays."""
    rotations = (13, 15, 26, 6, 17, 29, 16, 24)
    ks = (U32(k0), U32(k1), U32(0x1BD11BDA ^ k0 ^ k1))
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for block in range(5):
        for r in rotations[(block % 2) * 4:(block % 2) * 4 + 4]:
            x0 = x0 + x1
            x1 = _rotl(x1, r) ^ x0
        x0 = x0 + ks[(block + 1) % 3]
        x1 = x1 + ks[(block + 2) % 3] + U32(block + 1)
    return x0, x1


def _u64_halves(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (values & _MASK32).astype(U32), (values >> U64(32)).astype(U32)


def _threefry_counters(state: int, shape) -> tuple[np.ndarray, np.ndarray]:
    """state + the row-major index of each element, split into low and high words."""
    counters = U64(state) + np.arange(int(np.prod(shape, dtype=np.int64)), dtype=U64).reshape(shape)
    return _u64_halves(counters)


def _split_dim(shape) -> int:
    """The dimension XLA halves: the first even one, else the largest."""
    even = [i for i, n in enumerate(shape) if n % 2 == 0]
    return even[0] if even else max(range(len(shape)), key=lambda i: (shape[i], -i))


def threefry_bits(key: int, state: int, shape, bits: int) -> tuple[np.ndarray, int]:
    """Random bits of `shape` (8/16/32/64-bit) and the new counter, as XLA's ThreeFry generator makes them."""
    k0, k1 = key & 0xFFFFFFFF, key >> 32
    if bits == 64:
        lo, hi = threefry2x32(*_threefry_counters(state, shape), k0, k1)
        return lo.astype(U64) | (hi.astype(U64) << U64(32)), state + int(np.prod(shape, dtype=np.int64))
    if not shape:
        lo, _ = threefry2x32(*_threefry_counters(state, (1,)), k0, k1)
        return _narrow(lo.reshape(()), bits), state + 1
    d = _split_dim(shape)
    half = list(shape)
    half[d] = -(-shape[d] // 2)
    lo, hi = threefry2x32(*_threefry_counters(state, half), k0, k1)
    joined = np.stack([lo, hi], axis=d + 1).reshape(half[:d] + [2 * half[d]] + half[d + 1:])
    out = joined[tuple(slice(0, n) for n in shape)]
    return _narrow(out, bits), state + int(np.prod(half, dtype=np.int64))


def _narrow(values: np.ndarray, bits: int) -> np.ndarray:
    return values if bits == 32 else values.astype({8: np.uint8, 16: np.uint16}[bits])


_PHILOX_M = (U64(0xD2511F53), U64(0xCD9E8D57))
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)


def philox4x32(x: list[np.ndarray], k0: int, k1: int) -> list[np.ndarray]:
    """Philox-4x32 with 10 rounds on four uint32 arrays."""
    for _ in range(10):
        p0 = x[0].astype(U64) * _PHILOX_M[0]
        p1 = x[2].astype(U64) * _PHILOX_M[1]
        x = [(p1 >> U64(32)).astype(U32) ^ x[1] ^ U32(k0), (p1 & _MASK32).astype(U32),
             (p0 >> U64(32)).astype(U32) ^ x[3] ^ U32(k1), (p0 & _MASK32).astype(U32)]
        k0, k1 = (k0 + _PHILOX_W[0]) & 0xFFFFFFFF, (k1 + _PHILOX_W[1]) & 0xFFFFFFFF
    return x


def philox_bits(key: int, counter: int, shape, bits: int) -> tuple[np.ndarray, int]:
    """Random bits and the new 128-bit counter, as XLA's Philox generator makes them."""
    count = int(np.prod(shape, dtype=np.int64))
    words = 2 * count if bits == 64 else count
    blocks = -(-words // 4)
    counters = [(counter + i) % (1 << 128) for i in range(blocks)]
    parts = [np.array([(c >> (32 * j)) & 0xFFFFFFFF for c in counters], dtype=U32) for j in range(4)]
    out = philox4x32(parts, key & 0xFFFFFFFF, key >> 32)
    if bits == 64:
        pairs = [out[0].astype(U64) | (out[1].astype(U64) << U64(32)), out[2].astype(U64) | (out[3].astype(U64) << U64(32))]
        values = np.stack(pairs, axis=1).reshape(-1)[:count]
    else:
        values = _narrow(np.stack(out, axis=1).reshape(-1)[:count], bits)
    return values.reshape(shape), (counter + blocks) % (1 << 128)


def rng_bit_generator(algorithm: str, state: np.ndarray, shape, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(new state, random bits) for rng_bit_generator."""
    words = [int(v) for v in state.astype(U64)]
    key = words[0]
    if algorithm == "THREE_FRY":
        if len(words) != 2:
            raise ValueError(f"THREE_FRY needs a state of 2 u64 words, not {len(words)}")
        values, counter = threefry_bits(key, words[1], shape, bits)
        return np.array([key, counter % (1 << 64)], dtype=U64), values
    if len(words) >= 3:
        counter = words[1] | (words[2] << 64)
    else:  # XLA reads a 2-word state reversed: its key word is also the counter's high half
        counter = words[1] | (words[0] << 64)
    values, counter = philox_bits(key, counter, shape, bits)
    new = [key, counter & 0xFFFFFFFFFFFFFFFF] + ([counter >> 64] if len(words) >= 3 else [])
    return np.array(new, dtype=U64), values


@register("stablehlo.rng_bit_generator")
def _rng_bit_generator(op, c):
    algorithm = attrs.enum(op, "rng_algorithm", "DEFAULT")
    algorithm = "PHILOX" if algorithm == "DEFAULT" else algorithm
    out = info(op.results[1].type)
    bits = out.storage.itemsize * 8
    if out.bits or bits not in (8, 16, 32, 64):
        raise UnsupportedOp(f"rng_bit_generator of {out.element} is not supported")

    def kernel(state):
        new_state, values = rng_bit_generator(algorithm, state, out.shape, bits)
        return [new_state, values.view(out.storage)]

    return kernel


@register("stablehlo.rng", stateful=True)
def _rng(op, c):
    """UNIFORM in [a, b) or NORMAL(a, b), from a generator seeded per interpreter."""
    distribution = attrs.enum(op, "rng_distribution", "UNIFORM")
    dtype = info(op.results[0].type).dtype

    def kernel(state, a, b, shape):
        generator = state.interpreter.__dict__.setdefault("_rng", np.random.default_rng(0))
        size = tuple(int(v) for v in np.asarray(shape).reshape(-1))
        if distribution == "NORMAL":
            return generator.normal(a.astype(np.float64), b.astype(np.float64), size)
        if dtype.kind in "iu":
            return generator.integers(int(a), int(b), size, endpoint=False)
        if dtype == np.bool_:
            return generator.integers(int(a), int(b), size, endpoint=False).astype(bool)
        return generator.uniform(a.astype(np.float64), b.astype(np.float64), size)

    return kernel
