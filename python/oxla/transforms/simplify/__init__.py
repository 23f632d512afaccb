"""oxla-simplify-stablehlo: XLA-style algebraic simplification of StableHLO, as Python rewrite patterns.

The rules live one family per module (identities, chains, slicing,
reductions, dot, constants, canonical) and are declared with
`oxla.transforms.simplify.rule.rule`. The pass groups them by root op into
MLIR rewrite patterns and lets MLIR's greedy driver apply them to a fixed
point. Rules that change results for NaN, infinities, -0.0 or rounding run
only with `fast-math=true`.
"""

from __future__ import annotations

import dataclasses
import importlib

from iree.compiler import rewrite as _rewrite

from oxla import ir
from oxla.transforms.registry import Pass, register_pass
from oxla.transforms.simplify.rule import RULES, Rewrite, Rule

# The modules declaring rules, imported when the pass first runs.
RULE_MODULES = tuple(f"oxla.transforms.simplify.{m}" for m in
                     ("identities", "chains", "slicing", "reductions", "dot", "constants", "canonical"))

# Failures a rule may hit on an op shape it does not understand: the rule then declines.
_DECLINE = (ValueError, TypeError, KeyError, IndexError, AttributeError, ir.MLIRError)


def load_rules() -> list[Rule]:
    """Every declared rule (importing the rule modules that exist)."""
    importlib.import_module("oxla.dialects.stablehlo")  # rules build with its builders and match its classes
    for name in RULE_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
    return list(RULES)


def _pattern(rules: list[Rule], strict: bool):
    """One pattern callback trying each rule of a root in order (MLIR's convention: falsy = rewrote)."""
    def apply(op, rewriter) -> bool:
        rw = Rewrite(rewriter)
        for r in rules:
            try:
                if r.fn(op, rw):
                    return False
            except _DECLINE:
                if strict:
                    raise
        return True
    return apply


def patterns(fast_math: bool = False, strict: bool = False, only: tuple[str, ...] = ()):
    """The frozen pattern set of the enabled rules (all, or the ones named in `only`)."""
    by_root: dict[str, list[Rule]] = {}
    for r in load_rules():
        if (r.fast_math and not fast_math) or (only and r.name not in only):
            continue
        by_root.setdefault(r.root, []).append(r)
    with ir.context():
        patterns = _rewrite.RewritePatternSet()
        for root, rules in by_root.items():
            patterns.add(root, _pattern(rules, strict))
        return patterns.freeze()


def simplify(op, *, fast_math: bool = False, strict: bool = False, only: tuple[str, ...] = ()) -> None:
    """Applies the rules to `op` (a module or any op) until none applies."""
    config = _rewrite.GreedyRewriteConfig()
    config.enable_folding = False  # constants are oxla-fold-constants' job, under its own size rules
    target = op.operation if hasattr(op, "operation") else op
    _rewrite.apply_patterns_and_fold_greedily(target, patterns(fast_math, strict, only), config)


@register_pass
class SimplifyStableHLO(Pass):
    """Applies XLA-style algebraic simplifications to StableHLO (exact ones; fast-math adds the relaxed ones)."""

    name = "oxla-simplify-stablehlo"
    anchor = None
    fast_math: bool = dataclasses.field(default=False, metadata={"help": "also apply rules that change NaN, "
                                                                         "infinity, -0.0 or rounding results"})
    strict: bool = dataclasses.field(default=False, metadata={"help": "raise instead of declining when a rule "
                                                                      "fails on an op (for testing rules)"})
    only: list[str] = dataclasses.field(default_factory=list, metadata={"help": "apply only these rules (by name)"})

    def run(self, op) -> None:
        simplify(op, fast_math=self.fast_math, strict=self.strict, only=tuple(self.only))
