"""Lowerings of reduction prims."""
from __future__ import annotations

import torch

from primkit.decompositions.lowering.core import P, in_opmath, lowers, splat, where_eq


@lowers("var", example=lambda dtype: (torch.ones(4, 3, dtype=dtype), [0], 1.0))
@in_opmath
def var(a, dims, correction):
    dims = [d + a.dim() if d < 0 else d for d in dims]
    n = 1
    for d in dims:
        n = n * a.shape[d]
    kept = [d for d in range(a.dim()) if d not in dims]
    mean = P.div(P.sum(a, dims), splat(n, P.sum(a, dims)))
    centered = P.sub(a, P.broadcast_in_dim(mean, list(a.shape), kept))
    if centered.dtype.is_complex:
        squares = P.add(P.mul(P.real(centered), P.real(centered)), P.mul(P.imag(centered), P.imag(centered)))
    else:
        squares = P.mul(centered, centered)
    total = P.sum(squares, dims)
    return P.div(total, splat(max(n - correction, 0), total))   # eager: no negative degrees of freedom
