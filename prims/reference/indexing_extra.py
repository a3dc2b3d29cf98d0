"""Reference implementations of the indexing_extra family: eager's kernels, made contiguous."""
from __future__ import annotations

import torch


def scatter_reduce(a, dim, index, src, reduce, include_self):
    return torch.scatter_reduce(a, dim, index, src, reduce, include_self=include_self).contiguous()


def index(a, indices):
    return a[tuple(indices)].contiguous()


def index_put(a, indices, values, accumulate):
    return a.index_put(tuple(indices), values, accumulate=accumulate).contiguous()


def searchsorted(sorted_sequence, values, right):
    # dense inputs: the kernel would copy them anyway, with a warning
    return torch.searchsorted(sorted_sequence.contiguous(), values.contiguous(), right=right).contiguous()


def take(a, index):
    return torch.take(a, index).contiguous()


def index_add(a, dim, index, source):
    return a.index_add(dim, index, source).contiguous()


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
    return torch.where(written, source.index_select(dim, last.clamp(min=0)), a).contiguous()


def masked_scatter(a, mask, source):
    return a.masked_scatter(mask, source).contiguous()
