"""docs/importers.md is what the importers' operator tables generate (when the same framework versions are
installed as when it was written)."""

import importlib
import os
import re

import pytest

from oxla.importers import coverage

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                   "docs", "importers.md")


def test_the_importer_coverage_doc_is_current():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    recorded = re.search(r"Framework versions: (.*)\.", text).group(1)
    installed = ", ".join(f"{k} {v}" for k, v in coverage.framework_versions().items())
    if recorded != installed:
        pytest.skip(f"the doc lists {recorded}; installed here: {installed}")
    assert text == coverage.markdown(), "run python tools/gen_coverage.py"


def test_every_importer_lists_supported_operators():
    versions = coverage.framework_versions()
    for title, package, module in coverage.IMPORTERS:
        if versions[package] == "missing":
            continue
        rows = importlib.import_module(module).coverage_rows()
        assert rows and all({"op", "status", "note"} <= set(r) for r in rows), title
        assert any(r["status"] in ("supported", "translated", "legalized", "kept") for r in rows), title
