"""Lowerings of reduction prims: variance from sums; logsumexp with the maximum factored out; the
logical reductions as counts; xor as halves xored together (log2(n) steps, exact)."""
from __future__ import annotations

import math

import torch

from primkit.decompositions.lowering.core import P, in_opmath, lowers, splat, with_strides
from primkit.prims.layout import contiguous_strides


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


def _canonical(a, dims):
    return sorted({d % a.dim() for d in dims}) if a.dim() else []


def _reduced_shape(a, dims):
    return [s for d, s in enumerate(a.shape) if d not in dims]


@lowers("var_mean", example=lambda dtype: (torch.ones(4, 3, dtype=dtype), [0], 1.0))
def var_mean(a, dims, correction):
    return var(a, dims, correction), _mean(a, dims)


@in_opmath
def _mean(a, dims):
    n = 1
    for d in _canonical(a, dims):
        n = n * a.shape[d]
    total = P.sum(a, list(dims))
    return P.div(total, splat(n, total))


@lowers("logsumexp", example=lambda dtype: [(torch.ones(4, 3, dtype=dtype), [0]), (torch.ones(4, 3, dtype=dtype), []),
                                            (torch.ones(0, 3, dtype=dtype), [0])])
@in_opmath
def logsumexp(a, dims):
    dims = _canonical(a, dims)
    if not dims:     # reduces nothing (log(exp(z)) would move a complex z's phase into (-pi, pi])
        return P.copy_strided(a, list(contiguous_strides(a.shape)))
    if any(a.shape[d] == 0 for d in dims):     # the sum of no exponentials: log(0)
        return P.full(_reduced_shape(a, dims), -math.inf, dtype=a.dtype, device=a.device)
    # m + log(sum(exp(a - m))) with m the largest (real part): no overflow; an infinite m is not
    # subtracted (inf - inf would be nan), a nan m makes every term nan as eager's
    re = P.real(a) if a.dtype.is_complex else a
    m = P.amax(re, dims)
    m = P.where(P.eq(P.abs(m), splat(math.inf, m)), splat(0, m), m)
    shift = P.complex(m, splat(0, m)) if a.dtype.is_complex else m
    kept = [d for d in range(a.dim()) if d not in dims]
    total = P.sum(P.exp(P.sub(a, P.broadcast_in_dim(shift, list(a.shape), kept))), dims)
    return P.add(P.log(total), shift)


def _count(a, dims):
    return P.sum(P.convert_element_type(a, torch.int64), list(dims))


@lowers("reduce_and", example=lambda dtype: (torch.ones(4, 3, dtype=dtype), [0]))
def reduce_and(a, dims):
    falses = _count(P.logical_not(a), dims)
    return P.eq(falses, splat(0, falses))


@lowers("reduce_or", example=lambda dtype: (torch.ones(4, 3, dtype=dtype), [0]))
def reduce_or(a, dims):
    trues = _count(a, dims)
    return P.lt(splat(0, trues), trues)


# an odd length carries one element (cat); no dims reduces nothing
@lowers("reduce_xor", example=lambda dtype: [(torch.ones(5, 3, dtype=dtype), [0]), (torch.ones(4, 3, dtype=dtype), []),
                                             (torch.ones(0, 3, dtype=dtype), [0])])
def reduce_xor(a, dims):
    dims = _canonical(a, dims)
    if any(a.shape[d] == 0 for d in dims):     # xor of nothing: 0
        return P.full(_reduced_shape(a, dims), 0, dtype=a.dtype, device=a.device)
    x = a
    for d in dims:
        # xor the first half into the second until one element is left (an odd one out is carried)
        while x.shape[d] > 1:
            n, half = x.shape[d], x.shape[d] // 2
            lo, hi = [0] * x.dim(), list(x.shape)
            first = P.slice(x, lo, hi[:d] + [half] + hi[d + 1:], [1] * x.dim())
            second = P.slice(x, lo[:d] + [half] + lo[d + 1:], hi[:d] + [2 * half] + hi[d + 1:], [1] * x.dim())
            paired = P.bitwise_xor(first, second)
            x = P.cat([paired, P.slice(x, lo[:d] + [2 * half] + lo[d + 1:], hi, [1] * x.dim())], d) if n % 2 else paired
    out = P.squeeze(x, dims)
    if x is a:     # nothing to xor (no dims, or dims of size 1): still a new tensor
        return P.copy_strided(out, list(contiguous_strides(out.shape)))
    return with_strides(out, contiguous_strides(out.shape))
