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

Eager's aliasing is kept. A view prim (catalog tag ``view``) returns a real view of its operand
here, not the reference backend's copy, so an ATen view op's result shares its input's storage and
a write through it reaches its base; an in-place or out= op returns the very tensor it wrote.

What runs eager's kernel and is not counted as undecomposed (``PASSTHROUGH``): reading a tensor's
value on the host (``aten._local_scalar_dense``: ``.item()``, ``bool(t)``, printing), which no prim
can express, since a prim's result is a tensor.
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
from primkit.prims.registration import run_meta

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
    - ``passthrough``: Counter of ATen op name -> calls of ``PASSTHROUGH`` ops.
    """

    def __init__(self, mode: str = "strict", table=None):
        super().__init__()
        if mode not in _MODES:
            raise ValueError(f"through_prims: mode must be one of {', '.join(map(repr, _MODES))}, got {mode!r}")
        self.mode = mode
        self.table = get_decompositions() if table is None else table
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
        return _written(func, args, kwargs, out)


def _missing(func) -> DecompositionError:
    error = DecompositionError([func.name()], "through_prims(mode='strict'): ")
    error.add_note("To run such ops by eager's kernel and record them, use "
                   "primkit.decompositions.eager.through_prims(mode='permissive'); "
                   "its .undecomposed then counts them by name.")
    return error


_VIEW_KERNELS: dict = {}   # prim op -> its reference implementation, for the view prims


def _run_prim(func, args, kwargs):
    """A prim on real tensors: its reference implementation through torch.ops.primkit, except that a view
    prim returns a real view (after its meta rule's checks) where the op would return a copy."""
    impl = _VIEW_KERNELS.get(func)
    if impl is None:
        prim = prims.get(func._opname)
        if "view" not in prim.tags:
            return func(*args, **kwargs)
        impl = _VIEW_KERNELS[func] = resolve_impl(prim.impl)
    run_meta(prims.get(func._opname), args, kwargs)
    return impl(*args, **kwargs)


def _written(func, args, kwargs, out):
    """For an op that writes an argument and returns it (in-place, out=), that argument itself, as eager returns
    it; else ``out``."""
    schema = func._schema
    written = [a for a in schema.returns if a.alias_info is not None and a.alias_info.is_write]
    if not written:
        return out
    by_set = {}
    for i, a in enumerate(schema.arguments):
        if a.alias_info is not None and a.alias_info.is_write:
            value = kwargs[a.name] if a.name in kwargs else args[i] if i < len(args) and not a.kwarg_only else None
            by_set[frozenset(a.alias_info.before_set)] = value
    results = [by_set.get(frozenset(r.alias_info.before_set)) if r.alias_info is not None else None
               for r in schema.returns]
    if len(schema.returns) == 1:
        return results[0] if results[0] is not None else out
    return tuple(r if r is not None else o for r, o in zip(results, out))


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
