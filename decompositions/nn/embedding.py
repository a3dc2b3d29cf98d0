"""Embedding lookups: embedding, embedding_bag and one_hot.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import P, aten, like, register_out, to_dtype, upcast, with_gradient_of
from primkit.decompositions.nn.common import i64
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.prims.layout import numel
from primkit.prims import dtypes as dt


def index_frequency(idx, num_weights, dtype):
    """How often each position's index occurs among the (1-d, int64) indices, in dtype."""
    count = idx.shape[0]
    ones = P.full([count], 1, dtype=dtype, device=idx.device)
    return P.index_select(P.scatter_add(P.full([num_weights], 0, dtype=dtype, device=idx.device), 0, idx, ones), 0, idx)


def gradient_by_frequency(rows, idx, num_weights):
    """The looked-up rows (one per index), each one's gradient divided by how often its index occurs
    (scale_grad_by_freq), their values unchanged. A non-finite row keeps its whole gradient (y - y is nan there)."""
    freq = P.broadcast_in_dim(index_frequency(idx, num_weights, rows.dtype), list(rows.shape), [0])
    return P.where(P.isfinite(rows), with_gradient_of(rows, P.div(rows, freq)), rows)


class SparseGradients:
    """While ``trace`` runs a program: the ops that asked for a sparse gradient of their weight (sparse=True).
    A trace's graph is differentiable through its prims' derivatives, which give a dense gradient (no prim
    models a sparse layout), so its call refuses to form one (``graph.guards``) where eager's is sparse.
    AOTAutograd needs none of this: the sparse backward stays ATen (decompositions.backward.embedding)."""

    _active: list = []

    def __init__(self):
        self.ops: list[str] = []

    def __enter__(self):
        SparseGradients._active.append(self)
        return self

    def __exit__(self, *exc):
        SparseGradients._active.remove(self)


def note_sparse(op, sparse):
    for watch in SparseGradients._active if sparse else ():
        if op not in watch.ops:
            watch.ops.append(op)


def sparse_gradient_above_autograd(op, weight, sparse):
    """sparse=True where autograd records the prims of this CompositeImplicitAutograd op's entry (eager through
    prims runs it above autograd): their gradient would be dense, so the entry leaves the op to torch's composite,
    whose backward stays ATen and gives eager's sparse gradient."""
    note_sparse(op, sparse)
    return sparse and torch.is_grad_enabled() and weight.requires_grad


@register(aten.embedding.default)
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    # padding_idx and scale_grad_by_freq only affect the gradient: the forward is a plain row lookup.
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {dt.short(indices.dtype)} instead (while checking arguments for "
                           f"embedding)")
    note_sparse("embedding", sparse)
    flat = P.reshape(to_dtype(indices, torch.int64), [numel(indices.shape)])
    rows = P.index_select(weight, 0, flat)
    if scale_grad_by_freq:
        rows = gradient_by_frequency(rows, flat, weight.shape[0])
    if padding_idx is not None and padding_idx >= 0:
        # The rows looked up at padding_idx take no gradient (eager's embedding backward skips them).
        pad = P.broadcast_in_dim(P.eq(flat, P.full([numel(indices.shape)], padding_idx, dtype=torch.int64,
                                                   device=flat.device)), list(rows.shape), [0])
        rows = P.where(pad, P.stop_gradient(rows), rows)
    return P.reshape(rows, list(indices.shape) + [weight.shape[1]])


EMBEDDING_BAG_MODES = ("sum", "mean", "max")


def bag_of_positions(offsets, length):
    """Each of ``length`` positions' bag (int64): position i lies in the last bag that starts at or before
    it, so its bag is the number of offsets at or before it, less one (eager's make_offset2bag). An offset
    at ``length`` (include_last_offset's) starts no bag a position lies in."""
    count, device = offsets.shape[0], offsets.device
    position = P.iota(length, start=0, step=1, dtype=torch.int64, device=device)
    started = P.le(P.broadcast_in_dim(to_dtype(offsets, torch.int64), [length, count], [1]),
                   P.broadcast_in_dim(position, [length, count], [0]))
    return P.sub(P.sum(to_dtype(started, torch.int64), [1]), i64(1, [length], device))


def _embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                   scale_grad_by_freq=False, for_backward=False):
    """(output, offset2bag, bag_size, max_indices) of bags of rows: bag b holds the indices from
    offsets[b] to the next offset; a row at padding_idx counts in no bag; an empty bag gives zeros.

    The auxiliary results (which only eager's backward reads) are eager's CPU kernel's in inference:
    offset2bag, each index's bag (empty where eager takes its fast sum path: float32/float16/bfloat16
    weights with unit row stride and no padding_idx); bag_size, the bags' sizes without padding rows
    (in sum mode zeros, one per offset); max_indices, the row each maximum came from (else bag_size). With
    include_last_offset the last offset must be the input's length, as documented. scale_grad_by_freq divides each
    row's gradient by how often its index occurs (eager's max mode ignores it). ``for_backward``: eager's
    _embedding_bag (the form autograd records), whose sum mode has one bag_size per bag."""
    if weight.dim() != 2:
        raise RuntimeError(f"embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if indices.dim() != 1 or offsets.dim() != 1:
        raise RuntimeError(f"embedding_bag: input and offsets have to be 1D Tensors, but got Tensors of dimension "
                           f"{indices.dim()} and {offsets.dim()}")
    if indices.dtype not in (torch.int32, torch.int64) or offsets.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f"embedding_bag: expected int32 or int64 input and offsets, got {dt.short(indices.dtype)} "
                           f"and {dt.short(offsets.dtype)}")
    if mode not in (0, 1, 2):
        raise RuntimeError(f"embedding_bag: unknown mode {mode}")
    if per_sample_weights is not None and mode != 0:
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{EMBEDDING_BAG_MODES[mode]}')")
    length, dim, device = indices.shape[0], weight.shape[1], weight.device
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    idx, off = to_dtype(indices, torch.int64), to_dtype(offsets, torch.int64)
    starts = P.slice(off, [0], [bags], [1])
    position = P.iota(length, start=0, step=1, dtype=torch.int64, device=device)
    offset2bag = bag_of_positions(starts, length)
    counted = P.ge(offset2bag, i64(0, [length], device))
    if include_last_offset:   # the last offset ends the last bag
        end = P.broadcast_in_dim(P.slice(off, [bags], [bags + 1], [1]), [length], [0])
        counted = P.logical_and(counted, P.lt(position, end))
    if padding_idx is not None and padding_idx >= 0:
        counted = P.logical_and(counted, P.ne(idx, i64(padding_idx, [length], device)))
    bag = P.where(counted, offset2bag, i64(0, [length], device))
    bag_rows = P.broadcast_in_dim(bag, [length, dim], [0])
    bag_size = P.scatter_add(P.full([bags], 0, dtype=torch.int64, device=device), 0, bag,
                             to_dtype(counted, torch.int64))
    (w,), orig = upcast(weight)
    rows = P.index_select(w, 0, idx)
    if scale_grad_by_freq and mode != 2:
        rows = gradient_by_frequency(rows, idx, weight.shape[0])
    if per_sample_weights is not None:
        rows = P.mul(rows, P.broadcast_in_dim(to_dtype(per_sample_weights, w.dtype), [length, dim], [0]))
    keep = P.broadcast_in_dim(counted, [length, dim], [0])
    zeros = P.full([bags, dim], 0, dtype=w.dtype, device=device)
    if mode == 2:
        out = P.scatter_reduce(zeros, 0, bag_rows, P.where(keep, rows, like(rows, -math.inf)), "amax", False)
        # The first position of each bag holding its maximum (eager's scan keeps the first), as a row index.
        hit = P.logical_and(keep, P.eq(rows, P.gather(out, 0, bag_rows)))
        first = P.scatter_reduce(P.full([bags, dim], length, dtype=torch.int64, device=device), 0, bag_rows,
                                 P.where(hit, P.broadcast_in_dim(position, [length, dim], [0]),
                                         i64(length, [length, dim], device)), "amin", True)
        found = P.lt(first, i64(length, [bags, dim], device))
        safe = P.where(found, first, i64(0, [bags, dim], device))
        max_indices = P.where(found, P.gather(P.broadcast_in_dim(idx, [length, dim], [0]), 0, safe),
                              i64(0, [bags, dim], device))
        out = P.where(P.broadcast_in_dim(P.gt(bag_size, i64(0, [bags], device)), [bags, dim], [0]), out, zeros)
    else:
        out = P.scatter_add(zeros, 0, bag_rows, P.where(keep, rows, like(rows, 0)))
        if mode == 1:
            count = P.broadcast_in_dim(to_dtype(bag_size, w.dtype), [bags, dim], [0])
            out = P.where(P.gt(count, like(count, 0)), P.div(out, count), zeros)
        if mode == 0:   # eager sizes the bags only for mean and max mode: zeros, one per offset (bag)
            bag_size = P.full([bags if for_backward else offsets.shape[0]], 0, dtype=torch.int64, device=device)
        max_indices = bag_size
        fast_sum = (mode == 0 and (padding_idx is None or padding_idx < 0) and weight.stride(1) == 1 and
                    weight.dtype in (torch.float32, torch.float16, torch.bfloat16) and
                    (per_sample_weights is None or per_sample_weights.stride(0) == 1))
        if fast_sum:
            offset2bag = P.full([0], 0, dtype=torch.int64, device=device)
    # eager's kernel gives them int32 where indices and offsets are int32, else int64
    aux = torch.int32 if indices.dtype == offsets.dtype == torch.int32 else torch.int64
    return (to_dtype(out, orig),) + tuple(to_dtype(t, aux) for t in (offset2bag, bag_size, max_indices))


@register(aten.embedding_bag.default)
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False):
    if sparse_gradient_above_autograd("embedding_bag", weight, sparse):
        return NotImplemented
    return _embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, -1,
                          scale_grad_by_freq)


@register(aten.embedding_bag.padding_idx)
def embedding_bag_padding_idx(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                              include_last_offset, padding_idx):
    if sparse_gradient_above_autograd("embedding_bag", weight, sparse):
        return NotImplemented
    if padding_idx is not None and padding_idx < 0:   # counted from the end, as eager's composite does
        padding_idx = padding_idx + weight.shape[0]
    return _embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset,
                          -1 if padding_idx is None else padding_idx, scale_grad_by_freq)


@register(aten._embedding_bag_forward_only.default)
def _embedding_bag_forward_only(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                                per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    # no gradient to scale: the form eager runs where none is asked for
    note_sparse("embedding_bag", sparse)
    return _embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx)


@register(aten._embedding_bag.default)
def _embedding_bag_default(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                           per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    note_sparse("embedding_bag", sparse)
    return _embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                          scale_grad_by_freq, for_backward=True)
register_out(aten.embedding.out, embedding)


@register(aten.one_hot.default)
def one_hot(a, num_classes=-1):
    if a.dtype != torch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        raise RuntimeError("one_hot: num_classes=-1 infers the class count from the data (a host sync); primkit "
                           "needs an explicit num_classes")
    classes = P.iota(num_classes, start=0, step=1, dtype=torch.int64, device=a.device)
    shape = list(a.shape) + [num_classes]
    hot = P.eq(P.broadcast_in_dim(a, shape, list(range(a.dim()))), P.broadcast_in_dim(classes, shape, [a.dim()]))
    return contiguous(P.convert_element_type(hot, torch.int64))     # eager's result is contiguous
