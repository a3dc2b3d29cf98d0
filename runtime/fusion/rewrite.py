"""The one rewrite every re-fusion pass makes: a copy of a graph module in which each match's pattern is
replaced by what the pass emits for it, the pattern's nodes erased once nothing reads them."""
from __future__ import annotations

import operator
from typing import Callable, NamedTuple

import torch.fx as fx


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


__all__ = ["Match", "rewrite", "call", "call_results"]
