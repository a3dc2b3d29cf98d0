"""Reference implementations of the data_dependent family that are not one torch call as is: eager's
kernels (their results made contiguous by the family's ``layout``; eager's nonzero on CPU returns
its (n, rank) result column-major), and histc in exact integer counts."""
from __future__ import annotations

import torch


def unique(a):
    return torch.unique(a, sorted=True, return_inverse=True, return_counts=True)


def unique_consecutive(a):
    return torch.unique_consecutive(a, return_inverse=True, return_counts=True)


def bincount(a, minlength):
    return torch.bincount(a, minlength=minlength)


def histc(a, bins, min, max):
    x = a.reshape(-1)
    lo, hi = (torch.tensor(v, dtype=a.dtype, device=a.device) for v in (min, max))
    inside = (x >= lo) & (x <= hi)      # False for nan
    # eager's formula, every operation in a's dtype: ((x - min) * bins) / (max - min)
    # (nan only where min and max round to one value: x is that value, and goes to the last bin)
    position = torch.nan_to_num(torch.floor((x - lo) * bins / (hi - lo)), nan=bins - 1).clamp(0, bins - 1)
    index = torch.where(inside, position, 0).to(torch.int64)
    # int64 counts: exact and, unlike a float scatter, independent of the order of additions
    counts = torch.zeros(bins, dtype=torch.int64, device=a.device).scatter_add_(0, index, inside.to(torch.int64))
    return counts.to(a.dtype)
