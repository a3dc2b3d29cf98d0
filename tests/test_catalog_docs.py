"""docs/prims.md is generated from the catalog, and every example in it runs and prints what it shows."""
from __future__ import annotations

import pathlib

import pytest

from primkit import prims
from primkit.opinfo.catalog_docs import examples, render, run_example, show

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs" / "prims.md"
EXAMPLES = examples()


def test_docs_are_current():
    assert DOCS.exists(), "run: primkit catalog-docs"
    assert DOCS.read_text() == render(), "docs/prims.md is stale: run primkit catalog-docs"


@pytest.mark.parametrize("name", [p.name for p in prims.catalog()])
def test_example_runs_and_matches_the_page(name):
    code = EXAMPLES[name]
    assert code is not None, f"{name}: no example (give one in its YAML entry: example: ...)"
    shown = f">>> {code}\n{show(run_example(code))}\n"
    assert shown in DOCS.read_text()
