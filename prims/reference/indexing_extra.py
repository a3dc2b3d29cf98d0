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
