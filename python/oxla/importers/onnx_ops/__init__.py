"""ONNX operator translations, one module per family, gathered in one table (`OPERATORS`).

- `core`: the table, the node being translated, dimension lists and broadcasting helpers;
- `elementwise`, `linalg`, `nn`, `image`, `shape`, `indexing`, `reduction`: the operators.

`coverage_rows()` lists every operator of the ONNX default domain with
whether it is translated, for the generated coverage table in the docs.
"""

from __future__ import annotations

import onnx

# importing each family registers its operators
from oxla.importers.onnx_ops import elementwise, image, indexing, linalg, nn, reduction, shape  # noqa: F401
from oxla.importers.onnx_ops.core import OPERATORS, Node, OnnxImportError, Operator

# Operators with no translation that a model may still use when constant propagation computes them
# (every input known at import time); their coverage rows say so.
FOLDED_ONLY_NOTE = "only when every input is known at import time (folded)"


def coverage_rows() -> list[dict]:
    """One row per operator of ONNX's default domain: {"op", "status", "note"}, sorted by name."""
    names = {s.name for s in onnx.defs.get_all_schemas() if s.domain in ("", "ai.onnx") and not s.deprecated}
    rows = []
    for name in sorted(names | set(OPERATORS)):
        op = OPERATORS.get(name)
        if op is not None:
            rows.append({"op": name, "status": "supported", "note": op.note})
        else:
            rows.append({"op": name, "status": "unsupported", "note": FOLDED_ONLY_NOTE})
    return rows


__all__ = ["OPERATORS", "Operator", "Node", "OnnxImportError", "coverage_rows"]
