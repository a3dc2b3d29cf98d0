"""primkit's closed catalog of primitive operations.

    from primkit import prims
    prims.catalog()          # tuple of PrimDef, catalog order
    prims.get("add")         # PrimDef; unknown name -> KeyError naming close matches
    prims.is_prim(target)    # True for an OpOverload / OpOverloadPacket of the catalog
    torch.ops.primkit.add    # every prim is a real torch op
"""
from __future__ import annotations

import difflib

import torch

from primkit.prims.errors import CatalogError, PrimConstraintError, PrimIndexError
from primkit.prims.loader import Constraint, PrimDef, load_catalog
from primkit.prims.registration import NAMESPACE, register_all

_CATALOG: tuple[PrimDef, ...] = register_all(load_catalog())
_BY_NAME = {p.name: p for p in _CATALOG}

__all__ = ["NAMESPACE", "catalog", "get", "is_prim", "PrimDef", "Constraint", "CatalogError",
           "PrimConstraintError", "PrimIndexError"]


def catalog() -> tuple[PrimDef, ...]:
    return _CATALOG


def get(name: str) -> PrimDef:
    try:
        return _BY_NAME[name]
    except KeyError:
        close = difflib.get_close_matches(name, _BY_NAME, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"no prim named '{name}'{hint}") from None


def is_prim(target) -> bool:
    """True for ``torch.ops.primkit.<name>`` (packet) or its overload, for a catalog name."""
    if isinstance(target, torch._ops.OpOverload):
        return target.namespace == NAMESPACE and target._opname in _BY_NAME
    if isinstance(target, torch._ops.OpOverloadPacket):
        ns, _, name = target._qualified_op_name.partition("::")
        return ns == NAMESPACE and name in _BY_NAME
    return False
