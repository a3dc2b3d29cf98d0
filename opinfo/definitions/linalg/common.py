"""What the linalg entries share: the entry makers, the dtypes of the factorizations, out= calls.
"""
from __future__ import annotations

import functools

import torch

from primkit.opinfo.definitions.common import aten_entry, table_entry
from primkit.opinfo.dtypes import ALL


F32, F64 = torch.float32, torch.float64


LINALG_DTYPES = frozenset({torch.float32, torch.float64, torch.complex64})
aten = torch.ops.aten
NUMERIC_NO_BOOL = ALL - {torch.bool}
_linalg_entry = functools.partial(aten_entry, family="linalg", dtypes=LINALG_DTYPES)
_table_entry = functools.partial(table_entry, family="linalg")


WIDE_SHAPES = ((3, 4), (2, 3, 5))


def with_outs(fn):
    """fn called with out=: the out tensors are laid out as fn's results (eager's layout)."""
    def call(*args, **kwargs):
        results = fn(*args, **kwargs)
        return fn(*args, **kwargs, out=tuple(torch.empty_like(r) for r in results))
    call.__name__ = getattr(fn, "__name__", "op")
    return call
