"""Reference implementations of the indexing prims that are not one torch call as is: eager's kernels
with the prim's arguments (the family's ``layout`` makes results contiguous), and index_copy, whose
last write wins on every device."""
from __future__ import annotations

import torch


def scatter_reduce(a, dim, index, src, reduce, include_self):
    return torch.scatter_reduce(a, dim, index, src, reduce, include_self=include_self)


def index(a, indices):
    return a[tuple(indices)]


def index_put(a, indices, values, accumulate):
    return a.index_put(tuple(indices), values, accumulate=accumulate)


def searchsorted(sorted_sequence, values, right):
    # dense inputs: the kernel would copy them anyway, with a warning
    return torch.searchsorted(sorted_sequence.contiguous(), values.contiguous(), right=right)


def index_copy(a, dim, index, source):
    if a.dim() == 0:
        return index_copy(a.reshape(1), 0, index, source.reshape(1)).reshape(())
    dim = dim % a.dim()
    size, count = a.shape[dim], index.shape[0]
    if count and not bool(((index >= 0) & (index < size)).all()):   # eager's check, with its exception type
        raise IndexError(f"index_copy: an index is out of bounds for dim {dim} with size {size}")
    if count == 0:
        return a.contiguous().clone()
    # The last write wins: each position takes the slice of the largest i with index[i] == position.
    last = torch.full((size,), -1, dtype=torch.int64, device=a.device).scatter_reduce(
        0, index, torch.arange(count, device=a.device), "amax")
    written = (last >= 0).reshape([size if d == dim else 1 for d in range(a.dim())])
    return torch.where(written, source.index_select(dim, last.clamp(min=0)), a)
