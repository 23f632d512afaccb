"""What every ONNX operator translation shares: the operator table, the node being translated, shape helpers.

A translation is a function of one `Node`; it returns the node's outputs as
Tensors (built StableHLO), numpy arrays (values known at import time), or a
list of them (None for an optional output the node does not produce).
Translations are registered once in `OPERATORS` with `@operator("Name")`.

Shapes may have dynamic dimensions. The helpers here work on "dimension
lists": Python lists whose entries are ints (static sizes) or 1-element i64
Tensors (sizes known only when the program runs), so that reshapes and
broadcasts take their static forms when every size is known and their
`dynamic_*` forms otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import onnx
from onnx import helper

from oxla import ir
from oxla.builder import functions as F
from oxla.builder.tensor import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import types as T
from oxla.errors import OxlaError


class OnnxImportError(OxlaError, ValueError):
    """The model cannot be translated as given (a value that must be static is not, a bad attribute...)."""


# ONNX TensorProto element types -> MLIR element types
ONNX_DTYPES = {
    onnx.TensorProto.FLOAT: "f32", onnx.TensorProto.DOUBLE: "f64", onnx.TensorProto.FLOAT16: "f16",
    onnx.TensorProto.BFLOAT16: "bf16", onnx.TensorProto.INT8: "i8", onnx.TensorProto.INT16: "i16",
    onnx.TensorProto.INT32: "i32", onnx.TensorProto.INT64: "i64", onnx.TensorProto.UINT8: "ui8",
    onnx.TensorProto.UINT16: "ui16", onnx.TensorProto.UINT32: "ui32", onnx.TensorProto.UINT64: "ui64",
    onnx.TensorProto.BOOL: "i1",
}


def element_type(onnx_dtype: int) -> str:
    """The MLIR element type of an ONNX element type (OnnxImportError when StableHLO has none)."""
    if onnx_dtype not in ONNX_DTYPES:
        name = onnx.TensorProto.DataType.Name(onnx_dtype) if onnx_dtype in onnx.TensorProto.DataType.values() \
            else str(onnx_dtype)
        raise OnnxImportError(f"ONNX element type {name} is not supported")
    return ONNX_DTYPES[onnx_dtype]


# The operator table ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Operator:
    """One ONNX operator: its translation, a note for the coverage table, and which variants it rejects.

    `unsupported(node_proto)` returns a short label of an attribute variant the
    translation does not handle ("training_mode=1"), or None.
    """

    name: str
    translate: Callable[["Node"], object]
    note: str = ""
    unsupported: Callable[[onnx.NodeProto], str | None] | None = None


OPERATORS: dict[str, Operator] = {}


def operator(*names: str, note: str = "", unsupported=None):
    """Decorator: registers a translation for the ONNX operators `names` (of the default domain)."""
    def register(fn):
        for name in names:
            if name in OPERATORS:
                raise ValueError(f"ONNX operator {name} is registered twice")
            OPERATORS[name] = Operator(name, fn, note, unsupported)
        return fn
    return register


def attribute(node: onnx.NodeProto, name: str, default=None):
    """A node attribute as a Python value (strings decoded, tensors as numpy arrays), or `default`."""
    for a in node.attribute:
        if a.name == name:
            value = helper.get_attribute_value(a)
            if isinstance(value, bytes):
                return value.decode()
            if isinstance(value, onnx.TensorProto):
                return onnx.numpy_helper.to_array(value)
            if isinstance(value, list) and value and isinstance(value[0], bytes):
                return [v.decode() for v in value]
            return value
    return default


# The node being translated -----------------------------------------------------------------------------------------

class Node:
    """An ONNX node during translation: attributes, inputs as Tensors or import-time values, inferred types."""

    def __init__(self, proto: onnx.NodeProto, importer, name: str):
        self.proto, self.importer, self.name = proto, importer, name
        self.op = proto.op_type
        self.opset = importer.opset

    def attr(self, name: str, default=None):
        """The attribute `name` as a Python value, or `default`."""
        return attribute(self.proto, name, default)

    @property
    def num_inputs(self) -> int:
        """How many inputs the node lists (absent optional ones included)."""
        return len(self.proto.input)

    @property
    def num_outputs(self) -> int:
        """How many outputs the node lists."""
        return len(self.proto.output)

    def has(self, i: int) -> bool:
        """Whether optional input `i` is given."""
        return i < len(self.proto.input) and self.proto.input[i] != ""

    def wants(self, i: int) -> bool:
        """Whether optional output `i` is used (named)."""
        return i < len(self.proto.output) and self.proto.output[i] != ""

    def input(self, i: int) -> Tensor:
        """Input `i` as a Tensor (an import-time value becomes a constant)."""
        if not self.has(i):
            self.fail(f"input {i} is required")
        return self.importer.tensor(self.proto.input[i])

    def inputs(self) -> list[Tensor]:
        """Every given input as a Tensor."""
        return [self.input(i) for i in range(self.num_inputs) if self.has(i)]

    def static(self, i: int, default=None, what: str | None = None) -> np.ndarray | None:
        """Input `i` as a numpy array known at import time (`default` when absent); an error when it is not."""
        if not self.has(i):
            return default
        value = self.importer.known(self.proto.input[i])
        if value is None:
            self.fail(f"{what or f'input {i}'} ({self.proto.input[i]!r}) must be known when the model is imported "
                      "(a constant, an initializer, or computed from them and static shapes), but it depends on "
                      "run-time values")
        return value

    def static_ints(self, i: int, default=None, what: str | None = None) -> list[int] | None:
        """Input `i` as a list of Python ints known at import time."""
        value = self.static(i, None, what)
        return default if value is None else [int(v) for v in np.asarray(value).reshape(-1)]

    def partial(self, i: int) -> list | None:
        """Input `i`, a 1-D shape vector, with its import-time entries as ints and the others None; or None."""
        if not self.has(i):
            return None
        known = self.importer.known(self.proto.input[i])
        if known is not None:
            return [int(v) for v in np.asarray(known).reshape(-1)]
        partial = self.importer.partial.get(self.proto.input[i])
        return None if partial is None or partial.ndim != 1 else [None if v is None else int(v) for v in partial]

    def shape_entries(self, i: int) -> list:
        """Input `i`, a 1-D shape vector, as a dimension list: import-time entries as ints, others read at run time."""
        partial = self.partial(i)
        if partial is not None and None not in partial:
            return partial
        vector = convert(self.input(i), "i64")
        if vector.ndim != 1 or vector.shape[0] is None:
            self.fail(f"input {i} must be a shape vector of static length")
        partial = partial or [None] * vector.shape[0]
        return [v if v is not None else Tensor(shlo.slice(vector, start_indices=[k], limit_indices=[k + 1]))
                for k, v in enumerate(partial)]

    def is_static(self, i: int) -> bool:
        """Whether input `i` is given and known at import time."""
        return self.has(i) and self.importer.known(self.proto.input[i]) is not None

    def fail(self, message: str):
        """Raises OnnxImportError for this node."""
        raise OnnxImportError(f"{self.op} node {self.name!r}: {message}")


# Constants and scalars ---------------------------------------------------------------------------------------------

def constant(value, dtype=None) -> Tensor:
    """A constant Tensor; arrays whose elements are all equal become a broadcast scalar."""
    array = np.asarray(value, dtype=None if dtype is None else T.to_numpy_dtype(T.element_type(dtype)))
    if array.size > 1 and (array == array.flat[0]).all():
        scalar = F.constant(array.reshape(-1)[:1].reshape(()))
        return Tensor(shlo.broadcast_in_dim(scalar, broadcast_dimensions=[], shape=array.shape))
    return F.constant(array)


def scalar(value, like: Tensor) -> Tensor:
    """A 0-d constant of `like`'s element type."""
    return F.constant(np.asarray(value, dtype=T.to_numpy_dtype(like.element_type)))


def is_float(t: Tensor) -> bool:
    """Whether `t` has a floating-point element type."""
    return T.is_float(t.element_type)


def axis_index(axis: int, rank: int, node: Node | None = None) -> int:
    """A possibly negative axis as an index in [0, rank)."""
    if not -rank <= axis < rank:
        message = f"axis {axis} is out of range for rank {rank}"
        if node is not None:
            node.fail(message)
        raise OnnxImportError(message)
    return axis % rank


# Dimension lists ---------------------------------------------------------------------------------------------------

def dim(t: Tensor, axis: int):
    """The size of one dimension: an int, or a 1-element i64 Tensor when it is dynamic."""
    size = t.shape[axis]
    if size is not None:
        return size
    d = shlo.convert(shlo.get_dimension_size(t, dimension=axis), T.i64())
    return Tensor(shlo.reshape(d, shape=[1]))


def dims(t: Tensor) -> list:
    """The dimension list of `t`."""
    return [dim(t, a) for a in range(t.ndim)]


def static_dims(entries) -> list:
    """A dimension list's static shape (None for run-time entries)."""
    return [e if isinstance(e, (int, np.integer)) else None for e in entries]


def is_static(entries) -> bool:
    """Whether every entry of a dimension list is an int."""
    return all(isinstance(e, (int, np.integer)) for e in entries)


def shape_tensor(entries) -> Tensor:
    """A dimension list as a 1-D i64 Tensor."""
    parts, run = [], []
    for e in entries:
        if isinstance(e, (int, np.integer)):
            run.append(int(e))
            continue
        if run:
            parts.append(F.constant(np.asarray(run, np.int64)))
            run = []
        parts.append(e)
    if run or not parts:
        parts.append(F.constant(np.asarray(run, np.int64)))
    return parts[0] if len(parts) == 1 else Tensor(shlo.concatenate(parts, dimension=0))


def dim_product(entries):
    """The product of a dimension list: an int, or a 1-element i64 Tensor."""
    static = int(np.prod([e for e in entries if isinstance(e, (int, np.integer))], dtype=np.int64))
    result = static
    for e in entries:
        if not isinstance(e, (int, np.integer)):
            result = e if isinstance(result, int) and result == 1 else Tensor(shlo.multiply(as_dim(result), e))
    return result


def as_dim(entry) -> Tensor:
    """A dimension entry as a 1-element i64 Tensor."""
    return F.constant(np.asarray([entry], np.int64)) if isinstance(entry, (int, np.integer)) else entry


def reshape(t: Tensor, entries) -> Tensor:
    """`t` reshaped to a dimension list.

    With run-time sizes, inserting or removing size-1 axes stays in
    StableHLO (a broadcast, a reduction over the size-1 axes); any other
    reshape becomes tensor.collapse_shape + tensor.expand_shape, because
    IREE 3.13 lowers no stablehlo.dynamic_reshape.
    """
    if len(entries) == t.ndim and all(_same_size(t, a, e) for a, e in enumerate(entries)):
        return t
    if is_static(entries) and None not in t.shape:
        return Tensor(shlo.reshape(t, shape=[int(e) for e in entries]))
    inserted = _embedding(t, entries)
    if inserted is not None:
        return broadcast_in_dim(t, entries, inserted)
    kept = _kept_axes(t, entries)
    if kept is not None:
        removed = [a for a in range(t.ndim) if a not in kept]
        return Tensor(shlo.reduce(t, scalar(lowest(t), t), dimensions=removed, body=shlo.maximum))
    return _tensor_reshape(t, entries)


def _embedding(t: Tensor, entries) -> list[int] | None:
    """Where t's axes go when `entries` only adds size-1 axes to t's dimensions, else None."""
    positions, k = [], 0
    for a in range(t.ndim):
        while k < len(entries) and not _same_size(t, a, entries[k]):
            if not (isinstance(entries[k], (int, np.integer)) and entries[k] == 1):
                return None
            k += 1
        if k == len(entries):
            return None
        positions.append(k)
        k += 1
    rest = entries[k:]
    return positions if all(isinstance(e, (int, np.integer)) and e == 1 for e in rest) else None


def _kept_axes(t: Tensor, entries) -> list[int] | None:
    """The axes of t that remain when `entries` only drops static size-1 axes of t, else None."""
    kept, k = [], 0
    for a in range(t.ndim):
        if k < len(entries) and _same_size(t, a, entries[k]):
            kept.append(a)
            k += 1
        elif t.shape[a] != 1:
            return None
    return kept if k == len(entries) else None


def _index(entry) -> ir.Value:
    """A dimension entry as an MLIR index value."""
    index = ir.IndexType.get()
    if isinstance(entry, (int, np.integer)):
        return ir.Operation.create("arith.constant", results=[index],
                                   attributes={"value": ir.IntegerAttr.get(index, int(entry))}).result
    zero = ir.Operation.create("arith.constant", results=[index],
                               attributes={"value": ir.IntegerAttr.get(index, 0)}).result
    size = ir.Operation.create("tensor.extract", results=[T.i64()], operands=[entry.value, zero]).result
    return ir.Operation.create("arith.index_cast", results=[index], operands=[size]).result


def _groups(*groups) -> ir.ArrayAttr:
    """A reassociation attribute: lists of axes."""
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(T.i64(), a) for a in g]) for g in groups])


def _tensor_reshape(t: Tensor, entries) -> Tensor:
    """A run-time reshape as a collapse to one dimension and an expansion to `entries`."""
    value = t.value
    if t.ndim != 1:
        flat = T.tensor_type([dim_product(static_dims(t.shape)) if None not in t.shape else None], t.element_type)
        value = ir.Operation.create("tensor.collapse_shape", results=[flat], operands=[value],
                                    attributes={"reassociation": _groups(range(t.ndim))}).result
    if len(entries) == 1:
        result = T.tensor_type(static_dims(entries), t.element_type)
        if result == value.type:
            return Tensor(value)
        return Tensor(ir.Operation.create("tensor.cast", results=[result], operands=[value]).result)
    static = [int(e) if isinstance(e, (int, np.integer)) else T.DYNAMIC for e in entries]
    result = T.tensor_type(static_dims(entries), t.element_type)
    expanded = ir.Operation.create(
        "tensor.expand_shape", results=[result],
        operands=[value] + [_index(e) for e in entries if not isinstance(e, (int, np.integer))],
        attributes={"reassociation": _groups(range(len(entries))),
                    "static_output_shape": ir.DenseI64ArrayAttr.get(static)})
    return Tensor(expanded.result)


def broadcast_in_dim(t: Tensor, entries, broadcast_dimensions) -> Tensor:
    """`t` broadcast to a dimension list, its dimension i going to `broadcast_dimensions[i]`.

    A dynamic dimension of `t` is taken not to be a stretching size 1 (IREE
    needs that promise to lower the run-time broadcast).
    """
    static = static_dims(entries)
    broadcast_dimensions = list(broadcast_dimensions)
    t, broadcast_dimensions = _compose_broadcasts(t, broadcast_dimensions)
    if is_static(entries):
        return Tensor(shlo.broadcast_in_dim(t, broadcast_dimensions=broadcast_dimensions, shape=static))
    result = T.tensor_type(static, t.element_type)
    expanding = [a for a, d in enumerate(broadcast_dimensions) if t.shape[a] == 1 and static[d] != 1]
    nonexpanding = [a for a in range(t.ndim) if a not in expanding]
    return Tensor(shlo.dynamic_broadcast_in_dim(
        t, shape_tensor(entries), broadcast_dimensions=broadcast_dimensions,
        known_expanding_dimensions=expanding or None, known_nonexpanding_dimensions=nonexpanding or None,
        result_types=[result]))


def _compose_broadcasts(t: Tensor, broadcast_dimensions: list[int]) -> tuple[Tensor, list[int]]:
    """A broadcast of a broadcast as one broadcast of the first one's operand.

    (MLIR's canonicalizer would merge the two and drop the expansion hints
    IREE needs; merging here keeps them right.)
    """
    op = t.value.owner
    if getattr(op, "name", "") not in ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim"):
        return t, broadcast_dimensions
    inner = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    return Tensor(op.operands[0]), [broadcast_dimensions[d] for d in inner]


def broadcast_to(t: Tensor, entries) -> Tensor:
    """`t` broadcast to a dimension list with numpy's rules (aligned at the right)."""
    if len(entries) == t.ndim and all(_same_size(t, a, e) for a, e in enumerate(entries)):
        return t
    return broadcast_in_dim(t, entries, range(len(entries) - t.ndim, len(entries)))


def _same_size(t: Tensor, axis: int, entry) -> bool:
    """Whether a dimension entry is certainly the size of `t`'s dimension `axis`."""
    if isinstance(entry, (int, np.integer)):
        return t.shape[axis] == entry
    return t.shape[axis] is None and _is_dim_of(entry, t, axis)


def _is_dim_of(entry: Tensor, t: Tensor, axis: int) -> bool:
    """Whether a run-time entry is exactly `t`'s own dimension `axis` (as `dim` builds it)."""
    op = entry.value.owner
    if getattr(op, "name", "") != "stablehlo.reshape":
        return False
    convert = op.operands[0].owner
    if getattr(convert, "name", "") != "stablehlo.convert":
        return False
    size = convert.operands[0].owner
    return (getattr(size, "name", "") == "stablehlo.get_dimension_size" and size.operands[0] == t.value
            and ir.IntegerAttr(size.attributes["dimension"]).value == axis)


def broadcast_dims(*lists) -> list:
    """The dimension list numpy broadcasting gives dimension lists (sizes of 1 stretch; run-time maxima)."""
    rank = max(len(entries) for entries in lists)
    result = []
    for k in range(rank):
        static, dynamic = set(), []
        for entries in lists:
            if k - (rank - len(entries)) < 0:
                continue
            e = entries[k - (rank - len(entries))]
            if not isinstance(e, (int, np.integer)):
                dynamic.append(e)
            elif e != 1:
                static.add(int(e))
        if len(static) > 1:
            raise OnnxImportError(f"shapes {[_show(static_dims(e)) for e in lists]} do not broadcast")
        if static:
            result.append(static.pop())
        elif dynamic:
            entry = dynamic[0]
            for other in dynamic[1:]:
                entry = Tensor(shlo.maximum(entry, other))
            result.append(entry)
        else:
            result.append(1)
    return result


def _show(shape) -> list:
    """A shape for messages ('?' for dynamic sizes)."""
    return ["?" if d is None else d for d in shape]


def broadcast(*tensors: Tensor) -> list[Tensor]:
    """The tensors broadcast to one shape (numpy's rules)."""
    if all(t.shape == tensors[0].shape and None not in t.shape for t in tensors):
        return list(tensors)
    entries = broadcast_dims(*[dims(t) for t in tensors])
    return [broadcast_to(t, entries) for t in tensors]


def slice_(t: Tensor, starts, limits, strides=None) -> Tensor:
    """stablehlo.slice; a limit of None takes a dynamic dimension whole (a real_dynamic_slice)."""
    strides = list(strides or [1] * t.ndim)
    if None not in limits:
        return Tensor(shlo.slice(t, start_indices=list(starts), limit_indices=list(limits), strides=strides))
    sizes = [None if b is None else len(range(a, b, s)) for a, b, s in zip(starts, limits, strides)]
    ends = [dim(t, a) if b is None else b for a, b in enumerate(limits)]
    return Tensor(shlo.real_dynamic_slice(t, shape_tensor(starts), shape_tensor(ends), shape_tensor(strides),
                                          result_types=[T.tensor_type(sizes, t.element_type)]))


# Element-wise arithmetic with broadcasting --------------------------------------------------------------------------

def elementwise(build, *operands) -> Tensor:
    """`build` on the operands broadcast together; Python numbers take the first Tensor's element type."""
    like = next(x for x in operands if isinstance(x, Tensor))
    tensors = [x if isinstance(x, Tensor) else scalar(x, like) for x in operands]
    return Tensor(build(*broadcast(*tensors)))


def add(a, b) -> Tensor:
    """a + b."""
    return elementwise(shlo.add, a, b)


def sub(a, b) -> Tensor:
    """a - b."""
    return elementwise(shlo.subtract, a, b)


def mul(a, b) -> Tensor:
    """a * b."""
    return elementwise(shlo.multiply, a, b)


def div(a, b) -> Tensor:
    """a / b."""
    return elementwise(shlo.divide, a, b)


def maximum(a, b) -> Tensor:
    """Element-wise maximum."""
    return elementwise(shlo.maximum, a, b)


def minimum(a, b) -> Tensor:
    """Element-wise minimum."""
    return elementwise(shlo.minimum, a, b)


def compare(a, b, direction: str) -> Tensor:
    """Element-wise comparison as booleans."""
    return elementwise(lambda x, y: shlo.compare(x, y, direction), a, b)


def select(condition: Tensor, a, b) -> Tensor:
    """a where condition, else b."""
    like = a if isinstance(a, Tensor) else b
    a, b = (x if isinstance(x, Tensor) else scalar(x, like) for x in (a, b))
    return Tensor(shlo.select(*broadcast(condition, a, b)))


def convert(t: Tensor, dtype) -> Tensor:
    """`t` converted to `dtype`; to booleans as `t != 0`."""
    element = T.element_type(dtype)
    if t.element_type == element:
        return t
    if T.is_bool(element):
        return compare(t, 0, "NE")
    return Tensor(shlo.convert(t, element))


def chlo(name: str, x: Tensor) -> Tensor:
    """An element-wise CHLO op (erf, sinh, ...), which oxla's input legalization expands."""
    op = ir.Operation.create(f"chlo.{name}", results=[x.type], operands=[x.value])
    return Tensor(op.result)


# Reductions ---------------------------------------------------------------------------------------------------------

def reduce(t: Tensor, axes, combine, init, keepdims: bool = False) -> Tensor:
    """`t` reduced over `axes` with the scalar function `combine`, starting from `init`."""
    axes = sorted(set(axes))
    out = Tensor(shlo.reduce(t, scalar(init, t), dimensions=axes, body=combine))
    return keep_dims(out, t, axes) if keepdims else out


def keep_dims(reduced: Tensor, t: Tensor, axes) -> Tensor:
    """A reduction's result with the reduced axes of `t` put back as size 1."""
    entries = [1 if a in axes else dim(t, a) for a in range(t.ndim)]
    return broadcast_in_dim(reduced, entries, [a for a in range(t.ndim) if a not in axes])


def count(t: Tensor, axes, like: Tensor):
    """How many elements the `axes` of `t` hold, as a 0-d Tensor of `like`'s type."""
    n = dim_product([dim(t, a) for a in axes])
    if isinstance(n, int):
        return scalar(n, like)
    return convert(Tensor(shlo.reshape(n, shape=[])), like.element_type)


def lowest(t: Tensor):
    """The identity of maximum for `t`'s element type."""
    if is_float(t):
        return -np.inf
    if T.is_bool(t.element_type):
        return False
    return np.iinfo(T.to_numpy_dtype(t.element_type)).min


def highest(t: Tensor):
    """The identity of minimum for `t`'s element type."""
    if is_float(t):
        return np.inf
    if T.is_bool(t.element_type):
        return True
    return np.iinfo(T.to_numpy_dtype(t.element_type)).max


def sum_(t: Tensor, axes, keepdims: bool = False) -> Tensor:
    """The sum over `axes`."""
    return reduce(t, axes, shlo.add, 0, keepdims)


def mean(t: Tensor, axes, keepdims: bool = False) -> Tensor:
    """The mean over `axes` (axes kept as size 1 when `keepdims`)."""
    return div(sum_(t, axes, keepdims), count(t, axes, t))
