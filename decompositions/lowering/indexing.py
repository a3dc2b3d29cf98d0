"""Lowerings of the indexing prims beyond gather / scatter: advanced indexing as one index_select on
the indexed dims flattened (the indices folded into one row-major position); writes as scatter /
scatter_add at those positions; index_copy, scatter_reduce's products and extremes, and searchsorted
as comparisons of every index with every position, reduced (exact, and deterministic where a
scatter's winner would not be)."""
from __future__ import annotations

import torch

from primkit.decompositions.lowering.core import (P, in_opmath, iota, lowers, splat,
                                                  with_strides)
from primkit.prims.dtypes import highest, lowest
from primkit.prims.layout import contiguous_strides


def _contiguous(x):
    return with_strides(x, contiguous_strides(x.shape))


def _wrapped(index, size):
    """index with negative entries counted from the end (size + index)."""
    return P.where(P.lt(index, splat(0, index)), P.add(index, splat(size, index)), index)


def _flat_positions(a, indices):
    """(positions, batch): the 1-d int64 row-major position of a[indices] in a's first k dims flattened,
    and the shape the indices broadcast to."""
    batch = list(torch.broadcast_shapes(*(i.shape for i in indices)))
    position = None
    step = 1
    for d in reversed(range(len(indices))):
        i = indices[d]
        i = P.broadcast_in_dim(_wrapped(i, a.shape[d]), batch, list(range(len(batch) - i.dim(), len(batch))))
        term = P.mul(i, splat(step, i))
        position = term if position is None else P.add(position, term)
        step *= a.shape[d]
    n = 1
    for s in batch:
        n *= s
    return P.reshape(position, [n]), batch


def _leading_flattened(a, k):
    """a with its first k dims merged into one (a copy where they are not laid out one inside the next)."""
    n = 1
    for s in a.shape[:k]:
        n *= s
    return P.reshape(a, [n, *a.shape[k:]])


_example = lambda dtype: (torch.ones(4, 3, dtype=dtype), [torch.tensor([0, 2])])   # noqa: E731


@lowers("index", example=_example)
def index(a, indices):
    positions, batch = _flat_positions(a, indices)
    k = len(indices)
    rows = P.index_select(_leading_flattened(a, k), 0, positions)
    return _contiguous(P.reshape(rows, batch + list(a.shape[k:])))


# float16 / bfloat16 sums of repeats in float32, rounded once: their order is unspecified (the prims
# are nondeterministic), this is the exact sum's rounding
@lowers("index_put", example=lambda dtype: [(*_example(dtype), torch.ones(2, 3, dtype=dtype), accumulate)
                                            for accumulate in (False, True)])
@in_opmath
def index_put(a, indices, values, accumulate):
    positions, batch = _flat_positions(a, indices)
    k = len(indices)
    flat = _leading_flattened(a, k)
    rows = P.reshape(values, [positions.shape[0], *a.shape[k:]])
    where_to = P.broadcast_in_dim(positions, list(rows.shape), [0])
    if not accumulate:
        out = P.scatter(flat, 0, where_to, rows)
    elif a.dtype == torch.bool:    # adding booleans is or: count the Trues
        counts = P.scatter_add(P.convert_element_type(flat, torch.int64), 0, where_to,
                               P.convert_element_type(rows, torch.int64))
        out = P.lt(splat(0, counts), counts)
    else:
        out = P.scatter_add(flat, 0, where_to, rows)
    return _contiguous(P.reshape(out, list(a.shape)))


@lowers("take", example=lambda dtype: (torch.ones(4, 3, dtype=dtype), torch.tensor([0, -1])))
def take(a, index):
    flat = P.reshape(a, [a.numel()])
    picked = P.gather(flat, 0, P.reshape(_wrapped(index, a.numel()), [index.numel()]))
    return _contiguous(P.reshape(picked, list(index.shape)))


def _as_1d(a, index, source):
    """A 0-d index_add / index_copy as one of a 1-d a of one element."""
    return P.reshape(a, [1]), P.reshape(index, [1]), P.reshape(source, [1])


_write_example = lambda dtype: [   # noqa: E731
    (torch.ones(4, 3, dtype=dtype), 0, torch.tensor([0, 2]), torch.ones(2, 3, dtype=dtype)),
    (torch.ones(4, 3, dtype=dtype), 0, torch.zeros(0, dtype=torch.int64), torch.ones(0, 3, dtype=dtype)),
    (torch.ones((), dtype=dtype), 0, torch.tensor([0]), torch.ones((), dtype=dtype))]


@lowers("index_add", example=_write_example)
@in_opmath
def index_add(a, dim, index, source):
    if a.dim() == 0:
        a1, i1, s1 = _as_1d(a, index, source)
        return P.reshape(index_add(a1, 0, i1, s1), [])
    d = dim % a.dim()
    return P.scatter_add(a, d, P.broadcast_in_dim(index, list(source.shape), [d]), source)


@lowers("index_copy", example=_write_example)
def index_copy(a, dim, index, source):
    if a.dim() == 0:
        a1, i1, s1 = _as_1d(a, index, source)
        return P.reshape(index_copy(a1, 0, i1, s1), [])
    d = dim % a.dim()
    n, count = a.shape[d], index.shape[0]
    if count == 0:
        return P.copy_strided(a, list(contiguous_strides(a.shape)))
    # for each position along dim, the last i that writes it (-1: none): the last write wins
    hits = P.eq(P.broadcast_in_dim(index, [n, count], [1]), P.broadcast_in_dim(iota(n, a), [n, count], [0]))
    i = P.broadcast_in_dim(iota(count, a), [n, count], [1])
    writer = P.amax(P.where(hits, i, splat(-1, i)), [1])
    written = P.le(splat(0, writer), writer)
    rows = P.index_select(source, d, P.maximum(writer, splat(0, writer)))
    out = P.where(P.broadcast_in_dim(written, list(a.shape), [d]), rows, a)
    return _contiguous(out)


@lowers("masked_scatter", example=lambda dtype: [
    (torch.ones(4, dtype=dtype), torch.tensor([True, False, True, True]), torch.ones(3, dtype=dtype)),
    (torch.ones(4, dtype=dtype), torch.zeros(4, dtype=torch.bool), torch.ones(0, dtype=dtype))])
def masked_scatter(a, mask, source):
    n = a.numel()
    flat_mask = P.reshape(mask, [n])
    if source.numel() == 0:    # no True in mask (the kernel checks): a's values
        return P.copy_strided(a, list(contiguous_strides(a.shape)))
    # the k-th True position takes source's k-th element: k = (number of Trues up to here) - 1
    trues = P.cumsum(P.convert_element_type(flat_mask, torch.int64), 0)
    k = P.minimum(P.maximum(P.sub(trues, splat(1, trues)), splat(0, trues)), splat(source.numel() - 1, trues))
    taken = P.gather(P.reshape(source, [source.numel()]), 0, k)
    return P.reshape(P.where(flat_mask, taken, P.reshape(a, [n])), list(a.shape))


@lowers("searchsorted", example=lambda dtype: [(torch.ones(5, dtype=dtype), torch.ones(2, 3, dtype=dtype), right)
                                               for right in (False, True)])
def searchsorted(sorted_sequence, values, right):
    # a binary search's answer on an ascending row (nans last): the count of elements below the value
    # (or not above it, right); a nan value goes past every element, as eager's search does
    m = sorted_sequence.shape[-1] if sorted_sequence.dim() else 1
    shape = list(values.shape) + [m]
    r = values.dim()
    seq_dims = [r] if sorted_sequence.dim() == 1 else list(range(r - 1)) + [r]
    seq = P.broadcast_in_dim(sorted_sequence, shape, seq_dims)
    v = P.broadcast_in_dim(values, shape, list(range(r)))
    before = P.le(seq, v) if right else P.lt(seq, v)
    if values.dtype.is_floating_point:
        before = P.logical_or(before, P.logical_not(P.eq(v, v)))
    return P.sum(P.convert_element_type(before, torch.int64), [r])


def _to_a_layout(r, a, d):
    """A reduction over match's index dim d (position t first, then index's other dims) as a-shaped:
    t moved to dim d, padded to a's sizes in the other dims."""
    order = list(range(1, d + 1)) + [0] + list(range(d + 1, r.dim()))
    r = P.permute(r, order)
    return P.pad(r, 0, [0] * a.dim(), [a.shape[k] - r.shape[k] for k in range(a.dim())], [0] * a.dim())


# every reduction takes its own path (one example each), as do an empty index and a 0-d operand
@lowers("scatter_reduce", example=lambda dtype: [
    (torch.ones(4, 3, dtype=dtype), 0, torch.zeros(2, 3, dtype=torch.int64), torch.ones(2, 3, dtype=dtype), reduce,
     True) for reduce in ("sum", "prod", "mean", "amax", "amin")] + [
    (torch.ones(4, 3, dtype=dtype), 0, torch.zeros(0, 3, dtype=torch.int64), torch.ones(0, 3, dtype=dtype), "sum",
     True),
    (torch.ones((), dtype=dtype), 0, torch.zeros((), dtype=torch.int64), torch.ones((), dtype=dtype), "sum", True)])
def scatter_reduce(a, dim, index, src, reduce, include_self):
    if a.dim() == 0:
        a1, i1, s1 = _as_1d(a, index, src)
        return P.reshape(scatter_reduce(a1, 0, i1, s1, reduce, include_self), [])
    d = dim % a.dim()
    if index.numel() == 0:
        return P.copy_strided(a, list(contiguous_strides(a.shape)))
    # match[t, i...] : index[i...] == t, t a position along dim of a (a new leading dim)
    n = a.shape[d]
    src = P.slice(src, [0] * src.dim(), list(index.shape), [1] * src.dim())
    shape = [n, *index.shape]
    match = P.eq(P.broadcast_in_dim(index, shape, list(range(1, index.dim() + 1))),
                 P.broadcast_in_dim(iota(n, a), shape, [0]))
    spread = P.broadcast_in_dim(src, shape, list(range(1, index.dim() + 1)))
    count = P.sum(P.convert_element_type(match, torch.int64), [d + 1])
    count = _to_a_layout(count, a, d)
    touched = P.lt(splat(0, count), count)
    if reduce in ("sum", "mean"):
        # scatter_add onto a (or onto 0 where src reaches): eager's scatter_reduce adds as its scatter_add
        base = a if include_self else P.where(touched, splat(0, a), a)
        reduced = P.scatter_add(base, d, index, src)
        if reduce == "mean":
            divisor = P.convert_element_type(P.add(count, splat(1, count)) if include_self else count, a.dtype)
            divisor = P.maximum(divisor, splat(1, divisor))
            reduced = P.div(reduced, divisor) if a.dtype.is_floating_point else P.floor_divide(reduced, divisor)
        return _contiguous(P.where(touched, reduced, a))
    if reduce == "prod":
        reduced = P.prod(P.where(match, spread, splat(1, spread)), [d + 1])
    else:
        extreme, identity = (P.amax, lowest) if reduce == "amax" else (P.amin, highest)
        reduced = extreme(P.where(match, spread, splat(identity(a.dtype), spread)), [d + 1])
    reduced = _to_a_layout(reduced, a, d)
    if include_self:
        reduced = (P.mul if reduce == "prod" else P.maximum if reduce == "amax" else P.minimum)(reduced, a)
    return _contiguous(P.where(touched, reduced, a))
