"""Catalog-wide properties of the prims that the per-entry OpInfo tests do not state."""
from __future__ import annotations

import re

import pytest

from primkit import opinfo, prims
from primkit.opinfo.prims import random as random_prims


@pytest.mark.parametrize("prim", prims.catalog(), ids=lambda p: p.name)
def test_every_constraint_has_an_error_input(prim):
    entry = next(e for e in opinfo.op_db if e.is_prim and e.prim is prim)
    cited = {m.group(1) for err in entry.errors("cpu") if (m := re.match(rf"{prim.name}: (C\d+):", err.match))}
    declared = {c.id for c in prim.constraints}
    assert declared <= cited, f"{prim.name}: no error input for {sorted(declared - cited)}"


@pytest.mark.parametrize("check", list(random_prims.sanity_checks()), ids=lambda c: c[0])
def test_random_prims_sanity(check):
    """The counter-based random prims' properties that single samples do not show: replay, the spec's
    splitmix64 words (past the CPU reference's blocks), moments (opinfo/prims/random.py)."""
    name, passed, detail = check
    assert passed, f"{name}: {detail}"
