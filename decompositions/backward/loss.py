"""Backward of the losses.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, broadcast_to, elementwise, like, register_with_variants, to_dtype, upcast)
from primkit.decompositions.nn.common import i64
from primkit.decompositions.nn.loss import MEAN, NONE, SUM
from primkit.decompositions.layout import contiguous, in_layout, preserved_strides
from primkit.prims.layout import numel, sizes_differ


# ----------------------------------------------------------------------------- losses


def _check_nll_backward_sizes(grad_output, a, target, reduction, total_weight):
    """Eager's checks: an unreduced batch's grad_output has the target's shape; otherwise grad_output and
    total_weight are single elements (shape () or (1,))."""
    if reduction == NONE and a.dim() >= 2:
        if sizes_differ(grad_output.shape, target.shape):
            raise RuntimeError(f"nll_loss_backward: grad_output of shape {list(grad_output.shape)} should have the "
                               f"target's shape {list(target.shape)}")
    elif grad_output.dim() > 1 or sizes_differ([numel(grad_output.shape)], [1]):
        raise RuntimeError(f"nll_loss_backward: expected a single element grad_output tensor, "
                           f"got shape {list(grad_output.shape)}")
    if sizes_differ([numel(total_weight.shape)], [1]):
        raise RuntimeError(f"nll_loss_backward: expected total_weight to be a single element tensor, "
                           f"got shape {list(total_weight.shape)}")


def _nll_loss_backward(name):
    def decomp(grad_output, a, target, weight, reduction, ignore_index, total_weight):
        if reduction not in (NONE, MEAN, SUM):
            raise RuntimeError(f"{reduction} is not a valid value for reduction")
        _check_nll_backward_sizes(grad_output, a, target, reduction, total_weight)
        (x,), orig = upcast(a)
        t = to_dtype(target, torch.int64)
        if a.dim() == 1:
            t = P.expand_dims(t, [0])
        g = to_dtype(grad_output, x.dtype)
        # eager takes a single-element grad_output / total_weight of shape () or (1,)
        g = P.reshape(g, list(t.shape)) if reduction == NONE else \
            P.broadcast_in_dim(P.reshape(g, []), list(t.shape), [])
        if reduction == MEAN:
            tw = P.reshape(to_dtype(total_weight, x.dtype), [])
            g = P.div(g, P.broadcast_in_dim(tw, list(t.shape), []))
        ignored = P.eq(t, i64(ignore_index, t.shape, t.device))
        safe = P.where(ignored, i64(0, t.shape, t.device), t)
        if weight is not None:
            w = P.reshape(P.index_select(to_dtype(weight, x.dtype), 0, P.reshape(safe, [numel(t.shape)])),
                          list(t.shape))
            g = P.mul(g, w)
        picked = P.where(ignored, like(g, 0), P.neg(g))
        shape = list(x.shape) if a.dim() > 1 else [1] + list(x.shape)
        grad = P.scatter(P.full(shape, 0, dtype=x.dtype, device=x.device), 1, P.expand_dims(safe, [1]),
                         P.expand_dims(picked, [1]))
        grad = P.squeeze(grad, [0]) if a.dim() == 1 else grad
        return to_dtype(grad, orig)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


register_with_variants("nll_loss_backward", _nll_loss_backward("nll_loss_backward"))
register_with_variants("nll_loss2d_backward", _nll_loss_backward("nll_loss2d_backward"))


def mse_loss_backward(grad_output, a, target, reduction):
    if reduction not in (NONE, MEAN, SUM):
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    count = numel(a.shape)
    norm = (2.0 / count if count else math.inf) if reduction == MEAN else 2.0   # eager's 2. / numel
    out = elementwise(lambda g, x, y: P.mul(P.mul(P.sub(x, y), like(x, norm)), g), grad_output, a, target)
    return contiguous(out)   # eager allocates grad_input contiguous


register_with_variants("mse_loss_backward", mse_loss_backward)


def binary_cross_entropy_backward(grad_output, a, target, weight=None, reduction=MEAN):
    """Eager's formula, not the derivative of the clamped loss: grad * (x - t) / max((1 - x) x, 1e-12),
    times weight, divided by numel under mean; laid out like the input (eager's empty_like)."""
    if reduction not in (NONE, MEAN, SUM):
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    if tuple(target.shape) != tuple(a.shape):
        raise RuntimeError(f"binary_cross_entropy_backward: target of shape {list(target.shape)} does not match the "
                           f"input's {list(a.shape)}")

    def math_fn(g, x, t):
        c = lambda v: like(x, v)   # noqa: E731
        return P.div(P.mul(g, P.sub(x, t)), P.maximum(P.mul(P.sub(c(1.0), x), x), c(1e-12)))
    out = elementwise(math_fn, broadcast_to(grad_output, list(a.shape)), a, target)
    if weight is not None:
        out = elementwise(P.mul, out, broadcast_to(weight, list(a.shape)))
    if reduction == MEAN:
        out = elementwise(lambda x: P.div(x, like(x, numel(a.shape))), out)
    return in_layout(out, preserved_strides(a))     # eager's grad_input is empty_like(input)


register_with_variants("binary_cross_entropy_backward", binary_cross_entropy_backward)
