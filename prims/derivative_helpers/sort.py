"""Derivative helpers of the sort family: sorts and selections scatter grad back through their
index output (the formulas call ``scatter_add`` themselves); ``keep_dim`` restores a removed dim."""
from __future__ import annotations

from primkit.prims.derivative_helpers.common import prim_ops


def keep_dim(x, a, dim):
    """x (a reduced over dim, dim removed) with dim put back as size 1, so that it indexes a along dim
    (a 0-d a keeps x as it is)."""
    return prim_ops().expand_dims(x, [dim % a.dim()]) if a.dim() else x


HELPERS = (keep_dim,)
