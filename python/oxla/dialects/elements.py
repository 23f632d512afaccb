"""Dense element attributes <-> numpy arrays, for every element type StableHLO uses.

The bindings' buffer protocol covers the common integer and float types;
bf16, f8 and complex come back through the attribute's printed form (its
hex blob when MLIR prints one, else its literal values).
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np

from oxla import ir

# MLIR element type spelling -> numpy dtype
DTYPES: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_), "i8": np.dtype(np.int8), "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32), "i64": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8), "ui16": np.dtype(np.uint16), "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64), "f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
    "complex<f32>": np.dtype(np.complex64), "complex<f64>": np.dtype(np.complex128),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn), "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
}
# Narrow integers and the other small floats, where this ml_dtypes has them.
DTYPES.update({name: np.dtype(getattr(ml_dtypes, attr)) for name, attr in (
    ("i2", "int2"), ("i4", "int4"), ("ui2", "uint2"), ("ui4", "uint4"),
    ("f8E4M3", "float8_e4m3"), ("f8E3M4", "float8_e3m4"), ("f8E4M3FNUZ", "float8_e4m3fnuz"),
    ("f8E5M2FNUZ", "float8_e5m2fnuz"), ("f8E4M3B11FNUZ", "float8_e4m3b11fnuz"), ("f8E8M0FNU", "float8_e8m0fnu"),
    ("f6E2M3FN", "float6_e2m3fn"), ("f6E3M2FN", "float6_e3m2fn"), ("f4E2M1FN", "float4_e2m1fn"),
) if hasattr(ml_dtypes, attr)})
_BITS_OF = {2: np.uint16, 4: np.uint32, 8: np.uint64, 1: np.uint8}
_HEX_BLOB = re.compile(r'dense<"0x([0-9A-Fa-f]*)">')
_TOKEN = re.compile(r"0x[0-9A-Fa-f]+|true|false|[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)")


def dtype_of(element_type) -> np.dtype:
    """The numpy dtype for an MLIR element type (KeyError naming it when there is none)."""
    name = str(element_type)
    if name not in DTYPES:
        raise KeyError(f"no numpy dtype for element type {name}")
    return DTYPES[name]


def to_numpy(attr) -> np.ndarray:
    """The values of a dense elements attribute as a numpy array of the matching dtype."""
    shaped = ir.ShapedType(attr.type)
    return parse_dense(str(attr).rsplit(" : ", 1)[0], shaped)


def value_text(op) -> tuple[str, str]:
    """(the `dense<...>` literal, its type's text) of an op's `value` attribute.

    Printed from the attribute itself; only complex values, which the
    bindings cannot hand to Python, are cut from the op's generic form, whose
    cost grows with the size of the enclosing function.
    """
    try:
        literal, type_text = str(op.attributes["value"]).rsplit(" : ", 1)
        return literal, type_text
    except TypeError:
        text = op.get_asm(print_generic_op_form=True, assume_verified=True)
        start = text.index("value = ") + len("value = ")
        depth, end = 0, start
        for end in range(start, len(text)):
            depth += {"<": 1, ">": -1}.get(text[end], 0)
            if depth == 0 and text[end] == ">":
                break
        type_start = text.index(" : ", end) + 3
        type_end = text.index("}>", type_start) if "}>" in text[type_start:] else len(text)
        return text[start:end + 1], text[type_start:type_end].strip()


# Element types whose attribute buffer the bindings hand to numpy as is (read 100x faster than printed text).
_BUFFER_TYPES = frozenset({"f32", "f64", "i32", "i64"})


def constant_value(op) -> np.ndarray:
    """The value of a `stablehlo.constant`, for every element type."""
    shaped = ir.ShapedType(op.results[0].type)
    if str(shaped.element_type) in _BUFFER_TYPES:
        attr = ir.DenseElementsAttr(op.attributes["value"])
        if not attr.is_splat:
            array = np.asarray(attr)
            if array.shape == tuple(shaped.shape) and array.dtype == dtype_of(shaped.element_type):
                return array
    literal, _ = value_text(op)
    return parse_dense(literal, shaped)


def splat_element(op):
    """The one element of a `stablehlo.constant` known to be a splat, as a numpy scalar.

    Reads a single value where constant_value would build the whole array
    (a splat of 128x1024 floats takes half a millisecond to expand).
    """
    literal, _ = value_text(op)
    return _parse(literal, dtype_of(ir.ShapedType(op.results[0].type).element_type), (1,))[0]


def parse_dense(text: str, shaped) -> np.ndarray:
    """Values of a printed `dense<...>` literal (without its type) for a shaped type."""
    return _parse(text, dtype_of(shaped.element_type), tuple(shaped.shape))


def _parse(text: str, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """parse_dense for a dtype and shape: a splat literal fills the shape."""
    blob = _HEX_BLOB.match(text)
    if blob:
        flat = np.frombuffer(bytes.fromhex(blob.group(1)), dtype=dtype)
        return np.broadcast_to(flat, shape).copy() if flat.size == 1 else flat.reshape(shape)
    tokens = _TOKEN.findall(text[len("dense<"): text.rindex(">")])
    flat = _from_tokens(tokens, dtype)
    size = int(np.prod(shape)) if shape else 1
    return (np.full(size, flat[0], dtype=dtype) if flat.size == 1 and size != 1 else flat).reshape(shape)


def _from_tokens(tokens: list[str], dtype: np.dtype) -> np.ndarray:
    """Printed scalars (decimal, true/false, or 0x bit patterns for special floats) as an array."""
    if dtype.kind == "c":
        part = np.dtype(np.float64 if dtype.itemsize == 16 else np.float32)
        parts = _from_tokens(tokens, part)
        out = np.empty(len(parts) // 2, dtype=dtype)
        out.real, out.imag = parts[0::2], parts[1::2]  # keeps -0.0 and infinities exact
        return out
    if dtype == np.bool_:
        return np.array([t in ("true", "1") for t in tokens], dtype=dtype)
    if dtype.kind in "iu":
        return np.array([int(t, 0) for t in tokens], dtype=dtype)
    bits = _BITS_OF[dtype.itemsize]
    return np.array([np.array(int(t, 16), dtype=bits).view(dtype) if t.startswith("0x") else float(t)
                     for t in tokens], dtype=np.float64).astype(dtype) if tokens else np.zeros(0, dtype)
