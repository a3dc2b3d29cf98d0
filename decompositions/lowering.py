"""Lowering a decomposition table to a backend's own prim set (``get_decompositions(target=...)``)."""
from __future__ import annotations


def lower_to(table, target):
    # Needs each prim's own decomposition into other prims (catalog field planned); until then
    # refuse rather than hand back a table that may reach prims outside the target.
    raise NotImplementedError(
        "get_decompositions(target=...): lowering to a backend's prim set is not implemented yet; "
        "call get_decompositions() for the full prim set")
