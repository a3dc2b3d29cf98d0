"""Lowerings of the scan prims: a scan is a reduction over prefixes. The operand is broadcast along a
new dim j after the scanned dim i and masked to j <= i (an iota comparison); reducing j gives out[i].
O(n^2) work in the scanned dim's length, no loop. Float16 / bfloat16 sums and products run in float32
and round once, as eager's kernels accumulate."""
from __future__ import annotations

import math

import torch

from primkit import prims
from primkit.decompositions.lowering.core import P, in_opmath, iota, isnan, lowers, splat
from primkit.prims.dtypes import highest, lowest

# a plain scan, an empty scanned dim, a 0-d operand: each takes its own path
_example = lambda dtype: [(torch.ones(4, 3, dtype=dtype), 0), (torch.ones(0, 3, dtype=dtype), 0),   # noqa: E731
                          (torch.ones((), dtype=dtype), 0)]


def _prefixes(a, dim):
    """(x, mask): x[..., i, j, ...] = a[..., j, ...] with j a new dim after dim, and mask = j <= i."""
    n = a.shape[dim]
    shape = list(a.shape)
    shape.insert(dim + 1, n)
    x = P.broadcast_in_dim(a, shape, [k if k < dim else k + 1 for k in range(a.dim())])
    i, j = P.broadcast_in_dim(iota(n, a), [n, n], [0]), P.broadcast_in_dim(iota(n, a), [n, n], [1])
    return x, P.broadcast_in_dim(P.le(j, i), shape, [dim, dim + 1])


def _scan(reduce_prefixes):
    """A scan along dim from ``reduce_prefixes(a, dim)`` (a of rank >= 1, a non-empty dim): a 0-d operand
    scans as one element, an empty dim gives empty results (values, and int64 indices for cummax / cummin)."""
    def scan(a, dim):
        if a.dim() == 0:
            out = reduce_prefixes(P.reshape(a, [1]), 0)
            return tuple(P.reshape(o, []) for o in out) if isinstance(out, tuple) else P.reshape(out, [])
        dim = dim % a.dim()
        if a.shape[dim] == 0:
            empty = P.full(list(a.shape), 0, dtype=a.dtype, device=a.device)
            with_indices = prims.get(reduce_prefixes.__name__).params.get("with_indices")
            return (empty, P.full(list(a.shape), 0, dtype=torch.int64, device=a.device)) if with_indices else empty
        return reduce_prefixes(a, dim)
    scan.__name__ = scan.__qualname__ = reduce_prefixes.__name__
    return scan


def _masked(a, dim, fill):
    x, mask = _prefixes(a, dim)
    return P.where(mask, x, splat(fill, x))


@lowers("cumsum", example=_example)
@in_opmath
@_scan
def cumsum(a, dim):
    # a float sum over each prefix (eager adds in order: the last bits may differ, within tolerance)
    return P.sum(_masked(a, dim, 0), [dim + 1])


@lowers("cumprod", example=_example)
@in_opmath
@_scan
def cumprod(a, dim):
    return P.prod(_masked(a, dim, 1), [dim + 1])


# float only: eager's complex logcumsumexp adds each term to the running value's phase (log_add_exp), so
# its imaginary part leaves (-pi, pi]; a log of a sum gives the principal branch, 2 pi apart
@lowers("logcumsumexp", example=_example, dtypes="float")
@in_opmath
@_scan
def logcumsumexp(a, dim):
    return P.logsumexp(_masked(a, dim, -math.inf), [dim + 1])   # exp(-inf) = 0 outside the prefix


def _cumulative_extreme(name, extreme, identity):
    """cummax / cummin: the extreme of each prefix, and the last index in it holding that value (nan
    counts as the extreme: the latest nan)."""
    def lowered(a, dim):
        x, mask = _prefixes(a, dim)
        values = extreme(P.where(mask, x, splat(identity(a.dtype), x)), [dim + 1])
        v = P.broadcast_in_dim(values, list(x.shape), [k for k in range(x.dim()) if k != dim + 1])
        hit = P.eq(x, v)
        if a.dtype.is_floating_point:
            hit = P.logical_or(hit, P.logical_and(isnan(x), isnan(v)))
        j = P.broadcast_in_dim(iota(x.shape[dim + 1], a), list(x.shape), [dim + 1])
        last = P.amax(P.where(P.logical_and(mask, hit), j, splat(-1, j)), [dim + 1])
        return values, last
    lowered.__name__ = lowered.__qualname__ = name
    return lowers(name, example=_example)(_scan(lowered))


cummax = _cumulative_extreme("cummax", P.amax, lowest)
cummin = _cumulative_extreme("cummin", P.amin, highest)
