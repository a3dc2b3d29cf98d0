"""Backend targets: what a graph needs outside a backend's prim set and ATen ops kept whole (``requirements``,
in ``graph.trace``, reports what a program needs).

``trace(fn, *args, target=SET, keep=OPS)`` lowers every prim outside SET that it can (per operand
dtype, ``decompositions.lowering``), removes dead code, and then raises DecompositionError for the
prims this graph still holds outside SET, each with the ATen op it came from and its module path.
``keep`` names ATen ops that stay one node each (a backend runs them natively: SDPA, layer_norm,
gelu, ...). A kept node carries its decomposition in ``node.meta["decomposition"]``, as StableHLO's
composite op carries its body; ``expand_kept(gm)`` replaces kept nodes by their prims.
"""
from __future__ import annotations

import collections

import torch
import torch.utils._pytree as pytree
from torch.fx import traceback as fx_traceback

from primkit import prims
from primkit.graph import guards
from primkit.decompositions.composite import composites, override_keys
from primkit.decompositions.lowering import node_dtype
from primkit.decompositions.registry import DecompositionError

_ATEN_KEY = "primkit.aten_op"   # the key under node.meta["custom"] while tracing (FX copies "custom" onto nodes)


# -- where a prim node came from -----------------------------------------------------------------

def stamped(table: dict) -> dict:
    """``table`` with each entry recording, on the nodes it creates, the ATen op called at top level
    (``node.meta["aten_op"]`` after ``take_stamps``); nested decompositions keep the outer op."""
    out = {}
    for op, fn in table.items():
        made = _STAMPED.get((id(op), fn))
        if made is None or made[0] is not op:
            made = _STAMPED[(id(op), fn)] = (op, _stamp(op, fn))
        out[op] = made[1]
    return out


# (id(op), entry) -> (op, stamped entry): a trace stamps the whole table (two thousand entries) each time
_STAMPED: dict = {}


def _stamp(op, fn):
    name = op.name() if isinstance(op, torch._ops.OpOverload) else str(op)

    def entry(*args, **kwargs):
        meta = fx_traceback.current_meta
        custom = meta.get("custom") or {}
        if _ATEN_KEY in custom:
            return fn(*args, **kwargs)
        meta["custom"] = {**custom, _ATEN_KEY: name}
        try:
            return fn(*args, **kwargs)
        finally:
            if custom:
                fx_traceback.current_meta["custom"] = custom
            else:
                fx_traceback.current_meta.pop("custom", None)
    entry.__wrapped__ = fn
    return entry


def take_stamps(gm) -> None:
    """Move the ATen op recorded while tracing to ``node.meta["aten_op"]``."""
    for node in gm.graph.nodes:
        custom = node.meta.get("custom")
        if custom and _ATEN_KEY in custom:
            node.meta["aten_op"] = custom[_ATEN_KEY]
            rest = {k: v for k, v in custom.items() if k != _ATEN_KEY}
            if rest:
                node.meta["custom"] = rest
            else:
                del node.meta["custom"]
        elif node.op == "call_function" and "aten_op" not in node.meta:
            original = node.meta.get("original_aten")
            if isinstance(original, torch._ops.OpOverload) and not prims.is_prim(original):
                node.meta["aten_op"] = original.name()


def module_path(node) -> str:
    stack = node.meta.get("nn_module_stack") or {}
    paths = [p for p, _ in stack.values() if p]
    return paths[-1] if paths else ""


def outside_target(gm, target) -> list[dict]:
    """The prim nodes of gm outside ``target``: {prim, dtype, aten, module} per distinct origin."""
    seen, out = set(), []
    for node in gm.graph.nodes:
        if node.op == "call_function" and prims.is_prim(node.target) and node.target._opname not in target:
            dtype = node_dtype(node)
            row = {"prim": node.target._opname, "dtype": str(dtype).removeprefix("torch.") if dtype else None,
                   "aten": node.meta.get("aten_op") or "(called directly)", "module": module_path(node)}
            key = tuple(row.values())
            if key not in seen:
                seen.add(key)
                out.append(row)
    return out


def target_error(name, rows) -> DecompositionError:
    """One line per missing prim: the ATen ops and modules (at most three of each) it came from."""
    by_prim = collections.defaultdict(list)
    for r in rows:
        by_prim[r["prim"]].append(r)
    lines = []
    for prim, rs in sorted(by_prim.items()):
        dtypes = sorted({r["dtype"] for r in rs if r["dtype"]})
        origins = sorted({f"{r['aten']}" + (f" in {r['module']}" if r["module"] else "") for r in rs})
        more = f" (+{len(origins) - 3} more)" if len(origins) > 3 else ""
        lines.append(f"primkit::{prim} [{', '.join(dtypes)}] from {'; '.join(origins[:3])}{more}")
    error = DecompositionError(lines, f"trace({name}): ", "are outside the target prim set, and this graph needs "
                               "them (no lowering reaches the target at these dtypes)")
    error.rows = rows
    return error


# -- kept ATen ops -------------------------------------------------------------------------------

def _emit_kept(op, entry):
    """A kernel for a CompositeImplicitAutograd op that is kept: under make_fx it records one node of
    ``op`` (its result computed by the decomposition, or torch's composite, on the fake inputs)."""
    from torch._subclasses.functional_tensor import FunctionalTensor, disable_functional_mode
    from torch.fx.experimental.proxy_tensor import (
        disable_proxy_modes_tracing, fetch_object_proxy, fetch_sym_proxy, get_proxy_mode, track_tensor_tree)

    def run(*args, **kwargs):
        if entry is not None:
            return entry(*args, **kwargs)
        return op.decompose(*args, **kwargs)

    def kernel(*args, **kwargs):
        if any(isinstance(x, FunctionalTensor) for x in pytree.tree_leaves((args, kwargs))):
            # Above trace's functionalization: the node records the values below it (a kept op is
            # functional), and the results go back up as functional tensors.
            a, k = pytree.tree_map_only(FunctionalTensor, FunctionalTensor.from_functional, (args, kwargs))
            with disable_functional_mode():
                out = kernel(*a, **k)
            return pytree.tree_map_only(torch.Tensor, FunctionalTensor.to_functional, out)
        mode = get_proxy_mode()
        if mode is None:
            return run(*args, **kwargs)
        tracer = mode.tracer
        with disable_proxy_modes_tracing():
            out = run(*args, **kwargs)

        def proxy(x):
            if isinstance(x, torch.Tensor):
                p = fetch_object_proxy(tracer, x)
                return p.proxy if hasattr(p, "proxy") else x
            if isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool)):
                return fetch_sym_proxy(tracer)(x)
            return x
        a, k = pytree.tree_map(proxy, (args, kwargs))
        node_proxy = tracer.create_proxy("call_function", op, tuple(a), k)
        track_tensor_tree(out, node_proxy, constant=None, tracer=tracer)
        return out
    kernel.__name__ = f"keep_{op.name()}"
    return kernel


def kept_composites(kept: dict) -> dict:
    """Entries for ``composites``: each kept CompositeImplicitAutograd op (or one torch runs through a
    Python kernel above autograd) records itself as one node instead of running its composite."""
    return {op: _emit_kept(op, entry) for op, entry in kept.items() if override_keys(op)}


def mark_kept(gm, kept: dict) -> None:
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in kept:
            node.meta["decomposition"] = kept[node.target]


def expand_kept(gm):
    """gm with every kept node (``node.meta["decomposition"]``) replaced by its decomposition's prims
    (traced again under fake tensors; static shapes). A TracedGraphModule keeps its call guard."""
    from torch.fx.experimental.proxy_tensor import make_fx
    table = {n.target: n.meta["decomposition"] for n in gm.graph.nodes
             if n.op == "call_function" and n.meta.get("decomposition") is not None}
    if not table:
        return gm
    table = stamped(table)
    inputs = []
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            v = node.meta["val"]
            inputs.append(torch.empty_strided([int(s) for s in v.shape], [int(s) for s in v.stride()],
                                              dtype=v.dtype, device=v.device) if isinstance(v, torch.Tensor) else v)
    state = {id(getattr(gm, n.target)): n.meta["module_state"] for n in gm.graph.nodes
             if n.op == "get_attr" and "module_state" in n.meta}
    with torch.no_grad(), fx_traceback.preserve_node_meta(), composites(table):
        new = make_fx(torch.fx.Interpreter(gm).run, decomposition_table=table, tracing_mode="fake",
                      _allow_non_fake_inputs=True)(*inputs)
    take_stamps(new)
    for node in new.graph.nodes:
        if node.op == "get_attr" and id(getattr(new, node.target, None)) in state:
            node.meta["module_state"] = state[id(getattr(new, node.target))]
    guard = getattr(gm, "_primkit_guard", None)
    return guards.wrap(new, guard) if guard is not None else new
