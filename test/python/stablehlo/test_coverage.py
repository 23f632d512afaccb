"""The whole opset: every op of the specification is defined, the coverage doc is current, and every op in
the conformance programs comes back as its class with readable properties."""

import glob
import os
import re

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import coverage

from conftest import CONFORMANCE, needs_conformance

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def test_every_op_of_the_specification_is_defined():
    assert coverage.missing_spec_ops() == []


def test_every_defined_op_is_registered_in_the_dialect():
    context = ir.context()
    assert [name for name in shlo.OPS if not context.is_registered_operation(name)] == []


def test_classes_and_builders_are_exported_once():
    for name, spec in shlo.OPS.items():
        cls, build = shlo.CLASSES[name], shlo.BUILDERS[name]
        assert getattr(shlo, cls.__name__) is cls
        assert getattr(shlo, build.__name__) is build
        assert cls.OPERATION_NAME == name and cls.SPEC is spec
    assert len({c.__name__ for c in shlo.CLASSES.values()}) == len(shlo.CLASSES)


def test_the_coverage_doc_is_current():
    with open(os.path.join(ROOT, "docs", "stablehlo_ops.md"), encoding="utf-8") as f:
        assert f.read() == coverage.markdown(), "run python tools/gen_coverage.py"


def _program_files():
    files = sorted(glob.glob(os.path.join(CONFORMANCE, "interpret", "*.mlir")))
    files += sorted(glob.glob(os.path.join(CONFORMANCE, "testdata", "*.mlir")))[::25]
    return files


def _properties(cls) -> list[str]:
    return [n for n in dir(cls) if isinstance(getattr(cls, n, None), property) and n not in dir(ir.OpView)]


@needs_conformance
def test_parsed_conformance_ops_come_back_as_classes_with_readable_properties():
    seen = set()
    for path in _program_files():
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"(?m)^\s*check\.\w+ .*$", "", f.read())  # the check dialect has no parser here
        chunks = text.split("// -----")
        for chunk in chunks:
            with ir.context(), ir.allow_unregistered():
                try:
                    module = ir.parse(chunk)
                except Exception:
                    continue  # a few interpreter cases test parse errors or need other dialects
                for op in ir.ops(module):
                    view = op.opview
                    if not op.name.startswith("stablehlo."):
                        continue
                    cls = shlo.CLASSES[op.name]
                    assert type(view) is cls, op.name
                    for prop in _properties(cls):
                        getattr(view, prop)  # every attribute reads back as a Python value
                    seen.add(op.name)
    assert len(seen) > 80, sorted(seen)
