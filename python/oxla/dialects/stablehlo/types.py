"""Element and tensor types for builders: names such as "f32" or "ui8", numpy dtypes, and shapes.

Everywhere a builder takes a dtype it accepts an MLIR spelling ("f32",
"bf16", "i1", "ui8", "complex<f32>", "!quant.uniform<i8:f32, 0.5>"), a numpy
dtype or scalar type, or an `ir.Type`. Shapes are sequences of ints with
`None` (or "?") for a dynamic dimension.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from oxla import ir
from oxla.dialects.elements import DTYPES

DYNAMIC = ir.ShapedType.get_dynamic_size()

_NUMPY_NAMES = {dtype: name for name, dtype in DTYPES.items()}


@functools.lru_cache(maxsize=None)
def _parse_type(spelling: str, context) -> ir.Type:
    """An MLIR type from its spelling, parsed once per context."""
    return ir.Type.parse(spelling, context)


def element_type(dtype) -> ir.Type:
    """The MLIR element type for a dtype given as a name, numpy dtype or `ir.Type`."""
    if isinstance(dtype, ir.Type):
        return dtype
    if not isinstance(dtype, str):
        try:
            dtype = _NUMPY_NAMES[np.dtype(dtype)]
        except (TypeError, KeyError):
            raise TypeError(f"not an element type: {dtype!r}") from None
    try:
        return _parse_type(dtype, ir.context())
    except ir.MLIRError:
        raise TypeError(f"not an element type: {dtype!r}") from None


def dtype_name(element) -> str:
    """The MLIR spelling of an element type ("f32", "ui8", ...)."""
    return str(element)


def to_numpy_dtype(element) -> np.dtype:
    """The numpy dtype matching an element type (TypeError when numpy has none)."""
    try:
        return DTYPES[str(element)]
    except KeyError:
        raise TypeError(f"no numpy dtype for element type {element}") from None


def normalize_shape(shape) -> tuple[int | None, ...]:
    """A shape as a tuple of ints and None (dynamic); rejects negative sizes."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    dims = []
    for d in shape:
        if d is None or d == "?" or (isinstance(d, (int, np.integer)) and d == DYNAMIC):
            dims.append(None)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0:
            dims.append(int(d))
        else:
            raise ValueError(f"not a dimension size: {d!r} (expected an int >= 0, or None for dynamic)")
    return tuple(dims)


def tensor_type(shape, dtype) -> ir.RankedTensorType:
    """A ranked tensor type from a shape (None = dynamic) and a dtype."""
    return ranked([DYNAMIC if d is None else d for d in normalize_shape(shape)], element_type(dtype))


@functools.lru_cache(maxsize=None)
def unknown_location(context) -> ir.Location:
    """The unknown location of a context, which type constructors want for their diagnostics."""
    return ir.Location.unknown(context)


def ranked(dims, element) -> ir.RankedTensorType:
    """A ranked tensor type from MLIR dims (DYNAMIC for dynamic) and an element type, no location needed."""
    return ir.RankedTensorType.get(list(dims), element, loc=unknown_location(element.context))


def f32_attr(value: float) -> ir.FloatAttr:
    """An f32 FloatAttr, no location needed."""
    context = ir.context()
    return ir.FloatAttr.get(ir.F32Type.get(context), float(value), loc=unknown_location(context))


def shape_of(value_or_type) -> tuple[int | None, ...]:
    """The shape of a ranked tensor value or type, None for dynamic dimensions."""
    t = value_or_type if isinstance(value_or_type, ir.Type) else value_or_type.type
    shaped = ir.ShapedType(t)
    if not shaped.has_rank:
        raise TypeError(f"expected a ranked tensor, got {t}")
    return tuple(None if d == DYNAMIC else d for d in shaped.shape)


def element_of(value_or_type) -> ir.Type:
    """The element type of a tensor value or type."""
    t = value_or_type if isinstance(value_or_type, ir.Type) else value_or_type.type
    return ir.ShapedType(t).element_type


def is_tensor(t: ir.Type) -> bool:
    """Whether `t` is a ranked tensor type."""
    return isinstance(t, ir.RankedTensorType)


def is_token(t: ir.Type) -> bool:
    """Whether `t` is `!stablehlo.token`."""
    return str(t) == "!stablehlo.token"


def token_type() -> ir.Type:
    """The `!stablehlo.token` type."""
    return _parse_type("!stablehlo.token", ir.context())


def tuple_type(types) -> ir.Type:
    """A builtin tuple type."""
    return ir.TupleType.get_tuple(list(types))


# Element type families, as the specification's constraints name them.

def is_bool(e) -> bool:
    """i1."""
    return isinstance(e, ir.IntegerType) and ir.IntegerType(e).width == 1


def is_integer(e) -> bool:
    """A signed or unsigned integer type (not i1)."""
    return isinstance(e, ir.IntegerType) and ir.IntegerType(e).width != 1


def is_unsigned(e) -> bool:
    """An unsigned integer type."""
    return isinstance(e, ir.IntegerType) and ir.IntegerType(e).is_unsigned


def is_float(e) -> bool:
    """A floating-point type."""
    return isinstance(e, ir.FloatType)


def is_complex(e) -> bool:
    """A complex type."""
    return isinstance(e, ir.ComplexType)


def is_quantized(e) -> bool:
    """A `!quant.*` quantized type."""
    return str(e).startswith("!quant.")


def bit_width(e) -> int:
    """The storage width of an element type in bits (complex: both parts)."""
    if isinstance(e, ir.IntegerType):
        return ir.IntegerType(e).width
    if is_float(e):
        return ir.FloatType(e).width
    if is_complex(e):
        return 2 * bit_width(ir.ComplexType(e).element_type)
    raise TypeError(f"no bit width for {e}")


def complex_part(e) -> ir.Type:
    """The part type of a complex type (f32 for complex<f32>)."""
    return ir.ComplexType(e).element_type


def complex_of(e) -> ir.Type:
    """The complex type whose parts are `e`."""
    return ir.ComplexType.get(e)


def i1() -> ir.Type:
    """The boolean element type."""
    return ir.IntegerType.get_signless(1)


def i64() -> ir.Type:
    """The 64-bit signless integer type."""
    return ir.IntegerType.get_signless(64)


@dataclass(frozen=True)
class TensorSpec:
    """A tensor's static description: shape (None for dynamic dims) and dtype name."""

    shape: tuple[int | None, ...]
    dtype: str

    def mlir_type(self) -> ir.RankedTensorType:
        """The ranked tensor type."""
        return tensor_type(self.shape, self.dtype)

    def __str__(self) -> str:
        dims = ", ".join("?" if d is None else str(d) for d in self.shape)
        return f"Tensor[{dims + ', ' if dims else ''}{self.dtype!r}]"

    @staticmethod
    def of(shape, dtype) -> "TensorSpec":
        """A spec from any accepted shape and dtype form."""
        return TensorSpec(normalize_shape(shape), str(element_type(dtype)))
