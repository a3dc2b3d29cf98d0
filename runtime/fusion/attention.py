"""Decomposed scaled dot-product attention handed to Inductor as one scaled_dot_product_attention call."""
from __future__ import annotations

import math

import torch

from primkit.runtime.fusion.pattern import filled, is_prim, only_read_by, same, same_shape, tensor_of
from primkit.runtime.fusion.rewrite import Match, rewrite


def _row_reduced(node, op: str, source, fill_if, fill):
    """Whether node is where(eq(r, fill_if), fill, r) with r = op(source, [2]), broadcast back along dim 2:
    the guarded row maximum (and row total) of the softmax scaled_dot_product_attention decomposes to."""
    if not (is_prim(node, "broadcast_in_dim") and list(node.args[2]) == [0, 1]):
        return None
    guarded = node.args[0]
    if not (is_prim(guarded, "where") and filled(guarded.args[1]) == fill):
        return None
    cond, reduced = guarded.args[0], guarded.args[2]
    if not (is_prim(reduced, op) and reduced.args[0] is source and list(reduced.args[1]) == [2]
            and is_prim(cond, "eq") and cond.args[0] is reduced and filled(cond.args[1]) == fill_if):
        return None
    return [node, guarded, cond, reduced]


def _four_d(flat):
    """The 4-D (batch, heads, rows, cols) tensor node a 3-D operand is the reshape of, or None."""
    if not is_prim(flat, "reshape"):
        return None
    full, out = tensor_of(flat.args[0]), tensor_of(flat)
    if full is not None and full.dim() == 4 and same(full.shape[0] * full.shape[1], out.shape[0]) \
            and same_shape(full.shape[2:], out.shape[1:]):
        return flat.args[0]
    return None


def _match_attention(out):
    """The decomposed attention (decompositions/nn/attention.py, ``_attention``) that ends in the batched
    matmul ``out``, as (q, k, v, mask, scale, nodes): 3-D operands, the additive or boolean mask (or None)
    and the nodes of the pattern; or None where out is something else."""
    if not is_prim(out, "matmul"):
        return None
    probs, v = out.args
    if not is_prim(probs, "div"):
        return None
    weights, total = probs.args
    if not (is_prim(weights, "exp") and is_prim(weights.args[0], "sub")):
        return None
    scores, row_max = weights.args[0].args
    guards = _row_reduced(row_max, "amax", scores, -math.inf, 0), _row_reduced(total, "sum", weights, 0, 1)
    if None in guards:
        return None
    nodes = [probs, weights, weights.args[0], *guards[0], *guards[1]]
    mask = None
    if is_prim(scores, "add"):
        nodes.append(scores)
        scores, mask = scores.args
    elif is_prim(scores, "where") and filled(scores.args[2]) == -math.inf:
        nodes.append(scores)
        mask, scores = scores.args[:2]
    scale = filled(scores.args[1]) if is_prim(scores, "mul") else None
    if not (isinstance(scale, (int, float)) and is_prim(scores.args[0], "matmul")):
        return None
    product = scores.args[0]
    q, kt = product.args
    if not (is_prim(kt, "permute") and list(kt.args[1]) == [0, 2, 1]):
        return None
    nodes += [scores, product, kt]
    return q, kt.args[0], v, mask, float(scale), nodes


def _unbroadcast(node):
    """The tensor a 4-D mask is broadcast from, where it is 4-D too (the kernel broadcasts masks itself;
    Inductor would otherwise materialize the expanded mask for it)."""
    if is_prim(node, "broadcast_in_dim") and list(node.args[2]) == [0, 1, 2, 3]:
        return node.args[0]
    return node


def _sdpa(q, k, v, mask, scale):
    return torch.ops.aten.scaled_dot_product_attention.default(q, k, v, mask, 0.0, False, scale=scale)


def attention_as_sdpa(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed scaled dot-product attention of gm's graph as one scaled_dot_product_attention call,
    in a copy of gm: the op Inductor's own path gets, and lowers on CPU to its flash-attention kernel (blocked,
    online softmax) instead of two batched matmuls around a softmax.

    Only where the value is the decomposition's, in the same computation dtype: CPU float32/float64 operands
    (the decomposition's upcast precedes them), no dropout (its mask multiplies the probabilities, which then
    do not match), an additive mask, a boolean mask or none, and no intermediate (the probabilities, their
    row maximum or total) read outside the pattern. Sizes may be symbolic where the pattern's are known equal
    without a new guard. A fully masked row gives zeros on both (eager's CPU kernels return 0 there, as the
    decomposition does: see tests/test_compile.py). CUDA is left decomposed: its fused kernels' fully masked
    rows have not been checked against the decomposition here."""
    matches = []
    for node in gm.graph.nodes:
        found = _match_attention(node)
        if found is None:
            continue
        q, k, v, mask, scale, nodes = found
        vals = [tensor_of(t) for t in (q, k, v)] + ([] if mask is None else [tensor_of(mask)])
        if None in vals or any(t.dim() != 3 or t.device.type != "cpu" for t in vals):
            continue
        if not all(t.dtype == vals[0].dtype for t in vals[:3]) or vals[0].dtype not in (torch.float32, torch.float64):
            continue
        if mask is not None and (vals[3].dtype not in (torch.bool, vals[0].dtype) or not same_shape(
                vals[3].shape, (vals[0].shape[0], vals[0].shape[1], vals[1].shape[1]))):
            continue
        if not only_read_by(nodes, set(nodes) | {node}):
            continue
        # the (batch, heads, rows, cols) operands the decomposition flattened (the kernel takes 4-D ones)
        operands = [None if t is None else _four_d(t) for t in (q, k, v, mask)]
        heads = tensor_of(operands[0]).shape[:2] if operands[0] is not None else None
        if None in operands[:3] or (mask is not None and operands[3] is None) \
                or not all(same_shape(tensor_of(t).shape[:2], heads) for t in operands[1:] if t is not None):
            continue
        matches.append(Match(node, (*nodes, node), (*operands, scale)))
    return rewrite(gm, matches, _emit_sdpa)   # the decomposed attention erased, now unread


def _emit_sdpa(graph, out, q, k, v, mask, scale):
    """One scaled_dot_product_attention call flattened to the decomposition's (batch * heads, rows, cols);
    the reshapes of ``out`` back to (batch, heads, rows, cols) read the call's result itself."""
    if mask is not None:
        mask = _unbroadcast(mask)
    with graph.inserting_before(out):
        fused = graph.call_function(_sdpa, (q, k, v, mask, scale))
        flat = graph.call_function(torch.ops.aten.flatten.using_ints, (fused, 0, 1))   # (batch * heads, rows, cols)
    flat.meta.update(out.meta)
    unflat = (*tensor_of(q).shape[:3], tensor_of(out).shape[2])
    for user in list(out.users):
        if is_prim(user, "reshape") and tensor_of(user) is not None and same_shape(tensor_of(user).shape, unflat):
            user.replace_all_uses_with(fused)
    return flat
