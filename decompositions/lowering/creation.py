"""Lowerings of the creation prims whose values are undefined (empty_strided, empty_permuted): only their
geometry is the prim's contract, so a filled tensor viewed with their strides stands for them."""
from __future__ import annotations

import torch

from primkit.decompositions.lowering.core import P, lowers


@lowers("empty_strided", example=lambda dtype: ([2, 3], [1, 2], dtype, "meta"))
def empty_strided(shape, stride, dtype=None, device=None):
    # storage for the farthest element; overlapping strides (stride 0) are allowed, so as_strided, not copy_strided
    # (max with 0, not a test of each size: a size read from data has no answer to s == 0 at trace time)
    extent = torch.sym_max(0, 1 + sum((s - 1) * st for s, st in zip(shape, stride)))
    return P.as_strided(P.full([extent], 0, dtype=dtype, device=device), list(shape), list(stride), 0)


@lowers("empty_permuted", example=lambda dtype: ([2, 3, 4], [0, 2, 1], dtype, "meta"))
def empty_permuted(shape, physical_layout, dtype=None, device=None):
    # dense in physical_layout's order: the dims laid out in that order, then permuted back
    physical = P.full([shape[d] for d in physical_layout], 0, dtype=dtype, device=device)
    inverse = [physical_layout.index(d) for d in range(len(shape))]
    return P.permute(physical, inverse)
