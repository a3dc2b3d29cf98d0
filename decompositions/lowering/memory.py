"""Lowerings of memory prims (aliases) into as_strided."""
from __future__ import annotations

from primkit.decompositions.lowering.core import P, lowers


@lowers("stop_gradient")
def stop_gradient(a):
    # a view of a itself: a backend that does not differentiate runs it as one (the derivative rule is the prim's)
    return P.as_strided(a, list(a.shape), list(a.stride()), a.storage_offset())


@lowers("alias")
def alias(a):
    return P.as_strided(a, list(a.shape), list(a.stride()), a.storage_offset())
