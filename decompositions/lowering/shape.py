"""Lowerings of shape prims: views into reshape or as_strided with exactly the strides their meta rule
gives; slices at data-given starts into gather at iota-built positions; slice updates into pad (static
starts) or gather (data-given starts) and where; roll into two slices and cat."""
from __future__ import annotations

import torch

from primkit.decompositions.lowering.core import P, iota, lowers, scalar, splat, with_strides
from primkit.prims.meta.shape import view_strides
from primkit.prims.layout import contiguous_strides, elementwise_strides


def _view(a, shape, strides):
    """The view of ``a`` with ``shape`` and ``strides``: a reshape where that gives these strides, else as_strided."""
    viewed = P.reshape(a, list(shape))
    if tuple(viewed.stride()) == tuple(strides):
        return viewed
    return P.as_strided(a, list(shape), list(strides), a.storage_offset())


def clone_strides(a):
    """Strides dense in ``a``'s dim order (the clone prim's layout, which slice updates keep)."""
    return elementwise_strides(a.shape, [(a.stride(), a.dtype.itemsize)])


# the second: a dim of a transposed operand split (4, 1), strides no reshape gives (as_strided)
@lowers("split_dim", example=lambda dtype: [(torch.ones(6, dtype=dtype), 0, 2),
                                            (torch.ones(6, 4, dtype=dtype).t(), 0, 4)])
def split_dim(a, dim, outer):
    d = dim % a.dim()
    inner = a.shape[d] // outer
    shape, strides = list(a.shape), list(a.stride())
    shape[d:d + 1] = [outer, inner]
    strides[d:d + 1] = [strides[d] * inner, strides[d]]
    return _view(a, shape, strides)


@lowers("collapse", example=lambda dtype: (torch.ones(2, 3, dtype=dtype), 0, 2))
def collapse(a, start, end):
    merged = 1
    for s in a.shape[start:end]:
        merged *= s
    shape = list(a.shape[:start]) + [merged] + list(a.shape[end:])
    return _view(a, shape, view_strides(a.shape, a.stride(), shape))


@lowers("diagonal", example=lambda dtype: (torch.ones(3, 3, dtype=dtype), 0, 0, 1))
def diagonal(a, offset, dim1, dim2):
    d1, d2 = dim1 % a.dim(), dim2 % a.dim()
    rows, cols = (a.shape[d1], a.shape[d2] - offset) if offset >= 0 else (a.shape[d1] + offset, a.shape[d2])
    length = max(min(rows, cols), 0)
    keep = [i for i in range(a.dim()) if i not in (d1, d2)]
    start = a.storage_offset()
    if length:     # eager moves the offset only for a non-empty diagonal
        start += offset * a.stride(d2) if offset >= 0 else -offset * a.stride(d1)
    return P.as_strided(a, [a.shape[i] for i in keep] + [length],
                        [a.stride(i) for i in keep] + [a.stride(d1) + a.stride(d2)], start)


@lowers("unfold", example=lambda dtype: (torch.ones(5, dtype=dtype), 0, 2, 1))
def unfold(a, dim, size, step):
    if a.dim() == 0:
        return P.as_strided(a, [size], [1], a.storage_offset())
    d = dim % a.dim()
    shape, strides = list(a.shape), list(a.stride())
    shape[d] = (a.shape[d] - size) // step + 1
    strides[d] = strides[d] * step
    return P.as_strided(a, shape + [size], strides + [a.stride(d)], a.storage_offset())


@lowers("split", example=lambda dtype: (torch.ones(5, dtype=dtype), [2, 3], 0))
def split(a, sizes, dim):
    d = dim % a.dim()
    pieces, start = [], 0
    for s in sizes:      # each piece a slice: a view with a's strides
        starts, limits = [0] * a.dim(), list(a.shape)
        starts[d], limits[d] = start, start + s
        pieces.append(P.slice(a, starts, limits, [1] * a.dim()))
        start += s
    return pieces


def _clamped_start(start, lo_hi, like):
    """A 0-d int64 start clamped to [0, lo_hi] (XLA's rule: the block stays in bounds)."""
    if start.dtype != torch.int64:
        start = P.convert_element_type(start, torch.int64)
    return P.minimum(P.maximum(start, scalar(0, start)), scalar(lo_hi, start))


def _positions(start, size, like):
    """start, start + 1, ..., start + size - 1 (start a 0-d int64 tensor)."""
    return P.add(iota(size, like), P.broadcast_in_dim(start, [size], []))


def _gather_block(x, positions):
    """x at positions[d] along every dim d: the block they address, contiguous."""
    for d, pos in enumerate(positions):
        shape = list(x.shape)
        shape[d] = pos.shape[0]
        x = P.gather(x, d, P.broadcast_in_dim(pos, shape, [d]))
    return x


# an int64 and an int32 start (converted)
_starts_example = lambda dtype: (torch.ones(4, 3, dtype=dtype),   # noqa: E731
                                 [torch.tensor(1), torch.tensor(0, dtype=torch.int32)])


@lowers("dynamic_slice", example=lambda dtype: [(*_starts_example(dtype), [2, 2]),
                                                (torch.ones((), dtype=dtype), [], [])])
def dynamic_slice(a, start_indices, slice_sizes):
    if a.dim() == 0:
        return P.clone(a)
    starts = [_clamped_start(s, a.shape[d] - slice_sizes[d], a) for d, s in enumerate(start_indices)]
    return _gather_block(a, [_positions(s, slice_sizes[d], a) for d, s in enumerate(starts)])


@lowers("dynamic_update_slice", example=lambda dtype: [
    (torch.ones(4, 3, dtype=dtype), torch.ones(2, 2, dtype=dtype), _starts_example(dtype)[1]),
    (torch.ones(4, 3, dtype=dtype), torch.ones(0, 2, dtype=dtype), _starts_example(dtype)[1]),   # nothing written
    (torch.ones((), dtype=dtype), torch.ones((), dtype=dtype), [])])
def dynamic_update_slice(a, update, start_indices):
    if a.dim() == 0:
        return P.clone(update)
    if update.numel() == 0:     # nothing to write
        return P.copy_strided(a, list(clone_strides(a)))
    inside, where_from = None, []
    for d, s in enumerate(start_indices):
        n, u = a.shape[d], update.shape[d]
        rel = P.sub(iota(n, a), P.broadcast_in_dim(_clamped_start(s, n - u, a), [n], []))  # position in the block
        ok = P.logical_and(P.le(splat(0, rel), rel), P.lt(rel, splat(u, rel)))
        ok = P.broadcast_in_dim(ok, list(a.shape), [d])
        inside = ok if inside is None else P.logical_and(inside, ok)
        # outside the block any position of it will do: it is masked out
        where_from.append(P.minimum(P.maximum(rel, splat(0, rel)), splat(u - 1, rel)))
    return with_strides(P.where(inside, _gather_block(update, where_from), a), clone_strides(a))


# the second: a transposed operand, whose layout the result keeps (copy_strided)
@lowers("slice_update", example=lambda dtype: [
    (torch.ones(6, dtype=dtype), torch.ones(3, dtype=dtype), [0], [6], [2]),
    (torch.ones(4, 6, dtype=dtype).t(), torch.ones(3, 4, dtype=dtype), [0, 0], [6, 4], [2, 1])])
def slice_update(a, update, start_indices, limit_indices, strides):
    # update spread to a's shape by padding (stride - 1 between its elements), and where it landed
    low = list(start_indices)
    interior = [s - 1 for s in strides]
    high = [n - lo - ((u - 1) * s + 1 if u else 0) for n, lo, u, s in zip(a.shape, low, update.shape, strides)]
    spread = P.pad(update, 0, low, high, interior)
    written = P.pad(P.full(list(update.shape), True, dtype=torch.bool, device=a.device), False, low, high, interior)
    return with_strides(P.where(written, spread, a), clone_strides(a))


@lowers("roll", example=lambda dtype: [(torch.ones(5, dtype=dtype), [2], [0]),
                                       (torch.ones(5, dtype=dtype), [0], [0])])   # nothing moves: a copy
def roll(a, shifts, dims):
    x = a
    for shift, dim in zip(shifts, dims):
        if a.dim() == 0 or a.shape[dim % a.dim()] == 0:
            continue
        d = dim % a.dim()
        n = x.shape[d]
        s = shift % n
        if s == 0:
            continue
        starts, limits, steps = [0] * x.dim(), list(x.shape), [1] * x.dim()
        tail = P.slice(x, starts[:d] + [n - s] + starts[d + 1:], limits, steps)      # moves to the front
        head = P.slice(x, starts, limits[:d] + [n - s] + limits[d + 1:], steps)
        x = P.cat([tail, head], d)
    if x is a:     # nothing moved: still a new tensor
        return P.copy_strided(a, list(contiguous_strides(a.shape)))
    return with_strides(x, contiguous_strides(a.shape))
