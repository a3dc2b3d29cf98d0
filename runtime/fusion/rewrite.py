"""The one rewrite every re-fusion pass makes: a copy of a graph module in which each match's pattern is
replaced by what the pass emits for it, the pattern's nodes erased once nothing reads them."""
from __future__ import annotations

from typing import Callable, NamedTuple

import torch.fx as fx


class Match(NamedTuple):
    """A pattern found in gm's graph: ``out`` its result (whose readers read the replacement), ``nodes`` the
    pattern's nodes (erased where nothing reads them after the rewrite), ``args`` the replacement's
    arguments (gm's nodes among them are mapped into the copy)."""
    out: fx.Node
    nodes: tuple
    args: tuple


def rewrite(gm: fx.GraphModule, matches: list, emit: Callable) -> fx.GraphModule:
    """gm with each match replaced, in a copy of gm (its attributes and meta): ``emit(graph, out, *args)``
    returns the node that replaces ``out``, the copy of the match's result, in the copied graph."""
    if not matches:
        return gm
    graph, env = fx.Graph(), {}
    graph.output(graph.graph_copy(gm.graph, env))
    replaced = set()
    for match in matches:
        replaced.update(env[n] for n in match.nodes)
        out = env[match.out]
        out.replace_all_uses_with(emit(graph, out, *fx.node.map_arg(match.args, env.__getitem__)))
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


__all__ = ["Match", "rewrite", "call"]
