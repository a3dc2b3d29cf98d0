"""Errors raised by the catalog loader and by meta rules."""
from __future__ import annotations

import torch


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
    if not _holds(cond):
        name = getattr(prim, "name", prim)
        raise exc(name, cid, message() if callable(message) else message)


def _holds(cond) -> bool:
    """cond, except that a condition on an unbacked (data-dependent) size that the ShapeEnv cannot
    decide is assumed (torch._check records it, and the prim's real kernel checks it when it runs)
    rather than guarded on, which would fail the trace."""
    if isinstance(cond, torch.SymBool):   # torch has loaded symbolic_shapes (and sympy) by then
        from torch.fx.experimental.symbolic_shapes import guard_or_true
        if not guard_or_true(cond):
            return False
        torch._check(cond)
        return True
    return bool(cond)
