"""Reductions: reduce and reduce_window that combine each result element with at most one input element.

The rules follow the spec's schedule with one init value (as oxla's
interpreter evaluates it): the init value is combined with the reduced
elements, so a
reduction over one element is body(init, x), which is x itself only when
init is the body's identity (x * 1, max(x, -inf), ...). The rules handle
single-input reductions whose body is one binary op of its two arguments.
Float and complex sums also start from +0.0 in the interpreter, so reduce
rules take their init values only where that makes no difference.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo.types import element_of, to_numpy_dtype
from oxla.transforms.simplify.constants import replace_built, splat_constant, splat_scalar, static_shape
from oxla.transforms.simplify.rule import defining, element_kind, rule

FAMILY = "reductions"

_BODY_OPS = ("stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.and",
             "stablehlo.or", "stablehlo.xor")
# On booleans add is `or` and multiply is `and`; these bodies give the same result for one copy or many.
_IDEMPOTENT = ("stablehlo.maximum", "stablehlo.minimum", "stablehlo.and", "stablehlo.or")


def reducer(op):
    """(body op name, whether the accumulator is its first operand) for a body that is one op of _BODY_OPS on its
    two block arguments returning that op's result; None for any other body."""
    region = op.regions[0]
    blocks = list(region.blocks)
    if len(blocks) != 1:
        return None
    block = blocks[0]
    args, ops = list(block.arguments), [o.operation for o in block.operations]
    if len(args) != 2 or len(ops) != 2 or ops[0].name not in _BODY_OPS or len(ops[0].attributes):
        return None
    body, ret = ops
    if len(ret.operands) != 1 or ret.operands[0] != body.results[0] or body.results[0].type != args[0].type:
        return None
    operands = list(body.operands)
    if operands == args:
        return body.name, True
    if operands == args[::-1]:
        return body.name, False
    return None


def _accepts(name: str, kind: str) -> bool:
    """Whether the rules handle body `name` on elements of `kind` (complex max/min order lexicographically)."""
    return kind in ("bool", "int", "float") or (kind == "complex" and name in ("stablehlo.add", "stablehlo.multiply"))


def is_identity(name: str, init) -> bool:
    """Whether the 0-d value `init` is a constant with body(init, x) == x bit for bit for every x."""
    s = splat_scalar(init)
    if s is None:
        return False
    kind = element_kind(init)
    if kind == "bool":
        v = bool(s)
        return v if name in ("stablehlo.multiply", "stablehlo.and", "stablehlo.minimum") else not v
    if kind == "int":
        t = ir.IntegerType(element_of(init))
        v, width = int(s), t.width
        low, high = (0, (1 << width) - 1) if t.is_unsigned else (-(1 << (width - 1)), (1 << (width - 1)) - 1)
        ones = high if t.is_unsigned else -1
        return v == {"stablehlo.add": 0, "stablehlo.or": 0, "stablehlo.xor": 0, "stablehlo.multiply": 1,
                     "stablehlo.and": ones, "stablehlo.maximum": low, "stablehlo.minimum": high}[name]
    if kind == "float":
        v = float(s)
        if name == "stablehlo.add":
            return v == 0 and bool(np.signbit(v))  # -0.0: x + 0.0 turns -0.0 into +0.0
        return v == {"stablehlo.multiply": 1.0, "stablehlo.maximum": -np.inf, "stablehlo.minimum": np.inf}.get(name)
    return False  # complex: (1 + 0i) * x and (-0 - 0i) + x change infinities, NaNs or zero signs


def combined(name: str, init_first: bool, init, value, shape):
    """body(init, value) element-wise over `shape` (init broadcast), or value itself when init is the identity."""
    if is_identity(name, init):
        return value
    spread = shlo.broadcast_in_dim(init, broadcast_dimensions=[], shape=list(shape))
    a, b = (spread, value) if init_first else (value, spread)
    return shlo.BUILDERS[name](a, b)


def _single(op):
    """(input, init, body name, accumulator first, kind, result shape) of a single-input reduction the rules
    handle, or None."""
    inputs, inits = list(op.operands[:len(op.operands) // 2]), list(op.operands[len(op.operands) // 2:])
    if len(inputs) != 1 or len(op.results) != 1:
        return None
    x, init = inputs[0], inits[0]
    kind = element_kind(x)
    found = reducer(op)
    out = static_shape(op.results[0])
    if found is None or out is None or static_shape(x) is None or not _accepts(found[0], kind):
        return None
    if element_of(op.results[0]) != element_of(x):
        return None
    return x, init, found[0], found[1], kind, out


def _one_element_reduced(op, rw) -> bool:
    """reduce whose reduced extent is one element -> body(init, x) on x reshaped to the result's shape."""
    found = _single(op)
    if found is None:
        return False
    x, init, name, init_first, kind, out = found
    dims = static_shape(x)
    if any(dims[d] != 1 for d in op.dimensions):
        return False

    def make():
        value = x if dims == out else shlo.reshape(x, shape=list(out))
        return combined(name, init_first, init, value, out)

    return replace_built(op, rw, make)


@rule("stablehlo.reduce", family=FAMILY)
def reduce_no_dimensions(op, rw) -> bool:
    """reduce over no dimensions -> body(init, x) element-wise, or x when init is the body's identity (exact)."""
    return not list(op.dimensions) and _one_element_reduced(op, rw)


@rule("stablehlo.reduce", family=FAMILY)
def reduce_unit_extent(op, rw) -> bool:
    """reduce over dimensions of size 1 -> body(init, reshape(x)), or the reshape when init is the identity (exact)."""
    return bool(list(op.dimensions)) and _one_element_reduced(op, rw)


@rule("stablehlo.reduce", family=FAMILY)
def reduce_empty(op, rw) -> bool:
    """reduce over a dimension of size 0 -> its init values broadcast (exact: no element is combined)."""
    count = len(op.operands) // 2
    inputs, inits = list(op.operands[:count]), list(op.operands[count:])
    dims = static_shape(inputs[0])
    if dims is None or not any(dims[d] == 0 for d in op.dimensions):
        return False
    outs = [static_shape(r) for r in op.results]
    if None in outs or any(element_of(r) != element_of(i) for r, i in zip(op.results, inits)):
        return False
    if any(element_kind(v) == "other" for v in inits):
        return False
    built = rw.build(op, lambda: [shlo.broadcast_in_dim(i, broadcast_dimensions=[], shape=list(s))
                                  for i, s in zip(inits, outs)])
    values = [getattr(b, "value", b) for b in built]
    if any(v.type != r.type for v, r in zip(values, op.results)):
        raise ValueError("reduce_empty built a type that differs from the reduce's")
    return rw.replace(op, values)


@rule("stablehlo.reduce", family=FAMILY)
def reduce_broadcast_scalar(op, rw) -> bool:
    """reduce over broadcast copies of y -> body(init, y) for max/min/and/or, body(init, n*y) for integer add."""
    # Exact: max/min/and/or of copies of y is y, and n * y wraps around exactly as n integer additions of y do.
    found = _single(op)
    if found is None:
        return False
    x, init, name, init_first, kind, out = found
    spread = defining(x, "stablehlo.broadcast_in_dim")
    if spread is None:
        return False
    y = spread.operand
    y_dims, x_dims = static_shape(y), static_shape(x)
    if y_dims is None:
        return False
    reduced = set(op.dimensions)
    mapping = list(spread.broadcast_dimensions)
    if any(d in reduced and y_dims[i] != 1 for i, d in enumerate(mapping)):
        return False  # y varies along a reduced dimension
    copies = int(np.prod([x_dims[d] for d in reduced], dtype=np.int64))
    if copies < 2:
        return False  # one copy: reduce_unit_extent; none: reduce_empty
    if name in _IDEMPOTENT or (kind == "bool" and name in ("stablehlo.add", "stablehlo.multiply")):
        scale = None
    elif name == "stablehlo.add" and kind == "int":
        t = ir.IntegerType(element_of(x))
        scale = copies % (1 << t.width)  # n additions of y wrap as (n mod 2**width) * y does
        if not t.is_unsigned and scale >= 1 << (t.width - 1):
            scale -= 1 << t.width
        scale = np.array(scale, dtype=to_numpy_dtype(element_of(x)))
    else:
        return False
    position = {d: k for k, d in enumerate(d for d in range(len(x_dims)) if d not in reduced)}
    kept = [i for i, d in enumerate(mapping) if d not in reduced]

    def make():
        value = y if len(kept) == len(mapping) else shlo.reshape(y, shape=[y_dims[i] for i in kept])
        targets = [position[mapping[i]] for i in kept]
        if targets != list(range(len(out))) or [y_dims[i] for i in kept] != list(out):
            value = shlo.broadcast_in_dim(value, broadcast_dimensions=targets, shape=list(out))
        if scale is not None:
            value = shlo.multiply(value, splat_constant(op.results[0].type, scale))
        return combined(name, init_first, init, value, out)

    return replace_built(op, rw, make)


@rule("stablehlo.reduce_window", family=FAMILY)
def reduce_window_unit(op, rw) -> bool:
    """reduce_window of 1-element windows, unit strides, no padding -> body(init, x), or x for an identity init."""
    # Exact: each window holds one element of x, so each result is that element combined with the init value once.
    found = _single(op)
    if found is None:
        return False
    x, init, name, init_first, _, out = found
    rank = len(out)
    ones = [1] * rank
    if list(op.window_dimensions) != ones or static_shape(x) != out:
        return False
    if any(v is not None and list(v) != ones for v in (op.window_strides, op.base_dilations)):
        return False
    if op.padding is not None and any(list(p) != [0, 0] for p in op.padding):
        return False
    return replace_built(op, rw, lambda: combined(name, init_first, init, x, out))
