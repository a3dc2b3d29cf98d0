"""Backward of embedding and embedding_bag.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, like, register_with_variants, to_dtype, upcast
from primkit.decompositions.nn.common import i64
from primkit.decompositions.nn.embedding import bag_of_positions, index_frequency
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.prims.layout import numel
from primkit.prims import dtypes as dt


# ----------------------------------------------------------------------------- embedding


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    if indices.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f"embedding_dense_backward: expected int32 or int64 indices, got {dt.short(indices.dtype)}")
    count = numel(indices.shape)
    dim = grad_output.shape[-1]
    (g,), orig = upcast(P.reshape(contiguous(grad_output), [count, dim]))
    idx = P.reshape(to_dtype(contiguous(indices), torch.int64), [count])
    if scale_grad_by_freq:   # each row's gradient divided by how often its index occurs
        g = P.div(g, P.broadcast_in_dim(index_frequency(idx, num_weights, g.dtype), [count, dim], [0]))
    if padding_idx >= 0:     # the padding row gets no gradient
        pad = P.eq(idx, i64(padding_idx, [count], idx.device))
        g = P.where(P.broadcast_in_dim(pad, [count, dim], [0]), like(g, 0), g)
    zeros = P.full([num_weights, dim], 0, dtype=g.dtype, device=g.device)
    grad = P.scatter_add(zeros, 0, P.broadcast_in_dim(idx, [count, dim], [0]), g)
    return to_dtype(grad, orig)


register_with_variants("embedding_dense_backward", embedding_dense_backward)


# ----------------------------------------------------------------------------- embedding_bag

EMBEDDING_BAG_MAX = 2


def _index_int64(t, op, name):
    if t.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f"{op}: expected int32 or int64 {name}, got {dt.short(t.dtype)}")
    return to_dtype(t, torch.int64)


def _positions_bag(indices, offsets, offset2bag, op):
    """offset2bag as eager's backward reads it: the forward's, or (where the forward took eager's fast
    sum path and gave it empty) made again from the offsets."""
    length = indices.shape[0]
    if length != 0 and offset2bag.shape[0] == 0:
        return bag_of_positions(_index_int64(offsets, op, "offsets"), length)
    return _index_int64(offset2bag, op, "offset2bag")


def _embedding_bag_max_backward(g, bag_size, maximum_indices, num_weights):
    """Each bag's gradient goes to the rows its maxima came from (per feature); an empty bag's nowhere."""
    bags, dim = g.shape
    filled = P.broadcast_in_dim(P.gt(to_dtype(bag_size, torch.int64), i64(0, [bags], g.device)), [bags, dim], [0])
    rows = P.where(filled, to_dtype(maximum_indices, torch.int64), i64(0, [bags, dim], g.device))
    zeros = P.full([num_weights, dim], 0, dtype=g.dtype, device=g.device)
    return P.scatter_add(zeros, 0, rows, P.where(filled, g, like(g, 0)))


def embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices, num_weights,
                                 scale_grad_by_freq, mode, per_sample_weights, padding_idx=-1):
    """The weight's gradient: each position's bag gradient (divided by the bag's size in mean mode, times
    the position's weight where given) accumulated into its row, as embedding's backward does (padding_idx's
    row gets none; scale_grad_by_freq divides by how often the row's index occurs). Max mode: the bag's
    gradient goes to the rows its maxima came from."""
    op = "_embedding_bag_dense_backward"
    idx = _index_int64(indices, op, "indices")
    if grad.dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        raise RuntimeError(f"{op}: expected a floating grad, got {dt.short(grad.dtype)}")
    (g,), orig = upcast(contiguous(grad))
    if mode == EMBEDDING_BAG_MAX:
        return to_dtype(_embedding_bag_max_backward(g, bag_size, maximum_indices, num_weights), orig)
    if mode not in (0, 1):
        raise RuntimeError(f"{op}: unknown mode {mode}")
    length, dim = idx.shape[0], g.shape[1]
    if offset2bag.shape[0] != length:
        raise RuntimeError(f"{op}: offset2bag has {offset2bag.shape[0]} elements but indices has {length}")
    bag = _index_int64(offset2bag, op, "offset2bag")
    rows = P.index_select(g, 0, bag)
    if mode == 1:    # mean: a bag of only padding rows has size 0 and its rows take no gradient anyway
        size = P.index_select(to_dtype(bag_size, g.dtype), 0, bag)
        size = P.where(P.gt(size, like(size, 0)), size, like(size, 1))
        rows = P.div(rows, P.broadcast_in_dim(size, [length, dim], [0]))
    if per_sample_weights is not None:
        if mode != 0:
            raise RuntimeError(f"{op}: per_sample_weights only supported for mode='sum'")
        rows = P.mul(rows, P.broadcast_in_dim(to_dtype(per_sample_weights, g.dtype), [length, dim], [0]))
    return to_dtype(embedding_dense_backward(rows, idx, num_weights, padding_idx, scale_grad_by_freq), orig)


register_with_variants("_embedding_bag_dense_backward", embedding_bag_dense_backward)


def embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx=-1):
    """Each position's gradient: its bag's gradient dotted with its row (zero at padding_idx)."""
    op = "_embedding_bag_per_sample_weights_backward"
    if mode != 0:
        raise RuntimeError(f"{op}: per_sample_weights only supported for mode='sum', got mode {mode}")
    idx = _index_int64(indices, op, "indices")
    bag = _positions_bag(indices, offsets, offset2bag, op)
    (g, w), orig = upcast(grad, to_dtype(weight, grad.dtype))
    out = P.sum(P.mul(P.index_select(g, 0, bag), P.index_select(w, 0, idx)), [1])
    if padding_idx >= 0:
        out = P.where(P.eq(idx, i64(padding_idx, [idx.shape[0]], idx.device)), like(out, 0), out)
    return to_dtype(out, orig)


register_with_variants("_embedding_bag_per_sample_weights_backward", embedding_bag_per_sample_weights_backward)


# sparse=True: the weight's gradient is a sparse COO tensor, a layout no prim models. The entry gives
# NotImplemented there (make_fx's reading: the op stays ATen; _embedding_bag_sparse_backward has no entry), so a
# backend that runs ATen ops (backend="primkit"'s executor) trains the program with eager's sparse gradient; a
# prim-only consumer meets the op and its error says why (registry.WHY_NO_DECOMPOSITION).


@register(aten._embedding_bag_backward.default)
def embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
                           scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx=-1):
    """What eager's autograd calls: the dense backward, with offset2bag made again where it is empty."""
    if sparse:
        return NotImplemented
    bag = _positions_bag(indices, offsets, offset2bag, "_embedding_bag_backward")
    return embedding_bag_dense_backward(grad, indices, bag, bag_size, maximum_indices, num_weights,
                                        scale_grad_by_freq, mode, per_sample_weights, padding_idx)
