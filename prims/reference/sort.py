"""Reference implementations of the sort prims: sort, argsort and topk through torch's stable sort
(a valid answer for stable=False and sorted=False too, and the same on every backend); kthvalue and
median are torch.kthvalue and torch.median, so their index among equal values is eager's. The family's
``layout`` makes results contiguous."""
from __future__ import annotations

import torch


def sort(a, dim, descending, stable):
    return tuple(torch.sort(a, dim=dim, descending=descending, stable=True))


def argsort(a, dim, descending, stable):
    return sort(a, dim, descending, stable)[1]


def topk(a, k, dim, largest, sorted):
    values, indices = sort(a, dim, largest, True)
    if a.dim() == 0:
        return values, indices
    return values.narrow(dim, 0, k), indices.narrow(dim, 0, k)

