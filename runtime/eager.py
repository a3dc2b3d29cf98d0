"""Eager execution through prims: every ATen op of a program runs through its decomposition, on real tensors.

    from primkit.runtime.eager import through_prims

    with through_prims() as run:          # mode="strict": an op without a decomposition raises
        y = model(x)                      # each ATen op runs as its decomposition, down to prims
        if y.sum().item() > 0:            # real tensors: data-dependent control flow, .item(), print
            print(y)
    run.prims                             # Counter: prim name -> how many times it ran
    with through_prims(mode="permissive") as run:
        ...
    run.undecomposed                      # Counter: ATen op name -> calls that ran eager's kernel
    with torch.no_grad(), through_prims(lazy=True) as run:
        y = model(x)                      # a LazyTensor: prims recorded, run on the executor at a sync point

A ``TorchDispatchMode`` sees every ATen op that reaches torch's kernels (below autograd) and runs
the op's entry of ``get_decompositions()`` instead, with the mode still active, so the ATen ops the
entry calls are decomposed in turn until only prims run; a prim runs its meta rule's checks, then
the catalog's torch kernel, as ``torch.ops.primkit.<name>`` runs them. The table's entries for
CompositeImplicitAutograd ops (softmax, layer_norm, conv2d, ...), which torch expands above
autograd before any mode sees them, run through ``composites(table)``. Autograd is eager's: it
records each op above the mode, with torch's derivative formula (a CompositeImplicitAutograd op's
entry runs above autograd: its prims' formulas), and the backward's ATen ops are dispatched to the
mode too, so a training step runs forward and backward through prims.

Eager's aliasing is kept. A prim returns what its reference implementation returns, without the
reference backend's copy of a result that shares an input's storage, so a view prim gives a real
view and an ATen view op's result shares its input's storage (a write through it reaches the base);
an ATen op whose schema aliases nothing gets a copy of any such result instead; an in-place or out=
op returns the very tensor it wrote. (Where a decomposition makes a new tensor for a view, eager's
aliasing is lost: ``view(dtype)``, ``_conj``, ``narrow`` with a tensor start; see docs/eager.md.)

What runs eager's kernel without counting as undecomposed (``.passthrough``): an op without an entry
that gives only host values and writes no tensor (``aten._local_scalar_dense`` for ``.item()`` and
``bool(t)``; the profiler's records), which no prim can express, since a prim's results are tensors, and
``aten.resize_`` and ``as_strided_`` of an out= tensor of another shape than its result (resized as
eager resizes it).
Printing formats outside the mode: torch disables dispatch modes while it formats a tensor. A
CompositeImplicitAutograd op without an entry, reached inside an entry, runs torch's composite, whose
ATen ops come back to the mode (as make_fx does).

The lazy variant (``lazy=True``, inference only) records each prim after its meta rule ran, on
``LazyTensor``s, and runs the recorded prims as one graph on ``executor.compile`` at sync points
(``_Recorder``).
"""
from __future__ import annotations

import collections
import contextlib
import operator

import torch
import torch.utils._pytree as pytree
from torch._dispatch.python import no_python_dispatcher
from torch.utils._mode_utils import no_dispatch
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes, _get_current_dispatch_mode_stack

from primkit import prims
from primkit.runtime import executor
from primkit.decompositions.composite import composites, is_composite
from primkit.decompositions.registry import DecompositionError
from primkit.decompositions.table import get_decompositions, without_host_reads
from primkit.prims.meta import TensorMeta
from primkit.prims.registration import run_meta, unalias

__all__ = ["through_prims", "ThroughPrims", "LazyTensor"]


def _host_value(func) -> bool:
    """Whether ``func`` gives only host values and writes no tensor: a tensor's value read on the host
    (``_local_scalar_dense``, for ``.item()``), a profiler record. No prim can give one, since a prim's results
    are tensors."""
    schema = func._schema
    return not any("Tensor" in str(r.type) for r in schema.returns) and \
        not any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)


# An out= tensor of another shape is resized in place by eager's own kernel (``decompositions.common.resize_output``):
# memory, not compute, which no prim expresses (a prim's results are new tensors).
_RESIZE = (torch.ops.aten.resize_.default, torch.ops.aten.as_strided_.default)

_MODES = ("strict", "permissive")


class ThroughPrims(TorchDispatchMode):
    """The mode ``through_prims`` enters; after the block it holds what ran:

    - ``prims``: Counter of prim name -> calls;
    - ``undecomposed``: Counter of ATen op name -> calls that ran eager's kernel (permissive mode);
    - ``passthrough``: Counter of op name -> calls of ops that give only host values (the module's doc).
    """

    def __init__(self, mode: str = "strict", lazy: bool = False):
        super().__init__()
        if mode not in _MODES:
            raise ValueError(f"through_prims: mode must be one of {', '.join(map(repr, _MODES))}, got {mode!r}")
        self.mode = mode
        self.table = without_host_reads(get_decompositions())
        self.lazy = _Recorder() if lazy else None
        self.prims: collections.Counter = collections.Counter()
        self.undecomposed: collections.Counter = collections.Counter()
        self.passthrough: collections.Counter = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func.namespace == prims.NAMESPACE:
            self.prims[func._opname] += 1
            if self.lazy is not None and self.lazy.records(func):
                return self.lazy.record(func, args, kwargs)
            with no_python_dispatcher():   # a prim's torch kernel runs torch's own composites, not the table's
                return _run_prim(func, *_values(self.lazy is not None, args, kwargs))
        # a tensor of another layout than strided (a sparse gradient) has no prim: the op is eager's kernel's
        layout = _other_layout(args, kwargs)
        fn = self.table.get(func) if layout is None else None
        if fn is not None:
            with self:
                out = fn(*args, **kwargs)
            if out is not NotImplemented:      # (make_fx's reading: NotImplemented leaves the op to torch)
                return _aliasing_as_declared(func, args, kwargs, out)
        if is_composite(func) and layout is None:
            # A CompositeImplicitAutograd op without an entry, called below autograd (inside an entry): its
            # composite, whose ATen ops come back here, as make_fx expands it
            with self:
                return _aliasing_as_declared(func, args, kwargs, func.decompose(*args, **kwargs))
        if _host_value(func) or func in _RESIZE:
            self.passthrough[func.name()] += 1
        elif self.mode == "strict":
            raise _missing(func, layout)
        else:
            self.undecomposed[func.name()] += 1
        a, k = _values(self.lazy is not None, args, kwargs)
        with no_python_dispatcher():
            out = func(*a, **k)
        if self.lazy is not None and func._schema.is_mutable:
            _geometry_of_values(args, kwargs)
        return out


def _other_layout(args, kwargs):
    """The layout of the first argument tensor that is not strided, or None: an op's arguments are tensors,
    numbers or lists of them, so one level of lists is looked into (no pytree walk on every op)."""
    for a in (*args, *kwargs.values()):
        for t in (a if isinstance(a, (list, tuple)) else (a,)):
            if isinstance(t, torch.Tensor) and t.layout != torch.strided:
                return t.layout
    return None


def _missing(func, layout=None) -> DecompositionError:
    taking = f"take a {layout} tensor, a layout no prim models, and " if layout is not None else ""
    return DecompositionError([func.name()], "through_prims(mode='strict'): ",
                              f"{taking}have no decomposition to prims (through_prims(mode='permissive') runs "
                              "such an op by eager's kernel and counts it in .undecomposed)")


def _run_prim(func, args, kwargs):
    """A prim on real tensors: its meta rule's checks, then its kernel, whose result keeps torch's aliasing (the
    reference backend's op would copy a result that shares an input's storage)."""
    run_meta(prims.get(func._opname), args, kwargs)
    return executor.kernel_of(func._opname)(*args, **kwargs)


# Views whose aliasing the schema does not declare (autograd does not track it): eager returns a view, so does the mode.
_UNTRACKED_VIEWS = frozenset({torch.ops.aten._unsafe_view.default, torch.ops.aten.unsafe_split.Tensor,
                              torch.ops.aten.unsafe_split_with_sizes.default, torch.ops.aten.unsafe_chunk.default})


def _aliasing_as_declared(func, args, kwargs, out):
    """``out`` with the aliasing ``func``'s schema declares: an op whose results alias nothing (no ``Tensor(a)``)
    gets a copy of any result that shares an input's storage (prims keep torch's aliasing, so a decomposition may
    return an input as it is: ``x.to(x.dtype)`` inside ``clone``); an in-place or out= op returns the very
    tensors it wrote; a view op returns the view its prims made."""
    if not any(r.alias_info is not None for r in func._schema.returns) and func not in _UNTRACKED_VIEWS:
        lazy = [t for t in pytree.tree_leaves(out) if isinstance(t, LazyTensor)]
        if lazy:   # pending: its value is made its own when the recorder flushes
            for t in lazy:
                t._owns = True
            return out
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
def through_prims(mode: str = "strict", *, lazy: bool = False):
    """Run the block's ATen ops through their decompositions to prims, on real tensors (see the module's
    doc). ``mode="strict"``: an op without a decomposition raises DecompositionError naming it;
    ``mode="permissive"``: it runs eager's kernel and is counted in ``.undecomposed``. ``lazy=True``: prims
    are recorded on ``LazyTensor``s and run at sync points on the executor (inference only: see
    ``_Recorder``). Yields the ``ThroughPrims`` mode, whose counters say what ran."""
    dispatch = ThroughPrims(mode, lazy=lazy)
    if lazy and torch.is_grad_enabled():
        raise NotImplementedError("through_prims(lazy=True) runs inference only (autograd does not record "
                                  "LazyTensors): enter it under torch.no_grad(), or use through_prims() for training")
    try:
        with composites(_WhileActive(dispatch.table, dispatch)), dispatch:
            yield dispatch
        if dispatch.lazy is not None:
            dispatch.lazy.flush()   # leaving the block is a sync point (after an error: when a value is read)
    finally:
        if dispatch.lazy is not None:
            dispatch.lazy.active = False


# --- the lazy variant -------------------------------------------------------------------------------------------


class LazyTensor(torch.Tensor):
    """A tensor whose value a pending prim graph computes: it has the prim's meta geometry (shape, strides,
    dtype, device) and no storage until its recorder flushes. Outside a lazy block, and for what reads values
    on the host (``.tolist()``, ``.numpy()``, printing, ``.cpu()``), it is its value."""

    @staticmethod
    def __new__(cls, recorder, meta):
        # a view's place in its storage too (offset and the storage's size), which what reads storage reads
        # (as_strided's default offset, its bound check), as of the value the executor's graph will give
        return torch.Tensor._make_wrapper_subclass(cls, meta.shape, strides=meta.strides, dtype=meta.dtype,
                                                   device=meta.device, storage_offset=meta.storage_offset,
                                                   storage_size=meta.storage_nbytes)

    def __init__(self, recorder, meta):
        self._recorder, self._value, self._owns = recorder, None, False

    def value(self) -> torch.Tensor:
        if self._value is None:
            self._recorder.flush()
        return self._value

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _HOST_READS or not _recorder_active((args, kwargs)):
            a, k = _values(True, args, kwargs)
            return func(*a, **k)
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **kwargs)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        # Reached with no lazy mode on the stack (torch's printing disables modes): the op runs on the values.
        a, k = _values(True, args, kwargs or {})
        return func(*a, **k)

    def __repr__(self, *, tensor_contents=None):
        return repr(self.value())


# Sync points besides .item() (aten._local_scalar_dense, a host-value op): what reads a tensor's values on the host,
# or its storage (a pending LazyTensor's is an empty one: t.set_(it) would read no memory).
_HOST_READS = frozenset({torch.Tensor.tolist, torch.Tensor.numpy, torch.Tensor.__array__, torch.Tensor.cpu,
                         torch.Tensor.data_ptr, torch.Tensor.__repr__, torch.Tensor.__str__, torch.Tensor.__format__,
                         torch.Tensor.untyped_storage, torch.Tensor.storage})


def _recorder_active(args) -> bool:
    """Whether the LazyTensors among ``args`` belong to a lazy block still open (else they are their values)."""
    return any(x._recorder.active for x in pytree.tree_leaves(args) if isinstance(x, LazyTensor))


def _values(lazy, args, kwargs):
    """args, kwargs with each LazyTensor replaced by its value (flushing its recorder where it is pending)."""
    if not lazy:
        return args, kwargs
    return pytree.tree_map_only(LazyTensor, LazyTensor.value, (args, kwargs))


# Prims that run at once, after a flush, on values: a write (``copy_to``: a real tensor is always up to date,
# and the executor's graphs do not write through views as eager does), a draw from torch's generator (draws stay
# in eager's order, also against the seeds counter-based draws take from it at decomposition time), and a result
# whose shape depends on values, and a collective (every rank calls it in program order; it runs as the reference
# backend runs it, synchronously).
_RUN_NOW = frozenset({"mutates", "stateful", "data_dependent", "collective"})


class _Recorder:
    """The pending prims of a lazy block, in program order, and their run on the executor.

    ``record`` runs a prim's meta rule (its checks and the result's geometry) and returns LazyTensors; a
    ``flush`` builds an FX graph of the pending prims (real tensors they read are its inputs; writes into
    them, ``copy_to``, happen in place), compiles it with ``executor.compile`` and hands each LazyTensor its
    value. Sync points: ``.item()`` and ops without a decomposition (permissive), host reads (``_HOST_READS``),
    leaving the block, and the prims of ``_RUN_NOW`` and those whose meta rule gives no tensor, which run on
    values after a flush."""

    def __init__(self):
        self.pending: list = []     # (op, args, kwargs, its LazyTensors, whether it returns a tuple)
        self.active = True          # until the block exits
        self.flushes = 0            # graphs run so far
        self.flushed_prims = 0      # prims they held

    def records(self, func) -> bool:
        return not prims.get(func._opname).tags & _RUN_NOW

    def record(self, func, args, kwargs):
        prim = prims.get(func._opname)
        meta = run_meta(prim, args, kwargs)
        metas = meta if isinstance(meta, tuple) else (meta,)
        if not all(isinstance(m, TensorMeta) for m in metas):
            self.flush()
            with no_python_dispatcher():
                return _run_prim(func, *_values(True, args, kwargs))
        results = tuple(LazyTensor(self, m) for m in metas)
        self.pending.append((func, args, kwargs, results, isinstance(meta, tuple)))
        return results if isinstance(meta, tuple) else results[0]

    def flush(self):
        """Run the pending prims as one graph on the executor; each pending LazyTensor gets its value."""
        if not self.pending:
            return
        pending, self.pending = self.pending, []
        self.flushes += 1
        self.flushed_prims += len(pending)
        graph = torch.fx.Graph()
        inputs, nodes = [], {}   # nodes: id(tensor) -> its node (a pending result's call, an input's placeholder)
        for func, args, kwargs, results, _ in pending:   # placeholders first, for the tensors read that have values
            for x in pytree.tree_leaves((args, kwargs)):
                if isinstance(x, torch.Tensor) and not _pending(x):
                    x = x.value() if isinstance(x, LazyTensor) else x
                    if id(x) not in nodes:
                        nodes[id(x)] = graph.placeholder(f"input_{len(inputs)}")
                        inputs.append(x)

        def node_of(x):
            if isinstance(x, LazyTensor) and not _pending(x):
                x = x.value()
            return nodes[id(x)] if isinstance(x, torch.Tensor) else x
        outputs = []
        for func, args, kwargs, results, several in pending:
            call = graph.call_function(func, *pytree.tree_map(node_of, (args, kwargs)))
            for i, r in enumerate(results):
                nodes[id(r)] = graph.call_function(operator.getitem, (call, i)) if several else call
                outputs.append(r)
        graph.output(tuple(nodes[id(r)] for r in outputs))
        run = executor.compile(torch.fx.GraphModule({}, graph))
        with no_python_dispatcher(), _disable_current_modes():
            values = run(*inputs)
        for r, v in zip(outputs, values):
            r._value = unalias(v, inputs, {}) if r._owns else v


def _geometry_of_values(args, kwargs) -> None:
    """Each LazyTensor among an op's arguments takes its value's geometry, which eager's kernel may have
    changed (resize_ of an out= tensor, set_, as_strided_): what follows records with the new one."""
    for x in pytree.tree_leaves((args, kwargs)):
        if isinstance(x, LazyTensor) and x._value is not None and \
                (x.shape, x.stride(), x.storage_offset()) != (x._value.shape, x._value.stride(), x._value.storage_offset()):
            with no_dispatch():
                x.data = x._value   # the wrapper's sizes, strides and place (as_strided_ would bound them by its storage)


def _pending(x) -> bool:
    return isinstance(x, LazyTensor) and x._value is None
