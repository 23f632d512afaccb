"""The state of one graph being lowered, and the tensor helpers every operator family shares.

Values are `oxla.builder.Tensor`s. Dimensions are ints when static and 0-d
i64 Tensors when only known at run time (a dynamic batch, say); torch's
symbolic sizes (`SymInt`s, sympy expressions over the input dimensions)
become such Tensors through `Lowering.dims`. Python-level symbolic ints
computed by the graph (`sym_size` and arithmetic on it) are `Sym` values,
which element-wise ops treat as weak Python scalars, as torch does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy
import torch

from oxla import ir
from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import types as T

# torch dtype -> MLIR element type spelling
ELEMENTS = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64", torch.uint8: "ui8",
    torch.bool: "i1", torch.complex64: "complex<f32>", torch.complex128: "complex<f64>",
}
DTYPES = {v: k for k, v in ELEMENTS.items()}


def element(dtype: torch.dtype) -> str:
    """The MLIR element type of a torch dtype (TypeError for dtypes StableHLO cannot hold here)."""
    try:
        return ELEMENTS[dtype]
    except KeyError:
        raise TypeError(f"torch dtype {dtype} has no StableHLO element type in oxla") from None


def dtype_of(t: Tensor) -> torch.dtype:
    """The torch dtype of a lowered value."""
    return DTYPES[t.dtype]


def is_float(dtype: str) -> bool:
    """Whether an element type spelling is a floating-point type."""
    return dtype in ("f16", "bf16", "f32", "f64")


@dataclass
class Sym:
    """A Python int, float or bool that torch computes symbolically: its run-time value as a 0-d tensor."""

    value: Tensor
    kind: type = int


# Constants and conversions ---------------------------------------------------------------------------------------

def constant(value, dtype: str) -> Tensor:
    """A constant of element type `dtype` holding `value` (a scalar or array)."""
    return shlo.constant(np.asarray(value, dtype=T.to_numpy_dtype(T.element_type(dtype))))


def convert(t: Tensor, dtype: str) -> Tensor:
    """`t` as element type `dtype`, with torch's rules (to bool: non-zero; float to int: toward zero)."""
    if t.dtype == dtype:
        return t
    if dtype == "i1":
        return shlo.compare(t, broadcast(constant(0, t.dtype), dims_of(t)), "NE")
    return shlo.convert(t, dtype)


def scalar(x, dtype: str) -> Tensor:
    """A 0-d tensor of `dtype` for a Python number or `Sym`."""
    if isinstance(x, Sym):
        return convert(x.value, dtype)
    if isinstance(x, Tensor):
        return convert(x, dtype)
    if dtype == "i1":
        return constant(bool(x), dtype)
    if not is_float(dtype) and not dtype.startswith("complex") and isinstance(x, float):
        x = math.trunc(x)
    return constant(x, dtype)


# Dimensions ------------------------------------------------------------------------------------------------------

def dims_of(t: Tensor) -> list:
    """The dimensions of a value: ints where static, 0-d i64 tensors (get_dimension_size) where dynamic."""
    return [d if d is not None else shlo.convert(shlo.get_dimension_size(t, i), "i64") for i, d in enumerate(t.shape)]


def static(dims) -> list:
    """Dimensions as the result type spells them: ints, or None where only known at run time."""
    return [d if isinstance(d, int) else None for d in dims]


def is_static(dims) -> bool:
    """Whether every dimension is a known int."""
    return all(isinstance(d, int) for d in dims)


def shape_tensor(dims) -> Tensor:
    """A 1-D i64 tensor holding the dimensions (for the dynamic shape operands)."""
    parts = [constant([d], "i64") if isinstance(d, int) else shlo.reshape(convert(d, "i64"), shape=[1]) for d in dims]
    if not parts:
        return constant(np.zeros([0]), "i64")
    return parts[0] if len(parts) == 1 else shlo.concatenate(parts, dimension=0)


def dim_product(dims):
    """The product of dimensions: an int when all are static, else a 0-d i64 tensor."""
    if is_static(dims):
        return math.prod(dims)
    total = None
    for d in dims:
        d = scalar(d, "i64")
        total = d if total is None else shlo.multiply(total, d)
    return total


def reshape(t: Tensor, dims) -> Tensor:
    """`t` with new dimensions.

    Static shapes use `reshape`. With run-time dimensions, a reshape that only
    removes and inserts size-1 dimensions becomes a reduce over the size-1
    axes (exact: max with its identity) and a broadcast_in_dim, which IREE
    lowers; any other one is a `dynamic_reshape`.
    """
    if is_static(dims):
        return t if tuple(dims) == t.shape else shlo.reshape(t, shape=list(dims))
    target = static(dims)
    if [d for d in t.shape if d != 1] == [d for d in target if d != 1]:
        units = [i for i, d in enumerate(t.shape) if d == 1]
        squeezed = reduce(t, units, "or" if t.dtype == "i1" else "max") if units else t
        return broadcast(squeezed, dims, [i for i, d in enumerate(target) if d != 1])
    return shlo.dynamic_reshape(t, shape_tensor(dims), result_types=[T.tensor_type(target, t.dtype)])


def broadcast(t: Tensor, dims, broadcast_dimensions=None) -> Tensor:
    """`t` broadcast to `dims`; its axes map to `broadcast_dimensions` (default: the trailing ones, as numpy).

    With run-time dimensions this is a dynamic_broadcast_in_dim that says
    which axes expand: size-1 axes going to other sizes. A symbolic size is
    never 1 (torch specializes sizes 0 and 1), so run-time axes never expand.
    """
    n = len(dims)
    if broadcast_dimensions is None:
        broadcast_dimensions = list(range(n - t.ndim, n))
    broadcast_dimensions = list(broadcast_dimensions)
    known = static(dims)
    if t.shape == tuple(known) and broadcast_dimensions == list(range(n)):
        return t
    if is_static(dims):
        return shlo.broadcast_in_dim(t, broadcast_dimensions=broadcast_dimensions, shape=list(dims))
    inner = _defining_op(t)
    if inner is not None and inner.name == "stablehlo.dynamic_broadcast_in_dim":  # keep one annotated broadcast
        t = Tensor(inner.operands[0])
        broadcast_dimensions = [broadcast_dimensions[d] for d in inner.opview.broadcast_dimensions]
    expanding = [i for i, (d, r) in enumerate(zip(t.shape, broadcast_dimensions)) if d == 1 and known[r] != 1]
    return shlo.dynamic_broadcast_in_dim(
        t, shape_tensor(dims), broadcast_dimensions=broadcast_dimensions, known_expanding_dimensions=expanding,
        known_nonexpanding_dimensions=[i for i in range(t.ndim) if i not in expanding],
        result_types=[T.tensor_type(known, t.dtype)])


def _defining_op(t: Tensor):
    """The operation that produced `t` (None for a block argument)."""
    owner = t.value.owner
    return owner.operation if isinstance(owner, (ir.Operation, ir.OpView)) else None


def full(dims, value, dtype: str) -> Tensor:
    """A tensor of `dims` filled with `value`."""
    return broadcast(scalar(value, dtype), dims)


def iota(dims, axis: int, dtype: str = "i64") -> Tensor:
    """Indices along `axis` in a tensor of `dims`."""
    if is_static(dims):
        return shlo.iota(iota_dimension=axis, shape=list(dims), dtype=dtype)
    return shlo.dynamic_iota(shape_tensor(dims), iota_dimension=axis, dtype=dtype,
                             result_types=[T.tensor_type(static(dims), dtype)])


def axis(a: int, rank: int) -> int:
    """A possibly negative axis as an index in [0, rank) (rank 0 accepts 0 and -1, as torch does)."""
    if rank == 0 and a in (0, -1):
        return 0
    if not -rank <= a < rank:
        raise IndexError(f"dimension {a} is out of range for a tensor of rank {rank}")
    return a % rank


def axes(dims, rank: int) -> list[int]:
    """torch's `dim` arguments (None, an int or a list; an empty list means all) as sorted axes."""
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    dims = dims if isinstance(dims, (list, tuple)) else [dims]
    return sorted({axis(d, rank) for d in dims})


def transpose(t: Tensor, permutation) -> Tensor:
    """`t` with its axes permuted."""
    permutation = list(permutation)
    return t if permutation == list(range(t.ndim)) else shlo.transpose(t, permutation=permutation)


# Slicing ---------------------------------------------------------------------------------------------------------

def slice_axis(t: Tensor, ax: int, start, limit, step: int = 1) -> Tensor:
    """`t[..., start:limit:step, ...]` along `ax`; start and limit are in range (ints or run-time 0-d values)."""
    dims = t.shape
    if all(d is not None for d in dims) and isinstance(start, int) and isinstance(limit, int):
        if (start, limit, step) == (0, dims[ax], 1):
            return t
        starts, limits, strides = [0] * t.ndim, list(dims), [1] * t.ndim
        starts[ax], limits[ax], strides[ax] = start, limit, step
        return shlo.slice(t, start_indices=starts, limit_indices=limits, strides=strides)
    full_dims = dims_of(t)
    starts = [0] * t.ndim
    limits = list(full_dims)
    strides = [1] * t.ndim
    starts[ax], limits[ax], strides[ax] = start, limit, step
    size = None
    if isinstance(start, int) and isinstance(limit, int):
        size = max(0, -(-(limit - start) // step))
    result_dims = list(static(full_dims))
    result_dims[ax] = size
    return shlo.real_dynamic_slice(t, shape_tensor(starts), shape_tensor(limits), shape_tensor(strides),
                                   result_types=[T.tensor_type(result_dims, t.dtype)])


# Reductions ------------------------------------------------------------------------------------------------------

# kind: (combiner, identity as a function of the element type)
def _lowest(dtype: str):
    """The identity of maximum."""
    if is_float(dtype):
        return -np.inf
    return False if dtype == "i1" else int(np.iinfo(T.to_numpy_dtype(T.element_type(dtype))).min)


def _highest(dtype: str):
    """The identity of minimum."""
    if is_float(dtype):
        return np.inf
    return True if dtype == "i1" else int(np.iinfo(T.to_numpy_dtype(T.element_type(dtype))).max)


REDUCERS = {
    "sum": (shlo.add, lambda d: 0), "prod": (shlo.multiply, lambda d: 1),
    "max": (shlo.maximum, _lowest), "min": (shlo.minimum, _highest),
    "and": (shlo.and_, lambda d: True), "or": (shlo.or_, lambda d: False),
}


def reduce(t: Tensor, reduce_axes, kind: str, keepdim: bool = False) -> Tensor:
    """`t` reduced over `reduce_axes` by `kind` (sum, prod, max, min, and, or); keepdim keeps them as size 1."""
    combine, identity = REDUCERS[kind]
    reduce_axes = sorted(reduce_axes)
    kept = dims_of(t) if keepdim else None
    out = shlo.reduce(t, scalar(identity(t.dtype), t.dtype), dimensions=reduce_axes,
                      body=lambda a, b: combine(a, b)) if reduce_axes else t
    if keepdim:
        out = reshape(out, [1 if i in reduce_axes else d for i, d in enumerate(kept)])
    return out


def count(t: Tensor, reduce_axes, dtype: str) -> Tensor:
    """The number of elements over `reduce_axes`, as a 0-d tensor of `dtype`."""
    n = dim_product([d for i, d in enumerate(dims_of(t)) if i in reduce_axes])
    return scalar(n, dtype)


def mean(t: Tensor, reduce_axes, keepdim: bool = False) -> Tensor:
    """The mean over `reduce_axes` (in t's floating type)."""
    total = reduce(t, reduce_axes, "sum", keepdim)
    return shlo.divide(total, broadcast(count(t, reduce_axes, t.dtype), dims_of(total)))


def variance(t: Tensor, reduce_axes, correction=0, keepdim: bool = False) -> Tensor:
    """The variance over `reduce_axes` with `correction` subtracted from the count (0: biased)."""
    centered = shlo.subtract(t, broadcast(mean(t, reduce_axes, True), dims_of(t)))
    total = reduce(shlo.multiply(centered, centered), reduce_axes, "sum", keepdim)
    n = count(t, reduce_axes, t.dtype)
    if correction:
        n = shlo.maximum(shlo.subtract(n, scalar(correction, t.dtype)), scalar(0, t.dtype))
    return shlo.divide(total, broadcast(n, dims_of(total)))


# Sympy expressions over input dimensions -------------------------------------------------------------------------

def _sym_functions():
    """torch's sympy helper functions by name (they live in a private module)."""
    from torch.utils._sympy import functions as F
    return {name: getattr(F, name) for name in ("FloorDiv", "CleanDiv", "PythonMod", "Mod", "Max", "Min",
                                                 "CeilDiv", "IntTrueDiv", "TruncToInt")
            if hasattr(F, name)}


class Lowering:
    """One graph being lowered: node values, the run-time sizes of symbols, and the node being lowered."""

    def __init__(self):
        self.values: dict = {}
        self.symbol_sources: dict = {}   # sympy.Symbol -> (Tensor, axis) where its size can be read
        self.symbols: dict = {}          # sympy expression -> 0-d i64 Tensor, once built
        self.node = None
        self._functions = _sym_functions()

    # The node being lowered.

    @property
    def out(self):
        """The node's result as torch traced it (a FakeTensor, a tuple of them, or a SymInt)."""
        return self.node.meta.get("val")

    @property
    def out_dtype(self) -> str:
        """The element type of the node's (first) tensor result."""
        v = self.out
        v = v[0] if isinstance(v, (tuple, list)) else v
        return element(v.dtype)

    def placeholder(self, index: int) -> Tensor:
        """Zeros shaped like result `index`: for results torch fills only when training (saved statistics)."""
        traced = self.out[index]
        return full(self.dims(traced.shape), 0, element(traced.dtype))

    def out_dims(self, index: int | None = None) -> list:
        """The dimensions of the node's (index-th) result (ints, or run-time values for symbolic sizes)."""
        v = self.out if index is None else self.out[index]
        return self.dims(v.shape)

    # Symbolic sizes.

    def bind_symbols(self, fake, t: Tensor) -> None:
        """Records that the symbolic sizes of an input (its FakeTensor) are the run-time sizes of `t`."""
        for i, d in enumerate(fake.shape):
            if isinstance(d, torch.SymInt):
                expr = d.node.expr
                if isinstance(expr, sympy.Symbol) and expr not in self.symbol_sources:
                    self.symbol_sources[expr] = (t, i)

    def dims(self, shape) -> list:
        """torch sizes (ints, SymInts) as dimensions: ints, or 0-d i64 tensors for symbolic ones."""
        return [self.size(d) for d in shape]

    def size(self, d):
        """One torch size as an int or a 0-d i64 tensor."""
        if isinstance(d, torch.SymInt):
            expr = d.node.expr
            return int(expr) if expr.is_number else self.sym(expr)
        return int(d)

    def sym(self, expr) -> Tensor:
        """A sympy expression over the input dimensions as a run-time 0-d i64 value."""
        if expr in self.symbols:
            return self.symbols[expr]
        value = self._evaluate(expr)
        self.symbols[expr] = value
        return value

    def _evaluate(self, expr) -> Tensor:
        """Builds the ops computing one sympy expression."""
        if expr.is_number:
            return constant(int(expr), "i64")
        if isinstance(expr, sympy.Symbol):
            if expr not in self.symbol_sources:
                raise NotImplementedError(f"symbolic size {expr} is not the size of an input dimension")
            t, i = self.symbol_sources[expr]
            return shlo.convert(shlo.get_dimension_size(t, i), "i64")
        args = [self.sym(a) for a in expr.args]
        if isinstance(expr, sympy.Add):
            return _fold(shlo.add, args)
        if isinstance(expr, sympy.Mul):
            return _fold(shlo.multiply, args)
        name = type(expr).__name__
        if name in ("FloorDiv", "CleanDiv"):
            return floor_divide(args[0], args[1])
        if name == "CeilDiv":
            return shlo.negate(floor_divide(shlo.negate(args[0]), args[1]))
        if name in ("PythonMod", "Mod"):
            return shlo.subtract(args[0], shlo.multiply(floor_divide(args[0], args[1]), args[1]))
        if name == "Max":
            return _fold(shlo.maximum, args)
        if name == "Min":
            return _fold(shlo.minimum, args)
        if isinstance(expr, sympy.Pow) and expr.args[1].is_Integer and int(expr.args[1]) > 0:
            return _fold(shlo.multiply, [args[0]] * int(expr.args[1]))
        raise NotImplementedError(f"symbolic size expression {expr} ({name}) is not supported")


def _fold(build, values):
    """build(build(v0, v1), v2)..."""
    out = values[0]
    for v in values[1:]:
        out = build(out, v)
    return out


def remainder_needs_adjusting(r: Tensor, divisor: Tensor) -> Tensor:
    """Where a truncated division's remainder is non-zero and its sign differs from the divisor's: where Python's
    floor division is one less, and its modulo one divisor more."""
    zero = broadcast(constant(0, r.dtype), dims_of(r))
    return shlo.and_(shlo.compare(r, zero, "NE"),
                     shlo.compare(shlo.compare(r, zero, "LT"), shlo.compare(divisor, zero, "LT"), "NE"))


def floor_divide(a: Tensor, b: Tensor) -> Tensor:
    """Integer division rounding toward -infinity (same-typed operands)."""
    q = shlo.divide(a, b)
    if T.is_unsigned(T.element_type(a.dtype)):
        return q
    adjust = remainder_needs_adjusting(shlo.remainder(a, b), b)
    return shlo.select(adjust, shlo.subtract(q, broadcast(constant(1, a.dtype), dims_of(q))), q)
