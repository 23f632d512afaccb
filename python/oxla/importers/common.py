"""What every importer shares: the imported-model record, the unsupported-operator error, input checks.

An importer turns a framework's model into an `ImportedModel`: a StableHLO
module whose function `main` takes the model's inputs as flat arrays, plus
the two halves of the framework's calling convention (how example
arguments flatten into those arrays, and how `main`'s flat results fold back
into the framework's own structure and array type).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from oxla import ir
from oxla.errors import OxlaError


class UnsupportedOperatorsError(OxlaError, NotImplementedError):
    """The model uses operators the importer cannot translate; lists every one with its count and locations.

    Raised before any lowering starts, so one run shows all that is missing.
    """

    def __init__(self, framework: str, operators: dict[str, list[str]]):
        self.framework, self.operators = framework, dict(operators)
        lines = [f"{framework}: {len(operators)} unsupported operator(s):"]
        for name, places in sorted(operators.items()):
            where = [p for p in places if p]
            shown = "; ".join(where[:3]) + (f"; ... {len(where) - 3} more" if len(where) > 3 else "")
            lines.append(f"  {name} x{len(places)}" + (f" at {shown}" if shown else ""))
        super().__init__("\n".join(lines))


def check_supported(framework: str, used: list[tuple[str, str]], supported: Callable[[str], bool]) -> None:
    """Raises UnsupportedOperatorsError for the (operator, location) pairs `supported` rejects."""
    missing: dict[str, list[str]] = {}
    for name, location in used:
        if not supported(name):
            missing.setdefault(name, []).append(location)
    if missing:
        raise UnsupportedOperatorsError(framework, missing)


@dataclass
class ImportedModel:
    """A model as StableHLO: `module` with function `function`, and the framework's calling convention."""

    module: ir.Module
    framework: str
    function: str = "main"
    input_names: list[str] = field(default_factory=list)
    output_names: list[str] = field(default_factory=list)
    # example-style arguments -> the flat list of numpy arrays `function` takes (ValueError on mismatch)
    flatten_inputs: Callable[..., list[np.ndarray]] = None
    # the flat list of numpy results -> the framework's structure and array type
    unflatten_outputs: Callable[[list[np.ndarray]], object] = None

    def __str__(self) -> str:
        return str(self.module)


def check_arguments(expected: list[tuple[tuple, np.dtype]], given: list[np.ndarray], names: list[str]) -> None:
    """ValueError naming the argument when the number, shape or dtype of flat arguments does not match."""
    if len(given) != len(expected):
        raise ValueError(f"expected {len(expected)} array argument(s), got {len(given)}")
    for i, ((shape, dtype), array) in enumerate(zip(expected, given)):
        name = names[i] if i < len(names) else f"argument {i}"
        if tuple(array.shape) != tuple(shape) or np.dtype(array.dtype) != np.dtype(dtype):
            raise ValueError(f"{name}: expected {np.dtype(dtype)}{list(shape)}, got {array.dtype}{list(array.shape)}")
