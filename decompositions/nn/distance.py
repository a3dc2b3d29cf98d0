"""Distances: pairwise_distance, cosine_similarity, dist, cdist and pdist.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import P, aten, register_out, register_with_variants, to_dtype, wrap_dim
from primkit.decompositions.nn.common import check_floating
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.decompositions.type_promotion import result_type
from primkit.prims import dtypes as dt


@register(aten.pairwise_distance.default)
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    ndim = max(x1.dim(), x2.dim())
    diff = aten.add.Tensor(aten.sub.Tensor(x1, x2), eps)
    if ndim == 0:
        return aten.linalg_vector_norm.default(diff, p, [], keepdim)
    return aten.linalg_vector_norm.default(diff, p, [ndim - 1], keepdim)


@register(aten.cosine_similarity.default)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    dtype = result_type(x1, x2)
    if dtype not in dt.FLOAT:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {dt.short(dtype)}")
    ndim = max(x1.dim(), x2.dim())
    dim = wrap_dim(dim, ndim)
    a, b = aten.broadcast_tensors.default([to_dtype(x1, dtype), to_dtype(x2, dtype)])

    def normalized(t):
        norm = aten.linalg_vector_norm.default(t, 2, [dim], True)
        return aten.div.Tensor(t, aten.clamp_min.default(norm, eps))
    return aten.sum.dim_IntList(aten.mul.Tensor(normalized(a), normalized(b)), [dim])


def dist(a, b, p=2):
    return aten.linalg_vector_norm.default(aten.sub.Tensor(a, b), p)


register_with_variants("dist", dist)


@register(aten._cdist_forward.default)
def cdist_forward(x1, x2, p, compute_mode=None):
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D" if x1.dim() < 2 else
                           f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    check_floating("cdist", x1)
    diff = aten.sub.Tensor(aten.unsqueeze.default(x1, -2), aten.unsqueeze.default(x2, -3))
    return aten.linalg_vector_norm.default(diff, p, [-1])


@register(aten.cdist.default)
def cdist(x1, x2, p=2.0, compute_mode=None):
    return cdist_forward(x1, x2, p, compute_mode)


register_out(aten._cdist_forward.out, cdist_forward, "_cdist_forward")


def cdist_backward(grad, x1, x2, p, cdist):
    """The gradient of _cdist_forward's x1: for each pair, the derivative of ||x1_i - x2_j||_p in x1_i,
    d/dx = sign(d) |d|^(p-1) / dist^(p-1) with d = x1_i - x2_j (d / dist for p = 2, sign(d) for p = 1,
    sign(d) where |d| attains the max for p = inf), weighted by grad and summed over j. Zero where the
    distance is 0 (and, for p < 1, where d is 0), as eager's kernel."""
    diff = aten.sub.Tensor(aten.unsqueeze.default(x1, -2), aten.unsqueeze.default(x2, -3))
    dist, g = aten.unsqueeze.default(cdist, -1), aten.unsqueeze.default(grad, -1)
    if p == 0:
        return aten.zeros_like.default(x1, memory_format=torch.contiguous_format)
    if p == 1:
        term = aten.mul.Tensor(aten.sign.default(diff), g)
    elif p == math.inf:
        at_max = aten.eq.Tensor(aten.abs.default(diff), dist)
        term = aten.mul.Tensor(aten.mul.Tensor(aten.sign.default(diff), at_max), g)
    else:
        power = aten.mul.Tensor(aten.sign.default(diff), aten.pow.Tensor_Scalar(aten.abs.default(diff), p - 1))
        term = aten.div.Tensor(aten.mul.Tensor(power, g), aten.pow.Tensor_Scalar(dist, p - 1))
        zero = aten.eq.Scalar(dist, 0)
        if p < 1:
            zero = aten.logical_or.default(zero, aten.eq.Scalar(diff, 0))
        term = aten.where.ScalarSelf(zero, 0.0, term)
    return contiguous(aten.sum.dim_IntList(term, [-2]))


register_with_variants("_cdist_backward", cdist_backward)


@register(aten._pdist_forward.default)
def pdist_forward(a, p=2.0):
    """The p-norm distance of every pair of rows i < j, in row-major order of the pairs."""
    if not a.is_contiguous():
        raise RuntimeError("_pdist_forward requires contiguous input")
    return _pdist(a, p)


@register(aten.pdist.default)
def pdist(a, p=2.0):
    return _pdist(contiguous(a), p)


def _pdist(a, p):
    if a.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {a.dim()}D")
    if a.dtype not in dt.FLOAT:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = a.shape[0]
    if n < 2:
        return P.full([0], 0, dtype=a.dtype, device=a.device)
    first, second = _pairs(n, a.device)
    diff = aten.sub.Tensor(P.index_select(a, 0, first), P.index_select(a, 0, second))
    return aten.linalg_vector_norm.default(diff, p, [1])


def _pairs(n, device):
    """The rows (i, j), i < j, of every pair in row-major order: row r pairs with rows r + 1 .. n - 1."""
    first = P.cat([P.full([n - 1 - r], r, dtype=torch.int64, device=device) for r in range(n - 1)], 0)
    second = P.cat([P.iota(n - 1 - r, start=r + 1, step=1, dtype=torch.int64, device=device)
                    for r in range(n - 1)], 0)
    return first, second


@register(aten._pdist_backward.default)
def pdist_backward(grad, a, p, dist):
    """Per pair (i, j), diff = a_i - a_j and d its distance, eager's formulas: p = 0: 0; p = 1: sign(diff);
    p < 2: sign(diff) |diff| ** (p - 1) / d ** (p - 1) (0 where d == 0, or diff == 0 for p < 1); p = 2:
    diff / d; p = inf: sign(diff) where |diff| == d; else diff |diff| ** (p - 2) / d ** (p - 1) (0 where
    d == 0); times the pair's gradient, added into row i and subtracted from row j."""
    if not a.is_contiguous() or not dist.is_contiguous():
        raise RuntimeError("_pdist_backward requires self and pdist to be contiguous")
    check_floating("_pdist_backward", a)
    n = a.shape[0]
    if n < 2 or p == 0:
        return P.full(list(a.shape), 0, dtype=a.dtype, device=a.device)
    first, second = _pairs(n, a.device)
    diff = aten.sub.Tensor(P.index_select(a, 0, first), P.index_select(a, 0, second))
    g, d = aten.unsqueeze.default(grad, 1), aten.unsqueeze.default(dist, 1)
    zero = aten.zeros_like.default(diff)
    if p == 1:
        term = aten.mul.Tensor(aten.sign.default(diff), g)
    elif p == float("inf"):
        term = aten.mul.Tensor(aten.mul.Tensor(aten.sign.default(diff), aten.eq.Tensor(aten.abs.default(diff), d)), g)
    else:
        if p == 2:
            ratio = aten.div.Tensor(diff, d)
        elif p < 2:
            ratio = aten.div.Tensor(aten.mul.Tensor(aten.sign.default(diff), aten.pow.Tensor_Scalar(
                aten.abs.default(diff), p - 1)), aten.pow.Tensor_Scalar(d, p - 1))
        else:
            ratio = aten.div.Tensor(aten.mul.Tensor(diff, aten.pow.Tensor_Scalar(aten.abs.default(diff), p - 2)),
                                    aten.pow.Tensor_Scalar(d, p - 1))
        undefined = aten.eq.Scalar(d, 0)
        if p < 1:
            undefined = aten.logical_or.default(undefined, aten.eq.Scalar(diff, 0))
        term = aten.where.self(undefined, zero, aten.mul.Tensor(ratio, g))
    out = P.full(list(a.shape), 0, dtype=a.dtype, device=a.device)
    return P.index_add(P.index_add(out, 0, first, term), 0, second, aten.neg.default(term))


register_out(aten._pdist_forward.out, pdist_forward)
