"""The one rewrite every re-fusion pass makes: a copy of a graph module in which each match's pattern is
replaced by what the pass emits for it, the pattern's nodes erased once nothing reads them."""
from __future__ import annotations

import operator
from typing import Callable, NamedTuple

import torch
import torch.fx as fx

from primkit.runtime.fusion.pattern import fake_mode_of, same_layout, tensor_of


class Match(NamedTuple):
    """A pattern found in gm's graph: ``out`` its result (whose readers read the replacement), or a tuple of
    its results (None where the pattern's value is not in the graph), ``nodes`` the pattern's nodes (erased
    where nothing reads them after the rewrite), ``args`` the replacement's arguments (gm's nodes among them
    are mapped into the copy)."""
    out: fx.Node | tuple
    nodes: tuple
    args: tuple


def rewrite(gm: fx.GraphModule, matches: list, emit: Callable) -> fx.GraphModule:
    """gm with each match replaced, in a copy of gm (its attributes and meta): ``emit(graph, out, *args)``
    returns the node that replaces ``out``, the copy of the match's result, in the copied graph (for a tuple
    of results, a tuple of nodes, one for each result that is not None)."""
    if not matches:
        return gm
    graph, env = fx.Graph(), {}
    graph.output(graph.graph_copy(gm.graph, env))
    replaced = set()
    for match in matches:
        replaced.update(env[n] for n in match.nodes)
        args = fx.node.map_arg(match.args, env.__getitem__)
        if isinstance(match.out, tuple):
            outs = tuple(None if o is None else env[o] for o in match.out)
            for out, new in zip(outs, emit(graph, outs, *args)):
                if out is not None:
                    out.replace_all_uses_with(new)
        else:
            out = env[match.out]
            out.replace_all_uses_with(emit(graph, out, *args))
    for node in reversed(list(graph.nodes)):
        if node in replaced and not node.users:
            graph.erase_node(node)
    copy = fx.GraphModule(gm, graph)
    copy.meta = dict(getattr(gm, "meta", {}))
    return copy


def call(fn: Callable) -> Callable:
    """The ``emit`` of a pass whose replacement is one call of ``fn`` on the match's arguments, with the
    replaced result's meta."""
    def emit(graph: fx.Graph, out: fx.Node, *args) -> fx.Node:
        with graph.inserting_before(out):
            node = graph.call_function(fn, args)
        node.meta.update(out.meta)
        return node
    emit.__name__ = f"call_{getattr(fn, '__name__', 'op')}"
    return emit


def call_results(fn: Callable) -> Callable:
    """The ``emit`` of a pass whose replacement is one call of ``fn`` returning a tuple, result i replacing the
    match's result i: the call before the first of the results in the graph (the pass checks that its
    arguments come before that), each result a getitem with the replaced node's meta."""
    def emit(graph: fx.Graph, outs: tuple, *args) -> tuple:
        present = set(o for o in outs if o is not None)
        first = next(n for n in graph.nodes if n in present)
        with graph.inserting_before(first):
            node = graph.call_function(fn, args)
            results = [None if o is None else graph.call_function(operator.getitem, (node, i))
                       for i, o in enumerate(outs)]
        for out, result in zip(outs, results):
            if out is not None:
                result.meta.update(out.meta)
        return tuple(results)
    emit.__name__ = f"call_results_{getattr(fn, '__name__', 'op')}"
    return emit


def allocating(fn: Callable) -> Callable:
    """Marks a pass's kernel as returning new tensors only, none sharing an argument's storage (eager's
    functional kernels): the executor's ownership analysis then knows its results see no later write into its
    arguments (a training forward's batch norm reads the running statistics written back at its end)."""
    fn.allocates = True
    return fn


def _laid_out_as(results, outs) -> bool:
    """Whether each result the graph reads has the layout of the node it replaces."""
    return all(o is None or (r is not None and same_layout(r, tensor_of(o))) for r, o in zip(results, outs))


def _before(args, first, order) -> bool:
    return all(not isinstance(a, fx.Node) or order[a] < order[first] for a in args)


def fuse_results(gm: fx.GraphModule, match: Callable, kernel: Callable, mask: bool) -> fx.GraphModule:
    """gm with each pattern ``match(node)`` finds, as (results, kernel's arguments, nodes), replaced by one call
    of ``kernel`` (its results read as the replaced nodes were; with ``mask``, the kernel's last argument says
    which results the graph reads), where the first argument is float32 / float64, the arguments come before
    the first result, and each result has the layout of the node it replaces (``same_layout``, checked on the
    nodes' fake tensors; arguments the kernel refuses leave the pattern as it is). Patterns may share nodes (a
    shared node stays while read); a result is replaced once."""
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    matches, claimed = [], set()
    for node in reversed(list(gm.graph.nodes)):
        found = None if node in claimed else match(node)
        if found is None:
            continue
        outs, args, nodes = found
        args = (*args, [o is not None for o in outs]) if mask else args
        vals = [tensor_of(a) if isinstance(a, fx.Node) else a for a in args]
        first = min((o for o in outs if o is not None), key=order.__getitem__)
        if claimed & set(outs) or any(v is None for a, v in zip(args, vals) if isinstance(a, fx.Node)) \
                or vals[0].dtype not in (torch.float32, torch.float64) or not _before(args, first, order):
            continue
        try:
            with fake_mode_of(vals[0]):
                results = kernel(*vals)
        except RuntimeError:   # arguments that are not the kernel's (sizes that do not fit each other)
            continue
        if _laid_out_as(results, outs):
            claimed.update(nodes)
            matches.append(Match(outs, tuple(nodes), args))
    return rewrite(gm, matches[::-1], call_results(kernel))


__all__ = ["Match", "rewrite", "call", "call_results", "fuse_results", "allocating"]
