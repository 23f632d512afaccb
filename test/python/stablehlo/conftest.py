"""Helpers for StableHLO builder tests: build inside a function, verify, and round-trip the text; read the ops of
the conformance programs in ../shared/conformance."""

from __future__ import annotations

import os
import re

import pytest

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo.types import tensor_type


def _arg_type(spec):
    """An argument type from "tensor<2x3xf32>"-style text, an ir.Type, or a (shape, dtype) pair."""
    if isinstance(spec, str):
        return ir.Type.parse(spec, ir.context())
    if isinstance(spec, tuple):
        return tensor_type(*spec)
    return spec


class Built:
    """A module built by `build`: the function's results, the op that made the last result, the text."""

    def __init__(self, module, results):
        self.module, self.results = module, results

    @property
    def text(self) -> str:
        return str(self.module)

    @property
    def result_types(self) -> list[str]:
        return [str(r.type) for r in self.results]

    def ops(self, name: str) -> list:
        """The ops named `name` in the module, as the bindings return them (registered classes)."""
        return [op.opview for op in ir.ops(self.module) if op.operation.name == name]


def build(body, *arg_types) -> Built:
    """Builds `func.func @main(args) -> results` whose body is `body(*args)`, verifies it and checks that
    printing and parsing gives the same text."""
    types = [_arg_type(t) for t in arg_types]
    with ir.context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            from iree.compiler.dialects import func
            fn = func.FuncOp("main", (types, []))
            block = fn.add_entry_block()
            with ir.InsertionPoint(block):
                out = body(*block.arguments)
                results = [] if out is None else list(out) if isinstance(out, (list, tuple)) else [out]
                results = [r.result if hasattr(r, "result") and not isinstance(r, ir.Value) else r for r in results]
                results = [r for r in results if isinstance(r, ir.Value)]
                func.ReturnOp(results)
            fn.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(types, [r.type for r in results]))
        module.operation.verify()
        text = str(module)
        assert str(ir.parse(text)) == text, "printed form does not parse back to the same text"
        generic = module.operation.get_asm(print_generic_op_form=True)
        assert str(ir.parse(generic)) == text, "generic form does not parse back to the same text"
    return Built(module, results)


@pytest.fixture
def built():
    """The `build` helper as a fixture."""
    return build


def raises_rule(exc_type, *fragments):
    """Context manager: the builder raises `exc_type` whose message has every fragment and this test file's line."""
    return _RaisesRule(exc_type, fragments)


class _RaisesRule:
    def __init__(self, exc_type, fragments):
        self.exc_type, self.fragments = exc_type, fragments
        self._ctx = pytest.raises(exc_type)

    def __enter__(self):
        self.info = self._ctx.__enter__()
        return self.info

    def __exit__(self, *exc):
        handled = self._ctx.__exit__(*exc)
        message = str(self.info.value)
        for fragment in self.fragments:
            assert fragment in message, f"{fragment!r} not in {message!r}"
        assert "test/python/stablehlo/" in message or "test_" in message, f"no user line in {message!r}"
        return handled


def add_body(a, b):
    """A region body that adds its two arguments (the computation of reduce, scatter, all_reduce, ...)."""
    return shlo.add(a, b)


def constant(values, type_text: str, dialect: str = "stablehlo"):
    """A `stablehlo.constant` (or `arith.constant`) of `dense<values> : type_text`, made without the builders so
    that rules can read its values; `values` is a list or the literal's text."""
    attr = ir.Attribute.parse(f"dense<{values}> : {type_text}")
    return ir.Operation.create(f"{dialect}.constant", results=[attr.type], attributes={"value": attr}).result


# Conformance programs -----------------------------------------------------------------------------------------------

CONFORMANCE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "conformance")
INTERPRET = os.path.join(CONFORMANCE, "interpret")
needs_conformance = pytest.mark.skipif(not os.path.isdir(INTERPRET), reason="../shared/conformance is not present")

# A check op (which this context cannot parse) runs from its `check.` line, over any continuation lines, up to the
# next line that starts a value, another check op or the function's return.
_CHECK_OP = re.compile(r"^\s*check\..*?(?=^\s*(?:%|check\.|func\.return))", re.M | re.S)
_KEEP = []  # parsed modules stay alive: an op read from a module crashes the process once the module is collected


def parse_ops(text: str, name: str, allow_unregistered: bool = False) -> list:
    """The ops named `name` in MLIR text as their op classes (op.opview): check ops are removed and every
    `// -----` chunk is parsed on its own."""
    ops = []
    with ir.context():
        for chunk in _CHECK_OP.sub("", text).split("// -----"):
            module = ir.parse(chunk, allow_unregistered_dialects=allow_unregistered)
            _KEEP.append(module)
            ops += [op.opview for op in ir.ops(module) if op.operation.name == name]
    return ops


def conformance_ops(path: str, name: str, chunk: int | None = None, allow_unregistered: bool = False) -> list:
    """`parse_ops` of the conformance program at `path` ("interpret/if.mlir"), or of only its `chunk`-th
    `// -----` chunk."""
    with open(os.path.join(CONFORMANCE, path), encoding="utf-8") as f:
        text = f.read()
    if chunk is not None:
        text = text.split("// -----")[chunk]
    return parse_ops(text, name, allow_unregistered)
