"""oxla-llvmcpu-split-arg-reductions: argmax and argmin as two reductions IREE vectorizes.

JAX (and the exporters that follow XLA) write argmax as one stablehlo.reduce
over the values and their positions (an iota) whose body keeps the larger
value, NaN above every number, and the lower position among equal values.
IREE's CPU code runs such a two-result reduction one element at a time:
argmax over the rows of f32[256,32000] took 20-22 ms on an AVX2 Zen 3, XLA
14-20 ms. This pass computes the largest value first (stablehlo.maximum,
which propagates NaN), then the lowest position holding it (a NaN where the
row has one): two reductions IREE vectorizes, 7.5 ms.

Which reductions it takes is decided by running the body, not by matching
its spelling. The body may only compare its arguments with one another
(not in TOTALORDER, which sees signs of zero and NaN payloads), combine the
answers with boolean ops and select one of its arguments, so what it picks
depends only on how the two values and the two positions compare. It is
evaluated once for each case (a < b, a == b, a > b, a NaN on either side;
the positions either way) and must pick what argmax (argmin) picks. Where
both values are NaN the body may pick either (JAX's picks its first
argument, an order the reduction leaves unspecified); the pass then gives
the first NaN, as XLA does and jnp.argmax documents.
"""

from __future__ import annotations

import math

import numpy as np

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.elements import dtype_of
from oxla.transforms.registry import RewritePass, register_pass
from oxla.transforms.simplify.rule import constant_of, defining

# Which side each extremum picks when the values differ: argmax the larger, argmin the smaller.
_COMBINERS = {"max": "stablehlo.maximum", "min": "stablehlo.minimum"}
# Which of several positions holding the extremum: the first (JAX, PyTorch) or the last (ONNX's select_last_index).
_TIES = ("first", "last")
_LOWER, _HIGHER, _NAN = 1.0, 2.0, math.nan
# (a's value, b's value, the side argmax picks, argmin's); None: the side of the tie's position.
_VALUE_CASES = [(_LOWER, _HIGHER, "b", "a"), (_HIGHER, _LOWER, "a", "b"), (_LOWER, _LOWER, None, None)]
_NAN_CASES = [(_NAN, _LOWER, "a", "a"), (_LOWER, _NAN, "b", "b")]


class _Arg:
    """A block argument while the body runs: which side it is and the number it stands for."""

    def __init__(self, side: str, number: float):
        self.side, self.number = side, number


_COMPARE = {"EQ": lambda a, b: a == b, "NE": lambda a, b: a != b, "LT": lambda a, b: a < b,
            "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b, "GE": lambda a, b: a >= b}
_LOGIC = {"stablehlo.and": all, "stablehlo.or": any, "stablehlo.xor": lambda xs: xs[0] != xs[1],
          "stablehlo.not": lambda xs: not xs[0]}


def _run(block, arguments: list[_Arg]) -> list | None:
    """The body's returned values for these arguments; None when it does more than compare and pick."""
    env = dict(zip(block.arguments, arguments))
    for op in block.operations:
        ins = [env.get(v) for v in op.operands]
        if any(x is None for x in ins):
            return None
        if op.name == "stablehlo.compare":
            kind = build.enum_name(op, "compare_type") if "compare_type" in op.attributes else "NOTYPE"
            if kind == "TOTALORDER" or not all(isinstance(x, _Arg) for x in ins):
                return None
            env[op.results[0]] = _COMPARE[build.enum_name(op, "comparison_direction")](ins[0].number, ins[1].number)
        elif op.name in _LOGIC and all(isinstance(x, bool) for x in ins):
            env[op.results[0]] = bool(_LOGIC[op.name](ins))
        elif op.name == "stablehlo.select" and isinstance(ins[0], bool):
            env[op.results[0]] = ins[1] if ins[0] else ins[2]
        elif op.name == "stablehlo.return":
            return ins
        else:
            return None
    return None


def _picks(block, value_at: int, extremum: str, tie: str, floating: bool, value_used: bool) -> bool:
    """Whether the reduce body (values at operand `value_at`, positions at the other) picks as
    arg`extremum` does in every case, the `tie` ("first" or "last") position among equal values."""
    position_at = 1 - value_at
    for a, b, by_max, by_min in _VALUE_CASES + (_NAN_CASES if floating else []):
        for positions in ((1, 2), (2, 1)):
            args = [None] * 4
            args[value_at], args[2 + value_at] = _Arg("a", a), _Arg("b", b)
            args[position_at], args[2 + position_at] = _Arg("a", positions[0]), _Arg("b", positions[1])
            out = _run(block, args)
            if out is None or not all(isinstance(x, _Arg) for x in out):
                return False
            side = by_max if extremum == "max" else by_min
            want = side or ("a" if (positions[0] < positions[1]) == (tie == "first") else "b")
            if out[position_at] is not args[position_at] and out[position_at] is not args[2 + position_at]:
                return False
            if out[position_at].side != want:
                return False
            if value_used and side and out[value_at] is not args[value_at if side == "a" else 2 + value_at]:
                return False
    return True


def _scalar(value) -> float | None:
    """The number a 0-d stablehlo.constant holds, else None."""
    found = constant_of(value)
    return None if found is None else found.reshape(-1)[0].item()


def _identity(element_type, extremum: str) -> float:
    """The value an arg`extremum` starts from: the lowest of the type for argmax, the highest for argmin."""
    dtype = dtype_of(element_type)
    if np.issubdtype(dtype, np.integer):
        limits = np.iinfo(dtype)
        return int(limits.min if extremum == "max" else limits.max)
    return -math.inf if extremum == "max" else math.inf


def _is_positions(value, dim: int) -> bool:
    """Whether `value` holds each element's position along `dim` (an iota, or a constant of one)."""
    iota = defining(value, "stablehlo.iota")
    if iota is not None:
        return ir.IntegerAttr(iota.operation.attributes["iota_dimension"]).value == dim
    found = constant_of(value)
    if found is None:
        return False
    dims = build.shape(value)
    want = np.arange(dims[dim]).reshape([-1 if d == dim else 1 for d in range(len(dims))])
    return bool(np.array_equal(found, np.broadcast_to(want, dims)))


def arg_reduction(op) -> tuple[int, str, str] | None:
    """(the operand index of the values, "max" or "min", "first" or "last") of a reduce this pass takes,
    else None."""
    if op.name != "stablehlo.reduce" or len(op.operands) != 4 or len(build.i64s(op, "dimensions", [])) != 1:
        return None
    dim = build.i64s(op, "dimensions", [])[0]
    for value_at in (0, 1):
        values, positions = op.operands[value_at], op.operands[1 - value_at]
        try:
            dims, element = build.shape(values), build.element(values)
        except ValueError:
            return None
        if not (ir.RankedTensorType(values.type).has_static_shape and dims[dim] > 0):
            return None
        floating = isinstance(element, ir.FloatType)
        if not (floating or (isinstance(element, ir.IntegerType) and element.width >= 8)):
            continue
        if not (isinstance(build.element(positions), ir.IntegerType) and _is_positions(positions, dim)
                and _scalar(op.operands[3 - value_at]) == 0):
            continue
        used = bool(list(op.results[value_at].uses))
        for extremum, tie in [(e, t) for e in _COMBINERS for t in _TIES]:
            if _scalar(op.operands[2 + value_at]) == _identity(element, extremum) and _picks(
                    op.regions[0].blocks[0], value_at, extremum, tie, floating, used):
                return value_at, extremum, tie
    return None


def _split(op, value_at: int, extremum: str, tie: str) -> list:
    """The extremum of the values, then the first (last) position holding it; the values there."""
    values, positions = op.operands[value_at], op.operands[1 - value_at]
    dim = build.i64s(op, "dimensions", [])[0]
    dims, rank = build.shape(values), len(build.shape(values))
    kept = [d for d in range(rank) if d != dim]
    best = build.broadcast(build.reduce(values, op.operands[2 + value_at], [dim], _COMBINERS[extremum]), dims, kept)
    floating = isinstance(build.element(values), ir.FloatType)
    kind = "FLOAT" if floating else "UNSIGNED" if build.element(values).is_unsigned else "SIGNED"
    hit = build.compare(values, best, "EQ", kind)
    if floating:  # where the extremum is NaN, the NaNs hold it
        nans = build.one("stablehlo.and", hit.type, build.compare(best, best, "NE", kind),
                         build.compare(values, values, "NE", kind))
        hit = build.one("stablehlo.or", hit.type, hit, nans)
    limits = np.iinfo(dtype_of(build.element(positions)))
    past, combiner = ((int(limits.max), "stablehlo.minimum") if tie == "first"
                      else (int(limits.min), "stablehlo.maximum"))
    candidates = build.one("stablehlo.select", positions.type, hit, positions, build.splat(past, positions.type))
    found = build.reduce(candidates, build.splat(past, op.operands[3 - value_at].type), [dim], combiner)
    results = [None, None]
    results[1 - value_at] = found
    if list(op.results[value_at].uses):
        along = build.reshape(found, [1 if d == dim else n for d, n in enumerate(dims)])
        results[value_at] = build.reshape(build.take_along(values, along, dim), build.shape(found))
    else:  # unused: any value of the type
        results[value_at] = build.splat(0, op.results[value_at].type)
    return results


@register_pass
class SplitArgReductions(RewritePass):
    """Runs argmax and argmin reductions as the extremum, then the first position holding it."""

    name = "oxla-llvmcpu-split-arg-reductions"
    anchor = "builtin.module"
    roots = ("stablehlo.reduce",)

    def matches(self, op) -> bool:
        return arg_reduction(op) is not None

    def rewrite(self, op) -> None:
        """Replaces a two-result arg-extremum reduce by two single-result ones (module docstring)."""
        build.replace(op, lambda o: _split(o, *arg_reduction(o)))
