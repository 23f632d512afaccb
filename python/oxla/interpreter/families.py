"""Loads every op family so that their kernels are in the dispatch table (`core.table()`)."""

from oxla.interpreter import (  # noqa: F401
    check_ops, chlo, collectives, control_flow, data_movement, dynamic, elementwise, gather_scatter, linalg,
    quantized, random, reductions)
