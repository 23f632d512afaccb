"""MLIR types as the interpreter holds their values: numpy dtypes, narrow integers, quantization.

Every value is a numpy array in a *storage* dtype. Most element types map
one to one (the runtime's table, `oxla.runtime.dtypes`); the rest are:

- i2/i4/ui2/ui4: held in int8/uint8 and wrapped to their width after
  every op (ml_dtypes' int4 arithmetic does not wrap consistently), handed
  to callers as ml_dtypes.int4 etc.;
- f8/f6/f4 types the runtime lacks: ml_dtypes;
- `!quant.uniform<...>`: the storage integers; ops compute on the
  dequantized (expressed) values and quantize their results;
- `!stablehlo.token` and tuples: `Token` and Python tuples.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from oxla import ir
from oxla.runtime import dtypes as runtime_dtypes

DYNAMIC = ir.ShapedType.get_dynamic_size()

# (MLIR name, storage dtype, user-facing dtype, bits when narrower than the storage)
_NARROW_INTS = {
    "i2": (np.int8, ml_dtypes.int2, 2), "i4": (np.int8, ml_dtypes.int4, 4),
    "ui2": (np.uint8, ml_dtypes.uint2, 2), "ui4": (np.uint8, ml_dtypes.uint4, 4),
}
# Small floats the runtime's table has no HAL tag for.
_EXTRA_FLOATS = {
    "f8E4M3": "float8_e4m3", "f8E3M4": "float8_e3m4", "f8E4M3B11FNUZ": "float8_e4m3b11fnuz",
    "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2", "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz", "f8E8M0FNU": "float8_e8m0fnu",
    "f6E2M3FN": "float6_e2m3fn", "f6E3M2FN": "float6_e3m2fn", "f4E2M1FN": "float4_e2m1fn",
}
_QUANT = re.compile(r"!quant\.uniform<([iu])(\d+)(?:<(-?\d+):(-?\d+)>)?:(\w+)(?::(\d+))?,\s*(.*)>$")


class Token:
    """The value of a `!stablehlo.token`: carries nothing, orders side effects."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Token"


TOKEN = Token()


@functools.lru_cache(maxsize=None)
def element_dtype(name: str) -> np.dtype:
    """The storage dtype of an element type spelled as MLIR prints it (KeyError when unknown)."""
    if name in _NARROW_INTS:
        return np.dtype(_NARROW_INTS[name][0])
    if name in _EXTRA_FLOATS and hasattr(ml_dtypes, _EXTRA_FLOATS[name]):
        return np.dtype(getattr(ml_dtypes, _EXTRA_FLOATS[name]))
    if name == "index":
        return np.dtype(np.int64)
    known = runtime_dtypes.from_mlir(name)
    if known is None:
        raise KeyError(f"element type {name} has no numpy representation")
    return known.dtype


def user_dtype(name: str) -> np.dtype:
    """The dtype callers see for an element type (ml_dtypes.int4 for i4, else the storage dtype)."""
    return np.dtype(_NARROW_INTS[name][1]) if name in _NARROW_INTS else element_dtype(name)


@dataclass(frozen=True)
class Quantization:
    """The parameters of a `!quant.uniform` element type."""

    storage: np.dtype
    storage_min: int
    storage_max: int
    expressed: np.dtype
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    axis: int | None

    def broadcast(self, values: tuple, rank: int, dtype) -> np.ndarray:
        """Per-tensor parameters as 0-d arrays of `dtype`; per-axis ones shaped to broadcast along `axis`."""
        array = np.asarray(values, dtype=np.float64).astype(dtype)
        if self.axis is None:
            return array[0]
        shape = [1] * rank
        shape[self.axis] = len(values)
        return array.reshape(shape)

    def dequantize(self, stored: np.ndarray) -> np.ndarray:
        """(stored - zero_point) * scale: the difference taken in integers, the product in the expressed type."""
        rank = np.ndim(stored)
        zero = self.broadcast(self.zero_points, rank, np.int64)
        return (np.asarray(stored).astype(np.int64) - zero).astype(self.expressed) * self.broadcast(
            self.scales, rank, self.expressed)

    def quantize(self, values: np.ndarray) -> np.ndarray:
        """round_nearest_even(clamp(value / scale + zero_point)), all in the expressed type, to the storage type."""
        rank = np.ndim(values)
        x = np.asarray(values).astype(self.expressed)
        scaled = x / self.broadcast(self.scales, rank, self.expressed) + self.broadcast(
            self.zero_points, rank, self.expressed)
        low, high = np.array(self.storage_min).astype(self.expressed), np.array(self.storage_max).astype(self.expressed)
        clamped = np.minimum(np.maximum(scaled, low), high)
        return np.nan_to_num(np.rint(clamped.astype(np.float64))).astype(self.storage)


def parse_quantization(text: str) -> Quantization:
    """Reads `!quant.uniform<i8<-127:127>:f32:0, {0.1:1, 0.2}>` and its per-tensor form."""
    match = _QUANT.match(text)
    if not match:
        raise NotImplementedError(f"quantized type {text} is not supported")
    sign, bits, lo, hi, expressed, axis, params = match.groups()
    bits = int(bits)
    storage = element_dtype(f"{'i' if sign == 'i' else 'ui'}{bits}")
    full = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if sign == "i" else (0, (1 << bits) - 1)
    pairs = [p.strip() for p in params.strip("{}").split(",") if p.strip()]
    scales, zeros = [], []
    for pair in pairs:
        scale, _, zero = pair.partition(":")
        scales.append(float(scale))
        zeros.append(int(zero) if zero else 0)
    return Quantization(storage, int(lo) if lo else full[0], int(hi) if hi else full[1], element_dtype(expressed),
                        tuple(scales), tuple(zeros), int(axis) if axis is not None else None)


@dataclass(frozen=True)
class TypeInfo:
    """What the interpreter needs to know about one MLIR type."""

    text: str
    kind: str  # "tensor", "token", "tuple" or "future" (async_start's result)
    element: str = ""
    shape: tuple[int, ...] | None = None  # DYNAMIC for unknown dims; None when unranked
    dtype: np.dtype | None = None  # the dtype ops compute in (the expressed type when quantized)
    storage: np.dtype | None = None
    bits: int = 0  # narrow integers: their width
    quant: Quantization | None = None
    members: tuple["TypeInfo", ...] = ()

    @property
    def is_static(self) -> bool:
        return self.shape is not None and DYNAMIC not in self.shape

    @property
    def is_float(self) -> bool:
        return self.dtype is not None and self.dtype.kind in "fV" and self.dtype != np.bool_

    def finish(self, value):
        """A kernel's computed result as this type stores it: dtype, wrap-around, quantization."""
        if self.quant is not None and self.kind == "tensor":
            return self.quant.quantize(value)
        return self.store(value)

    def store(self, value):
        """A result in this type's storage dtype, narrow integers wrapped (stored values pass through)."""
        if self.kind != "tensor":
            return value
        if self.bits:
            return wrap(np.asarray(value), self.bits, self.storage)
        if type(value) is np.ndarray and value.dtype == self.storage:
            return value
        value = np.asarray(value)
        if self.storage.kind == "V" and value.dtype == np.float64:
            value = round_to_odd_f32(value)  # ml_dtypes casts f64 through f32, which would round twice
        return value.astype(self.storage)

    def compute(self, stored):
        """The value ops see: dequantized for quantized types, else the stored array."""
        return self.quant.dequantize(stored) if self.quant is not None else stored

    def to_user(self, stored):
        """A stored value as callers get it (narrow integers as ml_dtypes, tuples as tuples)."""
        if self.kind == "tuple":
            return tuple(m.to_user(v) for m, v in zip(self.members, stored))
        if self.kind != "tensor":
            return stored
        array = np.array(stored)  # a copy: callers may write into it, the interpreter's constants must not change
        return array.astype(user_dtype(self.element)) if self.bits else array


def round_to_odd_f32(x: np.ndarray) -> np.ndarray:
    """x rounded to f32, inexact results sent to the odd neighbour so that a later narrower rounding is exact."""
    y = x.astype(np.float32)
    bits = y.view(np.uint32)
    with np.errstate(invalid="ignore"):
        inexact = (y.astype(np.float64) != x) & np.isfinite(x) & np.isfinite(y) & ((bits & 1) == 0)
        toward = np.where(np.abs(y.astype(np.float64)) > np.abs(x), bits - np.uint32(1), bits + np.uint32(1))
    return np.where(inexact, toward, bits).astype(np.uint32).view(np.float32)


def wrap(value: np.ndarray, bits: int, storage: np.dtype) -> np.ndarray:
    """Integers reduced modulo 2**bits into the signed or unsigned range of a narrow type."""
    mask = (1 << bits) - 1
    low = value.astype(np.int64) & mask
    if storage.kind == "i":
        low = np.where(low >= (1 << (bits - 1)), low - (1 << bits), low)
    return low.astype(storage)


@functools.lru_cache(maxsize=4096)
def _info_of_text(text: str) -> TypeInfo:
    with ir.context():
        return _info(ir.Type.parse(text))


def info(type_) -> TypeInfo:
    """The TypeInfo of an MLIR type (cached by its spelling)."""
    return _info_of_text(str(type_))


def _info(t) -> TypeInfo:
    text = str(t)
    if text == "!stablehlo.token":
        return TypeInfo(text, "token")
    if text.startswith("!stablehlo.future<"):
        return TypeInfo(text, "future")
    if isinstance(t, ir.TupleType):
        tt = ir.TupleType(t)
        return TypeInfo(text, "tuple", members=tuple(info(tt.get_type(i)) for i in range(tt.num_types)))
    if not isinstance(t, ir.ShapedType):
        raise NotImplementedError(f"values of type {text} are not supported")
    shaped = ir.ShapedType(t)
    shape = tuple(shaped.shape) if shaped.has_rank else None
    element = str(shaped.element_type)
    if element.startswith("!quant.uniform"):
        quant = parse_quantization(element)
        return TypeInfo(text, "tensor", element, shape, quant.expressed, quant.storage, quant=quant)
    storage = element_dtype(element)
    bits = _NARROW_INTS[element][2] if element in _NARROW_INTS else 0
    return TypeInfo(text, "tensor", element, shape, storage, storage, bits)


def from_user(value, expected: TypeInfo, what: str):
    """A caller's argument checked against the parameter type and turned into storage (ValueError naming it)."""
    if expected.kind == "token":
        return TOKEN
    if expected.kind == "tuple":
        if not isinstance(value, (tuple, list)) or len(value) != len(expected.members):
            raise ValueError(f"{what}: expected a tuple of {len(expected.members)} values for {expected.text}")
        return tuple(from_user(v, m, f"{what}[{i}]") for i, (v, m) in enumerate(zip(value, expected.members)))
    loose = not isinstance(value, (np.ndarray, np.generic))  # Python numbers and lists take the parameter's dtype
    want = user_dtype(expected.element) if expected.quant is None else expected.storage
    array = np.asarray(value, dtype=want if loose else None)
    if expected.shape is not None:
        if len(array.shape) != len(expected.shape) or any(
                d != DYNAMIC and d != a for d, a in zip(expected.shape, array.shape)):
            raise ValueError(f"{what}: shape {array.shape} does not match {expected.text}")
    if array.dtype not in (want, expected.storage) and not loose:
        raise ValueError(f"{what}: dtype {array.dtype} does not match {expected.text} (expected {want})")
    stored = array.astype(expected.storage, copy=False)  # kernels never write into their operands
    return wrap(stored, expected.bits, expected.storage) if expected.bits else stored
