"""Effectful ATen ops in graphs that AOTAutograd made: ``lower_effects(gm)``.

AOTAutograd's functionalization wraps an op that torch registers as having side effects
(``aten._linalg_check_errors``, which eager's linalg composites call after a factorization:
linalg.inv, solve, cholesky, lu_factor, ...) in the ``with_effects`` higher-order op, threading an
effect token through the graph, before the decomposition table is consulted (the ops that call it are
CompositeImplicitAutograd, decomposed by torch before the table sees them). So a forward or backward
graph reaches the compiler as ``with_effects(token, op, *args)``. ``lower_effects`` replaces each such
node by the prims of ``op``'s table entry (for ``_linalg_check_errors``: the info tensor read on the
host and checked by ``aten._assert_scalar``, which raises where the graph runs, as eager raises); the
token passes through unchanged, so the graph keeps AOTAutograd's signature. The ``primkit``
torch.compile backend runs it on every graph (``primkit_inductor`` leaves with_effects to Inductor); a
compiler given to ``aot_function`` calls it first. It also makes each host read the item prim
(``trace.items_as_prims``): a C++ composite that AOTAutograd runs before the table (narrow.Tensor's
``start.item()``) reads with ``aten._local_scalar_dense``, not through aten.item's entry.
"""
from __future__ import annotations

import operator

import torch
import torch.fx as fx

from primkit.graph.trace import items_as_prims

__all__ = ["lower_effects"]


def _with_effects():
    from torch._higher_order_ops.effects import with_effects
    return with_effects


def _example(value):
    """A real tensor shaped like a node's (fake) value, sizes at their hints, to trace an entry on."""
    if not isinstance(value, torch.Tensor):
        return value
    shape = [s if isinstance(s, int) else (s.node.hint if s.node.hint is not None else 1) for s in value.shape]
    return torch.zeros(shape, dtype=value.dtype, device=value.device)


def _entry_graph(entry, args, kwargs) -> tuple[fx.GraphModule, list[int]]:
    """entry(*args, **kwargs) traced to prims (symbolic sizes: a value read from data is an unbacked
    number, as under torch.compile), with the positions of args that are graph nodes as its inputs."""
    from torch._guards import tracing
    from torch._subclasses.fake_tensor import FakeTensorMode, unset_fake_temporarily
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    at = [i for i, a in enumerate(args) if isinstance(a, fx.Node)]

    def call(*tensors):
        full = list(args)
        for i, t in zip(at, tensors, strict=True):
            full[i] = t
        out = entry(*full, **kwargs)
        return () if out is None else tuple(out) if isinstance(out, (tuple, list)) else (out,)
    # its own fake mode with a ShapeEnv, outside AOTAutograd's (which compilers run inside, and which has no
    # ShapeEnv without dynamic shapes)
    with unset_fake_temporarily(), tracing(None):
        mode = FakeTensorMode(shape_env=ShapeEnv())
        examples = [mode.from_tensor(_example(args[i].meta.get("val"))) for i in at]
        return make_fx(call, tracing_mode="symbolic")(*examples), at


def _inline(gm, node, sub, inputs) -> list:
    """sub's nodes copied into gm before node, sub's placeholders read from inputs; sub's outputs."""
    env = dict(zip([n for n in sub.graph.nodes if n.op == "placeholder"], inputs, strict=True))
    with gm.graph.inserting_before(node):
        for n in sub.graph.nodes:
            if n.op == "output":
                return [env[o] if isinstance(o, fx.Node) else o for o in n.args[0]]
            if n.op != "placeholder":
                env[n] = gm.graph.node_copy(n, lambda x: env[x])
    raise AssertionError("a graph without an output node")


def lower_effects(gm: fx.GraphModule, decompositions=None) -> fx.GraphModule:
    """gm with each ``with_effects(token, op, *args)`` whose op has an entry in ``decompositions``
    (primkit's table by default) replaced, in place, by that entry's prims; the new token is the old
    one. A with_effects of an op without an entry stays (check_prim_only names it). Host reads become
    the item prim (trace.items_as_prims)."""
    if decompositions is None:
        from primkit.decompositions import get_decompositions
        decompositions = get_decompositions()
    with_effects = _with_effects()
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target is not with_effects:
            continue
        token, op, *args = node.args
        entry = decompositions.get(op)
        if entry is None:
            continue
        sub, at = _entry_graph(entry, args, dict(node.kwargs))
        outputs = _inline(gm, node, sub, [args[i] for i in at])
        for user in list(node.users):
            if user.op != "call_function" or user.target is not operator.getitem:
                raise AssertionError(f"lower_effects: with_effects({op}) is used by {user.format_node()}")
            index = user.args[1]
            user.replace_all_uses_with(token if index == 0 else outputs[index - 1])
            gm.graph.erase_node(user)
        gm.graph.erase_node(node)
    items_as_prims(gm)
    gm.graph.lint()
    gm.recompile()
    return gm
