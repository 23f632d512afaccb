"""The StableHLO interpreter's test dialects: `check.*` ops and custom calls, `interpreter.probe`/`print`.

A failing check does not stop the evaluation: its message (op, location,
what differed) goes to `Interpreter.failures` and `evaluate` raises
CheckFailure at the end. The comparisons are `oxla.testing.checks`.

MLIR cannot parse the custom syntax of these dialects
(`check.expect_eq_const %x, dense<1> : tensor<i32>`); `to_generic` rewrites
it into the generic form, which parses with unregistered dialects allowed.
IREE registers a `check` dialect of its own whose verifier rejects
StableHLO's uses (complex values), so the rewritten ops are named
`stablehlo_check.*`; both spellings are evaluated.
"""

from __future__ import annotations

import re

import numpy as np

from oxla.interpreter import attrs
from oxla.interpreter.control_flow import custom_call_target
from oxla.interpreter.core import register
from oxla.interpreter.data_movement import value_attribute
from oxla.interpreter.types import info
from oxla.testing.checks import CHECKS

# check op -> (comparison, where the expected value is: "operand" or "value" attribute, default options)
_CHECK_OPS = {
    "check.expect_eq": ("expect_eq", "operand", {}),
    "check.expect_eq_const": ("expect_eq", "value", {}),
    "check.expect_almost_eq": ("expect_almost_eq", "operand", {"tolerance": 1e-4}),
    "check.expect_almost_eq_const": ("expect_almost_eq", "value", {"tolerance": 1e-4}),
    "check.expect_close": ("expect_close", "operand", {}),
}
_OPTIONS = {"tolerance": "tolerance", "max_ulp_difference": "max_ulp", "min_ulp_difference": "min_ulp"}


def _options(op, defaults: dict) -> dict:
    """The check's tolerance options over its defaults."""
    found = dict(defaults)
    for name, key in _OPTIONS.items():
        if name in op.attributes:
            attr = op.attributes[name]
            found[key] = attr.value if hasattr(attr, "value") else float(str(attr).split(":")[0])
    return found


class _Judge:
    """One check op's comparisons, with what they need read from the op at compile time."""

    def __init__(self, op):
        self.label = f"{op.name} at {attrs.location(op)}"
        self.types = [info(v.type) for v in op.operands]

    def expected(self, value):
        """An `expected` operand as the comparison sees it (dequantized when quantized)."""
        return self.types[1].compute(value)

    def __call__(self, state, kind: str, actual, expected, options: dict) -> bool:
        """Records a failure message when the comparison does not hold; True when it holds."""
        state.interpreter.checks += 1
        problem = CHECKS[kind](np.asarray(self.types[0].compute(actual)), np.asarray(expected), **options)
        if problem:
            state.failures.append(f"{self.label}: {kind}: {problem}")
        return problem is None


def _check_op(kind: str, source: str, defaults: dict):
    """The builder of a check op comparing with its second operand or its `value` attribute."""

    def build(op, c):
        judge, options = _Judge(op), _options(op, defaults)
        if source == "value":
            expected = judge.types[0].compute(value_attribute(op, op.operands[0].type))
            return lambda state, actual: judge(state, kind, actual, expected, options) and None
        return lambda state, actual, expected: judge(state, kind, actual, judge.expected(expected), options) and None

    return build


GENERIC_DIALECT = "stablehlo_check"  # what to_generic names the check dialect


def _both(name: str) -> tuple[str, str]:
    """An op's name in the check dialect and as to_generic renames it."""
    return name, name.replace("check.", f"{GENERIC_DIALECT}.", 1)


for _name, (_kind, _source, _defaults) in _CHECK_OPS.items():
    register(*_both(_name), stateful=True, storage=True)(_check_op(_kind, _source, _defaults))


@register(*_both("check.expect_serialized_eq"), stateful=True, storage=True)
def _expect_serialized_eq(op, c):
    """Compares with what interpreter.probe recorded under probe_id (the `iter`-th time)."""
    probe, iteration, judge = attrs.string(op, "probe_id"), attrs.integer(op, "iter", 0), _Judge(op)

    def kernel(state, actual):
        recorded = state.interpreter.probes.get(probe, [])
        if iteration >= len(recorded):
            state.failures.append(f"{judge.label}: nothing probed as '{probe}' #{iteration}")
            return None
        judge(state, "expect_eq", actual, recorded[iteration], {})
        return None

    return kernel


@register("interpreter.probe", stateful=True, storage=True)
def _probe(op, c):
    """Records its operand under probe_id; returns it."""
    probe = attrs.string(op, "probe_id")

    def kernel(state, value):
        state.interpreter.probes.setdefault(probe, []).append(value)
        return value

    return kernel


@register("interpreter.print", stateful=True, storage=True)
def _print(op, c):
    """Records its operand's value as text (Interpreter.printed)."""
    t = info(op.operands[0].type)

    def kernel(state, value):
        state.interpreter.printed.append(f"{t.text} {np.array2string(np.asarray(t.to_user(value)), separator=', ')}")
        return None

    return kernel


def _custom_check(kind: str):
    """check.expect_* as custom calls (the testdata form): actual, expected operands; 1e-3 for almost_eq."""

    def build(op, c):
        judge, options = _Judge(op), _options(op, {})
        return lambda state, actual, expected: judge(state, kind, actual, judge.expected(expected), options) and None

    return build


for _kind in ("expect_eq", "expect_almost_eq", "expect_close"):
    custom_call_target(f"check.{_kind}")(_custom_check(_kind))


@custom_call_target("check.eq")
def _check_eq(op, c):
    """The quantized tests' check: exact for integers, else within 1e-4; returns the verdict as i1."""
    judge = _Judge(op)
    exact = judge.types[0].dtype.kind in "biu"
    kind, options = ("expect_eq", {}) if exact else ("expect_almost_eq", {"tolerance": 1e-4})
    return lambda state, actual, expected: np.array(judge(state, kind, actual, judge.expected(expected), options))


# -- custom syntax -> generic form ---------------------------------------------------------

_START = re.compile(r"^([ \t]*)(?:(%[\w.$#:-]+)\s*=\s*)?((?:check|interpreter)\.\w+)(?=\s)(?!\s*\()", re.M)
_GENERIC_CHECK = re.compile(r'"check\.(\w+)"\(')
_OPENERS, _CLOSERS = "<[({", ">])}"


def split_top_level(text: str, separator: str) -> list[str]:
    """`text` split at `separator` characters outside brackets and strings."""
    parts, depth, start, quoted = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS and not (ch == ">" and i and text[i - 1] == "-"):
            depth -= 1
        elif ch == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _statement_end(text: str, start: int) -> int:
    """Where the statement starting at `start` ends: the first newline outside brackets after its type."""
    depth, seen_colon, quoted = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS and not (ch == ">" and text[i - 1] == "-"):
            depth -= 1
        elif ch == ":" and depth == 0:
            seen_colon = True
        elif ch == "\n" and depth == 0 and seen_colon:
            return i
    return len(text)


def _generic(result: str | None, name: str, body: str) -> str:
    """One check/interpreter statement in generic form."""
    head, _, tail = body.partition(" : ") if " : " in body else body.partition(":")
    operands, attributes = [], []
    for item in split_top_level(head, ","):
        if item.startswith("%"):
            operands.append(item)
        elif "=" in item and not item.startswith("dense"):
            attributes.append(item)
        elif item:
            attributes.append(f"value = {item}")
    tail = tail.strip()
    extra = ""
    if "{" in tail:
        tail, _, extra = tail.partition("{")
        attributes.append(extra.rsplit("}", 1)[0])
    types = split_top_level(tail, ",")
    if len(types) < len(operands):
        types = types + [types[-1]] * (len(operands) - len(types))
    for i, item in enumerate(attributes):
        if item.startswith("value = ") and " : " not in item:
            attributes[i] = f"{item} : {types[0]}"
    results = f"{result} = " if result else ""
    name = name.replace("check.", f"{GENERIC_DIALECT}.", 1) if name.startswith("check.") else name
    result_types = types[0] if result else "()"
    attr_text = f" {{{', '.join(attributes)}}}" if attributes else ""
    return f'{results}"{name}"({", ".join(operands)}){attr_text} : ({", ".join(types[:len(operands)])}) -> {result_types}'


def to_generic(text: str) -> str:
    """MLIR text with the custom syntax of check.* and interpreter.* ops rewritten into generic form."""
    text = re.sub(r"[ \t]*//[^\n]*", "", text)  # comments may sit inside a statement
    text = _GENERIC_CHECK.sub(rf'"{GENERIC_DIALECT}.\1"(', text)
    out, at = [], 0
    for match in _START.finditer(text):
        if match.start() < at:
            continue
        end = _statement_end(text, match.end())
        out.append(text[at:match.start()])
        statement = text[match.end():end]
        body = " ".join(statement.split())
        # the same number of lines, so that locations after the statement stay true
        out.append(match.group(1) + _generic(match.group(2), match.group(3), body) + "\n" * statement.count("\n"))
        at = end
    out.append(text[at:])
    return "".join(out)
