"""``get_decompositions``: the registry as a table for make_fx / torch.export / AOTAutograd, lowered to a
backend's prim set and without the ATen ops it keeps."""
from __future__ import annotations

import torch

from primkit.decompositions.lowering import lower_to
from primkit.decompositions.registry import DecompositionError, kept_ops, overloads_of, registered


# aten.item's entry (the item prim) serves the tracers that keep item whole: torch.export's run_decompositions
# and AOTAutograd. trace and eager through prims leave it out, so that torch's composite reads the value with
# aten._local_scalar_dense: make_fx folds that read of a constant tensor to its value (trace makes each read of
# data the item prim after), and it is the eager mode's host read (a sync point).
HOST_READ_ENTRIES = frozenset({torch.ops.aten.item.default})


def without_host_reads(table: dict) -> dict:
    return {op: fn for op, fn in table.items() if op not in HOST_READ_ENTRIES}


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
    registry = registered()
    if ops is None:
        table = registry
    else:
        if isinstance(ops, (str, torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
            raise TypeError(f"get_decompositions: ops must be a collection of OpOverloads or packets, such as "
                            f"[torch.ops.aten.add], got {type(ops).__name__} {ops!r}")
        table, missing = {}, []
        for op in ops:
            found = [o for o in overloads_of(op, "get_decompositions") if o in registry]
            if not found or (isinstance(op, torch._ops.OpOverload) and op not in registry):
                missing.append(op.name() if isinstance(op, torch._ops.OpOverload) else str(op))
            for o in found:
                table[o] = registry[o]
        if missing:
            raise DecompositionError(missing, "get_decompositions: ")
    if target is not None:
        table = lower_to(table, target)
    if keep is not None:
        kept = kept_ops(keep, "get_decompositions(keep=...)")
        table = {op: fn for op, fn in table.items() if op not in kept}
    return table
