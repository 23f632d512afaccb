"""Host arrays in and out of the VM: argument coercion, upload, and readback to numpy."""

from __future__ import annotations

import math
import warnings

import numpy as np
import iree.runtime as rt

from oxla.runtime import dtypes
from oxla.runtime.dtypes import ElementType

# Arguments go to device-local memory; the HAL stages them if the host cannot write there.
UPLOAD_MEMORY = int(rt.MemoryType.DEVICE_LOCAL)
UPLOAD_USAGE = int(rt.BufferUsage.DEFAULT)
# IREE's CPU executables assume their buffers start on 64-byte boundaries (they use aligned vector
# loads) unless the module records a smaller alignment (binding_alignment): host arrays so aligned
# are read in place, others are copied. Results and aligned_empty arrays start on this boundary.
ALIGNMENT = 64
# The reflection entry in which a function records the alignment its dispatches assume
# (oxla.transforms.bindings.ALIGNMENT_KEY, the same text, writes it).
ALIGNMENT_KEY = "oxla.binding_alignment"
# The reflection entry listing the arguments whose buffers a function may write, comma-separated
# (oxla.transforms.bindings.WRITTEN_KEY writes it): those are never read in place.
WRITTEN_KEY = "oxla.written_arguments"
IMPORT_MEMORY = int(rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE)
# Results that the host cannot map are copied into a buffer it can.
_STAGING_MEMORY = rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE
_STAGING_USAGE = rt.BufferUsage.TRANSFER_TARGET | rt.BufferUsage.MAPPING_SCOPED
_PYTHON_VALUES = (bool, int, float, complex, list, tuple)
# Kinds a Python value may turn into, per target kind ("b"ool, "i"/"u"nsigned int, "f"loat, "c"omplex).
_ACCEPTS = {"b": "b", "i": "biu", "u": "biu", "f": "biuf", "c": "biufc"}


def is_python_value(value) -> bool:
    """Whether `value` is an untyped Python scalar or list (numpy scalars are typed)."""
    return isinstance(value, _PYTHON_VALUES) and not isinstance(value, np.generic)


def as_array(value) -> np.ndarray:
    """An ndarray for anything array-like: ndarrays, numpy scalars, DLPack producers, lists."""
    if isinstance(value, np.ndarray):
        return value if type(value) is np.ndarray else np.asarray(value)
    if hasattr(value, "__dlpack__") and not is_python_value(value):
        try:
            return np.from_dlpack(value)
        except (TypeError, ValueError, RuntimeError, BufferError):
            pass  # not on the CPU, or a layout numpy cannot view: try the array protocol
    return np.asarray(value)


def _kind(dtype: np.dtype) -> str:
    """numpy's kind letter, with ml_dtypes floats (kind "V") counted as floats."""
    return "f" if dtype.kind == "V" and dtype.itemsize <= 2 else dtype.kind


def convert_lossless(value, dtype: np.dtype) -> np.ndarray | None:
    """`value` (a Python scalar or list) as `dtype`, or None when that would change it.

    Integers and booleans must survive the round trip exactly; Python floats
    may round to a narrower float type but must not overflow to inf or NaN.
    """
    try:
        src = np.asarray(value)
    except (ValueError, OverflowError, TypeError):
        return None
    target = _kind(dtype)
    if src.dtype.kind not in _ACCEPTS.get(target, ""):
        return None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = src.astype(dtype)
        if src.dtype.kind in "biu":
            ok = np.array_equal(out.astype(src.dtype), src)
        else:
            wide = np.complex128 if "c" in (target, src.dtype.kind) else np.float64
            ok = np.array_equal(np.isfinite(out.astype(wide)), np.isfinite(src))
    return out if ok else None


def _staged(device: rt.HalDevice, buffer: rt.HalBuffer) -> rt.MappedMemory:
    """Copy a device-only buffer into host-mappable memory and map that."""
    staging = device.allocator.allocate_buffer(_STAGING_MEMORY, _STAGING_USAGE, buffer.byte_length())
    done = rt.HalFence.create_at(device.create_semaphore(0), 1)
    device.queue_copy(buffer, staging, rt.HalFence(1), done)
    done.wait()
    return staging.map()


def aligned_empty(shape, dtype) -> np.ndarray:
    """An uninitialized C-contiguous array whose data starts on an ALIGNMENT-byte boundary.

    oxla.runtime reads such arrays in place on CPU devices instead of copying them.
    """
    dtype = np.dtype(dtype)
    shape = tuple(shape) if np.iterable(shape) else (int(shape),)
    size = math.prod(shape) * dtype.itemsize
    raw = np.empty(size + ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start:start + size].view(dtype).reshape(shape)


def binding_alignment(reflection: dict) -> int:
    """The byte alignment a function's buffers must have, from its reflection (ALIGNMENT unless recorded).

    A record that is not a power of two is ignored: reading an array in place on a wrong promise
    would fault, copying it costs only time.
    """
    text = reflection.get(ALIGNMENT_KEY, "")
    value = int(text) if text.isdigit() else 0
    return value if value > 0 and value & (value - 1) == 0 else ALIGNMENT


def written_arguments(reflection: dict) -> frozenset[int] | None:
    """Indices of the arguments a function may write, from its reflection; None where it records none
    (a module oxla did not compile): then any argument may be written."""
    text = reflection.get(WRITTEN_KEY)
    if text is None:
        return None
    words = [w.strip() for w in text.split(",") if w.strip()]
    return frozenset(int(w) for w in words) if all(w.isdigit() for w in words) else None


def is_aligned(array: np.ndarray, alignment: int = ALIGNMENT) -> bool:
    """Whether a CPU device can read `array` in place: C-contiguous, writeable, non-empty and on an
    `alignment`-byte boundary."""
    flags = array.flags
    return flags.c_contiguous and flags.writeable and array.size > 0 and array.ctypes.data % alignment == 0


def to_host(device: rt.HalDevice, view: rt.HalBufferView, element: ElementType) -> np.ndarray:
    """A numpy array that owns a copy of a result buffer view, on any device (aligned, so it can go back in)."""
    try:
        mapped = view.map()
    except Exception:  # e.g. Vulkan: device-local results are not host-mappable
        mapped = _staged(device, view.get_buffer())
    shape = view.shape
    flat = np.frombuffer(mapped, element.storage, math.prod(shape))
    # A copy: the array must not alias memory the device may reuse or free.
    out = aligned_empty(shape, element.dtype)
    np.copyto(out, flat.reshape(shape), casting="unsafe")  # what astype(element.dtype) would give
    return out


def element_of(view: rt.HalBufferView) -> ElementType:
    """The element type a result buffer view's HAL tag stands for."""
    element = dtypes.from_hal(view.element_type)
    if element is None:
        raise TypeError(f"result has HAL element type {view.element_type!r}, which has no numpy dtype")
    return element
