"""Scaled dot-product attention and its fused-kernel entry points (flash, efficient, cudnn), written
as the math they compute.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import P, aten, broadcast_shapes, broadcast_to, like, to_dtype, upcast
from primkit.decompositions.nn.common import check_floating, dense_in_order, keep_expanded
from primkit.decompositions.nn.dropout import check_dropout_p
from primkit.decompositions.random import bernoulli_noise
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.prims.layout import numel
from primkit.prims import dtypes as dt


# dropout, native_dropout and the other random training ops: decompositions/nn/dropout.py


def default_scale(scale, head_dim):
    """The scores' scale: given, else eager's 1 / sqrt(head_dim). An empty head's scores are sums of nothing,
    0 in eager (it scales q and k before their product, so inf * 0 never occurs): any finite scale then."""
    if scale is not None:
        return scale
    return 1.0 / math.sqrt(head_dim) if head_dim else 1.0


def repeat_heads(t, repeats):
    """(..., H, S, E) -> (..., H * repeats, S, E), each head repeated in place (repeat_interleave)."""
    head = t.dim() - 3
    shape = list(t.shape[:head + 1]) + [repeats] + list(t.shape[head + 1:])
    expanded = P.broadcast_in_dim(t, shape, [d for d in range(len(shape)) if d != head + 1])
    return P.reshape(expanded, list(t.shape[:head]) + [t.shape[head] * repeats] + list(t.shape[head + 1:]))


def _attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """softmax(q @ k^T * scale + mask) @ v in the computation dtype.

    Returns (output in q's dtype, logsumexp of the masked, scaled scores in the computation
    dtype). A fully masked row gets zero weights (output 0, logsumexp -inf), as eager's kernels.
    """
    check_dropout_p(dropout_p)
    if not (q.dtype == k.dtype == v.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{dt.short(q.dtype)} key.dtype: {dt.short(k.dtype)} and value.dtype: {dt.short(v.dtype)}"
                           f" instead.")
    if min(q.dim(), k.dim(), v.dim()) < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at least 2 dims")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: query {list(q.shape)}, key {list(k.shape)} and value "
                           f"{list(v.shape)} need equal head sizes for query and key and equal lengths for key and value")
    check_floating("scaled_dot_product_attention", q)
    (qf, kf, vf), orig = upcast(q, k, v)
    if enable_gqa and q.dim() >= 3 and q.shape[-3] != k.shape[-3]:
        if q.shape[-3] % k.shape[-3] or q.shape[-3] % v.shape[-3]:
            raise RuntimeError(f"scaled_dot_product_attention: enable_gqa needs the query heads ({q.shape[-3]}) to be "
                               f"a multiple of the key/value heads ({k.shape[-3]}, {v.shape[-3]})")
        kf, vf = repeat_heads(kf, q.shape[-3] // k.shape[-3]), repeat_heads(vf, q.shape[-3] // v.shape[-3])
    L, S, E, Ev = q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1]
    batch = list(broadcast_shapes(qf.shape[:-2], kf.shape[:-2], vf.shape[:-2]))
    B = numel(batch)

    def flat(t, rows, cols):
        return P.reshape(broadcast_to(t, batch + [rows, cols]), [B, rows, cols])
    scale = default_scale(scale, E)
    scores = P.matmul(flat(qf, L, E), P.permute(flat(kf, S, E), [0, 2, 1]))
    scores = P.mul(scores, like(scores, scale))
    masked = like(scores, -math.inf)
    if is_causal:   # query i sees keys j <= i
        row = P.broadcast_in_dim(P.iota(L, start=0, step=1, dtype=torch.int64, device=q.device), [B, L, S], [1])
        col = P.broadcast_in_dim(P.iota(S, start=0, step=1, dtype=torch.int64, device=q.device), [B, L, S], [2])
        scores = P.where(P.le(col, row), scores, masked)
    if attn_mask is not None:
        mask = flat(attn_mask, L, S)
        scores = P.where(mask, scores, masked) if mask.dtype == torch.bool else \
            P.add(scores, to_dtype(mask, scores.dtype))
    row_max = P.amax(scores, [2])
    row_max = P.where(P.eq(row_max, like(row_max, -math.inf)), like(row_max, 0), row_max)
    weights = P.exp(P.sub(scores, keep_expanded(row_max, [2], scores)))
    total = P.sum(weights, [2])
    safe_total = P.where(P.eq(total, like(total, 0)), like(total, 1), total)
    probs = P.div(weights, keep_expanded(safe_total, [2], weights))
    if dropout_p > 0:
        probs = _attention_dropout(probs, dropout_p)
    out = P.matmul(probs, flat(vf, S, Ev))
    logsumexp = P.add(row_max, P.log(total))
    return to_dtype(P.reshape(out, batch + [L, Ev]), orig), P.reshape(logsumexp, batch + [L])


def _attention_dropout(probs, p):
    """Eager's math path (the one CPU takes with dropout): F.dropout of the softmax output, whose mask is
    empty_like(attn).bernoulli_(1 - p) on the contiguous (batch..., L, S) weights in the computation dtype."""
    if p == 1:
        return P.mul(probs, like(probs, 0))
    keep = bernoulli_noise(contiguous(probs), 1 - p, probs.dtype)
    return aten.mul.Tensor(probs, aten.div.Scalar(keep, 1 - p))


def _refuse_fused_dropout(name, dropout_p):
    if dropout_p > 0:
        raise RuntimeError(f"{name}: dropout_p={dropout_p} > 0 is not supported by primkit: the fused kernel draws "
                           f"its mask inside the kernel (its backward redraws it from the returned seed and "
                           f"offset), which no prim reproduces; scaled_dot_product_attention with dropout "
                           f"decomposes through eager's math path instead")


@register(aten.scaled_dot_product_attention.default)
def scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                                 enable_gqa=False):
    out = _attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa)[0]
    # On CPU eager runs 4-d inputs with unit last-dim strides through its flash kernel, which lays
    # the output out like the query (see _scaled_dot_product_flash_attention_for_cpu); with dropout
    # it takes the math path, whose output is contiguous.
    if q.device.type == "cpu" and dropout_p == 0 and all(t.dim() == 4 and (t.shape[-1] == 1 or t.stride(-1) == 1) for t in (q, k, v)):
        return dense_in_order(out, dim_order(q))
    return out


def _check_4d(name, *tensors):
    if any(t.dim() != 4 for t in tensors):
        raise RuntimeError(f"{name}: expected 4-D (batch, heads, seq, head_dim) query, key and value, got shapes "
                           f"{[list(t.shape) for t in tensors]}")


@register(aten._scaled_dot_product_flash_attention_for_cpu.default)
def sdpa_flash_for_cpu(q, k, v, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
    _check_4d("_scaled_dot_product_flash_attention_for_cpu", q, k, v)
    if dropout_p > 0:
        raise RuntimeError("scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0")
    # The kernel repeats key/value heads itself when the query has more (grouped-query attention).
    out, logsumexp = _attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa=True)
    # Eager lays the output out like the query and logsumexp as (batch, seq, heads), transposed, in the
    # kernel's accumulation dtype (float64 for float64, else float32): its backward reads it.
    accumulate = torch.float64 if q.dtype == torch.float64 else torch.float32
    return dense_in_order(out, dim_order(q)), dense_in_order(to_dtype(logsumexp, accumulate), [0, 2, 1])


# The CUDA kernels' extra outputs. With dropout_p == 0 no random numbers are drawn, so the philox
# seed and offset carry no information: primkit returns zeros of eager's shapes and dtypes.
def _zeros(shape, dtype, device):
    return P.full(list(shape), 0, dtype=dtype, device=device)


@register(aten._scaled_dot_product_efficient_attention.default)
def sdpa_efficient(q, k, v, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, *, scale=None):
    """(output, logsumexp, philox_seed, philox_offset). The kernel pads logsumexp's last dim to a
    multiple of 32; primkit fills the padding with +inf (the kernel leaves it unspecified)."""
    _check_4d("_scaled_dot_product_efficient_attention", q, k, v)
    _refuse_fused_dropout("_scaled_dot_product_efficient_attention", dropout_p)
    out, logsumexp = _attention(q, k, v, attn_bias, dropout_p, is_causal, scale, enable_gqa=True)
    L = q.shape[2]
    if compute_log_sumexp:
        padded = -(-L // 32) * 32
        logsumexp = P.pad(to_dtype(logsumexp, torch.float32), math.inf, [0, 0, 0], [0, 0, padded - L], [0, 0, 0])
    else:
        logsumexp = _zeros([q.shape[0], q.shape[1], 0], torch.float32, q.device)
    seed, offset = _zeros([], torch.int64, q.device), _zeros([], torch.int64, q.device)
    return dense_in_order(out, [0, 2, 1, 3]), logsumexp, seed, offset


@register(aten._scaled_dot_product_flash_attention.default)
def sdpa_flash(q, k, v, dropout_p=0.0, is_causal=False, return_debug_mask=False, *, scale=None):
    """(output, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, rng_state, unused, debug_attn_mask):
    cum_seq_* are undefined for dense inputs (None, as eager's meta); the debug mask is not computed."""
    _check_4d("_scaled_dot_product_flash_attention", q, k, v)
    _refuse_fused_dropout("_scaled_dot_product_flash_attention", dropout_p)
    if return_debug_mask:
        raise RuntimeError("_scaled_dot_product_flash_attention: return_debug_mask=True is not supported by primkit")
    out, logsumexp = _attention(q, k, v, None, dropout_p, is_causal, scale, enable_gqa=True)
    # Eager's rng_state is uint64 (2,) and unused uint64 (); primkit's creation prims have no uint64: int64 zeros.
    return (dense_in_order(out, dim_order(q)), to_dtype(logsumexp, torch.float32), None, None, q.shape[2],
            k.shape[2], _zeros([2], torch.int64, q.device), _zeros([], torch.int64, q.device),
            _zeros([0], q.dtype, q.device))


@register(aten._scaled_dot_product_cudnn_attention.default)
def sdpa_cudnn(q, k, v, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, return_debug_mask=False, *,
               scale=None):
    """(output, logsumexp (B, H, L, 1), cum_seq_q, cum_seq_k, max_q, max_k, philox_seed, philox_offset,
    debug_attn_mask): cum_seq_* and the debug mask are undefined for dense inputs (None)."""
    _check_4d("_scaled_dot_product_cudnn_attention", q, k, v)
    _refuse_fused_dropout("_scaled_dot_product_cudnn_attention", dropout_p)
    out, logsumexp = _attention(q, k, v, attn_bias, dropout_p, is_causal, scale, enable_gqa=True)
    return (dense_in_order(out, dim_order(q)), P.expand_dims(to_dtype(logsumexp, torch.float32), [3]), None, None,
            q.shape[2], k.shape[2], _zeros([], torch.int64, q.device), _zeros([], torch.int64, q.device), None)


def dim_order(t):
    """t's dims from outermost to innermost (eager allocates the output in the query's layout)."""
    return sorted(range(t.dim()), key=lambda d: -t.stride()[d])
