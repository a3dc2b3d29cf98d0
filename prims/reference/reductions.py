"""Reference implementations of the logical, bitwise and log-space reductions and var_mean:
torch's reductions where they exist (all, any, logsumexp, var_mean), a pairwise xor otherwise.
An empty dim list reduces nothing (torch would reduce every dim); outputs are contiguous."""
from __future__ import annotations

import torch

from primkit.prims.reference import _reduce_dims, var


@_reduce_dims
def reduce_and(a, dims):
    return torch.all(a, dim=tuple(dims))


@_reduce_dims
def reduce_or(a, dims):
    return torch.any(a, dim=tuple(dims))


@_reduce_dims
def reduce_xor(a, dims):
    if a.dim() == 0:    # dim 0 of a 0-d operand: one element
        return a.clone()
    reduced = sorted({d % a.dim() for d in dims})
    kept = [d for d in range(a.dim()) if d not in reduced]
    kept_shape = [a.shape[d] for d in kept]
    if a.numel() == 0:  # every output holds the identity (0, False)
        return torch.zeros(kept_shape, dtype=a.dtype, device=a.device)
    # Move the reduced dims last, flatten them into one, then xor halves together (log2(n) steps).
    x = a.permute(*kept, *reduced).reshape(*kept_shape, -1)
    while x.shape[-1] > 1:
        half = x.shape[-1] // 2
        x = torch.cat([x[..., :half] ^ x[..., half:2 * half], x[..., 2 * half:]], dim=-1)
    return x.squeeze(-1)


@_reduce_dims
def logsumexp(a, dims):
    return torch.logsumexp(a, dims)


def var_mean(a, dims, correction):
    if len(dims) == 0:
        return var(a, dims, correction), a.clone(memory_format=torch.contiguous_format)
    v, m = torch.var_mean(a, dims, correction=correction)
    return v.contiguous(), m.contiguous()
