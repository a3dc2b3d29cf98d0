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

__all__ = ["NAMESPACE", "catalog", "get", "is_prim", "def_of", "PrimDef", "Constraint", "CatalogError",
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


_DEF_OF: dict = {}    # id(target) -> (target, its PrimDef or None): an OpOverload hashes in Python, and tracers ask per call


def def_of(target) -> PrimDef | None:
    """The PrimDef of a prim's OpOverload (or packet), None for any other call target."""
    known = _DEF_OF.get(id(target))
    if known is None or known[0] is not target:
        name = (target._opname if isinstance(target, torch._ops.OpOverload) else
                target._qualified_op_name.partition("::")[2]) if is_prim(target) else None
        known = _DEF_OF[id(target)] = (target, _BY_NAME[name] if name is not None else None)
    return known[1]
