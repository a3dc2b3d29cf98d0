"""Reference implementations of the data_dependent family: eager's kernels, made contiguous
(eager's nonzero on CPU returns its (n, rank) result column-major)."""
from __future__ import annotations

import torch


def nonzero(a):
    return torch.nonzero(a).contiguous()


def masked_select(a, mask):
    return torch.masked_select(a, mask).contiguous()


def unique(a):
    values, inverse, counts = torch.unique(a, sorted=True, return_inverse=True, return_counts=True)
    return values.contiguous(), inverse.contiguous(), counts.contiguous()


def unique_consecutive(a):
    values, inverse, counts = torch.unique_consecutive(a, return_inverse=True, return_counts=True)
    return values.contiguous(), inverse.contiguous(), counts.contiguous()
