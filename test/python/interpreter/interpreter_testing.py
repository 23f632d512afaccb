"""Helpers of the oxla.interpreter tests (imported by name, like runtime_testing)."""

from __future__ import annotations

import numpy as np

from oxla import interpreter


def run(text: str, *args, function: str = "main", **options) -> list:
    """Evaluates MLIR text; every result."""
    return interpreter.evaluate(text, function, *args, **options)


def one(text: str, *args, **options):
    """Evaluates MLIR text with one result; that result."""
    [result] = run(text, *args, **options)
    return result


def unary(op: str, type_: str, values, result_type: str | None = None, attrs: str = "") -> np.ndarray:
    """`op` applied to a constant operand of `type_` (pretty form `op %x : (type) -> result`)."""
    result_type = result_type or type_
    text = (f"func.func @main(%x: {type_}) -> {result_type} {{\n"
            f"  %0 = \"{op}\"(%x) {attrs} : ({type_}) -> {result_type}\n"
            f"  return %0 : {result_type}\n}}")
    return one(text, values)


def binary(op: str, type_: str, lhs, rhs, result_type: str | None = None, attrs: str = "") -> np.ndarray:
    """`op` applied to two operands of `type_`."""
    result_type = result_type or type_
    text = (f"func.func @main(%x: {type_}, %y: {type_}) -> {result_type} {{\n"
            f"  %0 = \"{op}\"(%x, %y) {attrs} : ({type_}, {type_}) -> {result_type}\n"
            f"  return %0 : {result_type}\n}}")
    return one(text, lhs, rhs)
