"""Eager execution through prims: every ATen op of a program runs through its decomposition, on real tensors.

    from primkit.decompositions.eager import through_prims

    with through_prims() as run:          # mode="strict": an op without a decomposition raises
        y = model(x)                      # each ATen op runs as its decomposition, down to prims
        if y.sum().item() > 0:            # real tensors: data-dependent control flow, .item(), print
            print(y)
    run.prims                             # Counter: prim name -> how many times it ran
    with through_prims(mode="permissive") as run:
        ...
    run.undecomposed                      # Counter: ATen op name -> calls that ran eager's kernel

A ``TorchDispatchMode`` sees every ATen op that reaches torch's kernels (below autograd) and runs
the op's entry of ``get_decompositions()`` instead, with the mode still active, so the ATen ops the
entry calls are decomposed in turn until only prims run; a prim runs its reference implementation
(``torch.ops.primkit.<name>``: the meta rule's checks, then its torch kernel). The table's entries
for CompositeImplicitAutograd ops (softmax, layer_norm, conv2d, ...), which torch expands above
autograd before any mode sees them, run through ``composites(table)``. Autograd is eager's: it
records each op above the mode, with torch's derivative formula, and the backward's ATen ops are
dispatched to the mode too, so a training step runs forward and backward through prims.

Eager's aliasing is kept. A prim returns what its reference implementation returns, without the
reference backend's copy of a result that shares an input's storage, so a view prim gives a real
view and an ATen view op's result shares its input's storage (a write through it reaches the base);
an ATen op whose schema aliases nothing gets a copy of any such result instead; an in-place or out=
op returns the very tensor it wrote. (Where a decomposition makes a new tensor for a view, eager's
aliasing is lost: ``view(dtype)``, ``_conj``, ``narrow`` with a tensor start; see the README.)

What runs eager's kernel without counting as undecomposed (``.passthrough``): an op without an entry
that gives only host values and writes no tensor (``aten._local_scalar_dense`` for ``.item()``,
``bool(t)`` and ``.tolist()``; ``aten.promote_types``; the profiler's records), which no prim can
express, since a prim's results are tensors. Printing formats outside the mode: torch disables
dispatch modes while it formats a tensor. A CompositeImplicitAutograd op without an entry, reached
inside an entry, runs torch's composite, whose ATen ops come back to the mode (as make_fx does).
"""
from __future__ import annotations

import collections
import contextlib

import torch
from torch._dispatch.python import no_python_dispatcher
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode_stack

from primkit import prims
from primkit.decompositions.composite import composites, is_composite
from primkit.decompositions.registry import DecompositionError, get_decompositions
from primkit.prims.loader import resolve_impl
from primkit.prims.registration import run_meta, unalias

__all__ = ["through_prims", "ThroughPrims"]


def _host_value(func) -> bool:
    """Whether ``func`` gives only host values and writes no tensor: a tensor's value read on the host
    (``_local_scalar_dense``, for ``.item()``), a dtype (``promote_types``). No prim can give one, since a prim's
    results are tensors."""
    schema = func._schema
    return not any("Tensor" in str(r.type) for r in schema.returns) and \
        not any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)


_MODES = ("strict", "permissive")


class ThroughPrims(TorchDispatchMode):
    """The mode ``through_prims`` enters; after the block it holds what ran:

    - ``prims``: Counter of prim name -> calls;
    - ``undecomposed``: Counter of ATen op name -> calls that ran eager's kernel (permissive mode);
    - ``passthrough``: Counter of op name -> calls of ops that give only host values (the module's doc).
    """

    def __init__(self, mode: str = "strict"):
        super().__init__()
        if mode not in _MODES:
            raise ValueError(f"through_prims: mode must be one of {', '.join(map(repr, _MODES))}, got {mode!r}")
        self.mode = mode
        self.table = get_decompositions()
        self.prims: collections.Counter = collections.Counter()
        self.undecomposed: collections.Counter = collections.Counter()
        self.passthrough: collections.Counter = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func.namespace == prims.NAMESPACE:
            self.prims[func._opname] += 1
            with no_python_dispatcher():   # a prim's torch kernel runs torch's own composites, not the table's
                return _run_prim(func, args, kwargs)
        fn = self.table.get(func)
        if fn is None and is_composite(func):
            # A CompositeImplicitAutograd op without an entry, called below autograd (inside an entry): its
            # composite, whose ATen ops come back here, as make_fx expands it
            fn = func.decompose
        if fn is None:
            if _host_value(func):
                self.passthrough[func.name()] += 1
            elif self.mode == "strict":
                raise _missing(func)
            else:
                self.undecomposed[func.name()] += 1
            with no_python_dispatcher():
                return func(*args, **kwargs)
        with self:
            out = fn(*args, **kwargs)
        return _aliasing_as_declared(func, args, kwargs, out)


def _missing(func) -> DecompositionError:
    error = DecompositionError([func.name()], "through_prims(mode='strict'): ")
    error.add_note("To run such ops by eager's kernel and record them, use "
                   "primkit.decompositions.eager.through_prims(mode='permissive'); "
                   "its .undecomposed then counts them by name.")
    return error


_KERNELS: dict = {}   # prim op -> (PrimDef, its reference implementation)


def _run_prim(func, args, kwargs):
    """A prim on real tensors: its meta rule's checks, then its reference implementation, whose result keeps
    torch's aliasing (the reference backend's op would copy a result that shares an input's storage)."""
    found = _KERNELS.get(func)
    if found is None:
        prim = prims.get(func._opname)
        found = _KERNELS[func] = prim, resolve_impl(prim.impl)
    prim, impl = found
    run_meta(prim, args, kwargs)
    return impl(*args, **kwargs)


# Views whose aliasing the schema does not declare (autograd does not track it): eager returns a view, so does the mode.
_UNTRACKED_VIEWS = frozenset({torch.ops.aten._unsafe_view.default, torch.ops.aten.unsafe_split.Tensor,
                              torch.ops.aten.unsafe_split_with_sizes.default, torch.ops.aten.unsafe_chunk.default})


def _aliasing_as_declared(func, args, kwargs, out):
    """``out`` with the aliasing ``func``'s schema declares: an op whose results alias nothing (no ``Tensor(a)``)
    gets a copy of any result that shares an input's storage (prims keep torch's aliasing, so a decomposition may
    return an input as it is: ``x.to(x.dtype)`` inside ``clone``); an in-place or out= op returns the very
    tensors it wrote; a view op returns the view its prims made."""
    if not any(r.alias_info is not None for r in func._schema.returns) and func not in _UNTRACKED_VIEWS:
        return unalias(out, args, kwargs)
    return _written(func, args, kwargs, out)


def _written(func, args, kwargs, out):
    """For an op that writes an argument and returns it (in-place, out=), that argument itself, as eager returns
    it; else ``out``."""
    schema = func._schema
    if not any(r.alias_info is not None and r.alias_info.is_write for r in schema.returns):
        return out
    written = {}   # alias set -> the argument written
    for i, a in enumerate(schema.arguments):
        if a.alias_info is not None and a.alias_info.is_write:
            written[frozenset(a.alias_info.before_set)] = kwargs[a.name] if a.name in kwargs else args[i]
    results = [written.get(frozenset(r.alias_info.before_set)) if r.alias_info is not None else None
               for r in schema.returns]
    if len(results) == 1:
        return out if results[0] is None else results[0]
    return tuple(o if r is None else r for r, o in zip(results, out))


class _WhileActive(dict):
    """The table, as ``composites`` reads it: its entries only while ``mode`` is on the dispatch-mode stack.
    A CompositeImplicitAutograd op reached with the mode off (inside the mode's handler: a prim's or eager's
    kernel; torch's printing, which disables dispatch modes) runs torch's own composite, as eager does."""

    def __init__(self, table, mode):
        super().__init__(table)
        self.mode = mode

    def get(self, op, default=None):
        if any(m is self.mode for m in _get_current_dispatch_mode_stack()):
            return super().get(op, default)
        return default


@contextlib.contextmanager
def through_prims(mode: str = "strict"):
    """Run the block's ATen ops through their decompositions to prims, on real tensors (see the module's
    doc). ``mode="strict"``: an op without a decomposition raises DecompositionError naming it;
    ``mode="permissive"``: it runs eager's kernel and is counted in ``.undecomposed``. Yields the
    ``ThroughPrims`` mode, whose counters say what ran."""
    dispatch = ThroughPrims(mode)
    with composites(_WhileActive(dispatch.table, dispatch)), dispatch:
        yield dispatch
