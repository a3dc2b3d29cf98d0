"""What lowerings reach: per (prim, dtype), read off a run of each lowering on meta tensors; the
tables ``get_decompositions(target=...)`` adds; ``MINIMAL_PRIMS``, ``CORE_PRIMS`` and ``core_gap``."""
from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable

import torch
import torch.utils._pytree as pytree
from torch.utils._python_dispatch import TorchDispatchMode

from primkit import prims
from primkit.decompositions.lowering.core import LOWERINGS


def _dtype_of(args, kwargs):
    """The dtype a lowering branches on: that of its first tensor argument (a creation prim's dtype argument)."""
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.dtype
    return kwargs.get("dtype")


def valid_dtypes(name) -> frozenset:
    """The operand dtypes for which the lowering of ``name`` is valid (its ``dtypes`` class, within the prim's)."""
    dtypes = LOWERINGS[name][2]
    return prims.get(name).dtypes if dtypes is None else frozenset(dtypes) & prims.get(name).dtypes


def _examples(name, example, dtype) -> list[tuple]:
    """Argument tuples to trace the lowering with at ``dtype`` (meta tensors): ``example(dtype)`` (one
    tuple, or a list of them where the lowering branches on a non-tensor argument), or one tensor of
    shape (3,) per Tensor argument."""
    if example is not None:
        args = example(dtype)
        return [pytree.tree_map_only(torch.Tensor, lambda t: t.to("meta"), a)
                for a in (args if isinstance(args, list) else [args])]
    prim = prims.get(name)
    n = sum(isinstance(a.type, torch.TensorType) for a in prim.op._schema.arguments)
    return [tuple(torch.ones(3, dtype=dtype, device="meta") for _ in range(n))]


def _first_tensor_dtype(args, result):
    for a in pytree.tree_leaves(args):
        if isinstance(a, torch.Tensor):
            return a.dtype
    return result.dtype if isinstance(result, torch.Tensor) else None


def node_dtype(node):
    """The dtype a prim node works at: its first tensor argument's (its result's for a creation prim)."""
    for a in node.args:
        if isinstance(a, torch.fx.Node) and isinstance(a.meta.get("val"), torch.Tensor):
            return a.meta["val"].dtype
    val = node.meta.get("val")
    return val.dtype if isinstance(val, torch.Tensor) else None


class _PrimCalls(TorchDispatchMode):
    """Records (prim, operand dtype) of every prim called under it (on meta tensors: no compute)."""

    def __init__(self):
        super().__init__()
        self.calls = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if prims.is_prim(func):
            self.calls.add((func._opname, _first_tensor_dtype(args, result)))
        return result


def prims_called(fn, *args, **kwargs) -> frozenset:
    """The (prim, operand dtype) pairs that ``fn(*args, **kwargs)`` calls (on meta tensors: no compute)."""
    with _PrimCalls() as calls:
        fn(*args, **kwargs)
    return frozenset(calls.calls)


@functools.lru_cache(maxsize=None)
def reaches_at(name, dtype) -> frozenset:
    """The (prim, dtype) pairs the lowering of ``name`` calls directly on ``dtype`` operands, read off
    a run of it at that dtype on meta tensors; empty where the lowering is not valid for ``dtype``."""
    if dtype not in valid_dtypes(name):
        return frozenset()
    return frozenset().union(*(prims_called(LOWERINGS[name][0], *args)
                               for args in _examples(name, LOWERINGS[name][1], dtype)))


def reaches(name, dtype=None) -> frozenset:
    """The prims the lowering of ``name`` calls directly: at ``dtype``, or at any dtype it is valid for."""
    dtypes = [dtype] if dtype is not None else sorted(valid_dtypes(name), key=str)
    return frozenset(p for d in dtypes for p, _ in reaches_at(name, d))


def _reachable_pairs(target: frozenset) -> frozenset:
    """The (prim, dtype) pairs that reach ``target``: a prim in it (any dtype), or one whose lowering
    is valid at that dtype and calls only pairs that reach it. A cycle of lowerings reaches nothing."""
    ok = {(p.name, d) for p in prims.catalog() if p.name in target for d in p.dtypes}
    pending = {(name, d) for name in LOWERINGS if name not in target for d in valid_dtypes(name)}
    changed = True
    while changed:
        changed = False
        for pair in list(pending):
            if all(p in target or (p, d) in ok for p, d in reaches_at(*pair)):
                ok.add(pair)
                pending.discard(pair)
                changed = True
    return frozenset(ok)


@functools.lru_cache(maxsize=64)
def reachable_pairs(target: frozenset) -> frozenset:
    return _reachable_pairs(frozenset(target))


def unreachable(target, dtypes=None) -> set:
    """The prims that cannot reach ``target`` at some dtype of ``dtypes`` they take (default: every
    dtype): outside it and without a lowering valid there whose prims all reach it. A float-only
    backend passes its float dtypes (``dtypes={torch.float32}``) and is not asked for complex
    lowerings."""
    ok = reachable_pairs(frozenset(target))
    out = set()
    for p in prims.catalog():
        wanted = p.dtypes if dtypes is None else p.dtypes & set(dtypes)
        if p.name not in target and any((p.name, d) not in ok for d in wanted):
            out.add(p.name)
    return out


def prim_set(target, context: str = "get_decompositions(target=...)") -> frozenset:
    """A backend's prim set as names: a collection of prim names (or prim ops such as
    ``torch.ops.primkit.add``). A string, a non-prim or an empty set is an error saying what to pass."""
    if isinstance(target, (str, bytes)) or not isinstance(target, Iterable):
        raise TypeError(f"{context}: expected a collection of prim names such as {{'add', 'mul'}}, "
                        f"got {type(target).__name__} {target!r}")
    names = set()
    for t in target:
        if isinstance(t, str):
            names.add(t)
        elif isinstance(t, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)) and prims.is_prim(t):
            names.add(t._opname if isinstance(t, torch._ops.OpOverload) else t._qualified_op_name.split("::")[1])
        else:
            raise TypeError(f"{context}: expected prim names (str) or torch.ops.primkit ops, got "
                            f"{type(t).__name__} {t!r}")
    if not names:
        raise ValueError(f"{context}: the prim set is empty")
    catalog = {p.name for p in prims.catalog()}
    unknown = sorted(names - catalog)
    if unknown:
        hints = [f"{u} (did you mean {', '.join(close)}?)" if (close := difflib.get_close_matches(u, catalog, n=2))
                 else u for u in unknown]
        raise ValueError(f"{context}: not prims: {', '.join(hints)}")
    return frozenset(names)


def lower_to(table, target) -> dict:
    """``table`` plus, for every prim outside ``target`` that has a lowering, that lowering, applied
    to the operand dtypes at which it reaches ``target`` (elsewhere the prim stays in the graph;
    ``trace(target=...)`` reports the prims a graph still holds outside the target). Never raises
    for an unreachable prim: reachability is a property of a graph, not of the catalog."""
    target = prim_set(target)
    ok = reachable_pairs(target)
    out = dict(table)
    for name in sorted(set(LOWERINGS) - target):
        out[prims.get(name).op] = _applied_where_valid(name, LOWERINGS[name][0], ok)
    return out


def _applied_where_valid(name, fn, ok):
    """The lowering of ``name`` as a table entry: it runs where (name, operand dtype) reaches the
    target; elsewhere it returns NotImplemented, which make_fx reads as "keep the op"."""
    def lowered(*args, **kwargs):
        if (name, _dtype_of(args, kwargs)) not in ok:
            return NotImplemented
        return fn(*args, **kwargs)
    lowered.__name__ = lowered.__qualname__ = f"lower_{name}"
    lowered.__module__ = fn.__module__
    lowered.__wrapped__ = fn
    return lowered


MINIMAL_PRIMS = frozenset(p.name for p in prims.catalog() if p.name not in LOWERINGS or valid_dtypes(p.name) != p.dtypes)
"""The smallest closed set: the prims with no lowering valid for every dtype they take."""


CORE_PRIMS = frozenset(p.name for p in prims.catalog() if p.core)
"""The core set (64 prims: catalog entries marked ``core: true``) a backend implements to run every model of the test zoo, and into which
every prim outside it lowers, at every dtype it takes, except those of ``OPTIONAL_FAMILIES``, ``OPTIONAL_SPECIAL``,
``HOST_PRIMS`` and ``REINTERPRETING_PRIMS``. ``core_gap()`` lists any other prim that does not reach it (none: tested)."""

OPTIONAL_FAMILIES = frozenset({"linalg_decomp", "fft", "sort", "data_dependent", "random", "collective"})
"""Families a backend may leave out: linalg factorizations, fft, sorting and selection,
data-dependent shapes, random draws (the generator's contract is the backend's own), collectives
(communication between ranks: no computation on one rank expresses it)."""


OPTIONAL_SPECIAL = frozenset(p.name for p in prims.catalog() if p.optional is not None)
"""Special functions a backend may leave out: no formula in other prims matches eager's numerics
(each prim's ``optional`` field in the catalog says why). They are elementwise prims; ``core_gap`` excludes them as it
excludes ``OPTIONAL_FAMILIES``."""


HOST_PRIMS = frozenset({"item", "device_put"})
"""Prims a backend's runtime provides rather than its kernels, outside the core set and never lowered:
``item`` returns a Python number read on the host (a sync point; no prim yields a Python value), and
``device_put`` moves a tensor between devices (no prim computes on two devices)."""


REINTERPRETING_PRIMS = frozenset({"bitcast_convert_type", "view_as_real", "view_as_complex"})
"""Prims that read a tensor's bytes as another dtype, outside the core set and never lowered: no
arithmetic prim sees a value's bit pattern (a nan's payload and sign), and ``as_strided`` keeps its
operand's dtype. A backend implements them as a bitcast / dtype view, or leaves them out."""

OPTIONAL_PRIMS = OPTIONAL_SPECIAL | HOST_PRIMS | REINTERPRETING_PRIMS
"""Every prim a backend may leave out by name (with ``OPTIONAL_FAMILIES``, by family)."""


def core_gap(dtypes=None) -> list[str]:
    """The prims outside ``OPTIONAL_FAMILIES`` and ``OPTIONAL_PRIMS`` that do not reach ``CORE_PRIMS``
    (at ``dtypes``)."""
    return sorted(p.name for p in prims.catalog()
                  if p.family not in OPTIONAL_FAMILIES and p.name not in OPTIONAL_PRIMS
                  and p.name in unreachable(CORE_PRIMS, dtypes))
