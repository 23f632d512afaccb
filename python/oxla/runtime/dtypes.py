"""Element types: MLIR names <-> numpy dtypes <-> IREE HAL element types, in one table."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from iree.runtime import HalElementType


@dataclass(frozen=True)
class ElementType:
    """One element type as the compiler names it, numpy holds it and the HAL tags it."""

    mlir: str  # spelling inside `tensor<...>`: "f32", "ui8", "complex<f32>"
    dtype: np.dtype  # what callers pass and get back
    hal: HalElementType  # tag of the buffer views handed to the VM
    storage: np.dtype  # how the device lays the bytes out (i1 travels as one byte)

    def __repr__(self) -> str:
        return f"ElementType({self.mlir}: {self.dtype.name})"


# (MLIR name, numpy dtype or ml_dtypes attribute name, HalElementType name, storage dtype or None)
_TABLE = [
    ("i1", np.bool_, "BOOL_8", np.uint8),
    ("i8", np.int8, "SINT_8", None),
    ("i16", np.int16, "SINT_16", None),
    ("i32", np.int32, "SINT_32", None),
    ("i64", np.int64, "SINT_64", None),
    ("ui8", np.uint8, "UINT_8", None),
    ("ui16", np.uint16, "UINT_16", None),
    ("ui32", np.uint32, "UINT_32", None),
    ("ui64", np.uint64, "UINT_64", None),
    ("f16", np.float16, "FLOAT_16", None),
    ("bf16", "bfloat16", "BFLOAT_16", None),
    ("f32", np.float32, "FLOAT_32", None),
    ("f64", np.float64, "FLOAT_64", None),
    ("complex<f32>", np.complex64, "COMPLEX_64", None),
    ("complex<f64>", np.complex128, "COMPLEX_128", None),
    ("f8E4M3FN", "float8_e4m3fn", "FLOAT_8_E4M3_FN", None),
    ("f8E4M3FNUZ", "float8_e4m3fnuz", "FLOAT_8_E4M3_FNUZ", None),
    ("f8E5M2", "float8_e5m2", "FLOAT_8_E5M2", None),
    ("f8E5M2FNUZ", "float8_e5m2fnuz", "FLOAT_8_E5M2_FNUZ", None),
    ("f8E8M0FNU", "float8_e8m0fnu", "FLOAT_8_E8M0_FNU", None),
]


def _rows():
    """Yield the table's rows that this numpy/ml_dtypes/IREE combination can represent."""
    for mlir, scalar, hal_name, storage in _TABLE:
        if isinstance(scalar, str):
            scalar = getattr(ml_dtypes, scalar, None)
        hal = getattr(HalElementType, hal_name, None)
        if scalar is None or hal is None:
            continue
        dtype = np.dtype(scalar)
        yield ElementType(mlir, dtype, hal, np.dtype(storage) if storage else dtype)


BY_MLIR: dict[str, ElementType] = {e.mlir: e for e in _rows()}
BY_DTYPE: dict[np.dtype, ElementType] = {e.dtype: e for e in BY_MLIR.values()}
# Results of functions without reflection carry only their HAL tag; signless
# integer tags (INT_*) read as signed.
_SIGNLESS = {"INT_8": "i8", "INT_16": "i16", "INT_32": "i32", "INT_64": "i64"}
BY_HAL: dict[int, ElementType] = {int(e.hal): e for e in BY_MLIR.values()}
BY_HAL.update({int(getattr(HalElementType, k)): BY_MLIR[v] for k, v in _SIGNLESS.items()})


def from_mlir(name: str) -> ElementType | None:
    """The element type an MLIR spelling names, or None when the runtime has no mapping."""
    return BY_MLIR.get(name)


def from_dtype(dtype) -> ElementType | None:
    """The element type of a numpy dtype (any byte order), or None when IREE cannot hold it."""
    dtype = np.dtype(dtype)
    return BY_DTYPE.get(dtype) or BY_DTYPE.get(dtype.newbyteorder("="))


def from_hal(tag) -> ElementType | None:
    """The element type a buffer view's HAL tag stands for, or None."""
    return BY_HAL.get(int(tag))


def describe(value: np.ndarray) -> str:
    """`float64[8,16]`: how error messages show an argument."""
    return f"{value.dtype.name}[{','.join(map(str, value.shape))}]"
