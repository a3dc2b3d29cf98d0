"""Errors raised by the catalog loader and by meta rules."""
from __future__ import annotations


class CatalogError(ValueError):
    """A malformed catalog: names the file, the prim and the field."""

    def __init__(self, file: str, prim: str | None, field: str | None, message: str):
        self.file, self.prim, self.field = file, prim, field
        where = file + (f": prim '{prim}'" if prim else "") + (f": field '{field}'" if field else "")
        super().__init__(f"{where}: {message}")


class PrimConstraintError(RuntimeError):
    """A prim's constraint does not hold. The message starts with ``<prim>: <Cn>:``.

    A RuntimeError, as eager torch raises for shape and dtype mismatches.
    """

    def __init__(self, prim: str, cid: str, message: str):
        self.prim, self.constraint = prim, cid
        super().__init__(f"{prim}: {cid}: {message}")


class PrimIndexError(PrimConstraintError, IndexError):
    """A dimension or index out of range (eager raises IndexError for those)."""


def check(cond, prim, cid: str, message, exc=PrimConstraintError):
    """Raise ``exc`` citing ``prim`` and constraint ``cid`` unless ``cond`` holds.

    ``prim`` is a PrimDef or a name; ``message`` is a string or a thunk (built only on failure).
    """
    if not cond:
        name = getattr(prim, "name", prim)
        raise exc(name, cid, message() if callable(message) else message)
