"""Backward of batch, layer, group and instance norm, and of weight norm.
"""
from __future__ import annotations

import math

from primkit.decompositions.backward.common import _sum_to
from primkit.decompositions.common import P, aten, like, to_dtype, upcast
from primkit.decompositions.nn.common import contiguous_unless_channels_last, is_channels_last_nd, keep_expanded
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous, in_layout
from primkit.prims.layout import numel


# ----------------------------------------------------------------------------- normalization


def _norm_input_grad(g, xhat, rstd_full, dims, count):
    """rstd / n * (n * g - sum(g) - xhat * sum(g * xhat)) over dims: the gradient of
    (x - mean) * rstd through both the mean and rstd, for an upstream gradient g."""
    sum_g = keep_expanded(P.sum(g, dims), dims, g)
    sum_gx = keep_expanded(P.sum(P.mul(g, xhat), dims), dims, g)
    inner = P.sub(P.sub(P.mul(g, like(g, count)), sum_g), P.mul(xhat, sum_gx))
    return P.mul(P.mul(inner, rstd_full), like(g, 1.0 / count if count else math.nan))


@register(aten.native_group_norm_backward.default)
def native_group_norm_backward(grad_out, a, mean, rstd, weight, N, C, HxW, group, output_mask):
    """Layer norm's gradient within each (sample, group) of C // group channels, the weight applied
    per channel; grad_weight and grad_bias sum over the batch and the spatial dims."""
    (x, g), orig = upcast(contiguous(a), contiguous(grad_out))
    grouped, per_channel = [N, group, (C // group) * HxW], [N, C, HxW]
    m, r = (P.broadcast_in_dim(to_dtype(P.reshape(s, [N, group]), x.dtype), grouped, [0, 1]) for s in (mean, rstd))
    g = P.reshape(g, per_channel)
    xhat = P.mul(P.sub(P.reshape(x, grouped), m), r)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        gw = g if weight is None else P.mul(g, P.broadcast_in_dim(to_dtype(weight, x.dtype), per_channel, [1]))
        grad_input = _norm_input_grad(P.reshape(gw, grouped), xhat, r, [2], grouped[2])
        grad_input = to_dtype(P.reshape(grad_input, list(a.shape)), orig)
        # eager's kernel keeps a channels-last input's layout (2-d and 3-d), else writes a contiguous one
        grad_input = in_layout(grad_input, a.stride()) if is_channels_last_nd(a) else contiguous(grad_input)
    if output_mask[1]:
        grad_weight = to_dtype(P.sum(P.mul(g, P.reshape(xhat, per_channel)), [0, 2]), orig)
    if output_mask[2]:
        grad_bias = to_dtype(P.sum(g, [0, 2]), orig)
    return grad_input, grad_weight, grad_bias


@register(aten.native_layer_norm_backward.default)
def native_layer_norm_backward(grad_out, a, normalized_shape, mean, rstd, weight, bias, output_mask):
    n = len(normalized_shape)
    axis = a.dim() - n
    dims, outer = list(range(axis, a.dim())), list(range(axis))
    (x, g), orig = upcast(contiguous(a), contiguous(grad_out))
    m, r = (P.broadcast_in_dim(P.reshape(to_dtype(s, x.dtype), list(a.shape[:axis])), list(x.shape), outer)
            for s in (mean, rstd))
    xhat = P.mul(P.sub(x, m), r)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        gw = g if weight is None else P.mul(g, P.broadcast_in_dim(to_dtype(weight, x.dtype), list(x.shape), dims))
        grad_input = to_dtype(_norm_input_grad(gw, xhat, r, dims, numel(a.shape[axis:])), orig)
    if output_mask[1] and weight is not None:
        grad_weight = to_dtype(_sum_to(P.mul(g, xhat), outer), weight.dtype)
    if output_mask[2] and bias is not None:
        grad_bias = to_dtype(_sum_to(g, outer), bias.dtype)
    return grad_input, grad_weight, grad_bias


def _batch_norm_backward(grad_out, a, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
                         output_mask):
    if a.dim() < 2:
        raise RuntimeError(f"batch_norm_backward: expected an input with at least 2 dims (N, C, ...), got {a.dim()}-D")
    dims = [0] + list(range(2, a.dim()))
    (x, g), orig = upcast(contiguous_unless_channels_last(a), grad_out)
    g = in_layout(g, x.stride()) if tuple(g.stride()) != tuple(x.stride()) else g
    per_channel = lambda v: P.broadcast_in_dim(to_dtype(v, x.dtype), list(x.shape), [1])   # noqa: E731
    if train:
        mean, invstd = save_mean, to_dtype(save_invstd, x.dtype)
    else:
        mean = running_mean
        rv = to_dtype(running_var, x.dtype)
        invstd = P.rsqrt(P.add(rv, like(rv, eps)))
    xhat = P.mul(P.sub(x, per_channel(mean)), per_channel(invstd))
    gw = g if weight is None else P.mul(g, per_channel(weight))
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if train:
            grad_input = _norm_input_grad(gw, xhat, per_channel(invstd), dims, numel([x.shape[d] for d in dims]))
        else:    # the statistics are constants
            grad_input = P.mul(gw, per_channel(invstd))
        grad_input = to_dtype(grad_input, orig)
    param_dtype = weight.dtype if weight is not None else a.dtype
    if output_mask[1]:
        grad_weight = to_dtype(P.sum(P.mul(g, xhat), dims), param_dtype)
    if output_mask[2]:
        grad_bias = to_dtype(P.sum(g, dims), param_dtype)
    return grad_input, grad_weight, grad_bias


register(aten.native_batch_norm_backward.default)(_batch_norm_backward)


@register(aten.batch_norm_backward.default)
def batch_norm_backward(grad_out, a, weight, running_mean, running_var, save_mean, save_var, update, eps,
                        output_mask, reserve):
    # aten.batch_norm's backward: save_var holds the inverse std, as native_batch_norm's save_invstd;
    # evaluation mode (update False) has empty saved statistics and uses the running ones.
    train = save_mean is not None and numel(save_mean.shape) > 0
    return _batch_norm_backward(grad_out, a, weight, running_mean, running_var, save_mean, save_var, train, eps,
                                output_mask)


@register(aten.cudnn_batch_norm_backward.default)
def cudnn_batch_norm_backward(a, grad_out, weight, running_mean, running_var, save_mean, save_var, eps,
                              reserve):
    # cuDNN's backward is always the training-mode one (its forward saves the batch statistics).
    return _batch_norm_backward(grad_out, a, weight, running_mean, running_var, save_mean, save_var, True, eps,
                                (True, True, True))


@register(aten.miopen_batch_norm_backward.default)
def miopen_batch_norm_backward(a, grad_out, weight, running_mean, running_var, save_mean, save_var, eps):
    return _batch_norm_backward(grad_out, a, weight, running_mean, running_var, save_mean, save_var, True, eps,
                                (True, True, True))


# ----------------------------------------------------------------------------- weight norm


@register(aten._weight_norm_interface_backward.default)
def weight_norm_interface_backward(grad_w, saved_v, saved_g, saved_norms, dim):
    """The adjoint of w = v * (g / norm): with s = sum(grad_w * v) over the other dims,
    grad_g = s / norm and grad_v = (g / norm) * grad_w - (g / norm) * (grad_g / norm) * v."""
    if dim not in (0, saved_v.dim() - 1):
        raise RuntimeError(f"_weight_norm_interface_backward: fused kernels can only be applied for first or last "
                           f"dim (dim == 0 || dim == v.dim() - 1), got dim={dim} for a {saved_v.dim()}-D v")
    dims = [d for d in range(saved_v.dim()) if d != dim]
    (gw, v, g, norm), orig = upcast(grad_w, saved_v, saved_g, saved_norms)
    per_slice = [saved_v.shape[dim]]
    norm, g = P.reshape(norm, per_slice), P.reshape(g, per_slice)
    grad_g = P.div(P.sum(P.mul(gw, v), dims), norm)
    a = P.div(g, norm)
    b = P.div(P.mul(a, grad_g), norm)
    along = lambda t: P.broadcast_in_dim(t, list(v.shape), [dim])   # noqa: E731
    grad_v = P.sub(P.mul(along(a), gw), P.mul(along(b), v))
    grad_g = P.reshape(to_dtype(grad_g, saved_g.dtype), list(saved_g.shape))
    return contiguous(to_dtype(grad_v, orig)), contiguous(grad_g)
