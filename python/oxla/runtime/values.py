"""Arrays as text, in iree-run-module's form: `2x3xf32=1 2 3 4 5 6`, `f32=1.5`, `@file.npy`.

Used by oxla-run for its --input and result lines; needs only numpy and the
runtime's element-type table.
"""

from __future__ import annotations

import re

import numpy as np

from oxla.runtime.dtypes import from_dtype, from_mlir

_INPUT = re.compile(r"^((?:\d+x)*)([a-z][\w<>]*)=(.*)$", re.S)


class InputError(ValueError):
    """An --input that cannot be read."""


def parse_input(text: str):
    """Turns one --input value into a numpy array."""
    if text.startswith("@"):
        try:
            return np.load(text[1:], allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read '{text[1:]}': {exc}") from None
    match = _INPUT.match(text.strip())
    if not match:
        raise InputError(f"'{text}' is not SHAPExTYPE=VALUES, TYPE=VALUE or @file.npy")
    dims, type_name, values = match.groups()
    element = from_mlir(type_name)
    if element is None:
        raise InputError(f"unknown element type '{type_name}' in '{text}'")
    shape = tuple(int(d) for d in dims.split("x") if d)
    words = [w for w in re.split(r"[\s,\[\]]+", values) if w]
    try:
        if element.dtype == np.bool_:
            flat = np.array([w.lower() in ("1", "true") for w in words], dtype=np.bool_)
        elif element.dtype.kind == "c":
            flat = np.array([complex(w.replace("i", "j")) for w in words], dtype=element.dtype)
        else:
            flat = np.array([float(w) if element.dtype.kind == "f" or element.dtype.kind == "V" else int(w, 0)
                             for w in words]).astype(element.dtype)
    except ValueError as exc:
        raise InputError(f"bad value in '{text}': {exc}") from None
    size = int(np.prod(shape)) if shape else 1
    if flat.size == 1 and size != 1:
        flat = np.full(size, flat[0], dtype=element.dtype)
    if flat.size != size:
        raise InputError(f"'{text}' has {flat.size} values for shape {shape or '()'} ({size} needed)")
    return flat.reshape(shape)


def format_value(value) -> str:
    """`2x3xf32=[1 2 3][4 5 6]`, as iree-run-module prints buffer views."""
    value = np.asarray(value)
    element = from_dtype(value.dtype)
    type_name = element.mlir if element else value.dtype.name
    prefix = "".join(f"{d}x" for d in value.shape) + type_name

    def fmt(v) -> str:
        if value.dtype == np.bool_:
            return "1" if v else "0"
        if value.dtype.kind == "c":
            return f"{v.real:g}+{v.imag:g}i" if v.imag >= 0 else f"{v.real:g}{v.imag:g}i"
        return f"{float(v):g}" if value.dtype.kind in "fV" else str(int(v))

    def nest(a) -> str:
        if a.ndim == 0:
            return fmt(a[()])
        if a.ndim == 1:
            return "[" + " ".join(fmt(v) for v in a) + "]"
        return "".join(nest(sub) for sub in a)

    return f"{prefix}={nest(value)}"
