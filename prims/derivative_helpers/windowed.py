"""Derivative helpers of the windowed family: windowed reductions see each window as the trailing
dims of ``windows`` (pad, then ``unfold`` and a dilation ``slice`` per dim) and go back with its
adjoint ``windows_back``. Every helper is written in prims, so a backward is differentiable again.
"""
from __future__ import annotations

import math

import torch

from primkit.prims.derivative_helpers.common import full_like, prim_ops
from primkit.prims.derivative_helpers.shape import unfold_back
from primkit.prims.meta.windowed import window_output_size


def windows(x, value, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    """x padded with value and cut into the windows of the windowed family: a tensor of shape
    (*window positions, *window_dimensions), element [o, k] being padded x at o * stride + k * dilation
    (per dim). Linear in x: ``windows_back`` is its adjoint."""
    ops = prim_ops()
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
    ops = prim_ops()
    n = a.dim()
    if grad.numel() == 0 or a.numel() == 0:
        return full_like(a, 0)
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
    ops = prim_ops()
    n = a.dim()
    if grad.numel() == 0 or a.numel() == 0:
        return full_like(a, 0)
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
    ops = prim_ops()
    n = a.dim()
    window = list(window_dimensions)
    w = windows(a, 1, window_dimensions, window_strides, padding_low, padding_high, window_dilation)
    k = math.prod(window_dimensions)
    positions = list(w.shape[:n])
    if k == 0 or 0 in positions or a.numel() == 0:
        return full_like(a, 0)
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
    ops = prim_ops()
    n = operand.dim()
    args = (window_dimensions, window_strides, padding_low, padding_high, window_dilation)
    choice = ops.argmax_window(operand, *args)
    flat = ops.reshape(ops.iota(operand.numel(), start=0, step=1, dtype=torch.int64, device=operand.device),
                       list(operand.shape))
    where_from = windows(flat, -2, *args)
    grads = windows(grad, 0, *args)
    shape = list(where_from.shape)
    one_hot = ops.eq(where_from, ops.broadcast_in_dim(choice, shape, list(range(n))))
    return ops.sum(ops.where(one_hot, grads, full_like(grads, 0)), list(range(n, 2 * n)))


HELPERS = (windows, windows_back, reduce_window_sum_back, reduce_window_prod_back, selected)
