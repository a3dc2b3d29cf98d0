"""The table's entries for CompositeImplicitAutograd ops, under make_fx too.

make_fx and AOTAutograd run a CompositeImplicitAutograd ("CIA") op — ``torch.softmax``,
``F.conv2d``, ``F.layer_norm``, ``torch.absolute``, ``F.one_hot``, ``F.rms_norm``, ... — through
torch's own C++ composite before any decomposition table is consulted, so a table entry for such
an op is never called there (torch.export's ``run_decompositions`` does call it). The composite
may also leave a program that the table's entry would not (``rms_norm`` computes in the input
dtype, ``one_hot`` and circular ``pad`` write into views of intermediates).

Inside ``composites(table)`` every CIA op that ``table`` has an entry for runs that entry: the
entry becomes the op's Python kernel for the CompositeImplicitAutograd key and the Python
dispatcher is on. (The Python dispatcher also runs the Python kernels torch itself registers above
autograd for a few ops, upsample_nearest and native_batch_norm among them; where the table has an
entry, it replaces those too.) ``trace`` uses it, so a traced graph is the table's and the OpInfo tests
exercise the entries that export uses. For your own ``make_fx`` call:

    with decompositions.composites(table):
        gm = make_fx(fn, decomposition_table=table)(*args)
"""
from __future__ import annotations

import contextlib
import functools
import threading

import torch
from torch._dispatch.python import enable_python_dispatcher

from primkit.decompositions.registry import entry

_CIA = torch._C.DispatchKey.CompositeImplicitAutograd
_ABOVE_AUTOGRAD = (_CIA, torch._C.DispatchKey.Autograd)


@functools.lru_cache(maxsize=None)
def is_composite(op) -> bool:
    """Whether ``op`` (an OpOverload) has a CompositeImplicitAutograd kernel."""
    return isinstance(op, torch._ops.OpOverload) and \
        torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), _CIA)


_KEYS: dict = {}   # id(op) -> override_keys(op): OpOverloads are long-lived, and hashing one is slow


def override_keys(op) -> tuple:
    """The keys at which a table entry for ``op`` must be its Python kernel: CompositeImplicitAutograd
    for a CIA op, and any key above autograd where torch registers a Python kernel of its own
    (torch's own Python kernels for upsample_nearest, batch norm, dropout, ...), which the Python dispatcher runs."""
    keys = _KEYS.get(id(op))
    if keys is None:
        keys = _KEYS[id(op)] = tuple(k for k in _ABOVE_AUTOGRAD if k in op.py_kernels or
                                     (k is _CIA and is_composite(op))) if isinstance(op, torch._ops.OpOverload) else ()
    return keys


# Installed kernels are shared by all threads and stay installed: the first ``composites`` block that
# needs one installs a dispatching kernel per (op, key), which reads the calling thread's tables; outside
# every block (in this thread) it runs torch's own kernel for the key (torch's previous Python kernel, else
# the C++ one), so torch's behaviour is unchanged, and a thread outside the block (a plain make_fx
# elsewhere) gets torch's behaviour even while another thread traces with primkit's table. Keeping them
# installed makes entering a block cheap: installing clears the op's dispatch cache, and a trace enters
# a block each time (uninstalling on exit cost ~10% of a small trace).
_LOCK = threading.RLock()
_INSTALLED: set = set()        # (op, key) pairs with a dispatching kernel
_ACTIVE = threading.local()    # .tables: the calling thread's tables, innermost last
_SEEN: set = set()             # ids of the ops whose kernels are installed where they need to be


def _active_entry(op):
    for table in reversed(getattr(_ACTIVE, "tables", ())):
        fn = table.get(op)
        if fn is not None:
            return fn
    return None


def _traced_kernel(op):
    """For an op of ``ABOVE_AUTOGRAD``: its kernel there when the make_fx / AOTAutograd trace running now
    was handed a table holding primkit's own entry for the op (the proxy mode's table), else None."""
    table = tracing_table()
    fn = table.get(op) if table is not None else None
    return ABOVE_AUTOGRAD[op] if fn is not None and fn is entry(op) else None


def tracing_table():
    """The decomposition table of the make_fx / AOTAutograd trace running now (its proxy mode's), or None."""
    from torch.fx.experimental import proxy_tensor

    mode = proxy_tensor.get_proxy_mode()
    if mode is None:
        return None
    table = getattr(mode, "decomposition_table", None)
    # torch 2.11 keeps the table in a module global of proxy_tensor, set while make_fx traces
    return table if table is not None else proxy_tensor.CURRENT_DECOMPOSITION_TABLE


def _dispatching_kernel(op, key, previous):
    def kernel(*args, **kwargs):
        fn = _active_entry(op) or (_traced_kernel(op) if op in ABOVE_AUTOGRAD else None)
        out = fn(*args, **kwargs) if fn is not None else NotImplemented
        if out is not NotImplemented:      # (make_fx's reading: NotImplemented leaves the op to torch)
            return out
        if previous is not None:
            return previous(*args, **kwargs)
        return op._op_dk(key, *args, **kwargs)     # torch's C++ kernel for this key
    kernel.__name__ = f"primkit_{op.name()}_{key}"
    return kernel


def _install(op, key):
    with _LOCK:
        if (op, key) not in _INSTALLED:
            op.py_kernels[key] = _dispatching_kernel(op, key, op.py_kernels.get(key))
            op._dispatch_cache.clear()
            _INSTALLED.add((op, key))


# Composites whose C++ form no table can mend: an op registered here with ``above_autograd`` runs the
# given kernel at the CompositeImplicitAutograd key whenever a make_fx / AOTAutograd trace holds primkit's
# own entry for the op in its table (torch's composite runs in any other case: eager, other tables). The
# kernel runs above autograd, so it is written in ops that autograd and functionalization handle.
ABOVE_AUTOGRAD: dict = {}


def above_autograd(op, kernel):
    """Install ``kernel`` for the CompositeImplicitAutograd op ``op`` as described above (for good)."""
    if not is_composite(op):
        raise ValueError(f"above_autograd: {op.name()} has no CompositeImplicitAutograd kernel")
    ABOVE_AUTOGRAD[op] = kernel
    for key in override_keys(op):
        _install(op, key)


def install(table) -> None:
    """Install the dispatching kernels that ``composites(table)`` needs (once per op per process)."""
    if not _SEEN.issuperset(map(id, table)):   # a table seen before is checked in C, not op by op in Python
        for op in table:
            if id(op) not in _SEEN:
                for key in override_keys(op):
                    if (op, key) not in _INSTALLED:
                        _install(op, key)
                _SEEN.add(id(op))     # OpOverloads live as long as the process


@contextlib.contextmanager
def composites(table, *, installed=False):
    """Within the block, the CompositeImplicitAutograd ops that ``table`` has entries for run
    those entries (under make_fx, AOTAutograd and eager alike) in this thread. Nests; other threads
    are unaffected, and so is this thread once the last block exits. ``installed``: the caller ran
    ``install(table)`` and has not changed the table since (a tracer entering a block per sample)."""
    if not installed:
        install(table)
    tables = getattr(_ACTIVE, "tables", ())
    _ACTIVE.tables = (*tables, table)
    try:
        with enable_python_dispatcher():
            yield
    finally:
        _ACTIVE.tables = tables
