"""Normalization: layer, RMS, batch (with running statistics), instance and group norm, and weight norm.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, elementwise, like, register_out, to_dtype, upcast, wrap_dim
from primkit.decompositions.nn.common import contiguous_unless_channels_last, keep_expanded
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous, in_layout
from primkit.prims.layout import numel


def _keepdim(reduced, dims):
    """A reduction's result with the reduced dims back as size 1 (eager's keepdim=True)."""
    return P.expand_dims(reduced, sorted(dims)) if dims else reduced


def _mean(x, dims):
    total = P.sum(x, dims)
    return P.div(total, like(total, numel([x.shape[d] for d in dims])))


def _moments(x, dims, expand):
    """(mean, x - mean, biased variance) over dims; ``expand`` spreads a reduced value over x. The variance
    is the mean of the squared deviations, from the deviations the result needs anyway: two passes, as
    accurate as eager's Welford moments, where the var prim's CPU kernel (torch.var) is 3-40x slower."""
    mean = _mean(x, dims)
    centered = P.sub(x, expand(mean))
    return mean, centered, _mean(P.mul(centered, centered), dims)


def _channel_view(v, like, dim):
    """A per-channel vector (C,) broadcast along dim of like."""
    return P.broadcast_in_dim(v, list(like.shape), [dim])


def _affine(y, weight, bias, dim_of):
    """y * weight + bias, the parameters upcast to y's dtype; ``dim_of`` maps them onto y."""
    if weight is not None:
        y = P.mul(y, dim_of(to_dtype(weight, y.dtype)))
    if bias is not None:
        y = P.add(y, dim_of(to_dtype(bias, y.dtype)))
    return y


def _check_normalized_shape(name, x, normalized_shape, weight, bias):
    normalized_shape = list(normalized_shape)
    if len(normalized_shape) < 1:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
                           f"one element, but got normalized_shape = {normalized_shape}")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {what} to be of same shape as normalized_shape, but got {what} of shape "
                               f"{list(t.shape)} and normalized_shape = {normalized_shape}")
    n = len(normalized_shape)
    if x.dim() < n or list(x.shape[x.dim() - n:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={normalized_shape}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size{list(x.shape)}")
    return list(range(x.dim() - n, x.dim()))


@register(aten.native_layer_norm.default)
def native_layer_norm(a, normalized_shape, weight, bias, eps):
    dims = _check_normalized_shape("layer_norm", a, normalized_shape, weight, bias)
    (x,), orig = upcast(contiguous(a))
    mean, centered, var = _moments(x, dims, lambda v: keep_expanded(v, dims, x))
    rstd = P.rsqrt(P.add(var, like(mean, eps)))
    y = P.mul(centered, keep_expanded(rstd, dims, x))
    y = _affine(y, weight, bias, lambda p: P.broadcast_in_dim(p, list(x.shape), dims))
    # Eager keeps mean and rstd in the input dtype on CPU and in float32 on CUDA.
    stat_dtype = orig if a.device.type == "cpu" else x.dtype
    return (to_dtype(y, orig), to_dtype(_keepdim(mean, dims), stat_dtype),
            to_dtype(_keepdim(rstd, dims), stat_dtype))


@register(aten.layer_norm.default)
def layer_norm(a, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return native_layer_norm(a, normalized_shape, weight, bias, eps)[0]


def _rms_norm(a, normalized_shape, weight, eps):
    """(output, rstd): eager upcasts, normalizes, casts back and only then applies the weight."""
    dims = _check_normalized_shape("rms_norm", a, normalized_shape, weight, None)
    (x,), orig = upcast(a)
    eps = torch.finfo(x.dtype).eps if eps is None else eps
    rstd = P.rsqrt(P.add(_mean(P.mul(x, x), dims), like(P.sum(x, dims), eps)))
    y = to_dtype(P.mul(x, keep_expanded(rstd, dims, x)), orig)
    if weight is not None:
        y = elementwise(P.mul, y, weight)
    return y, _keepdim(rstd, dims)


@register(aten.rms_norm.default)
def rms_norm(a, normalized_shape, weight=None, eps=None):
    return contiguous(_rms_norm(a, normalized_shape, weight, eps)[0])    # eager's result is contiguous


@register(aten._fused_rms_norm.default)
def fused_rms_norm(a, normalized_shape, weight, eps):
    out, rstd = _rms_norm(a, normalized_shape, weight, eps)
    return contiguous(out), rstd    # the fused kernel writes a contiguous result


def _batch_norm(a, weight, bias, running_mean, running_var, training, momentum, eps):
    """(output, save_mean, save_invstd, new_running_mean, new_running_var)."""
    if a.dim() < 2:
        raise RuntimeError(f"batch_norm: expected an input with at least 2 dims (N, C, ...), got {a.dim()}-D")
    channels = a.shape[1]
    for what, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and (t.dim() != 1 or t.shape[0] != channels):
            raise RuntimeError(f"{what} should contain {channels} elements not {numel(t.shape)}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    dims = [0] + list(range(2, a.dim()))
    (x,), orig = upcast(contiguous_unless_channels_last(a))
    per_channel = lambda v: _channel_view(to_dtype(v, x.dtype), x, 1)   # noqa: E731
    new_mean = new_var = centered = None
    if training:
        mean, centered, var = _moments(x, dims, per_channel)
        invstd = P.rsqrt(P.add(var, like(var, eps)))
        if running_mean is not None:
            n = numel([x.shape[d] for d in dims])
            unbiased = P.mul(var, like(var, n / torch.sym_max(n - 1, 1)))   # (sym_max: n may be data)
            blend = lambda old, new: P.add(P.mul(to_dtype(old, x.dtype), like(new, 1 - momentum)),   # noqa: E731
                                           P.mul(new, like(new, momentum)))
            # Eager updates the running statistics outside autograd: constants to differentiation,
            # so that writing them into running_mean/var is not refused while the input requires grad.
            new_mean = P.stop_gradient(to_dtype(blend(running_mean, mean), running_mean.dtype))
            new_var = P.stop_gradient(to_dtype(blend(running_var, unbiased), running_var.dtype))
        save_mean, save_invstd = mean, invstd
    else:
        mean, rv = (to_dtype(t, x.dtype) for t in (running_mean, running_var))
        invstd = P.rsqrt(P.add(rv, like(rv, eps)))
        # Eager returns empty saved statistics in evaluation mode, typed like the running stats.
        save_mean = save_invstd = P.full([0], 0, dtype=running_mean.dtype, device=a.device)
    if a.device.type == "cpu":
        # eager's CPU kernel folds the statistics and the affine parameters into one scale and one shift per
        # channel, x * (invstd * weight) + (bias - mean * invstd * weight): two passes over x instead of four
        scale = invstd if weight is None else P.mul(invstd, to_dtype(weight, x.dtype))
        if centered is not None:   # training: the deviations are there already, (x - mean) * scale + bias
            y = P.mul(centered, per_channel(scale))
            y = y if bias is None else P.add(y, per_channel(bias))
        else:
            shift = P.mul(P.neg(mean), scale) if bias is None else P.sub(to_dtype(bias, x.dtype), P.mul(mean, scale))
            y = P.add(P.mul(x, per_channel(scale)), per_channel(shift))
    else:
        y = P.mul(centered if centered is not None else P.sub(x, per_channel(mean)), per_channel(invstd))
        y = _affine(y, weight, bias, lambda p: _channel_view(p, y, 1))
    return to_dtype(y, orig), save_mean, save_invstd, new_mean, new_var


def _update_running_stats(running_mean, running_var, new_mean, new_var):
    # Eager's training-mode batch norm updates the running statistics in place.
    if new_mean is not None:
        P.copy_to(running_mean, new_mean)
        P.copy_to(running_var, new_var)


@register(aten.native_batch_norm.default, aten._native_batch_norm_legit.default)
def native_batch_norm(a, weight, bias, running_mean, running_var, training, momentum, eps):
    y, save_mean, save_invstd, new_mean, new_var = _batch_norm(a, weight, bias, running_mean, running_var,
                                                               training, momentum, eps)
    _update_running_stats(running_mean, running_var, new_mean, new_var)
    return y, save_mean, save_invstd


@register(aten._native_batch_norm_legit.no_stats)
def native_batch_norm_no_stats(a, weight, bias, training, momentum, eps):
    return native_batch_norm(a, weight, bias, None, None, training, momentum, eps)


@register(aten._native_batch_norm_legit_no_training.default)
def native_batch_norm_no_training(a, weight, bias, running_mean, running_var, momentum, eps):
    return _batch_norm(a, weight, bias, running_mean, running_var, False, momentum, eps)[:3]


@register(aten._native_batch_norm_legit_functional.default)
def native_batch_norm_functional(a, weight, bias, running_mean, running_var, training, momentum, eps):
    y, save_mean, save_invstd, new_mean, new_var = _batch_norm(a, weight, bias, running_mean, running_var,
                                                               training, momentum, eps)
    if new_mean is None:   # evaluation mode: the running statistics come back unchanged
        new_mean, new_var = P.clone(running_mean), P.clone(running_var)
    return y, save_mean, save_invstd, new_mean, new_var


@register(aten.batch_norm.default)
def batch_norm(a, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return native_batch_norm(a, weight, bias, running_mean, running_var, training, momentum, eps)[0]


# aten.batch_norm's successors (torch.export's training IR of torch 2.3-2.5 and CUDA programs reach
# them): the training form updates the running statistics, the evaluation form uses them; both
# return an empty uint8 ``reserve`` (cuDNN's workspace; none on other backends).


def _reserve(a):
    return P.full([0], 0, dtype=torch.uint8, device=a.device)


@register(aten._batch_norm_with_update.default)
def batch_norm_with_update(a, weight, bias, running_mean, running_var, momentum, eps):
    y, save_mean, save_invstd = native_batch_norm(a, weight, bias, running_mean, running_var, True, momentum, eps)
    return y, save_mean, save_invstd, _reserve(a)


@register(aten._batch_norm_with_update_functional.default)
def batch_norm_with_update_functional(a, weight, bias, running_mean, running_var, momentum, eps):
    y, save_mean, save_invstd, new_mean, new_var = native_batch_norm_functional(
        a, weight, bias, running_mean, running_var, True, momentum, eps)
    return y, save_mean, save_invstd, _reserve(a), new_mean, new_var


@register(aten._batch_norm_no_update.default)
def batch_norm_no_update(a, weight, bias, running_mean, running_var, momentum, eps):
    y, save_mean, save_invstd = native_batch_norm_no_training(a, weight, bias, running_mean, running_var, momentum,
                                                              eps)
    return y, save_mean, save_invstd, _reserve(a)


register_out(aten._batch_norm_with_update.out, batch_norm_with_update)
register_out(aten._batch_norm_no_update.out, batch_norm_no_update)


# Weight normalization (Salimans & Kingma): w = g * v / ||v||, the norm taken over every dim of v but
# ``dim``. torch.nn.utils.parametrizations.weight_norm calls the composite aten._weight_norm, which runs
# the fused _weight_norm_interface for dim 0 or the last dim (and no float16), else the formula.


def _weight_norm_dims(v, dim, name):
    if v.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if dim not in (0, v.dim() - 1):
        raise RuntimeError(f"{name}: fused kernels can only be applied for first or last dim (dim == 0 || "
                           f"dim == v.dim() - 1), got dim={dim} for a {v.dim()}-D v")
    return [d for d in range(v.dim()) if d != dim]


@register(aten._weight_norm_interface.default)
def weight_norm_interface(v, g, dim=0):
    """(w, norm): norm = sqrt(sum(v^2)) over the other dims, shaped and laid out like g and computed
    in float32 for float16/bfloat16 (eager's kernel keeps it there); w = v * (g / norm), contiguous."""
    dims = _weight_norm_dims(v, dim, "_weight_norm_interface")
    (x, gx), orig = upcast(contiguous(v), g)
    norm = P.sqrt(P.sum(P.mul(x, x), dims))                       # (v.shape[dim],)
    scale = P.div(P.reshape(gx, list(norm.shape)), norm)
    w = P.mul(x, P.broadcast_in_dim(scale, list(x.shape), [dim]))
    norm = in_layout(P.reshape(norm, list(g.shape)), g.stride()) if g.dim() else P.reshape(norm, [])
    return to_dtype(w, orig), norm


register_out(aten._weight_norm_interface.out, weight_norm_interface)


@register(aten.norm_except_dim.default)
def norm_except_dim(v, pow=2, dim=0):
    """The p-norm of v over every dim but ``dim`` (all of them for dim=-1), keeping v's rank."""
    if dim == -1:
        return aten.linalg_vector_norm.default(v, pow)
    d = wrap_dim(dim, v.dim())
    # v seen as (rest, v.shape[d], rest): an explicit reduction over the others, even when there are
    # none (an empty dim list would mean every dim to linalg_vector_norm).
    x = P.expand_dims(contiguous(v), [v.dim()])
    others = [k for k in range(v.dim() + 1) if k != d]
    return P.squeeze(aten.linalg_vector_norm.default(x, pow, others, True), [v.dim()])


@register(aten._weight_norm.default)
def weight_norm(v, g, dim=0):
    """Eager's composite: the fused kernel where it applies, else v * (g / norm_except_dim(v, 2, dim))."""
    if v.device != g.device:
        raise RuntimeError(f"_weight_norm: expected v and g on the same device, got {v.device} and {g.device}")
    v, g = contiguous(v), contiguous(g)
    if torch.float16 not in (v.dtype, g.dtype) and dim in (0, v.dim() - 1):
        return weight_norm_interface(v, g, dim)[0]
    return aten.mul.Tensor(v, aten.div.Tensor(g, norm_except_dim(v, 2, dim)))


@register(aten.instance_norm.default)
def instance_norm(a, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """Eager's composite: batch norm of the input seen as one sample of N * C channels (the
    per-channel parameters repeated N times); the running statistics become the mean over the
    batch of the N updated copies."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    if a.dim() < 2:
        raise RuntimeError(f"instance_norm: expected an input with at least 2 dims (N, C, ...), got {a.dim()}-D")
    n, c = a.shape[0], a.shape[1]

    def repeated(t):   # (C,) -> (N * C,): t repeated N times
        return None if t is None else P.reshape(P.broadcast_in_dim(t, [n, c], [1]), [n * c])
    x = P.reshape(contiguous(a), [1, n * c] + list(a.shape[2:]))
    rm, rv = repeated(running_mean), repeated(running_var)
    y, _, _, new_mean, new_var = _batch_norm(x, repeated(weight), repeated(bias), rm, rv, use_input_stats, momentum,
                                             eps)
    for stat, new in ((running_mean, new_mean if new_mean is not None else rm),
                      (running_var, new_var if new_var is not None else rv)):
        if stat is not None:
            P.copy_to(stat, _mean(P.reshape(new, [n, c]), [0]))
    return P.reshape(y, list(a.shape))


@register(aten.native_group_norm.default)
def native_group_norm(a, weight, bias, N, C, HxW, group, eps):
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {list(a.shape)} and num_groups={group}")
    (x,), orig = upcast(contiguous_unless_channels_last(a))
    grouped = P.reshape(contiguous(x), [N, group, (C // group) * HxW])
    mean = _mean(grouped, [2])
    rstd = P.rsqrt(P.add(P.var(grouped, [2], 0.0), like(mean, eps)))

    def per_channel(stat):   # (N, group) -> broadcast over x, one value per channel
        stat = P.reshape(P.broadcast_in_dim(stat, [N, group, C // group], [0, 1]), [N, C])
        return P.broadcast_in_dim(stat, list(x.shape), [0, 1])
    y = P.mul(P.sub(x, per_channel(mean)), per_channel(rstd))
    y = _affine(y, weight, bias, lambda p: _channel_view(p, y, 1))
    return to_dtype(y, orig), to_dtype(mean, orig), to_dtype(rstd, orig)


@register(aten.group_norm.default)
def group_norm(a, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    if a.dim() < 2:
        raise RuntimeError(f"group_norm: expected an input with at least 2 dims (N, C, ...), got {a.dim()}-D")
    n, c = a.shape[0], a.shape[1]
    return native_group_norm(a, weight, bias, n, c, numel(a.shape[2:]), num_groups, eps)[0]
register_out(aten.native_batch_norm.out, native_batch_norm)
register_out(aten._native_batch_norm_legit.out, native_batch_norm)
register_out(aten._native_batch_norm_legit.no_stats_out, native_batch_norm_no_stats)
register_out(aten._native_batch_norm_legit_no_training.out, native_batch_norm_no_training)
register_out(aten.native_group_norm.out, native_group_norm)
register_out(aten.native_layer_norm.out, native_layer_norm)
