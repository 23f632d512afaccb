"""Control flow: if, case, while, optimization_barrier, and return, the terminator of every StableHLO region.

Branches and loop bodies are Python callables. A callable returns the
region's values (one value, a list or tuple, `[]` for none) or builds
`return_(...)` itself. `if` and `case` branches take no arguments and
their results are what the branches return, so the rules read the built
branches; `while`'s cond and body take the loop-carried values. Regions of
these ops may use values defined outside them (they are not isolated from
above), so a branch can simply close over a Python variable holding one.

Builders return one value when the op has one result and a tuple
otherwise; `while_` and `optimization_barrier`, like other builders of
variadic operand groups, return one value when given one bare value.
"""

from __future__ import annotations

from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import Operand, OpSpec, Region, export
from oxla.dialects.stablehlo.rules import compatible, elem, fail, require, shape, tensor

FAMILY = "control_flow"


def _is_value_type(t) -> bool:
    """A tensor or a token, what control flow may carry."""
    return T.is_tensor(t) or T.is_token(t)


def _check_same_type(a, b, what: str) -> None:
    """Fails unless types `a` and `b` are the same (up to dynamic dimensions); `what` names the pair."""
    if a == b:
        return
    if not (T.is_tensor(a) and T.is_tensor(b)) or elem(a) != elem(b):
        fail(f"{what} must have the same type, got {a} and {b}", TypeError)
    require(compatible(shape(a), shape(b)), f"{what} must have the same shape, got {a} and {b}")


def _least_specific(a, b):
    """The type that both (already compatible) types refine: dimensions where they differ become dynamic."""
    if a == b:
        return a
    return tensor([x if x == y else None for x, y in zip(shape(a), shape(b))], elem(a))


def _same_branch_results(branches: dict) -> list:
    """Checks that all branches return the same types; the result types (least specific where shapes differ)."""
    names = list(branches)
    first = branches[names[0]]
    result = list(first)
    for name in names[1:]:
        types = branches[name]
        require(len(types) == len(first),
                f"{names[0]} and {name} must return the same number of values, got {len(first)} and {len(types)}")
        for i, t in enumerate(types):
            _check_same_type(first[i], t, f"result {i} of {names[0]} and {name}")
            result[i] = _least_specific(result[i], t)
    return result


def _check_selector(value, name: str, element, spelled: str) -> None:
    """Checks that `value` is a 0-dimensional tensor of `element` (if's pred, case's index)."""
    t = value.type
    require(T.is_tensor(t) and elem(t) == element, f"{name} must be a 0-dimensional tensor of {spelled}, got {t}",
            TypeError)
    require(not shape(t), f"{name} must be a 0-dimensional tensor of {spelled}, got {t}")


def _if(args):
    """pred is a tensor<i1>; both branches return the same types, which are the results."""
    _check_selector(args.pred, "pred", T.i1(), "i1")
    true, false = args.region_results
    return _same_branch_results({"true_branch": true, "false_branch": false})


export(OpSpec("if", (Operand("pred"), Region("true_branch"), Region("false_branch")), _if,
              results="variadic", family=FAMILY, infer_after_regions=True,
              doc="Runs true_branch or false_branch, by pred, and returns what it returns."), globals())


def _case(args):
    """index is a tensor<i32>; at least one branch; all branches return the same types, which are the results."""
    _check_selector(args.index, "index", T.element_type("i32"), "si32")
    require(args.region_results, "there must be at least one branch")
    return _same_branch_results({f"branches[{i}]": r for i, r in enumerate(args.region_results)})


export(OpSpec("case", (Operand("index"), Region("branches", variadic=True)), _case,
              results="variadic", family=FAMILY, infer_after_regions=True,
              doc="Runs branches[index] (the last branch when index is out of range) and returns what it "
                  "returns; `branches` is a list of callables."), globals())


def _loop_arguments(args) -> list:
    """cond and body take the loop-carried values: one block argument per operand, of its type."""
    return [v.type for v in args.operand]


def _while(args):
    """cond returns one tensor<i1>; body returns values of the operands' types, which are the results."""
    types = [v.type for v in args.operand]
    for i, t in enumerate(types):
        require(_is_value_type(t), f"operand[{i}] must be a tensor or a token, got {t}", TypeError)
    cond, body = args.region_results
    require(len(cond) == 1, f"cond must return one value, a tensor<i1>, got {len(cond)}")
    require(cond[0] == tensor((), T.i1()), f"cond must return a tensor<i1>, got {cond[0]}", TypeError)
    require(len(body) == len(types), f"body must return one value per operand ({len(types)}), got {len(body)}")
    for i, (t, r) in enumerate(zip(types, body)):
        _check_same_type(t, r, f"operand[{i}] and body result {i}")
    return types


export(OpSpec("while", (Operand("operand", variadic=True), Region("cond", _loop_arguments),
                        Region("body", _loop_arguments)), _while,
              results="variadic", family=FAMILY, infer_after_regions=True,
              doc="Runs body on the loop-carried values while cond holds; returns their final values."), globals())


def _optimization_barrier(args):
    """Tensors or tokens; the results have the operands' types."""
    types = [v.type for v in args.operand]
    for i, t in enumerate(types):
        require(_is_value_type(t), f"operand[{i}] must be a tensor or a token, got {t}", TypeError)
    return types


export(OpSpec("optimization_barrier", (Operand("operand", variadic=True),), _optimization_barrier,
              results="variadic", family=FAMILY,
              doc="Identity that keeps the compiler from moving computations across it."), globals())


def _return(args):
    """No results; what the values must be is the enclosing op's rule."""
    return []


export(OpSpec("return", (Operand("results", variadic=True),), _return, results="none", family=FAMILY,
              doc="Ends a region of a StableHLO op, returning `results` to it."), globals())
