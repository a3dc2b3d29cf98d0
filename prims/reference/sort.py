"""Reference implementations of the sort prims: sort, argsort and topk through torch's stable sort
(a valid answer for stable=False and sorted=False too, and the same on every backend); kthvalue and
median through torch's own kernels, so their index among equal values is eager's."""
from __future__ import annotations

import torch


def sort(a, dim, descending, stable):
    values, indices = torch.sort(a, dim=dim, descending=descending, stable=True)
    return values.contiguous(), indices.contiguous()


def argsort(a, dim, descending, stable):
    return sort(a, dim, descending, stable)[1]


def topk(a, k, dim, largest, sorted):
    values, indices = sort(a, dim, largest, True)
    if a.dim() == 0:
        return values, indices
    return values.narrow(dim, 0, k).contiguous(), indices.narrow(dim, 0, k).contiguous()


def kthvalue(a, k, dim):
    values, indices = torch.kthvalue(a, k, dim)
    return values.contiguous(), indices.contiguous()


def median(a, dim):
    values, indices = torch.median(a, dim)
    return values.contiguous(), indices.contiguous()
