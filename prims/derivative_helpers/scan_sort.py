"""Derivative helpers of the scan, sort and windowed families.

Scans run backwards as reversed scans (``rev`` around the scan); sorts and selections scatter grad
back through their index output (the formulas call ``scatter_add`` themselves, ``keep_dim`` only
restores a removed dim); windowed reductions see each window as the trailing dims of ``windows``
(pad, then ``unfold`` and a dilation ``slice`` per dim) and go back with its adjoint
``windows_back``. Every helper is written in prims, so a backward is differentiable again.
"""
from __future__ import annotations

import math

import torch

from primkit.prims.meta.windowed import window_output_size


def _ops():
    return torch.ops.primkit


def _full_like(x, value):
    return _ops().full(list(x.shape), value, dtype=x.dtype, device=x.device)


def _reverse_scan(scan, x, dim):
    """``scan`` (a scan prim's name) run from the end of dim to its start: rev, scan, rev."""
    ops = _ops()
    return ops.rev(getattr(ops, scan)(ops.rev(x, [dim]), dim), [dim])


def _cumprod_back_exact(grad, a, dim):
    """sum over j >= i of grad[j] * conj(prod of a[m], m <= j, m != i), with no division: the running
    products of a with a[i] set to 1 for every i at once (a new last dim i, so O(n) times the memory).
    A polynomial in a, so its own derivative is exact at zeros too."""
    ops = _ops()
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
    ops = _ops()
    if a.dim() == 0 or a.numel() == 0:
        return grad
    dim = dim % a.dim()
    if torch.is_grad_enabled():
        return _cumprod_back_exact(grad, a, dim)
    one, zero = _full_like(a, 1), _full_like(a, 0)
    is_zero = ops.eq(a, zero)
    zeros_so_far = ops.cumsum(ops.convert_element_type(is_zero, torch.int64), dim)
    before = ops.eq(zeros_so_far, _full_like(zeros_so_far, 0))
    first = ops.logical_and(is_zero, ops.eq(zeros_so_far, _full_like(zeros_so_far, 1)))
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
    ops = _ops()
    if a.dim() == 0 or a.numel() == 0:
        return grad
    if a.is_complex():
        log_grad = ops.log(ops.conj_physical(grad))
        return ops.conj_physical(ops.exp(ops.add(_reverse_scan("logcumsumexp", ops.sub(log_grad, result), dim), a)))
    zero, lowest = _full_like(grad, 0), _full_like(grad, torch.finfo(grad.dtype).min)
    # log of 1 where grad is 0: the unused branch stays finite, so second order has no 0 / 0
    log_abs = ops.log(ops.where(ops.eq(grad, zero), _full_like(grad, 1), ops.abs(grad)))

    def part(mask):
        log_part = ops.where(mask, log_abs, lowest)
        return ops.exp(ops.add(_reverse_scan("logcumsumexp", ops.sub(log_part, result), dim), a))
    return ops.sub(part(ops.gt(grad, zero)), part(ops.lt(grad, zero)))


def keep_dim(x, a, dim):
    """x (a reduced over dim, dim removed) with dim put back as size 1, so that it indexes a along dim
    (a 0-d a keeps x as it is)."""
    return _ops().expand_dims(x, [dim % a.dim()]) if a.dim() else x


def windows(x, value, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    """x padded with value and cut into the windows of the windowed family: a tensor of shape
    (*window positions, *window_dimensions), element [o, k] being padded x at o * stride + k * dilation
    (per dim). Linear in x: ``windows_back`` is its adjoint."""
    ops = _ops()
    n = x.dim()
    out_shape = [window_output_size(*d) for d in zip(x.shape, window_dimensions, window_strides, padding_low,
                                                      padding_high, window_dilation)]
    if 0 in out_shape:
        return ops.full(out_shape + list(window_dimensions), value, dtype=x.dtype, device=x.device)
    w = ops.pad(x, value, list(padding_low), list(padding_high), [0] * n)
    for d, (size, stride, dilation) in enumerate(zip(window_dimensions, window_strides, window_dilation)):
        w = ops.unfold(w, d, (size - 1) * dilation + 1, stride)
        w = ops.slice(w, [0] * w.dim(), list(w.shape), [1] * (w.dim() - 1) + [dilation])
    return w


def windows_back(grad, a, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    """The adjoint of ``windows`` (its gradient in x): each window element of grad added back at the
    position of a it was read from (padding dropped). Undoes windows' steps in reverse order: interior
    padding undoes the dilation slice, ``unfold_back`` the unfold, a slice the padding."""
    from primkit.prims.autograd import unfold_back
    ops = _ops()
    n = a.dim()
    if grad.numel() == 0 or a.numel() == 0:
        return _full_like(a, 0)
    padded = [s + lo + hi for s, lo, hi in zip(a.shape, padding_low, padding_high)]
    out_shape = list(grad.shape[:n])
    g = grad
    for d in reversed(range(n)):
        size, stride, dilation = window_dimensions[d], window_strides[d], window_dilation[d]
        g = ops.pad(g, 0, [0] * g.dim(), [0] * g.dim(), [0] * (g.dim() - 1) + [dilation - 1])
        # the operand of this unfold: dims before d already cut into positions, their windows last
        carrier = ops.full(out_shape[:d] + padded[d:] + list(window_dimensions[:d]), 0, dtype=grad.dtype,
                           device=grad.device)
        g = unfold_back(g, carrier, d, (size - 1) * dilation + 1, stride)
    return ops.slice(g, list(padding_low), [lo + s for lo, s in zip(padding_low, a.shape)], [1] * n)


def reduce_window_sum_back(grad, a, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    """The gradient of ``reduce_window_sum``: element q of padded a receives grad[o] of every window o
    holding it. grad spread to the window starts (interior padding stride - 1) and window-summed with
    the same dilation and a mirrored padding ((w - 1) * dilation low) gives that sum at every padded
    position; a slice drops the padding."""
    ops = _ops()
    n = a.dim()
    if grad.numel() == 0 or a.numel() == 0:
        return _full_like(a, 0)
    spread = ops.pad(grad, 0, [0] * n, [0] * n, [s - 1 for s in window_strides])
    low = [(w - 1) * d for w, d in zip(window_dimensions, window_dilation)]
    high = [size + lo + hi - m for size, lo, hi, m in zip(a.shape, padding_low, padding_high, spread.shape)]
    total = ops.reduce_window_sum(spread, list(window_dimensions), [1] * n, low, high, list(window_dilation))
    return ops.slice(total, list(padding_low), [lo + s for lo, s in zip(padding_low, a.shape)], [1] * n)


def reduce_window_prod_back(grad, a, window_dimensions, window_strides, padding_low, padding_high,
                            window_dilation):
    """The gradient of ``reduce_window_prod``, exact at zeros: each window element gets grad times the
    product of the other elements of its window (exclusive running products from both ends, no
    division), conjugated for complex a, and ``windows_back`` adds them up per element of a."""
    ops = _ops()
    n = a.dim()
    window = list(window_dimensions)
    w = windows(a, 1, window_dimensions, window_strides, padding_low, padding_high, window_dilation)
    k = math.prod(window_dimensions)
    positions = list(w.shape[:n])
    if k == 0 or 0 in positions or a.numel() == 0:
        return _full_like(a, 0)
    flat = ops.reshape(w, positions + [k])
    last = len(positions)

    def exclusive(x):    # running product of the elements before each one (1 for the first)
        head = ops.slice(ops.cumprod(x, last), [0] * (last + 1), positions + [k - 1], [1] * (last + 1))
        return ops.pad(head, 1, [0] * last + [1], [0] * (last + 1), [0] * (last + 1))
    others = ops.mul(exclusive(flat), ops.rev(exclusive(ops.rev(flat, [last])), [last]))
    if a.is_complex():
        others = ops.conj_physical(others)
    spread = ops.mul(ops.broadcast_in_dim(grad, positions + [k], list(range(last))), others)
    return windows_back(ops.reshape(spread, positions + window), a, window_dimensions, window_strides,
                        padding_low, padding_high, window_dilation)


def selected(grad, operand, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    """The gradient of ``select_and_scatter_add`` in source: for each window, grad at the element
    argmax_window selects (0 for a window wholly in padding). The selection is a one-hot mask over each
    window's flat positions (padding marked -2, never equal to a selection), so this is a masked
    window sum of grad."""
    ops = _ops()
    n = operand.dim()
    args = (window_dimensions, window_strides, padding_low, padding_high, window_dilation)
    choice = ops.argmax_window(operand, *args)
    flat = ops.reshape(ops.iota(operand.numel(), start=0, step=1, dtype=torch.int64, device=operand.device),
                       list(operand.shape))
    where_from = windows(flat, -2, *args)
    grads = windows(grad, 0, *args)
    shape = list(where_from.shape)
    one_hot = ops.eq(where_from, ops.broadcast_in_dim(choice, shape, list(range(n))))
    return ops.sum(ops.where(one_hot, grads, _full_like(grads, 0)), list(range(n, 2 * n)))


HELPERS = (cumprod_back, logcumsumexp_back, keep_dim, windows, windows_back, reduce_window_sum_back,
           reduce_window_prod_back, selected)
