"""The OpInfo test database: one record per operator (and one per prim), and the ModuleInfo
database: one record per torch.nn module.

    from primkit import opinfo
    opinfo.op_db        # list[OpInfo]
    opinfo.module_db    # list[ModuleInfo]
"""
from __future__ import annotations

from primkit import decompositions  # noqa: F401  (registers every decomposition)
from primkit.opinfo.core import ALL_TESTS, DEFAULT_TOLERANCES, ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions import ENTRIES as _ENTRIES
from primkit.opinfo.prims import prim_entries
from primkit.opinfo import gradients as _gradients, known_failures as _known_failures
from primkit.opinfo.module_db import ModuleInfo, ModuleXFail, T, check_unique as _check_unique
from primkit.opinfo.modules import RECORDS as _MODULE_RECORDS

op_db: list[OpInfo] = list(_ENTRIES) + prim_entries()
_gradients.apply(op_db)   # which entries test_gradients checks
_known_failures.apply(op_db)   # the known failures under torch 2.11 (CPU and CUDA)

_names = [e.name for e in op_db]
_dupes = sorted({n for n in _names if _names.count(n) > 1})
if _dupes:
    raise ValueError(f"opinfo: duplicate entry names {_dupes}")

module_db: list[ModuleInfo] = _check_unique(list(_MODULE_RECORDS))

__all__ = ["op_db", "module_db", "OpInfo", "SampleInput", "ErrorInput", "XFail", "ALL_TESTS", "DEFAULT_TOLERANCES",
           "ModuleInfo", "ModuleXFail", "T"]
