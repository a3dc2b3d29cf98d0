"""Reference implementations of the sort prims: sort, argsort and topk through torch's stable sort
(a valid answer for stable=False and sorted=False too, and the same on every backend); kthvalue and
median are torch.kthvalue and torch.median, so their index among equal values is eager's. The family's
``layout`` makes results contiguous."""
from __future__ import annotations

import torch

from primkit.prims.layout import is_non_overlapping


def sort(a, dim, descending, stable):
    return tuple(torch.sort(a, dim=dim, descending=descending, stable=True))


def argsort(a, dim, descending, stable):
    return sort(a, dim, descending, stable)[1]


def topk(a, k, dim, largest, sorted):
    if a.dim() == 0:
        return sort(a, dim, largest, True)
    if k == 0 or a.dtype == torch.bool or a.is_complex():
        values, indices = sort(a, dim, largest, True)
        return values.narrow(dim, 0, k), indices.narrow(dim, 0, k)
    return _stable_topk(a, k, dim, largest)


def _stable_topk(a, k, dim, largest):
    """The first k entries of the stable sort in O(n) passes over a, not a sort of it: torch.topk finds the k-th
    value t; the k entries are those ahead of t in the prim's order and, among those equal to t, the first ones
    by index; a stable sort of those k gives their order."""
    t = torch.topk(a, k, dim, largest, True).values.narrow(dim, k - 1, 1)
    nan_a, nan_t = torch.isnan(a), torch.isnan(t)
    # the order is total with nan greater than every value, and nan equal to nan
    ahead = ((a > t) | (nan_a & ~nan_t)) if largest else ((a < t) | (~nan_a & nan_t))
    tied = (a == t) | (nan_a & nan_t)
    need = k - ahead.sum(dim, keepdim=True)
    chosen = ahead | (tied & (torch.cumsum(tied, dim) <= need))
    n = a.shape[dim]
    position = torch.arange(n, device=a.device).reshape([n if d == dim % a.dim() else 1 for d in range(a.dim())])
    # the chosen positions, ascending: the k smallest of position where chosen (n elsewhere)
    index = torch.topk(torch.where(chosen, position, n), k, dim, largest=False, sorted=True).values
    order = torch.sort(torch.gather(a, dim, index), dim=dim, descending=largest, stable=True).indices
    index = torch.gather(index, dim, order)
    return torch.gather(a, dim, index), index


def median(a, dim):
    # torch.median reads past an operand whose elements overlap (a stride-0, expanded dim: its last result is
    # uninitialized memory, torch 2.13): such an operand is made dense first, which changes no value.
    return torch.median(a if is_non_overlapping(a.shape, a.stride()) else a.contiguous(), dim)
