"""Backward of embedding and embedding_bag.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, like, register_with_variants, to_dtype, upcast
from primkit.decompositions.nn.common import i64
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
        ones = P.full([count], 1, dtype=g.dtype, device=g.device)
        freq = P.scatter_add(P.full([num_weights], 0, dtype=g.dtype, device=g.device), 0, idx, ones)
        g = P.div(g, P.broadcast_in_dim(P.index_select(freq, 0, idx), [count, dim], [0]))
    if padding_idx >= 0:     # the padding row gets no gradient
        pad = P.eq(idx, i64(padding_idx, [count], idx.device))
        g = P.where(P.broadcast_in_dim(pad, [count, dim], [0]), like(g, 0), g)
    zeros = P.full([num_weights, dim], 0, dtype=g.dtype, device=g.device)
    grad = P.scatter_add(zeros, 0, P.broadcast_in_dim(idx, [count, dim], [0]), g)
    return to_dtype(grad, orig)


register_with_variants("embedding_dense_backward", embedding_dense_backward)
