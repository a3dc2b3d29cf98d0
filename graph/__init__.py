"""primkit's graph pipeline: a torch program traced to a prim-only torch.fx graph, and that graph's
checks and canonical form. It sits on the decompositions (the ATen -> prims table it traces with).

    from primkit import graph
    graph.trace(fn_or_module, *args, dynamic=False, target=None, keep=None, **kwargs)  # prim-only GraphModule
    graph.tracing()   # context: libraries see a trace (torch.compiler.is_compiling()) under AOTAutograd
    graph.check_prim_only(gm), graph.non_prim_ops(gm)
    graph.requirements(fn, *args, target=None, keep=None)   # the prims (and kept ops) a program needs
    graph.expand_kept(gm)   # kept ATen ops (trace(keep=...)) replaced by their prims
    graph.lower_effects(gm)   # AOTAutograd's with_effects nodes (linalg's error checks) replaced by prims
    graph.canonicalize(gm), graph.graph_hash(gm), graph.group_by_module(gm)

Modules: ``trace`` (the entry point and make_fx's path), ``dispatch_tracer`` (the path that traces with
one dispatch mode over fake tensors), ``guards`` (the checks of what a graph was specialized on),
``targets`` (backend targets: prims outside a target set, ATen ops kept whole), ``effects`` (AOTAutograd's
with_effects nodes), ``canonicalize``.
"""
from __future__ import annotations

from primkit.graph.trace import check_prim_only, non_prim_ops, requirements, trace, tracing
from primkit.graph.canonicalize import ModuleGroup, canonicalize, graph_hash, group_by_module
from primkit.graph.targets import expand_kept
from primkit.graph.effects import lower_effects

__all__ = ["trace", "tracing", "check_prim_only", "non_prim_ops", "requirements", "expand_kept", "lower_effects",
           "canonicalize", "graph_hash", "group_by_module", "ModuleGroup"]
