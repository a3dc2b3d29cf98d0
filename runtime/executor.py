"""The executor: a prim graph compiled to straight-line calls of torch kernels.

    from primkit.runtime import executor

    from primkit.graph import trace
    gm = trace(model, x)
    run = executor.compile(gm)       # a GraphModule: same nodes, each calling its kernel
    run(x)                           # the values and strides of gm(x), at eager's speed

The reference backend (``torch.ops.primkit.*``) runs, on every call of every prim, the dispatcher,
the meta rule and a copy of every output that shares storage with an input (``unalias``). The graph
was traced under fake tensors with those meta rules, so its checks already ran: the executor calls
each prim's reference implementation directly. A view prim returns a real view where that cannot
be observed, that is unless a write (``copy_to``, or any op whose schema writes an argument) into
the storage it views comes after it; there, and for an op whose result is written into, the
executor makes the reference backend's copy. Everything else (placeholders, ``get_attr`` module
state, SymInt bookkeeping, ATen ops left in a graph) runs as it is, so writes into graph inputs and
module state reach their targets as under the reference backend.

A graph from ``trace`` keeps its call guard (the compiled module checks its arguments as the traced
one does); a graph from make_fx, export or AOTAutograd is called with its flat inputs.
"""
from __future__ import annotations

import functools

import torch
import torch.fx as fx

from primkit import prims
from primkit.prims.registration import laid_out_impl, unalias

__all__ = ["compile", "kernel_of"]


def compile(gm: fx.GraphModule, *, constants: bool = True, kernels=None) -> fx.GraphModule:   # noqa: A001
    """A GraphModule with gm's nodes, each prim node calling its torch kernel instead of the prim op.
    ``constants``: compute values made from constants alone once, here (see ``_constants``).
    ``kernels``: (prim name, owned) -> the callable to run, instead of ``kernel_of``."""
    kernels = kernels or kernel_of
    graph = fx.Graph()
    env: dict = {}
    owned = _owned_nodes(gm.graph)
    constants = _constants(gm.graph, owned) if constants else {}
    values: dict = {}
    for node in gm.graph.nodes:
        if node in constants:
            values[node] = _evaluate(node, values)
            if constants[node]:
                env[node] = graph.get_attr(f"_primkit_constant_{len(values)}")
                env[node].meta = dict(node.meta)
            continue
        new = graph.node_copy(node, lambda n: env[n])
        if node.op == "call_function" and prims.is_prim(node.target):
            prim = prims.get(node.target._opname)
            args, kwargs = _schema_call(node.target, new.args, new.kwargs)
            new.target = kernels(prim.name, node in owned)
            if prim.family == "collective" and not _read_through_wait(node):
                new.target = _completed(prim.name)
            new.args, new.kwargs = args, kwargs
        env[node] = new
    # gm's attributes by reference (module state is read at each call), and the constants
    root = {n.target: _get_path(gm, n.target) for n in gm.graph.nodes if n.op in ("get_attr", "call_module")}
    root.update({f"_primkit_constant_{i}": values[node] for i, node in enumerate(values, 1) if constants[node]})
    out = fx.GraphModule(root, graph, class_name="ExecutorGraphModule")
    out.meta = dict(getattr(gm, "meta", {}))
    guard = gm.__dict__.get("_primkit_guard")
    if guard is not None:
        from primkit.graph import guards
        out = guards.wrap(out, guard)
    return out


@functools.lru_cache(maxsize=None)
def kernel_of(name: str, owned: bool = False):
    """The callable the executor runs for prim ``name``: its reference implementation, results in the
    catalog's ``layout``; with ``owned``, followed by the reference backend's copy of a result that shares
    an input's storage. A collective starts torch's functional collective, and ``wait`` waits for it
    (``prims.reference.collective.ASYNC``), so the compute between them overlaps the communication."""
    from primkit.prims.reference.collective import ASYNC
    impl = ASYNC.get(name) or laid_out_impl(prims.get(name))
    if not owned:
        return impl

    def kernel(*args, **kwargs):
        return unalias(impl(*args, **kwargs), args, kwargs)
    kernel.__name__ = kernel.__qualname__ = f"{name}_owned"
    return kernel


def _read_through_wait(node) -> bool:
    """Whether every reader of a collective's result is a ``wait`` (a graph read it without one, or
    returns it: its value is needed where it is made)."""
    return all(prims.is_prim(u.target) and u.target._opname == "wait" for u in node.users)


@functools.lru_cache(maxsize=None)
def _completed(name: str):
    """The collective's kernel, waited at once: for a result read without a ``wait``."""
    from primkit.prims.reference.collective import ASYNC
    start, wait = ASYNC.get(name), ASYNC["wait"]
    if start is None or name == "wait":
        return kernel_of(name)

    def completed(*args, **kwargs):
        return wait(start(*args, **kwargs))
    completed.__name__ = completed.__qualname__ = f"{name}_completed"
    return completed


# Families whose kernels always return a new tensor: a hoisted constant may feed them (a view or a
# kernel that can return its input, e.g. reshape, would let a graph output alias the constant).
_ALLOCATING_FAMILIES = {"elementwise_binary", "elementwise_ternary", "linalg", "reductions"}
_NOT_CONSTANT_TAGS = {"random", "stateful", "nondeterministic", "mutates", "data_dependent", "collective"}


def _constants(graph: fx.Graph, owned: set) -> dict:
    """The prim nodes computed from constants alone (``scalar_tensor``, ``full``, a broadcast of
    one): node -> whether the compiled graph reads it as a constant computed once at compile time
    (the others feed only constants). A constant is read only by kernels that allocate their result,
    so no graph output or write can reach its storage."""
    const = {}
    for node in graph.nodes:
        if node.op != "call_function" or not prims.is_prim(node.target) or node in owned:
            continue
        prim = prims.get(node.target._opname)
        if prim.tags & _NOT_CONSTANT_TAGS or not all(a in const for a in node.all_input_nodes):
            continue
        if not isinstance(node.meta.get("val"), torch.Tensor) or any(
                not isinstance(s, int) for s in node.meta["val"].shape):
            continue
        const[node] = True

    def safe(user):
        return user in const or (user.op == "call_function" and prims.is_prim(user.target)
                                 and prims.get(user.target._opname).family in _ALLOCATING_FAMILIES)
    changed = True
    while changed:
        changed = False
        for node in list(const):
            if not all(safe(u) for u in node.users) or not all(a in const for a in node.all_input_nodes):
                del const[node]
                changed = True
    return {n: any(u not in const for u in n.users) for n in const}


def _evaluate(node, values):
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    args, kwargs = _schema_call(node.target, *fx.node.map_arg((node.args, node.kwargs), lambda n: values[n]))
    with unset_fake_temporarily():   # a real constant, also where a compiler runs under a fake mode
        return kernel_of(node.target._opname)(*args, **kwargs)


def _get_path(module, name):
    for part in name.split("."):
        module = getattr(module, part)
    return module


def _schema_call(op, args, kwargs):
    """The call as the dispatcher hands it to a Python kernel: positional arguments in schema
    order, keyword-only ones as keywords."""
    schema = op._schema
    if not kwargs:
        return args, {}
    pos, kw = list(args), {}
    for i, a in enumerate(schema.arguments):
        if a.kwarg_only:
            if a.name in kwargs:
                kw[a.name] = kwargs[a.name]
        elif i >= len(args):
            pos.append(kwargs[a.name])
    return tuple(pos), kw


def _written_args(node) -> list:
    """The graph values node writes into (an argument its schema annotates ``(a!)``)."""
    if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
        return []
    schema = node.target._schema
    if not schema.is_mutable:
        return []
    out = []
    for i, a in enumerate(schema.arguments):
        if a.alias_info is not None and a.alias_info.is_write:
            v = node.args[i] if i < len(node.args) else node.kwargs.get(a.name)
            out += [x for x in (v if isinstance(v, (list, tuple)) else [v]) if isinstance(x, fx.Node)]
    return out


def _is_view(node) -> bool:
    return prims.is_prim(node.target) and "view" in prims.get(node.target._opname).tags


def _allocates(node) -> bool:
    """Whether node's kernel always returns new tensors: a prim of an allocating family, or a function marked
    ``allocates`` (a re-fusion pass's call of eager's kernel, runtime/fusion)."""
    if prims.is_prim(node.target):
        return prims.get(node.target._opname).family in _ALLOCATING_FAMILIES
    return getattr(node.target, "allocates", False) is True


def _owned_nodes(graph: fx.Graph) -> set:
    """The prim nodes whose result must own its storage, as under the reference backend.

    A node's result may share storage with its tensor arguments (a view prim's does; so may a
    torch kernel's that returns its input, e.g. ``reshape``): its *roots* are the placeholders,
    ``get_attr`` nodes and owned results it may alias. A written value is made a root of its own
    (a written view or result is owned), so each write names one root. A node is owned when it
    reads, through its arguments' roots, a root written after it: eager-style aliasing would let it
    (or what it returns) see the write, which the reference backend's copies do not. A prim that always
    allocates its result (``_ALLOCATING_FAMILIES``) has no roots: it sees no later write (batch norm's
    running statistics, written back at the end of a training forward, made every prim computed from them
    owned, each call then checking its result's storage against its inputs')."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    owned = set()
    last_write: dict = {}
    for node in graph.nodes:
        for dst in _written_args(node):
            if dst.op == "call_function":
                owned.add(dst)
            last_write[dst] = max(last_write.get(dst, -1), order[node])
    roots: dict = {}
    for node in graph.nodes:
        if node.op in ("placeholder", "get_attr"):
            roots[node] = {node}
            continue
        if node.op != "call_function":
            continue
        if _allocates(node):   # a new tensor: it aliases nothing, and no later write into its inputs reaches it
            roots[node] = {node} if node in owned else set()   # (owned already: it is written itself)
            continue
        mine = set().union(*(roots.get(a, ()) for a in node.all_input_nodes))
        if _written_args(node):
            # a write returns its destination: it aliases what it writes
            roots[node] = set().union(*(roots.get(a, {a}) for a in _written_args(node)))
            continue
        if prims.is_prim(node.target) and any(last_write.get(r, -1) > order[node] for r in mine):
            owned.add(node)
        roots[node] = {node} if node in owned else mine
    return owned
