"""The OpInfo test database: one record per operator (and one per prim).

    import opinfo
    opinfo.op_db        # list[OpInfo]
"""
from __future__ import annotations

import decompositions  # noqa: F401  (registers every decomposition)
from opinfo.core import ALL_TESTS, DEFAULT_TOLERANCES, ErrorInput, OpInfo, SampleInput, XFail
from opinfo.definitions import ENTRIES as _ENTRIES
from opinfo.prims import prim_entries
from opinfo import gradients as _gradients

op_db: list[OpInfo] = list(_ENTRIES) + prim_entries()
_gradients.apply(op_db)   # which entries test_gradients checks, and its known failures

_names = [e.name for e in op_db]
_dupes = sorted({n for n in _names if _names.count(n) > 1})
if _dupes:
    raise ValueError(f"opinfo: duplicate entry names {_dupes}")

__all__ = ["op_db", "OpInfo", "SampleInput", "ErrorInput", "XFail", "ALL_TESTS", "DEFAULT_TOLERANCES"]
