"""segment_reduce and its backward: reductions over consecutive segments of a dim."""
from __future__ import annotations

import math
import torch

from primkit.decompositions.common import P, aten, to_dtype
from primkit.decompositions.layout import in_layout
from primkit.decompositions.registry import register
from primkit.prims.layout import contiguous_strides


_SEGMENT_REDUCE = {"sum": ("sum", 0.0), "mean": ("sum", 0.0), "max": ("amax", -math.inf), "min": ("amin", math.inf),
                   "prod": ("prod", 1.0)}


@register(aten.segment_reduce.default)
def segment_reduce(data, reduce, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """Each segment's reduction, from initial (else the reduction's identity; an empty mean is nan):
    a segment id per element (how many segment ends lie at or before it), then a scatter_reduce
    into the segments. Mean is (initial + sum) / length, as eager's kernel. Eager's check that the
    lengths add up to the axis (when not unsafe) reads values, so it is not made here."""
    if reduce not in _SEGMENT_REDUCE:
        raise RuntimeError(f"segment_reduce(): reduce must be one of {sorted(_SEGMENT_REDUCE)}, got {reduce!r}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if (lengths is None) == (offsets is None):
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    x, lengths, seg = _segment_ids(data, lengths, offsets, axis)
    b, size, r = x.shape
    segments = lengths.shape[1]
    op, identity = _SEGMENT_REDUCE[reduce]
    start = identity if initial is None else initial
    base = P.full([b, segments + 1, r], start, dtype=data.dtype, device=data.device)
    out = P.scatter_reduce(base, 1, P.broadcast_in_dim(seg, [b, size, r], [0, 1]), x, op, True)
    out = P.slice(out, [0, 0, 0], [b, segments, r], [1, 1, 1])
    if reduce == "mean":
        count = P.broadcast_in_dim(to_dtype(lengths, data.dtype), [b, segments, r], [0, 1])
        mean = P.div(out, count)
        if initial is not None:   # an empty segment keeps initial (without it, 0 / 0 is eager's nan)
            mean = P.where(P.gt(count, P.full([b, segments, r], 0, dtype=data.dtype, device=data.device)), mean, out)
        out = mean
    axis = axis + data.dim() if axis < 0 else axis
    shape = list(data.shape[:axis]) + [segments] + list(data.shape[axis + 1:])
    return in_layout(P.reshape(out, shape), contiguous_strides(shape))   # eager's result is contiguous


def _segment_ids(data, lengths, offsets, axis):
    """(data as (B, L, R), lengths as (B, S) int64, each element's segment (B, L); S for elements past
    the lengths' total)."""
    axis = axis + data.dim() if axis < 0 else axis
    if offsets is not None:
        last = offsets.dim() - 1
        n = offsets.shape[last]
        start, stop = [0] * offsets.dim(), list(offsets.shape)
        lengths = P.sub(P.slice(offsets, start[:last] + [1], stop, [1] * offsets.dim()),
                        P.slice(offsets, start, stop[:last] + [n - 1], [1] * offsets.dim()))
    if lengths.dim() != axis + 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}.")
    size, segments = data.shape[axis], lengths.shape[axis]
    b, r = math.prod(data.shape[:axis]), math.prod(data.shape[axis + 1:])
    lengths = P.reshape(to_dtype(lengths, torch.int64), [b, segments])
    ends = P.broadcast_in_dim(P.cumsum(lengths, 1), [b, segments, size], [0, 1])
    j = P.broadcast_in_dim(P.iota(size, start=0, step=1, dtype=torch.int64, device=data.device),
                           [b, segments, size], [2])
    seg = P.sum(to_dtype(P.le(ends, j), torch.int64), [1])
    return P.reshape(data, [b, size, r]), lengths, seg


@register(aten._segment_reduce_backward.default)
def segment_reduce_backward(grad, output, data, reduce, lengths=None, offsets=None, axis=0, initial=None):
    """Eager's gradient per element of segment s: sum: grad[s]; mean: grad[s] / length; max, min:
    grad[s] on the elements equal to the result (or nan), divided by their number when positive;
    prod: grad[s] * out[s] / x, and for x == 0 grad[s] times the product of the segment's other
    elements (and initial)."""
    x, lengths, seg = _segment_ids(data, lengths, offsets, axis)
    b, size, r = x.shape
    segments = lengths.shape[1]
    pad = [0, 0, 0], [0, 1, 0], [0, 0, 0]   # one extra segment for elements past the lengths' total

    def per_element(t):   # (B, S, R) -> each element's segment's value (B, L, R)
        t = P.pad(P.reshape(t, [b, segments, r]), 0, *pad)
        return P.gather(t, 1, P.broadcast_in_dim(seg, [b, size, r], [0, 1]))
    g, out = per_element(grad), per_element(output)
    zero = P.full([b, size, r], 0, dtype=x.dtype, device=x.device)
    if reduce == "sum":
        result = g
    elif reduce == "mean":
        count = per_element(P.broadcast_in_dim(to_dtype(lengths, x.dtype), [b, segments, r], [0, 1]))
        result = P.div(g, count)
    elif reduce in ("max", "min"):
        hit = P.logical_or(P.eq(x, out), P.logical_and(P.ne(x, x), P.ne(out, out)))
        index = P.broadcast_in_dim(seg, [b, size, r], [0, 1])
        counts = P.scatter_add(P.full([b, segments + 1, r], 0, dtype=x.dtype, device=x.device), 1, index,
                               to_dtype(hit, x.dtype))
        counts = P.gather(counts, 1, index)
        # Eager's kernel shares out only a positive gradient among the ties; a negative one goes whole to each.
        result = P.where(hit, P.where(P.gt(g, zero), P.div(g, counts), g), zero)
    elif reduce == "prod":
        index = P.broadcast_in_dim(seg, [b, size, r], [0, 1])
        is_zero = P.eq(x, zero)
        one = P.full([b, size, r], 1, dtype=x.dtype, device=x.device)
        start = 1.0 if initial is None else initial
        nonzero_prod = P.gather(P.scatter_reduce(P.full([b, segments + 1, r], start, dtype=x.dtype, device=x.device),
                                                 1, index, P.where(is_zero, one, x), "prod", True), 1, index)
        zeros = P.gather(P.scatter_add(P.full([b, segments + 1, r], 0, dtype=torch.int64, device=x.device), 1, index,
                                       to_dtype(is_zero, torch.int64)), 1, index)
        alone = P.eq(zeros, P.full([b, size, r], 1, dtype=torch.int64, device=x.device))
        result = P.where(is_zero, P.where(alone, P.mul(g, nonzero_prod), zero), P.div(P.mul(g, out), x))
    else:
        raise RuntimeError(f"segment_reduce(): reduce must be one of {sorted(_SEGMENT_REDUCE)}, got {reduce!r}")
    shape = list(data.shape)
    return in_layout(P.reshape(result, shape), contiguous_strides(shape))
