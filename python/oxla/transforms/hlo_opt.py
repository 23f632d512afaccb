"""oxla-hlo-opt: oxla's default StableHLO optimization pipeline, run to a fixed point.

One round is: oxla-simplify-stablehlo, MLIR's `canonicalize` and `cse`
(before folding, so that identical constant expressions are evaluated once),
oxla-fold-constants (followed by `canonicalize` and `cse` again when it
folded anything, to merge the new constants), then oxla-dce. Rounds repeat until a round leaves
the module as it found it (its printed form, locations aside, is unchanged)
or `max-iterations` rounds have run. `oxla.compile` runs it before IREE's
input phase unless `optimize=False`.

What the native passes do to StableHLO in this IREE build: `canonicalize`
has no StableHLO folders or patterns to apply (it hoists and deduplicates
constants and erases unused ops without memory effects, which includes a
`custom_call` not marked `has_side_effect = true`, as StableHLO allows);
`cse` merges identical ops without memory effects, including two
`optimization_barrier`s of the same operands (they give the same values) and
two identical custom_calls not marked as having side effects. Neither touches
rng, side-effecting custom_calls or ops of unknown dialects.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time

from oxla import ir
from oxla.transforms.registry import Pass, register_pass

NATIVE_PASSES = "canonicalize,cse"


@dataclasses.dataclass
class OptimizeReport:
    """What one oxla-hlo-opt run did: rounds run, whether it reached a fixed point, time per step."""

    iterations: int = 0
    converged: bool = False
    folded: int = 0
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)


# Constants with more elements than this print elided in fingerprints: a round that only swaps one
# large constant for another of the same type ends the loop a round early, at worst.
FINGERPRINT_ELEMENTS = 4096


def fingerprint(op) -> bytes:
    """A digest of the op's printed form without locations (large constants elided): equal digests, same IR."""
    text = op.get_asm(binary=True, assume_verified=True, large_elements_limit=FINGERPRINT_ELEMENTS)
    return hashlib.blake2b(text, digest_size=16).digest()


def optimize(module, *, max_iterations: int = 8, fast_math: bool = False,
             max_elements: int = 1_000_000) -> OptimizeReport:
    """Runs the rounds on `module` (an ir.Module or its op) in place until it stops changing."""
    from oxla.transforms.dce import DeadCodeElimination
    from oxla.transforms.fold import fold_constants
    from oxla.transforms.simplify import simplify

    op = getattr(module, "operation", module)
    report = OptimizeReport()
    times = report.seconds
    native = ir.passmanager.PassManager.parse(f"builtin.module({NATIVE_PASSES})", context=op.context)
    native.enable_verifier(False)  # the surrounding pipeline verifies once the pass is done
    dce = DeadCodeElimination()

    def timed(name: str, fn) -> None:
        began = time.perf_counter()
        fn()
        times[name] = times.get(name, 0.0) + time.perf_counter() - began

    before = fingerprint(op)
    while report.iterations < max_iterations:
        report.iterations += 1
        timed("simplify", lambda: simplify(op, fast_math=fast_math))
        # Before folding, so that identical constant expressions are evaluated once.
        timed("canonicalize+cse", lambda: native.run(op))
        folded = report.folded
        timed("fold", lambda: setattr(report, "folded",
                                      report.folded + fold_constants(op, max_elements=max_elements).folded))
        if report.folded != folded:  # hoist and merge the new constants now, not in one more round
            timed("canonicalize+cse", lambda: native.run(op))
        timed("dce", lambda: dce.run(op))
        began = time.perf_counter()
        after = fingerprint(op)
        times["compare"] = times.get("compare", 0.0) + time.perf_counter() - began
        if after == before:
            report.converged = True
            break
        before = after
    return report


@register_pass
class HloOpt(Pass):
    """Simplifies, folds, canonicalizes, CSEs and DCEs StableHLO, round after round, until nothing changes."""

    name = "oxla-hlo-opt"
    anchor = "builtin.module"
    max_iterations: int = dataclasses.field(default=8, metadata={"help": "the most rounds to run"})
    fast_math: bool = dataclasses.field(default=False, metadata={
        "help": "also apply simplifications that change NaN, infinity, -0.0 or rounding results"})

    def run(self, op) -> None:
        optimize(op, max_iterations=self.max_iterations, fast_math=self.fast_math)
