"""primkit's decomposition registry: ATen ops written in prims.

    from primkit import decompositions
    decompositions.get_decompositions(ops=None, *, target=None)   # dict[OpOverload, Callable]
    decompositions.trace(fn_or_module, *args, dynamic=False, **kwargs)  # prim-only GraphModule
    decompositions.tracing()   # context: libraries see a trace (torch.compiler.is_compiling()) under AOTAutograd
    decompositions.DecompositionError
    decompositions.requirements(fn, *args, target=None, keep=None)   # the prims (and kept ops) a program needs
    decompositions.expand_kept(gm)   # kept ATen ops (trace(keep=...)) replaced by their prims
    decompositions.canonicalize(gm), decompositions.graph_hash(gm), decompositions.group_by_module(gm)
    decompositions.through_prims(mode="strict")   # context: run a program's ATen ops through prims, eagerly (eager.py)
"""
from __future__ import annotations

from primkit import prims  # noqa: F401  (defines torch.ops.primkit before any decomposition uses it)
from primkit.decompositions.registry import DecompositionError, register, registered
from primkit.decompositions.table import get_decompositions
from primkit.decompositions.trace import check_prim_only, non_prim_ops, requirements, trace, tracing
from primkit.decompositions.canonicalize import ModuleGroup, canonicalize, graph_hash, group_by_module
from primkit.decompositions.backend import expand_kept
from primkit.decompositions.eager import ThroughPrims, through_prims

# Each module registers its decompositions on import; one module (nn: one package) per op family.
from primkit.decompositions import (  # noqa: E402,F401
    aliases, backward, c10d, collective, complex, creation, elementwise, fft, fsdp, indexing, linalg, nn, random,
    reductions, shape, sorting, special,
)

__all__ = ["get_decompositions", "trace", "DecompositionError", "register", "registered",
           "check_prim_only", "non_prim_ops", "tracing", "canonicalize", "graph_hash", "group_by_module", "ModuleGroup",
           "requirements", "expand_kept", "through_prims", "ThroughPrims"]
