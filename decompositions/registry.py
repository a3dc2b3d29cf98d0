"""The decomposition registry: ATen OpOverload -> a Python function written in prims."""
from __future__ import annotations

from typing import Callable, Iterable

import torch

_REGISTRY: dict[torch._ops.OpOverload, Callable] = {}


class DecompositionError(RuntimeError):
    """Ops with no decomposition to prims; ``missing`` lists every one of them."""

    def __init__(self, missing: Iterable[str], context: str = "", what: str = "have no decomposition to prims"):
        self.missing = sorted(set(missing))
        lines = "\n".join(f"  - {m}" for m in self.missing)
        super().__init__(f"{context}{len(self.missing)} op(s) {what}:\n{lines}")


def overloads_of(op, context: str = "register") -> list:
    if isinstance(op, torch._ops.OpOverload):
        return [op]
    if isinstance(op, torch._ops.OpOverloadPacket):
        return [getattr(op, name) for name in op.overloads()]
    hint = ""
    if isinstance(op, str):
        qualified = op.replace("::", ".").split(".")
        hint = f" (for '{op}' pass torch.ops.{'.'.join(qualified) if len(qualified) > 1 else 'aten.' + op})"
    raise TypeError(f"{context}: expected an OpOverload or OpOverloadPacket such as torch.ops.aten.add or "
                    f"torch.ops.aten.add.Tensor, got {type(op).__name__} {op!r}{hint}")


def register(*ops):
    """Register the decorated function for every listed OpOverload (a packet means all of them)."""
    def deco(fn):
        for op in ops:
            for overload in overloads_of(op):
                if overload in _REGISTRY:
                    raise ValueError(f"{overload.name()} has two decompositions: "
                                     f"{_REGISTRY[overload].__qualname__} and {fn.__qualname__}")
                _REGISTRY[overload] = fn
        return fn
    return deco


def entry(op):
    """The registered decomposition of the OpOverload ``op``, or None."""
    return _REGISTRY.get(op)


def registered() -> dict:
    """The full registry (read-only use)."""
    return dict(_REGISTRY)


def get_decompositions(ops=None, *, target=None, keep=None) -> dict:
    """A decomposition table for make_fx / torch.export / AOTAutograd.

    ``ops``: OpOverloads or packets; a packet expands to its covered overloads. An op (or a
    packet with no covered overload) that has no decomposition raises DecompositionError.
    ``target``: a set of prim names a backend implements; the table also lowers the prims outside
    it, where a lowering reaches it (see ``decompositions.lowering``; never raises for a prim that
    cannot: ``trace(target=...)`` checks each graph). ``keep``: ATen ops left out of the table (a
    backend runs them natively); a CompositeImplicitAutograd one stays whole only under ``trace``
    (``keep=``), since make_fx runs torch's composite before any table.
    """
    if ops is None:
        table = dict(_REGISTRY)
    else:
        if isinstance(ops, (str, torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
            raise TypeError(f"get_decompositions: ops must be a collection of OpOverloads or packets, such as "
                            f"[torch.ops.aten.add], got {type(ops).__name__} {ops!r}")
        table, missing = {}, []
        for op in ops:
            found = [o for o in overloads_of(op, "get_decompositions") if o in _REGISTRY]
            if not found or (isinstance(op, torch._ops.OpOverload) and op not in _REGISTRY):
                missing.append(op.name() if isinstance(op, torch._ops.OpOverload) else str(op))
            for o in found:
                table[o] = _REGISTRY[o]
        if missing:
            raise DecompositionError(missing, "get_decompositions: ")
    if target is not None:
        from primkit.decompositions.lowering import lower_to
        table = lower_to(table, target)
    if keep is not None:
        from primkit.decompositions.backend import kept_ops
        kept = kept_ops(keep, "get_decompositions(keep=...)")
        table = {op: fn for op, fn in table.items() if op not in kept}
    return table
