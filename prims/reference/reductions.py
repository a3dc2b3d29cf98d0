"""Reference implementations of the reductions: torch's reductions where they exist, a pairwise
xor otherwise. An empty dim list reduces nothing (torch would reduce every dim)."""
from __future__ import annotations

import torch


def _reduce_dims(fn):
    # torch's reductions treat an empty dim list as "all dims"; a prim reduces exactly `dims`.
    def reduce(a, dims, *rest):
        if len(dims) == 0:
            return a.clone(memory_format=torch.contiguous_format)
        return fn(a, dims, *rest)
    reduce.__name__ = fn.__name__
    return reduce


@_reduce_dims
def sum(a, dims):
    return torch.sum(a, dims, dtype=a.dtype)


@_reduce_dims
def prod(a, dims):
    out = a
    for d in sorted((d % a.dim() for d in dims), reverse=True):
        out = torch.prod(out, d, dtype=a.dtype)
    return out


@_reduce_dims
def amax(a, dims):
    return torch.amax(a, dims)


@_reduce_dims
def amin(a, dims):
    return torch.amin(a, dims)


def var(a, dims, correction):
    if len(dims) == 0:
        # Each "group" is one element: variance 0, or nan where n - correction <= 0 (as eager).
        n = 1 - correction
        out = torch.zeros_like(a, dtype=a.real.dtype if a.is_complex() else a.dtype,
                               memory_format=torch.contiguous_format)
        return out if n > 0 else out.fill_(float("nan"))
    return torch.var(a, dims, correction=correction)


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
    return torch.var_mean(a, dims, correction=correction)
