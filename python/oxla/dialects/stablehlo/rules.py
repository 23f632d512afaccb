"""Checks and helpers that type-inference rules share, phrased as the specification's constraints.

Rules read operand types through these helpers and fail with `fail`/`require`
(imported from `_core`) so that messages name the broken constraint.
"""

from __future__ import annotations

from oxla import ir
from oxla.dialects.stablehlo import quant_types as QT
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import fail, require

__all__ = ["fail", "require", "shape", "rank", "elem", "tensor", "scalars", "bounds_of", "bounded", "same_dim",
           "compatible", "merge", "unique", "same_shape", "same_type", "expect_element", "per_tensor_only",
           "check_dims", "check_permutation", "ELEMENT_KINDS", "size_of", "padded_size", "num_windows",
           "static_shape_param", "dtype_param", "constant_ints"]


def shape(v) -> tuple:
    """Shape of a tensor value or type (None for dynamic dims); fails on non-tensors."""
    t = v if isinstance(v, ir.Type) else v.type
    require(T.is_tensor(t), f"expected a ranked tensor, got {t}", TypeError)
    return T.shape_of(t)


def rank(v) -> int:
    """Rank of a tensor value or type."""
    return len(shape(v))


def elem(v) -> ir.Type:
    """Element type of a tensor value or type."""
    return T.element_of(v)


def tensor(dims, element) -> ir.RankedTensorType:
    """A result tensor type from dims (None for dynamic) and an element type."""
    return T.ranked([T.DYNAMIC if d is None else d for d in dims], element)


def scalars(values) -> list:
    """0-d tensor types of the values' element types (the values must be ranked tensors)."""
    types = []
    for v in values:
        shape(v)  # fails unless `v` is a ranked tensor
        types.append(tensor((), elem(v)))
    return types


def bounds_of(t) -> list:
    """The `#stablehlo.bounds` of a bounded tensor type (None where unbounded), or [] without bounds."""
    encoding = ir.RankedTensorType(t).encoding
    text = str(encoding) if encoding is not None else ""
    if not text.startswith("#stablehlo.bounds<"):
        return []
    return [None if b.strip() == "?" else int(b) for b in text[len("#stablehlo.bounds<"):-1].split(",")]


def bounded(dims, element, bounds) -> ir.Type:
    """A ranked tensor type with `#stablehlo.bounds` on its dynamic dimensions (plain when no bound is known)."""
    if all(b is None for b in bounds):
        return tensor(dims, element)
    encoding = ir.Attribute.parse(f"#stablehlo.bounds<{', '.join('?' if b is None else str(b) for b in bounds)}>",
                                  ir.context())
    return ir.RankedTensorType.get([T.DYNAMIC if d is None else d for d in dims], element, encoding,
                                   loc=T.unknown_location(ir.context()))


def same_dim(a, b) -> bool:
    """Whether two dimension sizes can be equal (None is dynamic)."""
    return a is None or b is None or a == b


def compatible(a, b) -> bool:
    """Whether two shapes can be the same (equal rank, dims equal or dynamic)."""
    return len(a) == len(b) and all(same_dim(x, y) for x, y in zip(a, b))


def merge(a, b) -> tuple:
    """The most static shape compatible with both."""
    return tuple(x if x is not None else y for x, y in zip(a, b))


def unique(dims) -> bool:
    """Whether no dimension number repeats."""
    return len(set(dims)) == len(dims)


def size_of(dims) -> int | None:
    """Number of elements of a static shape (None if any dim is dynamic)."""
    n = 1
    for d in dims:
        if d is None:
            return None
        n *= d
    return n


def padded_size(size, low: int, high: int, interior: int):
    """A dimension's size after pad's interior padding between elements and edge padding (pad C4); None stays None."""
    return None if size is None else size + low + high + max(size - 1, 0) * interior


def num_windows(size, window, stride: int, window_dilation: int):
    """The specification's num_windows along one (padded) dimension; None when the size or window is dynamic."""
    if size is None or window is None:
        return None
    dilated_window = 0 if window == 0 else (window - 1) * window_dilation + 1
    return 0 if size == 0 or dilated_window > size else (size - dilated_window) // stride + 1


def same_shape(values: dict) -> tuple:
    """Checks that the named tensors have compatible shapes; returns the merged shape."""
    names = list(values)
    first = shape(values[names[0]])
    for n in names[1:]:
        s = shape(values[n])
        require(compatible(first, s), f"{' and '.join(names)} must have the same shape")
        first = merge(first, s)
    return first


def same_type(values: dict) -> ir.Type:
    """Checks that the named tensors have the same element type and compatible shapes; the first's type."""
    names = list(values)
    e = elem(values[names[0]])
    for n in names[1:]:
        require(elem(values[n]) == e, f"{' and '.join(names)} must have the same element type", TypeError)
    dims = same_shape(values)
    return tensor(dims, e)


# Element kinds as the specification's operand constraints name them.
ELEMENT_KINDS = {
    "bool": T.is_bool,
    "int": T.is_integer,
    "signed": lambda e: T.is_integer(e) and not T.is_unsigned(e),
    "unsigned": T.is_unsigned,
    "float": T.is_float,
    "complex": T.is_complex,
    "quantized": T.is_quantized,
}


def expect_element(value, name: str, kinds: str) -> None:
    """Fails unless the element type of `value` is one of `kinds` ("int|float|complex")."""
    e = elem(value)
    options = kinds.split("|")
    if not any(ELEMENT_KINDS[k](e) for k in options):
        words = {"bool": "boolean", "int": "integer", "signed": "signed integer", "unsigned": "unsigned integer",
                 "float": "floating-point", "complex": "complex", "quantized": "quantized"}
        allowed = ", ".join(words[k] for k in options)
        fail(f"{name} must have {allowed} elements, got {e}", TypeError)


def per_tensor_only(value, name: str) -> None:
    """Fails when `value` is per-axis quantized (the op takes tensors or per-tensor quantized tensors)."""
    require(QT.quantization_dimension(elem(value)) is None, f"{name} must not be per-axis quantized, got {value.type}",
            TypeError)


def check_dims(dims, bound: int, what: str) -> None:
    """Checks that dimension numbers lie in [0, bound) and are unique."""
    for d in dims:
        require(0 <= d < bound, f"{what} must be in [0, {bound}), got {list(dims)}")
    require(unique(dims), f"{what} must be unique, got {list(dims)}")


def check_permutation(perm, n: int, what: str) -> None:
    """Checks that `perm` is a permutation of range(n)."""
    require(sorted(perm) == list(range(n)), f"{what} must be a permutation of 0..{n - 1}, got {list(perm)}")


def static_shape_param(value, what: str = "shape") -> tuple:
    """A Python shape parameter as a tuple of ints; fails on dynamic (None) or negative sizes."""
    try:
        dims = T.normalize_shape(value)
    except (TypeError, ValueError) as e:
        fail(f"{what}: {e}")
    require(None not in dims, f"{what} must be static, got {list(dims)}")
    return dims


def dtype_param(value) -> ir.Type:
    """A Python dtype parameter as an element type (TypeError naming it when it is none)."""
    try:
        return T.element_type(value)
    except TypeError as e:
        fail(str(e), TypeError)


def constant_ints(value) -> list[int] | None:
    """The values (flattened) of an integer tensor made by a constant op, or None when it is not a constant."""
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name not in ("stablehlo.constant", "arith.constant"):
        return None
    if not T.is_tensor(value.type) or not isinstance(elem(value), (ir.IntegerType, ir.IndexType)):
        return None  # (the bindings cannot even read some other element types' attributes)
    try:
        values = ir.DenseIntElementsAttr(owner.operation.attributes["value"])
    except (TypeError, ValueError):
        return None  # dense_resource and other elements attributes that are not dense ints
    return [int(values[i]) for i in range(len(values))]
