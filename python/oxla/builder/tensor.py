"""`Tensor`: a StableHLO value being built, with numpy-style operators and methods.

`Tensor[4, 8, "f32"]` (a class subscript) is the type of a function
parameter; instances wrap an `ir.Value`. Every operator and method builds
StableHLO at the current insertion point through `oxla.builder.functions`,
broadcasting and promoting dtypes as `oxla.builder.promotion` states.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects.stablehlo import _core
from oxla.dialects.stablehlo import types as T


class Tensor:
    """A tensor value in a function being built (wraps `ir.Value`, available as `.value`)."""

    __slots__ = ("value",)
    __array_ufunc__ = None  # numpy arrays defer to our reflected operators

    def __init__(self, value: ir.Value):
        if isinstance(value, Tensor):
            value = value.value
        if not isinstance(value, ir.Value):
            raise TypeError(f"Tensor wraps an ir.Value, got {type(value).__name__}")
        self.value = value

    def __class_getitem__(cls, item) -> T.TensorSpec:
        """`Tensor[4, 8, "f32"]`, `Tensor[None, 8, "bf16"]` (dynamic first dim), `Tensor["f32"]` (a scalar)."""
        items = item if isinstance(item, tuple) else (item,)
        if not items or isinstance(items[-1], int) or items[-1] is None:
            raise TypeError("Tensor[...] needs the dtype last, e.g. Tensor[4, 8, 'f32']")
        return T.TensorSpec.of(items[:-1], items[-1])

    # Description -------------------------------------------------------------------------------------------------

    @property
    def type(self) -> ir.Type:
        """The MLIR type."""
        return self.value.type

    @property
    def shape(self) -> tuple:
        """The shape (None for dynamic dimensions)."""
        return T.shape_of(self.value)

    @property
    def element_type(self) -> ir.Type:
        """The MLIR element type."""
        return T.element_of(self.value)

    @property
    def dtype(self) -> str:
        """The element type's MLIR spelling ("f32", "ui8", ...)."""
        return str(self.element_type)

    @property
    def ndim(self) -> int:
        """The rank."""
        return len(self.shape)

    @property
    def size(self) -> int | None:
        """The number of elements (None with dynamic dimensions)."""
        n = 1
        for d in self.shape:
            if d is None:
                return None
            n *= d
        return n

    def __repr__(self) -> str:
        return f"Tensor({self.type})"

    def __bool__(self):
        raise TypeError("a Tensor has no value while the program is built; use oxla.builder.where() or "
                        "control-flow builders (if_, while_) instead of Python if/while on it")

    def __len__(self) -> int:
        if not self.shape or self.shape[0] is None:
            raise TypeError(f"len() of a {'scalar' if not self.shape else 'dynamically sized'} Tensor")
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    __hash__ = object.__hash__

    # Operators without another operand (the binary ones are added from tables below the class).

    def __neg__(self): return F.negative(self)
    def __pos__(self): return self
    def __abs__(self): return F.abs(self)
    def __invert__(self): return F.invert(self)

    # Shape -------------------------------------------------------------------------------------------------------

    def __getitem__(self, key): return F.getitem(self, key)

    @property
    def T(self) -> "Tensor":
        """The transpose (axes reversed)."""
        return F.transpose(self)

    def transpose(self, *axes) -> "Tensor":
        """Permutes axes (reversed when none are given)."""
        return F.transpose(self, axes[0] if len(axes) == 1 and isinstance(axes[0], (list, tuple)) else axes or None)

    def reshape(self, *shape) -> "Tensor":
        """A new shape with the same elements (one -1 is inferred)."""
        return F.reshape(self, shape[0] if len(shape) == 1 and isinstance(shape[0], (list, tuple)) else shape)

    def astype(self, dtype) -> "Tensor":
        """Element-wise conversion to `dtype`."""
        return F.astype(self, dtype)

    def broadcast_to(self, shape) -> "Tensor":
        """Broadcasts to `shape` with numpy's rules."""
        return F.broadcast_to(self, shape)

    # Reductions --------------------------------------------------------------------------------------------------

    def sum(self, axis=None, keepdims=False): return F.sum(self, axis, keepdims)
    def prod(self, axis=None, keepdims=False): return F.prod(self, axis, keepdims)
    def max(self, axis=None, keepdims=False): return F.max(self, axis, keepdims)
    def min(self, axis=None, keepdims=False): return F.min(self, axis, keepdims)
    def mean(self, axis=None, keepdims=False): return F.mean(self, axis, keepdims)
    def any(self, axis=None, keepdims=False): return F.any(self, axis, keepdims)
    def all(self, axis=None, keepdims=False): return F.all(self, axis, keepdims)


def _operand(x) -> bool:
    """Whether an operator's other operand can take part (else the operator returns NotImplemented)."""
    return isinstance(x, (Tensor, ir.Value, np.ndarray, np.generic, bool, int, float, complex))


# operator name: function of oxla.builder.functions; each also gets its reflected form (__radd__, ...)
BINARY_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide", "floordiv": "floor_divide",
    "mod": "mod", "pow": "power", "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
    "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift",
}
COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
               "ge": "greater_equal"}


def _operator(function: str, reflected: bool):
    """The method for one binary operator: numpy-style `functions.<function>`, or NotImplemented."""
    def method(self, other):
        if not _operand(other):
            return NotImplemented
        f = getattr(F, function)
        return f(other, self) if reflected else f(self, other)
    method.__name__ = function
    return method


for _name, _function in BINARY_OPERATORS.items():
    setattr(Tensor, f"__{_name}__", _operator(_function, False))
    setattr(Tensor, f"__r{_name}__", _operator(_function, True))
for _name, _function in COMPARISONS.items():
    setattr(Tensor, f"__{_name}__", _operator(_function, False))


_core.wrapper[0] = Tensor

from oxla.builder import functions as F  # noqa: E402  (functions builds on Tensor)
