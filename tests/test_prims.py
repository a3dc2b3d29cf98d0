"""Catalog-wide properties of the prims that the per-entry OpInfo tests do not state."""
from __future__ import annotations

import re

import pytest

from primkit import opinfo, prims


@pytest.mark.parametrize("prim", prims.catalog(), ids=lambda p: p.name)
def test_every_constraint_has_an_error_input(prim):
    entry = next(e for e in opinfo.op_db if e.is_prim and e.prim is prim)
    cited = {m.group(1) for err in entry.errors("cpu") if (m := re.match(rf"{prim.name}: (C\d+):", err.match))}
    declared = {c.id for c in prim.constraints}
    assert declared <= cited, f"{prim.name}: no error input for {sorted(declared - cited)}"
