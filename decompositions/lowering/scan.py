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


def _rows(a, dim):
    """x[..., i, j, ...] = a[..., j, ...], with j a new dim after dim."""
    shape = list(a.shape)
    shape.insert(dim + 1, a.shape[dim])
    return P.broadcast_in_dim(a, shape, [k if k < dim else k + 1 for k in range(a.dim())])


def _per_row(v, like, dim):
    """v (one value per prefix i) spread along the new dim j of ``like`` (a ``_rows`` tensor)."""
    return P.broadcast_in_dim(v, list(like.shape), [k for k in range(like.dim()) if k != dim + 1])


def _prefixes(a, dim):
    """(x, mask): x = _rows(a, dim), and mask = j <= i."""
    n = a.shape[dim]
    x = _rows(a, dim)
    i, j = P.broadcast_in_dim(iota(n, a), [n, n], [0]), P.broadcast_in_dim(iota(n, a), [n, n], [1])
    return x, P.broadcast_in_dim(P.le(j, i), list(x.shape), [dim, dim + 1])


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


@lowers("logcumsumexp", example=_example)
@in_opmath
@_scan
def logcumsumexp(a, dim):
    if a.dtype.is_complex:
        return _complex_logcumsumexp(a, dim)
    return P.logsumexp(_masked(a, dim, -math.inf), [dim + 1])   # exp(-inf) = 0 outside the prefix


def _complex_logcumsumexp(a, dim):
    """Eager's complex logcumsumexp, without its loop. Eager runs r = log_add_exp(x[k], r) from r = -inf:
    the operand with the larger real part (x[k] on a tie) plus log1p(exp(smaller - larger)). Its real part
    is log|S| with S the prefix's sum of exp(x); its imaginary part is arg(S) up to 2 pi, on the branch the
    path took: within pi / 2 of x[k]'s where x[k] won (an anchor), of r's before where r won. So
    imag(r[k]) = p[k] + 2 pi n[k], p the principal arg, with n[k] = round((imag(x[A]) - p[A]) / 2 pi) at
    the last anchor A, plus round((p[m - 1] - p[m]) / 2 pi) for each later step m (phase unwrapping).
    Special values as eager: a nan in the prefix gives nan + nan j; an all -inf prefix gives -inf + 0j;
    one +inf real part gives +inf with that element's imaginary part. Two +inf real parts in one prefix
    give +inf with the direction of their summed unit phases (eager takes C's exp and log of infinities
    in order: a multiple of pi / 4 or nan): a known difference, as for complex logaddexp."""
    xr, xi = P.real(a), P.imag(a)
    x_r, mask = _prefixes(xr, dim)
    x_i = _rows(xi, dim)
    j = dim + 1
    big = P.amax(P.where(mask, x_r, splat(-math.inf, x_r)), [j])          # the prefix's largest real part
    term = P.logical_and(mask, P.lt(splat(-math.inf, x_r), x_r))           # -inf terms add nothing
    scale = P.exp(P.sub(x_r, _per_row(big, x_r, dim)))
    zero = splat(0, x_r)
    cr = P.sum(P.where(term, P.mul(scale, P.cos(x_i)), zero), [j])
    ci = P.sum(P.where(term, P.mul(scale, P.sin(x_i)), zero), [j])
    real = P.add(big, P.mul(P.log(P.add(P.mul(cr, cr), P.mul(ci, ci))), splat(0.5, cr)))
    p = P.atan2(ci, cr)
    # the step's winner: x[k] unless its real part is below the previous prefix's (-inf before the first)
    n = xr.shape[dim]
    anchor = P.logical_not(P.lt(xr, _shifted(real, dim, -math.inf)))
    two_pi = splat(2 * math.pi, p)
    jump = P.round(P.div(P.sub(_shifted(p, dim, 0.0), p), two_pi))
    jump = P.where(anchor, splat(0, jump), jump)           # an anchor's own step is its base
    turns = P.sum(_masked(jump, dim, 0), [j])             # C[k]: jumps up to k
    base = P.sub(P.round(P.div(P.sub(xi, p), two_pi)), turns)
    index = P.broadcast_in_dim(iota(n, xr), list(xr.shape), [dim])
    last = P.amax(_masked(P.where(anchor, index, splat(-1, index)), dim, -1), [j])   # A[k]
    at_last = P.eq(_rows(index, dim), _per_row(last, x_r, dim))
    base_at_last = P.sum(P.where(at_last, _rows(base, dim), zero), [j])
    imag = P.add(p, P.mul(two_pi, P.add(base_at_last, turns)))
    # special values
    bad = P.logical_or(isnan(x_r), isnan(x_i))
    any_nan = P.amax(P.convert_element_type(P.logical_and(mask, bad), xr.dtype), [j])
    posinf = P.logical_and(mask, P.eq(x_r, splat(math.inf, x_r)))
    infs = P.sum(P.convert_element_type(posinf, xr.dtype), [j])
    inf_phase = P.where(P.eq(infs, splat(1, infs)), P.sum(P.where(posinf, x_i, zero), [j]),
                        P.atan2(P.sum(P.where(posinf, P.sin(x_i), zero), [j]),
                                P.sum(P.where(posinf, P.cos(x_i), zero), [j])))
    all_neginf = P.eq(big, splat(-math.inf, big))
    imag = P.where(all_neginf, splat(0, imag), P.where(P.lt(splat(0, infs), infs), inf_phase, imag))
    real = P.where(P.lt(splat(0, infs), infs), splat(math.inf, real), real)
    nan = P.lt(splat(0, any_nan), any_nan)
    real, imag = P.where(nan, splat(math.nan, real), real), P.where(nan, splat(math.nan, imag), imag)
    return P.complex(real, imag)


def _shifted(t, dim, first):
    """t moved one place along dim (a non-empty dim), ``first`` in the place it leaves."""
    head = [1 if k == dim else size for k, size in enumerate(t.shape)]
    rest = [size - 1 if k == dim else size for k, size in enumerate(t.shape)]
    zeros, ones = [0] * t.dim(), [1] * t.dim()
    return P.cat([P.full(head, first, dtype=t.dtype, device=t.device), P.slice(t, zeros, rest, ones)], dim)


def _cumulative_extreme(name, extreme, identity):
    """cummax / cummin: the extreme of each prefix, and the last index in it holding that value (nan
    counts as the extreme: the latest nan)."""
    def lowered(a, dim):
        x, mask = _prefixes(a, dim)
        values = extreme(P.where(mask, x, splat(identity(a.dtype), x)), [dim + 1])
        v = _per_row(values, x, dim)
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
