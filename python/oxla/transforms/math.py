"""oxla-expand-math: transcendental StableHLO ops as arithmetic that IREE compiles without libm.

IREE's llvm-cpu executables link without libm, so an f64 `stablehlo.cosine`
fails with "undefined symbol: cos"; and its f32 approximations of cos, sin,
tan, atan2, tanh, cbrt, expm1 and pow are more than 3 ulp off for some inputs
(log1p 2 ulp, enough to fail once composed).
This pass replaces those ops (the table EXPANSIONS says which, for which
element types) by a stablehlo.map whose body is a kernel of
oxla.transforms.math_kernels: range reduction, fitted polynomials and
double-double steps, all in f64, within an ulp. f32, f16 and bf16 inputs are
computed in f64 and rounded once (through a round-to-odd f32 for the 16-bit
types); complex ops use the real kernels on their parts. The exceptions are
real f32/f16/bf16 tanh, log1p and expm1, which models use in their hot
loops (gelu, RNNs; softplus and log-sigmoid; elu and selu): their kernels
compute in f32 (within an ulp of the correctly rounded value, checked for
every f32 by tools/check_math_kernels.py), because the f64 ones made
elementwise chains run 4x slower than XLA, log1p 2.9x and expm1 3.6x.

Elementwise CHLO ops are first decomposed into StableHLO (as IREE's input
phase would) so that their transcendental parts are expanded too. The pass
only acts on modules for the `backends` it is told about (llvm-cpu), or on
modules that name no device at all.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from oxla import ir
from oxla.errors import PassFailure
from oxla.transforms import math_kernels as k
from oxla.transforms.registry import Pass, register_pass

REALS = frozenset({"f64", "f32", "f16", "bf16"})
NONE: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Expansion:
    """How one op is expanded: for which real element types, and by which kernels."""

    real_types: frozenset[str]
    real: Callable | None = None  # (tier, narrow, *operands) -> V | DD
    complex: Callable | None = None  # (*real and imaginary parts, tier) -> (re, im)
    f32_ops: Callable | None = None  # (*f32 operands) -> f32, for f32 and narrower reals


# Real ops are expanded where IREE's own code fails to link (f64) or is 2 ulp
# or more off (measured on f32: cos/sin/tan ~7e5 ulp at |x| ~ 100, tanh 4,
# expm1 4.4, log1p 2, atan2/cbrt/pow past 3); exp, log, sqrt, rsqrt and
# logistic stay IREE's (within 1-2 ulp). Complex ones always.
EXPANSIONS: dict[str, Expansion] = {
    "stablehlo.cosine": Expansion(REALS, lambda t, n, x: k.sin_cos(x, t, n)[1], k.complex_cos),
    "stablehlo.sine": Expansion(REALS, lambda t, n, x: k.sin_cos(x, t, n)[0], k.complex_sin),
    "stablehlo.tan": Expansion(REALS, lambda t, n, x: k.tan(x, t, n), k.complex_tan),
    "stablehlo.atan2": Expansion(REALS, lambda t, n, y, x: k.atan2_dd(y, x, t)),
    "stablehlo.tanh": Expansion(REALS, lambda t, n, x: k.tanh(x, t), k.complex_tanh, k.tanh_f32_ops),
    "stablehlo.cbrt": Expansion(REALS, lambda t, n, x: k.cbrt(x, t)),
    "stablehlo.power": Expansion(REALS, lambda t, n, x, y: k.power(x, y, t), k.complex_pow),
    "stablehlo.exponential_minus_one": Expansion(REALS, lambda t, n, x: k.expm1(x, t), k.complex_expm1,
                                                 k.expm1_f32_ops),
    "stablehlo.log_plus_one": Expansion(REALS, lambda t, n, x: k.log1p(x, t), f32_ops=k.log1p_f32_ops),
    "stablehlo.exponential": Expansion(NONE, complex=k.complex_exp),
    "stablehlo.log": Expansion(NONE, complex=k.complex_log),
    "stablehlo.sqrt": Expansion(NONE, complex=k.complex_sqrt),
    "stablehlo.rsqrt": Expansion(NONE, complex=k.complex_rsqrt),
}

# CHLO ops that chlo-legalize-to-stablehlo turns into elementwise StableHLO
# (and broadcasting chlo.broadcast_*); any other CHLO op (top_k, ...) in a
# function makes the pass leave that function's CHLO for IREE to lower.
ELEMENTWISE_CHLO = frozenset(
    f"chlo.{name}" for name in (
        "acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i1e", "conj", "constant", "constant_like",
        "cosh", "digamma", "erf", "erf_inv", "erfc", "is_inf", "is_neg_inf", "is_pos_inf", "lgamma",
        "next_after", "polygamma", "sinh", "square", "tan", "zeta"))


def _element(value) -> str | None:
    """The element type of a ranked tensor value as text, or None."""
    try:
        return str(ir.RankedTensorType(value.type).element_type)
    except ValueError:
        return None


def _to_f64(x: k.V) -> k.V:
    """x widened to f64 (exact) unless it is f64 already."""
    return x if x.element == "f64" else k.convert(x, "f64")


def _round(value, element: str) -> k.V:
    """An f64 result (or double-double) rounded once to `element` (16-bit types via round-to-odd f32)."""
    x = value.value() if isinstance(value, k.DD) else value
    if element == "f64":
        return x
    if element == "f32":
        return k.convert(x, "f32")
    return k.convert(_round_to_odd_f32(x), element)


def _round_to_odd_f32(x: k.V) -> k.V:
    """x rounded to f32 with inexact results sent to the odd neighbour, so that a second rounding is exact."""
    y = k.convert(x, "f32")
    back = k.convert(y, "f64")
    bits = k.bitcast(y, "i32")
    move = back.ne(x) & (bits & 1).eq(0) & k.is_finite(x)
    step = k.select(k.fabs(back).gt(k.fabs(x)), bits.b.const(-1, "i32"), 1)
    return k.bitcast(k.select(move, bits + step, bits), "f32")


def _body(b: k.Builder, expansion: Expansion, element: str, args: list[k.V]) -> k.V:
    """The scalar computation of one element: operands in, the result of the op's element type out."""
    if element.startswith("complex<"):
        part = element[len("complex<"):-1]
        tier = k.F64 if part == "f64" else k.F32
        parts = [_to_f64(b.emit(name, [a], part)) for a in args for name in ("stablehlo.real", "stablehlo.imag")]
        re, im = expansion.complex(*parts, tier)
        return b.emit("stablehlo.complex", [_round(re, part), _round(im, part)], element)
    if expansion.f32_ops and element != "f64":
        wide = [a if element == "f32" else k.convert(a, "f32") for a in args]
        result = expansion.f32_ops(*wide)
        return result if element == "f32" else k.convert(result, element)
    tier = k.F64 if element == "f64" else k.F32
    return _round(expansion.real(tier, element != "f64", *[_to_f64(a) for a in args]), element)


def expand(op, expansion: Expansion) -> bool:
    """Replaces one op by a stablehlo.map computing its expansion per element; False for types not covered.

    One map keeps the whole expansion a single elementwise loop: as a graph of
    tensor ops, IREE's fusion heuristics would split it into many dispatches.
    A 0-d op (as in the body of a reduce) gets the body's ops in place: IREE
    lowers such bodies to scalar code, which has no room for a nested map.
    """
    element = _element(op.results[0])
    is_complex = element in ("complex<f32>", "complex<f64>")
    if element is None or not (is_complex and expansion.complex or element in expansion.real_types):
        return False
    rank = ir.RankedTensorType(op.results[0].type).rank
    with ir.InsertionPoint(op), op.location:
        if rank == 0:
            b = k.Builder()
            replacement = _body(b, expansion, element, [k.V(b, x, element) for x in op.operands]).value
        else:
            replacement = _mapped(op, expansion, element, rank)
    op.results[0].replace_all_uses_with(replacement)
    op.erase()
    return True


def _mapped(op, expansion: Expansion, element: str, rank: int):
    """A stablehlo.map over op's operands whose body is the expansion on 0-d tensors."""
    mapped = ir.Operation.create(
        "stablehlo.map", results=[op.results[0].type], operands=list(op.operands),
        attributes={"dimensions": ir.DenseI64ArrayAttr.get(list(range(rank)))}, regions=1)
    block = mapped.regions[0].blocks.append(*[k.Builder.tensor(element) for _ in op.operands])
    with ir.InsertionPoint(block):
        b = k.Builder()
        result = _body(b, expansion, element, [k.V(b, arg, element) for arg in block.arguments])
        ir.Operation.create("stablehlo.return", operands=[result.value])
    return mapped.result


def _targets(module, backends) -> bool:
    """True when the module names no device, or a device whose executables are for one of `backends`."""
    attrs = module.attributes
    if "hal.device.targets" not in attrs:
        return True
    text = str(attrs["hal.device.targets"])
    return any(f'"{backend}"' in text for backend in backends)


def _decompose_chlo(module) -> None:
    """Runs chlo-legalize-to-stablehlo on each function whose CHLO ops are all elementwise."""
    for func in [op for op in ir.ops(module) if op.name == "func.func"]:
        names = {op.name for op in ir.ops(func) if op.name.startswith("chlo.")}
        if names and all(n in ELEMENTWISE_CHLO or n.startswith("chlo.broadcast_") for n in names):
            pm = ir.passmanager.PassManager("func.func")
            pm.add("chlo-legalize-to-stablehlo")
            pm.run(func)


@register_pass
class ExpandMath(Pass):
    """Expands sin, cos, tan, atan2, tanh, cbrt, pow, expm1, log1p (and complex exp, log...) into libm-free f64 math."""

    name = "oxla-expand-math"
    anchor = "builtin.module"
    backends: list[str] = dataclasses.field(default_factory=lambda: ["llvm-cpu"])
    ops: list[str] = dataclasses.field(default_factory=list)
    decompose_chlo: bool = True

    def run(self, module) -> None:
        """Decomposes elementwise CHLO, then expands every op of the table (or of `ops`)."""
        if not _targets(module, self.backends):
            return
        unknown = [name for name in self.ops if name not in EXPANSIONS]
        if unknown:
            raise PassFailure(f"oxla-expand-math cannot expand {', '.join(unknown)}; it knows {', '.join(EXPANSIONS)}")
        if self.decompose_chlo:
            _decompose_chlo(module)
        wanted = set(self.ops or EXPANSIONS)
        for op in [op for op in ir.ops(module) if op.name in wanted]:
            expand(op, EXPANSIONS[op.name])
