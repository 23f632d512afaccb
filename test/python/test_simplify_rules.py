"""Every oxla-simplify-stablehlo rule, checked on its own lit cases: rewrites what it claims, keeps
what it must, and changes no result, bit for bit, on random and special inputs.

The cases are the `// -----` chunks of test/lit/transforms/simplify/*.mlir; a
chunk names the rules it exercises with `// rule: <name> applies` or
`// rule: <name> keeps` (`fast-math` appended for a run with fast-math on).
Each marker runs `simplify(module, only=(name,), strict=True, ...)` on its
chunk alone, then evaluates every function of the chunk before and after
with oxla's reference interpreter. Default rules must keep every bit (NaN
payloads and the sign of zero included). Fast-math rules may assume finite
values: they are evaluated on finite inputs and compared up to the sign of
zero, NaN payloads and a few ulps of rounding.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
import zlib

import ml_dtypes
import numpy as np
import pytest

from oxla import ir
from oxla.dialects.elements import DTYPES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASE_DIR = os.path.join(ROOT, "test", "lit", "transforms", "simplify")
_MARKER = re.compile(r"^\s*//\s*rule:\s*(\S+)\s+(applies|keeps)((?:\s+fast-math)?)\s*$")
_LOOSE_MARKER = re.compile(r"^\s*//\s*rule:")
_SPLIT = re.compile(r"^// -----[ \t]*$", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class Marker:
    rule: str
    applies: bool
    fast_math: bool


@dataclasses.dataclass(frozen=True)
class Case:
    """One `// -----` chunk of a lit file and the rule markers in it."""

    path: str
    line: int  # where the chunk starts, 1-based
    text: str
    markers: tuple[Marker, ...]
    malformed: tuple[str, ...]  # `// rule:` lines that do not parse

    @property
    def name(self) -> str:
        return f"{os.path.basename(self.path)}:{self.line}"


def collect_cases(directory: str = CASE_DIR) -> list[Case]:
    """Every chunk of every .mlir file in `directory` (the first chunk of a file holds its RUN lines)."""
    cases = []
    for path in sorted(glob.glob(os.path.join(directory, "*.mlir"))):
        with open(path, encoding="utf-8") as f:
            source = f.read()
        bounds = [0] + [b for m in _SPLIT.finditer(source) for b in (m.start(), m.end())] + [len(source)]
        for begin, end in zip(bounds[::2], bounds[1::2]):
            chunk = source[begin:end]
            line = source.count("\n", 0, begin) + 1 + (1 if chunk.startswith("\n") else 0)
            markers, malformed = [], []
            for text in chunk.splitlines():
                match = _MARKER.match(text)
                if match:
                    markers.append(Marker(match.group(1), match.group(2) == "applies", bool(match.group(3).strip())))
                elif _LOOSE_MARKER.match(text):
                    malformed.append(text.strip())
            cases.append(Case(path, line, chunk, tuple(markers), tuple(malformed)))
    return cases


CASES = collect_cases()
MARKED = [(case, marker) for case in CASES for marker in case.markers]


def _rules():
    from oxla.transforms.simplify import load_rules

    return {r.name: r for r in load_rules()}


# Coverage of the catalogue ------------------------------------------------------------------------------------------

def test_the_case_files_are_found():
    assert CASES, f"no lit cases under {CASE_DIR}"


def test_every_rule_has_an_applies_and_a_keeps_case():
    rules = _rules()
    missing = []
    for name in sorted(rules):
        kinds = {m.applies for _, m in MARKED if m.rule == name}
        for applies, word in ((True, "applies"), (False, "keeps")):
            if applies not in kinds:
                missing.append(f"{name} has no '// rule: {name} {word}' case")
    assert not missing, "\n".join(missing)


def test_markers_name_existing_rules_with_the_right_mode():
    rules = _rules()
    problems = [f"{case.name}: malformed marker {text!r}" for case in CASES for text in case.malformed]
    for case, marker in MARKED:
        rule = rules.get(marker.rule)
        if rule is None:
            problems.append(f"{case.name}: no rule named {marker.rule}")
        elif rule.fast_math and not marker.fast_math:
            problems.append(f"{case.name}: {marker.rule} is a fast-math rule; mark its cases 'fast-math'")
    assert not problems, "\n".join(problems)


# Each marked case ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case,marker", MARKED,
                         ids=[f"{m.rule}-{'applies' if m.applies else 'keeps'}-{c.name}" for c, m in MARKED])
def test_rule_case(case: Case, marker: Marker):
    from oxla.transforms.simplify import simplify

    if marker.rule not in _rules():
        pytest.fail(f"no rule named {marker.rule}")
    before = ir.parse(case.text, name=case.path)
    after = ir.parse(case.text, name=case.path)
    simplify(after, only=(marker.rule,), strict=True, fast_math=marker.fast_math)
    errors = [d for d in ir.verify(after) if d.severity == "error"]
    assert not errors, "the rewritten module does not verify:\n" + "\n".join(map(str, errors))
    changed = ir.to_text(after) != ir.to_text(before)
    if marker.applies:
        assert changed, f"{marker.rule} did not rewrite {case.name}"
    else:
        assert not changed, f"{marker.rule} rewrote {case.name}, a case it must keep:\n{ir.to_text(after)}"
        return
    check_same_results(before, after, case.name, fast_math=marker.fast_math)


def check_same_results(before, after, label: str, *, fast_math: bool = False) -> None:
    """Evaluates every function of `before` and `after` on the same inputs; their results must agree."""
    from oxla import interpreter

    try:
        old, new = interpreter.Interpreter(before, step_limit=1_000_000), interpreter.Interpreter(after,
                                                                                                  step_limit=1_000_000)
    except NotImplementedError as exc:
        pytest.skip(f"the interpreter cannot compile {label}: {exc}")
    functions = [f for f in old.functions() if _has_body(before, f)]
    assert functions, f"{label} has no function to evaluate"
    for function in functions:
        types = _argument_types(before, function)
        if types is None:
            continue  # dynamic shapes, tokens, tuples or quantized arguments: nothing to generate
        seed = zlib.crc32(f"{label}/{function}".encode())
        for trial, args in enumerate(inputs(types, seed, finite=fast_math)):
            try:
                want = old.call(function, *args)
            except NotImplementedError as exc:
                pytest.skip(f"the interpreter cannot evaluate {label}: {exc}")
            got = new.call(function, *args)
            for index, (w, g) in enumerate(zip(want, got)):
                problem = difference(np.asarray(w), np.asarray(g), fast_math=fast_math)
                assert problem is None, (
                    f"{label} @{function} result {index} changed on trial {trial}: {problem}\n"
                    f"inputs: {[a.tolist() for a in args]}")


def _has_body(module, name: str) -> bool:
    op = _function_op(module, name)
    return op is not None and len(op.regions[0].blocks) > 0


def _function_op(module, name: str):
    for child in module.body.operations:
        op = child.operation
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    return None


def _argument_types(module, name: str) -> list[tuple[tuple[int, ...], np.dtype]] | None:
    ftype = ir.FunctionType(ir.TypeAttr(_function_op(module, name).attributes["function_type"]).value)
    found = []
    for t in ftype.inputs:
        if not isinstance(t, ir.RankedTensorType) or not ir.RankedTensorType(t).has_static_shape:
            return None
        shaped = ir.RankedTensorType(t)
        dtype = DTYPES.get(str(shaped.element_type))
        if dtype is None:
            return None
        found.append((tuple(shaped.shape), dtype))
    return found


# Inputs -------------------------------------------------------------------------------------------------------------

def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or (dtype.kind == "V" and _float_info(dtype) is not None)


def _float_info(dtype: np.dtype):
    try:
        return ml_dtypes.finfo(dtype)
    except (TypeError, ValueError):
        return None


def _int_info(dtype: np.dtype):
    try:
        return ml_dtypes.iinfo(dtype)
    except (TypeError, ValueError):
        return None


def special_values(dtype: np.dtype, *, finite: bool = False) -> list:
    """Values that break inexact rewrites: signed zeros, infinities, NaNs, extreme and tiny numbers."""
    if dtype == np.bool_:
        return [False, True]
    if dtype.kind == "c":
        part = special_values(np.dtype(np.float32 if dtype.itemsize == 8 else np.float64), finite=finite)
        return [complex(re_, im) for re_, im in zip(part, part[3:] + part[:3])] + [complex(p, 0.0) for p in part]
    ints = _int_info(dtype)
    if ints is not None:
        lo, hi = int(ints.min), int(ints.max)
        return sorted({lo, lo + 1, -1 if lo < 0 else 2, 0, 1, hi - 1, hi})
    info = _float_info(dtype)
    values = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, float(info.max), -float(info.max), float(info.smallest_normal)]
    subnormal = float(getattr(info, "smallest_subnormal", 0.0) or 0.0)
    if subnormal:
        values.append(-subnormal)
    if not finite:
        values += [float("nan"), -float("nan")]
        if np.isinf(np.array(float("inf")).astype(dtype)):
            values += [float("inf"), -float("inf")]
    return values


def _random(rng: np.random.Generator, shape, dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "c":
        return (_random(rng, shape, np.dtype(np.float64)) + 1j * _random(rng, shape, np.dtype(np.float64))).astype(dtype)
    ints = _int_info(dtype)
    if ints is not None:
        small = rng.integers(max(int(ints.min), -8), min(int(ints.max), 8) + 1, size=shape)
        wide = rng.integers(int(ints.min), int(ints.max), size=shape, endpoint=True)
        return np.where(rng.random(shape) < 0.5, small, wide).astype(dtype)
    values = np.where(rng.random(shape) < 0.3, rng.integers(-4, 5, size=shape), rng.normal(0.0, 10.0, size=shape))
    return np.asarray(values).astype(dtype)


def inputs(types, seed: int, *, finite: bool = False, random_trials: int = 4):
    """Argument lists: random ones, then special values spread so that each argument meets each of them,
    at several offsets between arguments."""
    rng = np.random.default_rng(seed)
    for _ in range(random_trials):
        yield [_random(rng, shape, dtype) for shape, dtype in types]
    specials = [special_values(dtype, finite=finite) for _, dtype in types]
    rounds = max((len(s) for s in specials), default=0)
    for t in range(rounds):
        args = []
        for k, ((shape, dtype), values) in enumerate(zip(types, specials)):
            size = int(np.prod(shape)) if shape else 1
            picks = [values[(i + t * (k + 1) + k) % len(values)] for i in range(size)]
            args.append(np.array(picks, dtype=dtype).reshape(shape))
        yield args


# Comparison ---------------------------------------------------------------------------------------------------------

def difference(want: np.ndarray, got: np.ndarray, *, fast_math: bool = False) -> str | None:
    """None when `got` is `want` bit for bit but for NaNs' signs and payloads, which IEEE 754 leaves to the
    implementation (fast-math: also up to zero signs and rounding)."""
    if want.dtype != got.dtype or want.shape != got.shape:
        return f"{want.dtype}{list(want.shape)} became {got.dtype}{list(got.shape)}"
    if want.tobytes() == got.tobytes():
        return None
    floating = _is_float(want.dtype) or want.dtype.kind == "c"
    if not fast_math or not floating:
        unequal = (_raw(want) != _raw(got)).any(axis=1)
        if floating:
            unequal &= ~(np.isnan(want) & np.isnan(got)).reshape(-1)
        diff = np.flatnonzero(unequal)
        if not len(diff):
            return None
        first = tuple(int(i) for i in np.unravel_index(diff[0], want.shape))
        return (f"{len(diff)} elements differ in bits; first at {first}: {want[first]!r} "
                f"(0x{_raw(want)[diff[0]][::-1].tobytes().hex()}) became {got[first]!r} "
                f"(0x{_raw(got)[diff[0]][::-1].tobytes().hex()})")
    w = want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    g = got.astype(w.dtype)
    eps = float(_float_info(want.dtype).eps) if want.dtype.kind != "c" else float(np.finfo(want.dtype).eps)
    same = (w == g) | (np.isnan(w) & np.isnan(g)) | np.isclose(w, g, rtol=8 * eps, atol=0.0)
    if same.all():
        return None
    first = tuple(int(i) for i in np.unravel_index(np.flatnonzero(~same)[0], want.shape))
    return f"{int((~same).sum())} elements differ beyond fast-math's allowance; first at {first}: " \
           f"{want[first]!r} became {got[first]!r}"


def _raw(array: np.ndarray) -> np.ndarray:
    """The bytes of each element, one row per element."""
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8).reshape(array.size, array.dtype.itemsize)


# The harness itself -------------------------------------------------------------------------------------------------

def test_cases_split_like_lit(tmp_path):
    (tmp_path / "family.mlir").write_text(
        "// RUN: oxla-opt %s\n\n// rule: a applies\nfunc.func @f() { return }\n\n// -----\n\n"
        "// rule: a keeps fast-math\n// rule: b  applies\n// rule: typo apply\nfunc.func @g() { return }\n")
    cases = collect_cases(str(tmp_path))
    assert [c.line for c in cases] == [1, 7]
    assert cases[0].markers == (Marker("a", True, False),)
    assert cases[1].markers == (Marker("a", False, True), Marker("b", True, False))
    assert cases[1].malformed == ("// rule: typo apply",)


def test_difference_is_bit_exact_by_default_but_for_nan_bits():
    nan1 = np.array([0x7FC00001], np.uint32).view(np.float32)
    nan2 = np.array([0x7FC00002], np.uint32).view(np.float32)
    negative_nan = np.array([0xFFC00000], np.uint32).view(np.float32)
    assert difference(nan1, nan1.copy()) is None
    assert difference(nan1, nan2) is None  # which NaN an operation returns is the implementation's
    assert difference(nan1, negative_nan) is None
    assert difference(nan1, np.array([1.0], np.float32)) is not None
    assert difference(np.array([1.0, 2.0], np.float32), np.array([1.0, np.nan], np.float32)) is not None
    assert difference(np.array([np.nan, 1.0], np.float32), np.array([np.nan, 2.0], np.float32)) is not None
    assert difference(np.array([0.0], np.float32), np.array([-0.0], np.float32)) is not None
    assert difference(np.array([0.0], np.float32), np.array([-0.0], np.float32), fast_math=True) is None
    assert difference(nan1, nan2, fast_math=True) is None
    assert difference(np.array([1.0], np.float32), np.array([1.5], np.float32), fast_math=True) is not None
    assert difference(np.array([1, 2], np.int32), np.array([1, 3], np.int32), fast_math=True) is not None


def test_inputs_cover_special_values():
    types = [((4,), np.dtype(np.float32)), ((), np.dtype(np.int8)), ((2,), np.dtype(ml_dtypes.bfloat16))]
    trials = list(inputs(types, 0))
    floats = np.concatenate([t[0] for t in trials])
    assert np.isnan(floats).any() and np.isinf(floats).any() and (np.signbit(floats) & (floats == 0)).any()
    ints = {int(t[1]) for t in trials}
    assert {-128, 127, 0} <= ints
    assert all(np.isfinite(t[0]).all() for t in inputs(types, 0, finite=True))


def test_a_wrong_rewrite_is_caught():
    """x + 0.0 -> x changes -0.0: the comparison must notice."""
    text = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<4xf32>
  %r = stablehlo.add %x, %z : tensor<4xf32>
  return %r : tensor<4xf32>
}"""
    before = ir.parse(text)
    after = ir.parse("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}")
    with pytest.raises(AssertionError, match="differ in bits"):
        check_same_results(before, after, "wrong")
    check_same_results(before, after, "relaxed", fast_math=True)
