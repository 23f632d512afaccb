"""CHLO, the ops JAX emits next to StableHLO.

Most are evaluated by expansion: the op alone, in a one-function module,
goes through MLIR's own `chlo-legalize-to-stablehlo` (the decomposition
XLA and IREE use, so the numbers match theirs), and the interpreter runs
the resulting StableHLO. Expansions are cached per op signature. The
broadcasting binary ops reuse the StableHLO kernels after broadcasting;
top_k, scan, constant_like and the is_*inf tests are evaluated directly.
"""

from __future__ import annotations

import threading

import numpy as np

from oxla import ir
from oxla.interpreter import attrs
from oxla.interpreter.core import REGISTRY, Block, UnsupportedOp, register, results
from oxla.interpreter.reductions import descending, sort_key
from oxla.interpreter.data_movement import value_attribute
from oxla.interpreter.types import info

# chlo ops evaluated through chlo-legalize-to-stablehlo
EXPANDED = (
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i1e", "conj", "cosh", "digamma", "erf", "erf_inv",
    "erfc", "lgamma", "mulhi", "next_after", "polygamma", "sinh", "square", "tan", "zeta", "ragged_dot",
)
# chlo.broadcast_X -> stablehlo.X
BROADCASTING = (
    "add", "and", "atan2", "complex", "compare", "divide", "maximum", "minimum", "multiply", "next_after", "or",
    "polygamma", "power", "remainder", "shift_left", "shift_right_arithmetic", "shift_right_logical", "subtract",
    "xor", "zeta", "select",
)

_EXPANSIONS: dict[tuple, tuple] = {}  # op signature -> (expanded module, its compiled function)
_LOCK = threading.Lock()


def _signature(op) -> tuple:
    return (op.name, tuple(str(v.type) for v in op.operands), tuple(str(r.type) for r in op.results),
            tuple(sorted((n, str(op.attributes[n])) for n in op.attributes)))


def expand(op):
    """The compiled function computing `op` by its StableHLO decomposition (built once per signature)."""
    from oxla.interpreter.core import Compiler

    key = _signature(op)
    with _LOCK:
        if key not in _EXPANSIONS:
            module = _decomposed(op)
            if any(o.name == op.name for o in ir.ops(module)):
                raise UnsupportedOp(f"{op.name} has no decomposition into StableHLO for these types")
            _EXPANSIONS[key] = (module, Compiler(module).function("expansion"))
        return _EXPANSIONS[key][1]


def _decomposed(op):
    """A module whose @expansion applies `op` to its arguments, after chlo-legalize-to-stablehlo."""
    inputs, outputs = [v.type for v in op.operands], [r.type for r in op.results]
    with op.context, op.location:
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            function = ir.Operation.create(
                "func.func", attributes={"sym_name": ir.StringAttr.get("expansion"),
                                         "function_type": ir.TypeAttr.get(ir.FunctionType.get(inputs, outputs))},
                regions=1)
            block = function.regions[0].blocks.append(*inputs)
            with ir.InsertionPoint(block):
                copy = ir.Operation.create(op.name, results=outputs, operands=list(block.arguments),
                                           attributes={n: op.attributes[n] for n in op.attributes})
                ir.Operation.create("func.return", operands=list(copy.results))
        manager = ir.passmanager.PassManager.parse("builtin.module(func.func(chlo-legalize-to-stablehlo))")
        manager.run(module.operation)
    return module


def _expanded(op, c):
    function = expand(op)
    return lambda state, *args: results(op, function.call(state, list(args)))


for _name in EXPANDED:
    register(f"chlo.{_name}", stateful=True)(_expanded)


def _broadcast_operands(op, arrays):
    """Operands broadcast to the result shape: by `broadcast_dimensions` when given, else numpy's rule."""
    dims = attrs.ints(op, "broadcast_dimensions", []) if "broadcast_dimensions" in op.attributes else None
    rank = max(a.ndim for a in arrays)
    if dims is None:
        return arrays
    out = []
    for a in arrays:
        if a.ndim == rank or a.ndim == 0:
            out.append(a)
        else:
            view = [1] * rank
            for i, d in enumerate(dims):
                view[d] = a.shape[i]
            out.append(a.reshape(view))
    return out


def _broadcasting(name: str):
    def build(op, c):
        kernel = REGISTRY[f"stablehlo.{name}"].build(op, c)
        return lambda *args: kernel(*_broadcast_operands(op, list(args)))

    return build


for _name in BROADCASTING:
    register(f"chlo.broadcast_{_name}", pointwise=True)(_broadcasting(_name))

register("chlo.is_inf", pointwise=True)(lambda op, c: np.isinf)
register("chlo.is_pos_inf", pointwise=True)(lambda op, c: np.isposinf)
register("chlo.is_neg_inf", pointwise=True)(lambda op, c: np.isneginf)


@register("chlo.constant_like", pointwise=True)
def _constant_like(op, c):
    """The `value` attribute broadcast to the operand's shape."""
    value = attrs.dense(op, "value") if "value" in op.attributes else None
    if value is None:
        raise UnsupportedOp("chlo.constant_like without a value")
    return lambda x: np.broadcast_to(np.asarray(value).reshape(()) if np.size(value) == 1 else value, x.shape)


@register("chlo.constant", pointwise=True)
def _chlo_constant(op, c):
    value = value_attribute(op, op.results[0].type)
    return lambda: value


@register("chlo.top_k")
def _top_k(op, c):
    """The k largest values of the last dimension (in total order, ties by lower index) and their indices."""
    k = attrs.integer(op, "k")
    index_type = info(op.results[1].type).storage

    def kernel(x):
        order = np.argsort(descending(sort_key(x, "TOTALORDER")), axis=-1, kind="stable")[..., :k]
        return [np.take_along_axis(x, order, axis=-1), order.astype(index_type)]

    return kernel


@register("chlo.scan", stateful=True)
def _scan(op, c):
    """Runs the body along `dimension` (reversed when `is_reverse`), carrying the inits; per-step outputs stacked."""
    body: Block = c.region(op)
    dimension = attrs.integer(op, "dimension")
    reverse = attrs.flag(op, "is_reverse")
    inputs_count = len(op.operands) - _init_count(op)

    def kernel(state, *operands):
        inputs, carry = list(operands[:inputs_count]), list(operands[inputs_count:])
        length = inputs[0].shape[dimension] if inputs else 0
        outputs: list[list] = []
        steps = range(length - 1, -1, -1) if reverse else range(length)
        for i in steps:
            values = body.run(state, [np.take(x, i, axis=dimension) for x in inputs] + carry)
            produced, carry = values[:len(values) - len(carry)], values[len(values) - len(carry):]
            outputs.append(produced)
        if reverse:
            outputs.reverse()
        stacked = [np.stack([o[j] for o in outputs], axis=dimension) for j in range(len(outputs[0]))] if outputs else []
        return results(op, stacked + carry)

    return kernel


def _init_count(op) -> int:
    """How many of chlo.scan's operands are inits (read from its `inits(...)` group)."""
    if "operandSegmentSizes" in op.attributes:
        return int(list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))[1])
    raise UnsupportedOp("chlo.scan without operand segments")
