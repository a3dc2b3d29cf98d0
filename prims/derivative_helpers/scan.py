"""Derivative helpers of the scan family: scans run backwards as reversed scans (``rev`` around
the scan)."""
from __future__ import annotations

import torch

from primkit.prims.derivative_helpers.common import full_like, prim_ops


def _reverse_scan(scan, x, dim):
    """``scan`` (a scan prim's name) run from the end of dim to its start: rev, scan, rev."""
    ops = prim_ops()
    return ops.rev(getattr(ops, scan)(ops.rev(x, [dim]), dim), [dim])


def _cumprod_back_exact(grad, a, dim):
    """sum over j >= i of grad[j] * conj(prod of a[m], m <= j, m != i), with no division: the running
    products of a with a[i] set to 1 for every i at once (a new last dim i, so O(n) times the memory).
    A polynomial in a, so its own derivative is exact at zeros too."""
    ops = prim_ops()
    shape, n = list(a.shape), a.shape[dim]
    wide = shape + [n]
    j = ops.broadcast_in_dim(ops.iota(n, start=0, step=1, dtype=torch.int64, device=a.device), wide, [dim])
    i = ops.broadcast_in_dim(ops.iota(n, start=0, step=1, dtype=torch.int64, device=a.device), wide, [len(shape)])
    spread = ops.broadcast_in_dim(a, wide, list(range(len(shape))))
    without_i = ops.cumprod(ops.where(ops.eq(j, i), ops.full(wide, 1, dtype=a.dtype, device=a.device), spread), dim)
    if a.is_complex():
        without_i = ops.conj_physical(without_i)
    terms = ops.mul(ops.broadcast_in_dim(grad, wide, list(range(len(shape)))), without_i)
    total = ops.sum(ops.where(ops.ge(j, i), terms, ops.full(wide, 0, dtype=a.dtype, device=a.device)), [dim])
    # total has a's dims without dim, then i: put i back at dim
    return ops.permute(total, [d if d < dim else d - 1 for d in range(dim)] + [len(shape) - 1]
                       + [d - 1 for d in range(dim + 1, len(shape))])


def cumprod_back(grad, a, result, dim):
    """The gradient of ``cumprod(a, dim)``, exact at zeros as eager's: before the first zero of a slice
    it is reverse_cumsum(grad * conj(result)) / conj(a); at the first zero it is
    reverse_cumsum(grad * conj(cumprod(a with that zero set to 1))); after it, 0 (every product there
    holds the first zero). Those masks are piecewise constant, so, as eager, a backward that is itself
    differentiated (grad mode on) takes ``_cumprod_back_exact`` instead, O(n) times the memory."""
    ops = prim_ops()
    if a.dim() == 0 or a.numel() == 0:
        return grad
    dim = dim % a.dim()
    if torch.is_grad_enabled():
        return _cumprod_back_exact(grad, a, dim)
    one, zero = full_like(a, 1), full_like(a, 0)
    is_zero = ops.eq(a, zero)
    zeros_so_far = ops.cumsum(ops.convert_element_type(is_zero, torch.int64), dim)
    before = ops.eq(zeros_so_far, full_like(zeros_so_far, 0))
    first = ops.logical_and(is_zero, ops.eq(zeros_so_far, full_like(zeros_so_far, 1)))
    conj = (lambda x: ops.conj_physical(x)) if a.is_complex() else (lambda x: x)
    head = ops.div(_reverse_scan("cumsum", ops.mul(grad, conj(result)), dim), conj(ops.where(before, a, one)))
    skipped = ops.cumprod(ops.where(first, one, a), dim)
    at_zero = _reverse_scan("cumsum", ops.mul(grad, conj(skipped)), dim)
    return ops.where(before, head, ops.where(first, at_zero, zero))


def logcumsumexp_back(grad, a, result, dim):
    """The gradient of ``logcumsumexp(a, dim)``: sum over j >= i of grad[j] * exp(a[i] - result[j]),
    computed as eager does in log space with a reversed logcumsumexp; for real dtypes the positive and
    negative parts of grad go separately (log needs positive values; an absent part is the dtype's
    lowest finite value), for complex ones conj(exp(a + rev_lcse(log(conj(grad)) - result)))."""
    ops = prim_ops()
    if a.dim() == 0 or a.numel() == 0:
        return grad
    if a.is_complex():
        log_grad = ops.log(ops.conj_physical(grad))
        return ops.conj_physical(ops.exp(ops.add(_reverse_scan("logcumsumexp", ops.sub(log_grad, result), dim), a)))
    zero, lowest = full_like(grad, 0), full_like(grad, torch.finfo(grad.dtype).min)
    # log of 1 where grad is 0: the unused branch stays finite, so second order has no 0 / 0
    log_abs = ops.log(ops.where(ops.eq(grad, zero), full_like(grad, 1), ops.abs(grad)))

    def part(mask):
        log_part = ops.where(mask, log_abs, lowest)
        return ops.exp(ops.add(_reverse_scan("logcumsumexp", ops.sub(log_part, result), dim), a))
    return ops.sub(part(ops.gt(grad, zero)), part(ops.lt(grad, zero)))


HELPERS = (cumprod_back, logcumsumexp_back,)
