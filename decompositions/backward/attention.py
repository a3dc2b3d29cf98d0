"""Backward of scaled dot product attention.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.backward.common import _maybe
from primkit.decompositions.common import P, aten, broadcast_to, like, to_dtype, upcast
from primkit.decompositions.nn.attention import default_scale, dim_order, repeat_heads
from primkit.decompositions.nn.common import dense_in_order
from primkit.decompositions.registry import register


# ----------------------------------------------------------------------------- attention


def _attention_backward(grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, attn_mask, scale):
    """(grad_q, grad_k, grad_v, grad_scores) of out = softmax(q k^T * scale + mask) v, the
    probabilities recomputed from the forward's logsumexp; grouped key/value heads are summed."""
    if dropout_p > 0:
        # Only the fused kernels' backwards come here; with dropout their mask lives inside the kernel (redrawn
        # from the philox seed and offset), and their forwards refuse dropout too. SDPA with dropout on CPU
        # decomposes through eager's math path, whose backward reads the saved mask.
        raise RuntimeError(f"scaled_dot_product_attention backward: dropout_p={dropout_p} > 0 is not supported by "
                           f"primkit for the fused attention kernels (their mask is drawn inside the kernel)")
    (qf, kf, vf, gf, of), orig = upcast(q, k, v, grad_out, out)
    groups = q.shape[1] // k.shape[1]
    if groups > 1:
        kf, vf = repeat_heads(kf, groups), repeat_heads(vf, groups)
    B, H, L, S = q.shape[0], q.shape[1], q.shape[2], k.shape[2]
    scale = default_scale(scale, q.shape[-1])
    kt = P.permute(kf, [0, 1, 3, 2])
    scores = P.matmul(qf, kt)
    scores = P.mul(scores, like(scores, scale))
    if is_causal:
        row = P.broadcast_in_dim(P.iota(L, start=0, step=1, dtype=torch.int64, device=q.device), [B, H, L, S], [2])
        col = P.broadcast_in_dim(P.iota(S, start=0, step=1, dtype=torch.int64, device=q.device), [B, H, L, S], [3])
        scores = P.where(P.le(col, row), scores, like(scores, -math.inf))
    if attn_mask is not None:
        mask = broadcast_to(attn_mask, [B, H, L, S])
        scores = P.where(mask, scores, like(scores, -math.inf)) if mask.dtype == torch.bool else \
            P.add(scores, to_dtype(mask, scores.dtype))
    lse = to_dtype(logsumexp, scores.dtype)
    lse = P.where(P.eq(lse, like(lse, -math.inf)), like(lse, math.inf), lse)   # fully masked rows: weights 0
    probs = P.exp(P.sub(scores, P.broadcast_in_dim(lse, [B, H, L, S], [0, 1, 2])))
    grad_v = P.matmul(P.permute(probs, [0, 1, 3, 2]), gf)
    grad_probs = P.matmul(gf, P.permute(vf, [0, 1, 3, 2]))
    row_dot = P.sum(P.mul(gf, of), [3])
    grad_scores = P.mul(probs, P.sub(grad_probs, P.broadcast_in_dim(row_dot, [B, H, L, S], [0, 1, 2])))
    grad_q = P.mul(P.matmul(grad_scores, kf), like(qf, scale))
    grad_k = P.matmul(P.permute(grad_scores, [0, 1, 3, 2]), qf)
    grad_k = P.mul(grad_k, like(grad_k, scale))
    if groups > 1:   # each key/value head served `groups` query heads
        def fold(t):
            shape = [B, k.shape[1], groups] + list(t.shape[2:])
            return P.sum(P.reshape(t, shape), [2])
        grad_k, grad_v = fold(grad_k), fold(grad_v)
    return to_dtype(grad_q, orig), to_dtype(grad_k, orig), to_dtype(grad_v, orig), grad_scores


@register(aten._scaled_dot_product_flash_attention_for_cpu_backward.default)
def sdpa_flash_for_cpu_backward(grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, *, attn_mask=None,
                                scale=None):
    gq, gk, gv, _ = _attention_backward(grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, attn_mask, scale)
    # Eager's kernel writes every gradient as (batch, seq, heads, dim), transposed to (B, H, S, E).
    return tuple(dense_in_order(g, [0, 2, 1, 3]) for g in (gq, gk, gv))


@register(aten._scaled_dot_product_efficient_attention_backward.default)
def sdpa_efficient_backward(grad_out, q, k, v, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p,
                            grad_input_mask, is_causal=False, *, scale=None):
    L = q.shape[2]
    lse = P.slice(logsumexp, [0, 0, 0], [logsumexp.shape[0], logsumexp.shape[1], L], [1, 1, 1])   # drop padding
    gq, gk, gv, gs = _attention_backward(grad_out, q, k, v, out, lse, dropout_p, is_causal, attn_bias, scale)
    grad_bias = None
    if len(grad_input_mask) > 3 and grad_input_mask[3] and attn_bias is not None:
        # The bias was broadcast over (B, H, L, S): sum the score gradient back to its shape.
        expanded = [d for d in range(4) if d >= 4 - attn_bias.dim() and attn_bias.shape[d - 4 + attn_bias.dim()] == 1]
        lead = list(range(4 - attn_bias.dim()))
        gb = P.sum(gs, lead + expanded) if lead or expanded else gs
        kept = [d for d in range(4) if d not in lead and d not in expanded]
        gb = P.broadcast_in_dim(gb, list(attn_bias.shape), [d - len(lead) for d in kept])
        grad_bias = to_dtype(gb, attn_bias.dtype)
    return (_maybe(grad_input_mask[0], gq), _maybe(grad_input_mask[1], gk), _maybe(grad_input_mask[2], gv),
            grad_bias)


@register(aten._scaled_dot_product_flash_attention_backward.default)
def sdpa_flash_backward(grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal,
                        philox_seed, philox_offset, *, scale=None):
    gq, gk, gv, _ = _attention_backward(grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, None, scale)
    return tuple(dense_in_order(g, dim_order(t)) for g, t in ((gq, q), (gk, k), (gv, v)))
