"""Decompositions of torch.nn.functional's ATen ops: activations, softmax, norms, convolution,
pooling, embedding, dropout, attention and losses.

Covers both the backend ops make_fx reaches (aten.gelu, aten._softmax, aten.native_layer_norm,
aten.max_pool2d_with_indices, ...) and the CompositeImplicitAutograd ops torch.export keeps
(aten.layer_norm, aten.conv2d, aten.scaled_dot_product_attention, ...). Float16/bfloat16 are
computed in float32 and cast back, as eager's kernels do.
"""
from __future__ import annotations

import itertools
import math

import torch

from primkit.decompositions.random import bernoulli_noise
from primkit.decompositions.shape import contiguous, in_layout
from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, elementwise, like, register_out, register_with_variants, to_dtype,
    upcast, wrap_dim)
from primkit.decompositions.registry import register
from primkit.decompositions.type_promotion import computation_dtype
from primkit.prims import dtypes as dt
from primkit.prims.meta.strides import contiguous_strides, is_channels_last, is_contiguous

# ----------------------------------------------------------------------------- helpers


def _numel(shape):
    n = 1
    for s in shape:
        n = n * s
    return n


def _keep(reduced, dims, like):
    """A reduction's result broadcast back over the reduced dims of ``like`` (keepdim + expand)."""
    kept = [d for d in range(like.dim()) if d not in dims]
    return P.broadcast_in_dim(reduced, list(like.shape), kept)


def _keepdim(reduced, dims):
    """A reduction's result with the reduced dims back as size 1 (eager's keepdim=True)."""
    return P.expand_dims(reduced, sorted(dims)) if dims else reduced


def _contiguous_unless_channels_last(t):
    """Eager's norm kernels allocate their output channels-last for a channels-last input, else contiguous."""
    return t if _is_channels_last(t) else contiguous(t)


def _dense_in_order(t, perm):
    """t with the strides of a contiguous tensor of permute(t, perm) (eager's transposed buffers)."""
    inverse = [perm.index(d) for d in range(len(perm))]
    return P.permute(contiguous(P.permute(t, perm)), inverse)


def _is_channels_last(t):
    return t.dim() == 4 and is_channels_last(t.shape, t.stride()) and not is_contiguous(t.shape, t.stride())


def _is_channels_last_nd(t):
    """t (4-D or 5-D) laid out channels-last and not also contiguous: eager's suggest_memory_format."""
    if t.dim() not in (4, 5) or t.numel() == 0:
        return False
    order = [0] + list(range(2, t.dim())) + [1]
    stride, ok = 1, True
    for d in reversed(order):
        if t.shape[d] != 1 and t.stride(d) != stride:
            ok = False
        stride *= t.shape[d]
    return ok and not all(t.shape[d] == 1 or t.stride(d) == s for d, s in
                          enumerate(contiguous_strides(t.shape)))


def _check_floating(name, t):
    if t.dtype not in dt.FLOAT:
        raise RuntimeError(f"{name}: expected a floating-point input, got {dt.short(t.dtype)}")


def _mean(x, dims):
    total = P.sum(x, dims)
    return P.div(total, like(total, _numel([x.shape[d] for d in dims])))


# ----------------------------------------------------------------------------- activations
# Each is the math on x in its computation dtype; ``c(v)`` is the constant v shaped like x.


def _activation(name, math_fn, *, floating_only=True):
    def decomp(a, *args, **kwargs):
        if floating_only:
            _check_floating(name, a)
        (x,), orig = upcast(a)
        return to_dtype(math_fn(x, lambda v: like(x, v), *args, **kwargs), orig)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


def _gelu(x, c, *, approximate="none"):
    if approximate == "none":
        return P.mul(P.mul(x, c(0.5)), P.add(c(1.0), P.erf(P.mul(x, c(math.sqrt(0.5))))))
    if approximate == "tanh":
        inner = P.mul(c(math.sqrt(2.0 / math.pi)), P.add(x, P.mul(c(0.044715), P.mul(x, P.mul(x, x)))))
        return P.mul(P.mul(c(0.5), x), P.add(c(1.0), P.tanh(inner)))
    raise RuntimeError(f"approximate argument must be either none or tanh, got '{approximate}'")


def _relu(x, c):
    return P.maximum(x, c(0))


def _hardtanh(x, c, min_val=-1, max_val=1):
    if min_val > max_val:
        raise RuntimeError("hardtanh: min_val cannot be greater than max_val")
    # Eager's clamp: nan passes through, as P.minimum/P.maximum keep it.
    return P.minimum(P.maximum(x, c(min_val)), c(max_val))


def _relu6_window(x, c):
    return P.minimum(P.maximum(P.add(x, c(3.0)), c(0.0)), c(6.0))


def _softplus(x, c, beta=1, threshold=20):
    scaled = P.mul(x, c(beta))
    return P.where(P.gt(scaled, c(threshold)), x, P.div(P.log1p(P.exp(scaled)), c(beta)))


def _elu(x, c, alpha=1, scale=1, input_scale=1):
    negative = P.mul(P.expm1(P.mul(x, c(input_scale))), c(alpha * scale))
    return P.where(P.gt(x, c(0)), P.mul(x, c(scale)), negative)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _celu(x, c, alpha=1.0):
    return _elu(x, c, alpha, 1.0, 1.0 / alpha if alpha else math.inf)


def _hardshrink(x, c, lambd=0.5):
    # nan compares false, so it passes through as eager's kernel does.
    return P.where(P.logical_and(P.ge(x, c(-lambd)), P.le(x, c(lambd))), c(0.0), x)


def _softshrink(x, c, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be in range [0, inf), but found {lambd}")
    middle = P.mul(x, c(0.0))     # eager writes x * 0 there, so nan stays nan
    return P.where(P.gt(x, c(lambd)), P.sub(x, c(lambd)), P.where(P.lt(x, c(-lambd)), P.add(x, c(lambd)), middle))


ACTIVATIONS = {
    # name: (math on the computation dtype, floating inputs only)
    "relu": (_relu, False),
    "gelu": (_gelu, True),
    "silu": (lambda x, c: P.div(x, P.add(c(1.0), P.exp(P.neg(x)))), True),
    "hardtanh": (_hardtanh, False),
    "leaky_relu": (lambda x, c, negative_slope=0.01: P.where(P.gt(x, c(0)), x, P.mul(x, c(negative_slope))), True),
    "elu": (_elu, True),
    "softplus": (_softplus, True),
    "threshold": (lambda x, c, threshold, value: P.where(P.le(x, c(threshold)), c(value), x), False),
    "hardsigmoid": (lambda x, c: P.div(_relu6_window(x, c), c(6.0)), True),
    "hardswish": (lambda x, c: P.div(P.mul(x, _relu6_window(x, c)), c(6.0)), True),
    "mish": (lambda x, c: P.mul(x, P.tanh(P.log1p(P.exp(x)))), True),
    "celu": (_celu, True),
    "selu": (lambda x, c: _elu(x, c, SELU_ALPHA, SELU_SCALE, 1.0), True),
    "hardshrink": (_hardshrink, True),
    "softshrink": (_softshrink, True),
}

for _name, (_math, _floating_only) in ACTIVATIONS.items():
    register_with_variants(_name, _activation(_name, _math, floating_only=_floating_only))


def glu_halves(a, dim, check=lambda a: None):
    """glu's argument checks (``check`` after the scalar one), then the halves of ``a`` along dim in
    its computation dtype: (first, second, wrapped dim, a's dtype). glu and glu_backward share it."""
    if a.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    check(a)
    dim = wrap_dim(dim, a.dim())
    size = a.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    (x,), orig = upcast(a)

    def part(start, stop):
        starts, limits, steps = [0] * x.dim(), list(x.shape), [1] * x.dim()
        starts[dim], limits[dim] = start, stop
        return P.slice(x, starts, limits, steps)
    return part(0, size // 2), part(size // 2, size), dim, orig


def glu(a, dim=-1):
    first, second, _, orig = glu_halves(a, dim, check=lambda a: _check_floating("glu", a))
    return to_dtype(P.mul(first, P.sigmoid(second)), orig)


register_with_variants("glu", glu)


def _log_sigmoid_parts(a):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|; and exp(-|x|),
    the buffer eager's CPU kernel saves for the backward."""
    _check_floating("log_sigmoid", a)
    (x,), orig = upcast(contiguous(a))   # eager's kernel writes a contiguous result
    buffer = P.exp(P.neg(P.abs(x)))
    out = P.sub(P.minimum(x, like(x, 0.0)), P.log1p(buffer))
    return to_dtype(out, orig), to_dtype(buffer, orig)


@register(aten.log_sigmoid_forward.default)
def log_sigmoid_forward(a):
    out, buffer = _log_sigmoid_parts(a)
    if a.device.type != "cpu":
        buffer = P.full([0], 0, dtype=a.dtype, device=a.device)   # CUDA saves no buffer
    return out, buffer


register_with_variants("log_sigmoid", lambda a: _log_sigmoid_parts(a)[0])


# ----------------------------------------------------------------------------- softmax family


def _softmax_impl(a, dim, out_dtype, log):
    """(log_)softmax along dim: subtract the max before exp so huge inputs stay finite; rows with
    an inf or all -inf give nan, as eager. The result is contiguous, as eager's."""
    dims = [wrap_dim(dim, a.dim())] if a.dim() else []
    x = to_dtype(contiguous(a), computation_dtype(a.dtype))
    if x is a:
        x = P.clone(x)
    if _numel(x.shape) == 0:
        return to_dtype(x, out_dtype)
    shifted = P.sub(x, _keep(P.amax(x, dims), dims, x))
    exp = P.exp(shifted)
    total = _keep(P.sum(exp, dims), dims, x)
    out = P.sub(shifted, P.log(total)) if log else P.div(exp, total)
    return to_dtype(out, out_dtype)


def _check_half_to_float(name, a, half_to_float):
    if half_to_float and a.dtype not in (torch.float16, torch.bfloat16):
        raise RuntimeError(f"{name}: conversion is supported for Half type only")
    _check_floating(name, a)


def _softmax(a, dim, half_to_float):
    _check_half_to_float("softmax", a, half_to_float)
    return _softmax_impl(a, dim, torch.float32 if half_to_float else a.dtype, log=False)


def _log_softmax(a, dim, half_to_float):
    _check_half_to_float("log_softmax", a, half_to_float)
    return _softmax_impl(a, dim, torch.float32 if half_to_float else a.dtype, log=True)


register_with_variants("_softmax", _softmax)
register_with_variants("_log_softmax", _log_softmax)


def softmax(a, dim, dtype=None):
    x = a if dtype is None else to_dtype(a, dtype)
    return _softmax(x, dim, False)


def log_softmax(a, dim, dtype=None):
    x = a if dtype is None else to_dtype(a, dtype)
    return _log_softmax(x, dim, False)


# Explicit overloads: the .Dimname ones take a dim name, which primkit's tensors do not carry.
register(aten.softmax.int)(softmax)
register(aten.log_softmax.int)(log_softmax)
register_out(aten.softmax.int_out, softmax, "softmax")
register_out(aten.log_softmax.int_out, log_softmax, "log_softmax")


# ----------------------------------------------------------------------------- normalization


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
    mean = _mean(x, dims)
    rstd = P.rsqrt(P.add(P.var(x, dims, 0.0), like(mean, eps)))
    y = P.mul(P.sub(x, _keep(mean, dims, x)), _keep(rstd, dims, x))
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
    y = to_dtype(P.mul(x, _keep(rstd, dims, x)), orig)
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
            raise RuntimeError(f"{what} should contain {channels} elements not {_numel(t.shape)}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    dims = [0] + list(range(2, a.dim()))
    (x,), orig = upcast(_contiguous_unless_channels_last(a))
    per_channel = lambda v: _channel_view(to_dtype(v, x.dtype), x, 1)   # noqa: E731
    new_mean = new_var = None
    if training:
        mean = _mean(x, dims)
        var = P.var(x, dims, 0.0)
        invstd = P.rsqrt(P.add(var, like(var, eps)))
        if running_mean is not None:
            n = _numel([x.shape[d] for d in dims])
            unbiased = P.mul(var, like(var, n / max(n - 1, 1)))
            blend = lambda old, new: P.add(P.mul(to_dtype(old, x.dtype), like(new, 1 - momentum)),   # noqa: E731
                                           P.mul(new, like(new, momentum)))
            # Eager updates the running statistics outside autograd: constants to differentiation,
            # so that writing them into running_mean/var is not refused while the input requires grad.
            new_mean = P.stop_gradient(to_dtype(blend(running_mean, mean), running_mean.dtype))
            new_var = P.stop_gradient(to_dtype(blend(running_var, unbiased), running_var.dtype))
        save_mean, save_invstd = mean, invstd
        y = P.mul(P.sub(x, per_channel(mean)), per_channel(invstd))
    else:
        rm, rv = (to_dtype(t, x.dtype) for t in (running_mean, running_var))
        invstd = P.rsqrt(P.add(rv, like(rv, eps)))
        y = P.mul(P.sub(x, per_channel(rm)), per_channel(invstd))
        # Eager returns empty saved statistics in evaluation mode, typed like the running stats.
        save_mean = save_invstd = P.full([0], 0, dtype=running_mean.dtype, device=a.device)
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
    (x,), orig = upcast(_contiguous_unless_channels_last(a))
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
    return native_group_norm(a, weight, bias, n, c, _numel(a.shape[2:]), num_groups, eps)[0]


# ----------------------------------------------------------------------------- convolution


def _per_dim(name, value, n):
    """An int or list argument as n ints (eager repeats a single value for every spatial dim)."""
    values = [value] if isinstance(value, int) else list(value)
    if len(values) == 1 and n > 1:
        values = values * n
    if len(values) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={values}")
    return values


@register(aten.convolution.default)
def convolution(a, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    n = weight.dim() - 2
    if a.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                           f"{list(weight.shape)}, but got {a.dim()}-dimensional input of size {list(a.shape)} instead")
    if a.dtype != weight.dtype or (bias is not None and bias.dtype != a.dtype):
        other = weight.dtype if a.dtype != weight.dtype else bias.dtype
        raise RuntimeError(f"Input type ({dt.short(a.dtype)}) and weight/bias type ({dt.short(other)}) should be "
                           f"the same")
    if groups < 1 or weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size {list(weight.shape)} instead")
    expected = weight.shape[0] if transposed else weight.shape[1] * groups
    if a.shape[1] != expected:
        what = f"transposed=1, weight of size {list(weight.shape)}" if transposed else \
            f"groups={groups}, weight of size {list(weight.shape)}"
        raise RuntimeError(f"Given {what}, expected input{list(a.shape)} to have {expected} channels, but got "
                           f"{a.shape[1]} channels instead")
    params = [_per_dim(name, v, n) for name, v in (("stride", stride), ("padding", padding),
                                                    ("dilation", dilation), ("output_padding", output_padding))]
    return P.convolution(a, weight, bias, *params[:3], transposed, params[3], groups)


def _same_padding(name, a, weight, stride, dilation, n):
    """'same' padding: total d*(k-1) split evenly, the odd element on the high side (as eager)."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    totals = [d * (weight.shape[2 + i] - 1) for i, d in enumerate(dilation)]
    extra = [t % 2 for t in totals]
    if any(extra):
        x, spatial, restore = _working_layout(a, n)   # pad channels-last data in NHWC to keep its layout
        high = [0] * a.dim()
        for d, e in zip(spatial, extra):
            high[d] = e
        a = restore(P.pad(x, 0, [0] * a.dim(), high, [0] * a.dim()))
    return a, [t // 2 for t in totals]


def _conv_nd(n, transposed):
    """aten.conv{n}d / aten.conv_transpose{n}d: batch an unbatched input, call convolution."""
    def conv(a, weight, bias=None, stride=1, padding=0, third=None, groups=1, dilation=1):
        # conv{n}d's sixth argument is dilation (default 1); conv_transpose{n}d's is output_padding (default 0).
        output_padding, dilation = (third or 0, dilation) if transposed else (0, 1 if third is None else third)
        stride, dilation, output_padding = (_per_dim(k, v, n) for k, v in
                                            (("stride", stride), ("dilation", dilation),
                                             ("output_padding", output_padding)))
        unbatched = a.dim() == n + 1
        if a.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"conv{'_transpose' if transposed else ''}{n}d, but got input of size: {list(a.shape)}")
        x = P.expand_dims(a, [0]) if unbatched else a
        if isinstance(padding, str):
            if padding == "valid":
                padding = [0] * n
            elif padding == "same":
                x, padding = _same_padding(f"conv{n}d", x, weight, stride, dilation, n)
            else:
                raise RuntimeError(f"Invalid padding string: '{padding}'")
        out = convolution(x, weight, bias, stride, _per_dim("padding", padding, n), dilation, transposed,
                          output_padding, groups)
        return P.squeeze(out, [0]) if unbatched else out
    conv.__name__ = conv.__qualname__ = f"conv{'_transpose' if transposed else ''}{n}d"
    return conv


for _n in (1, 2, 3):
    register(getattr(aten, f"conv{_n}d").default, getattr(aten, f"conv{_n}d").padding)(_conv_nd(_n, False))
for _n, _op in ((1, aten.conv_transpose1d.default), (2, aten.conv_transpose2d.input), (3, aten.conv_transpose3d.input)):
    register(_op)(_conv_nd(_n, True))


# ----------------------------------------------------------------------------- pooling
# Windows are strided slices of the padded input, one per kernel offset, stacked on a new last
# dim and reduced with amax / argmax / sum. Channels-last inputs are pooled in NHWC order so
# the result keeps eager's channels-last layout.


def _pool_geometry(name, a, n, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _per_dim("kernel_size", kernel_size, n)
    stride = _per_dim("stride", stride, n) if stride else list(kernel)   # empty: the kernel size
    padding, dilation = _per_dim("padding", padding, n), _per_dim("dilation", dilation, n)
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D (batch mode) tensor for input, but got "
                           f"{a.dim()}D input of size {list(a.shape)}")
    if any(k <= 0 for k in kernel) or any(s <= 0 for s in stride) or any(d <= 0 for d in dilation):
        raise RuntimeError(f"{name}: kernel_size, stride and dilation must be greater than zero, but got "
                           f"kernel_size={kernel}, stride={stride}, dilation={dilation}")
    if any(p < 0 or p > (d * (k - 1) + 1) // 2 for p, k, d in zip(padding, kernel, dilation)):
        raise RuntimeError(f"{name}: pad should be at most half of effective kernel size, but got pad={padding}, "
                           f"kernel_size={kernel} and dilation={dilation}")
    sizes = list(a.shape[a.dim() - n:])
    out = []
    for size, k, s, p, d in zip(sizes, kernel, stride, padding, dilation):
        o = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (o - 1) * s >= size + p:   # the last window must start inside input or left padding
            o -= 1
        out.append(o)
    if any(o < 1 for o in out):
        raise RuntimeError(f"{name}: Given input size {list(a.shape)}, the calculated output size {out} is too small")
    return kernel, stride, padding, dilation, out


def _working_layout(a, n):
    """(x, spatial dims of x, restore): NHWC for a channels-last input, else a itself."""
    if n == 2 and _is_channels_last(a):
        return P.permute(a, [0, 2, 3, 1]), [1, 2], lambda t: P.permute(t, [0, 3, 1, 2])
    return a, list(range(a.dim() - n, a.dim())), lambda t: t


def _pool_layout(a, n):
    """_working_layout for poolings: eager's 3-d average and adaptive poolings return contiguous
    results whatever the input's layout."""
    if n == 3:
        return a, list(range(a.dim() - 3, a.dim())), contiguous
    return _working_layout(a, n)


def _max_pool_layout(a, n):
    """_working_layout for max pooling: NDHWC for a channels-last batch of volumes, which eager's 3-d
    max pooling keeps."""
    if n == 3 and a.dim() == 5 and _is_channels_last_nd(a):
        return P.permute(a, [0, 2, 3, 4, 1]), [1, 2, 3], lambda t: P.permute(t, [0, 4, 1, 2, 3])
    return _pool_layout(a, n)


def _windows(x, spatial, kernel, stride, dilation, out, pad_low, fill):
    """x's pooling windows stacked on a new last dim: shape x.shape with spatial sizes -> out, + (K,)."""
    low, high = [0] * x.dim(), [0] * x.dim()
    for i, d in enumerate(spatial):
        low[d] = pad_low[i]
        high[d] = (out[i] - 1) * stride[i] + (kernel[i] - 1) * dilation[i] + 1 - x.shape[d] - pad_low[i]
    padded = P.pad(x, fill, low, high, [0] * x.dim()) if any(low) or any(high) else x
    slices = []
    for offsets in itertools.product(*(range(k) for k in kernel)):
        starts, limits, steps = [0] * x.dim(), list(padded.shape), [1] * x.dim()
        for i, d in enumerate(spatial):
            starts[d] = offsets[i] * dilation[i]
            limits[d] = starts[d] + (out[i] - 1) * stride[i] + 1
            steps[d] = stride[i]
        slices.append(P.expand_dims(P.slice(padded, starts, limits, steps), [x.dim()]))
    return P.cat(slices, x.dim())


def _lowest(dtype):
    return -math.inf if dtype in dt.FLOAT else torch.iinfo(dtype).min


def _max_pool(name, a, n, kernel_size, stride, padding, dilation, ceil_mode):
    kernel, stride, padding, dilation, out = _pool_geometry(name, a, n, kernel_size, stride, padding, dilation,
                                                            ceil_mode)
    x, spatial, restore = _max_pool_layout(a, n)
    win = _windows(x, spatial, kernel, stride, dilation, out, padding, _lowest(a.dtype))
    last = win.dim() - 1
    values, position = P.amax(win, [last]), P.argmax(win, last)
    # Flat input index (h * W + w) of every window position: the same windows over an index grid.
    sizes = [x.shape[d] for d in spatial]
    grid = P.reshape(P.iota(_numel(sizes), start=0, step=1, dtype=torch.int64, device=a.device), sizes)
    grid_win = _windows(grid, list(range(n)), kernel, stride, dilation, out, padding, -1)
    index = P.squeeze(P.gather(P.broadcast_in_dim(grid_win, list(win.shape), spatial + [last]), last,
                               P.expand_dims(position, [last])), [last])
    if a.dtype in dt.FLOAT:
        # A window of only -inf: eager keeps its first in-bounds position, not a padded one.
        big = P.broadcast_in_dim(P.scalar_tensor(torch.iinfo(torch.int64).max, dtype=torch.int64, device=a.device),
                                 list(grid_win.shape), [])
        first = P.amin(P.where(P.ge(grid_win, P.broadcast_in_dim(
            P.scalar_tensor(0, dtype=torch.int64, device=a.device), list(grid_win.shape), [])), grid_win, big), [n])
        first = P.broadcast_in_dim(first, list(values.shape), spatial)
        index = P.where(P.eq(values, like(values, -math.inf)), first, index)
    return restore(values), restore(index)


@register(aten.max_pool2d_with_indices.default)
def max_pool2d_with_indices(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool2d", a, 2, kernel_size, stride, padding, dilation, ceil_mode)


@register(aten.max_pool2d.default)
def max_pool2d(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool2d", a, 2, kernel_size, stride, padding, dilation, ceil_mode)[0]


@register(aten.max_pool1d.default)
def max_pool1d(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool1d", a, 1, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _height_one(name, a, pool2d, *params):
    """A 1-D pooling as eager's composite computes it: the 2-D pooling of a height-1 image
    (unsqueeze(-2), pool, squeeze(-2)), which gives eager's values and its channels-last layout
    for a transposed input. ``params``: 1-D kernel/stride/padding/dilation, made 2-D."""
    if a.dim() not in (2, 3):
        raise RuntimeError(f"{name}: Expected 2D or 3D (batch mode) tensor for input, but got {a.dim()}D input of "
                           f"size {list(a.shape)}")
    def lift(height, v):   # [height, v]; an empty stride stays empty (it means the kernel size)
        values = list(v) if isinstance(v, (list, tuple)) else [v]
        return [height] + values if values else []
    out = pool2d(P.expand_dims(a, [a.dim() - 1]), *(lift(h, v) for h, v in params))
    squeeze = lambda t: P.squeeze(t, [a.dim() - 1])   # noqa: E731
    return tuple(squeeze(t) for t in out) if isinstance(out, tuple) else squeeze(out)


@register(aten.max_pool1d_with_indices.default)
def max_pool1d_with_indices(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _height_one("max_pool1d_with_indices", a,
                       lambda x, k, s, p, d: _max_pool("max_pool1d", x, 2, k, s, p, d, ceil_mode),
                       (1, kernel_size), (1, stride), (0, padding), (1, dilation))


def _avg_pool(name, a, n, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    kernel, stride, padding, dilation, out = _pool_geometry(name, a, n, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{name}: divisor must be not zero")
    x, spatial, restore = _pool_layout(a, n)
    (xc,), orig = upcast(x)
    win = _windows(xc, spatial, kernel, stride, dilation, out, padding, 0)
    total = P.sum(win, [win.dim() - 1])
    if divisor_override is not None:
        count = like(total, divisor_override)
    else:
        # Window sizes: count ones over the input, or over input plus padding (not the ceil_mode overhang).
        sizes = [x.shape[d] + (2 * p if count_include_pad else 0) for d, p in zip(spatial, padding)]
        ones = P.full(sizes, 1, dtype=xc.dtype, device=a.device)
        low = [0] * n if count_include_pad else padding
        counts = _windows(ones, list(range(n)), kernel, stride, dilation, out, low, 0)
        count = P.broadcast_in_dim(P.sum(counts, [n]), list(total.shape), spatial)
    return restore(to_dtype(P.div(total, count), orig))


@register(aten.avg_pool2d.default)
def avg_pool2d(a, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return _avg_pool("avg_pool2d", a, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


@register(aten.avg_pool1d.default)
def avg_pool1d(a, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return _height_one("avg_pool1d", a,
                       lambda x, k, s, p: _avg_pool("avg_pool1d", x, 2, k, s, p, ceil_mode, count_include_pad, None),
                       (1, kernel_size), (1, stride), (0, padding))


register_out(aten.avg_pool2d.out, avg_pool2d, "avg_pool2d")


def _i64(value, shape, device):
    return P.broadcast_in_dim(P.scalar_tensor(value, dtype=torch.int64, device=device), list(shape), [])


def _adaptive_bins(in_size, out_size, device):
    """(index (O, kmax), valid (O, kmax), count (O,)): bin o covers [floor(o*I/O), ceil((o+1)*I/O))."""
    kmax = max(-(-(o + 1) * in_size // out_size) - (o * in_size) // out_size for o in range(out_size))
    o = P.iota(out_size, start=0, step=1, dtype=torch.int64, device=device)
    start = P.floor_divide(P.mul(o, _i64(in_size, [out_size], device)), _i64(out_size, [out_size], device))
    end = P.floor_divide(P.add(P.mul(o, _i64(in_size, [out_size], device)), _i64(in_size + out_size - 1,
                                                                                  [out_size], device)),
                         _i64(out_size, [out_size], device))
    shape = [out_size, kmax]
    j = P.broadcast_in_dim(P.iota(kmax, start=0, step=1, dtype=torch.int64, device=device), shape, [1])
    position = P.add(P.broadcast_in_dim(start, shape, [0]), j)
    valid = P.lt(position, P.broadcast_in_dim(end, shape, [0]))
    index = P.minimum(position, _i64(in_size - 1, shape, device))
    return index, valid, P.sub(end, start)


def _adaptive_avg_pool(name, a, output_size, n):
    output_size = _per_dim("output_size", output_size, n)
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(a.shape)}")
    for d in range(1, a.dim()):
        if a.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(a.shape)} with dimension {d} being empty")
    if any(o < 0 for o in output_size):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{output_size}")
    x, spatial, restore = _pool_layout(a, n)
    (y,), orig = upcast(x)
    bin_counts = []
    for d, out_size in zip(spatial, output_size):
        index, valid, bin_count = _adaptive_bins(y.shape[d], out_size, a.device)
        kmax = index.shape[1]
        gathered = P.index_select(y, d, P.reshape(index, [out_size * kmax]))
        split = list(y.shape[:d]) + [out_size, kmax] + list(y.shape[d + 1:])
        gathered = P.reshape(gathered, split)
        mask = P.broadcast_in_dim(valid, split, [d, d + 1])
        y = P.sum(P.where(mask, gathered, like(gathered, 0)), [d + 1])
        bin_counts.append(bin_count)
    count = None
    for d, bin_count in zip(spatial, bin_counts):   # window size = product of the per-dim bin sizes
        bin_count = P.broadcast_in_dim(to_dtype(bin_count, y.dtype), list(y.shape), [d])
        count = bin_count if count is None else P.mul(count, bin_count)
    return restore(to_dtype(P.div(y, count), orig))


@register(aten._adaptive_avg_pool2d.default, aten.adaptive_avg_pool2d.default)
def adaptive_avg_pool2d(a, output_size):
    return _adaptive_avg_pool("adaptive_avg_pool2d", a, output_size, 2)


@register(aten.adaptive_avg_pool1d.default)
def adaptive_avg_pool1d(a, output_size):
    return _height_one("adaptive_avg_pool1d", a, lambda x, o: _adaptive_avg_pool("adaptive_avg_pool1d", x, o, 2),
                       (1, output_size))


@register(aten._adaptive_avg_pool3d.default)
def _adaptive_avg_pool3d(a, output_size):
    return _adaptive_avg_pool("adaptive_avg_pool3d", a, output_size, 3)


@register(aten.adaptive_avg_pool3d.default)
def adaptive_avg_pool3d(a, output_size):
    if list(output_size) == [1, 1, 1]:   # eager's composite: a mean, which keeps the input's layout
        return aten.mean.dim(a, [-1, -2, -3], True)
    return _adaptive_avg_pool3d(a, output_size)


@register(aten.avg_pool3d.default)
def avg_pool3d(a, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return _avg_pool("avg_pool3d", a, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


@register(aten.max_pool3d_with_indices.default)
def max_pool3d_with_indices(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool3d", a, 3, kernel_size, stride, padding, dilation, ceil_mode)


@register(aten.max_pool3d.default)
def max_pool3d(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool3d", a, 3, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _adaptive_max_pool(name, a, output_size, n):
    """(values, indices): the max of each adaptive bin (see _adaptive_bins) and its flat position in
    the input's spatial plane; ties go to the first position, as eager's kernels scan."""
    output_size = _per_dim("output_size", output_size, n)
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(a.shape)}")
    for d in range(1, a.dim()):
        if a.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(a.shape)} with dimension {d} being empty")
    if any(o <= 0 for o in output_size):
        raise RuntimeError(f"{name}(): elements of output_size must be greater than 0, but got {output_size}")
    _check_floating(name, a)
    x, spatial, restore = _pool_layout(a, n)
    sizes = [x.shape[d] for d in spatial]
    bins = [_adaptive_bins(size, o, a.device) for size, o in zip(sizes, output_size)]

    def windows(t, dims):
        """t with each spatial dim d split into (bin, position in bin): positions past a bin's end
        repeat its last element (masked below); then the positions moved last and flattened."""
        for d, (index, _, _) in reversed(list(zip(dims, bins))):   # last dim first: earlier dims keep their place
            out_size, kmax = index.shape
            t = P.reshape(P.index_select(t, d, P.reshape(index, [out_size * kmax])),
                          list(t.shape[:d]) + [out_size, kmax] + list(t.shape[d + 1:]))
        positions = [d + i + 1 for i, d in enumerate(dims)]
        kept = [d for d in range(t.dim()) if d not in positions]
        t = P.permute(t, kept + positions)
        return P.reshape(t, list(t.shape[:len(kept)]) + [_numel(t.shape[len(kept):])])
    win = windows(x, spatial)
    last = win.dim() - 1
    valid = None
    for i, (_, v, _) in enumerate(bins):   # (O_1, .., O_n, k_1 .. k_n): position valid in every dim
        v = P.broadcast_in_dim(v, [b[0].shape[0] for b in bins] + [b[0].shape[1] for b in bins], [i, n + i])
        valid = v if valid is None else P.logical_and(valid, v)
    valid = P.reshape(valid, list(output_size) + [_numel(valid.shape[n:])])
    win = P.where(P.broadcast_in_dim(valid, list(win.shape), spatial + [last]), win, like(win, -math.inf))
    values, position = P.amax(win, [last]), P.argmax(win, last)
    grid = P.reshape(P.iota(_numel(sizes), start=0, step=1, dtype=torch.int64, device=a.device), sizes)
    grid_win = P.broadcast_in_dim(windows(grid, list(range(n))), list(win.shape), spatial + [last])
    index = P.squeeze(P.gather(grid_win, last, P.expand_dims(position, [last])), [last])
    return restore(values), restore(index)


@register(aten.adaptive_max_pool2d.default)
def adaptive_max_pool2d(a, output_size):
    return _adaptive_max_pool("adaptive_max_pool2d", a, output_size, 2)


@register(aten.adaptive_max_pool3d.default)
def adaptive_max_pool3d(a, output_size):
    return _adaptive_max_pool("adaptive_max_pool3d", a, output_size, 3)


@register(aten.adaptive_max_pool1d.default)
def adaptive_max_pool1d(a, output_size):
    return _height_one("adaptive_max_pool1d", a, lambda x, o: _adaptive_max_pool("adaptive_max_pool1d", x, o, 2),
                       (1, output_size))


def _fractional_starts(u, in_size, out_size, pool):
    """Window starts (samples' shape + (out_size,)), int64, as ATen's generate_intervals computes them
    in the input's dtype: floor((i + u) * alpha) - floor(u * alpha), alpha = (in - pool) / (out - 1),
    and the last window ends at the input's end."""
    shape = list(u.shape)
    last = _i64(in_size - pool, shape + [1], u.device)
    if out_size == 1:
        return last
    alpha = P.div(P.scalar_tensor(in_size - pool, dtype=u.dtype, device=u.device),
                  P.scalar_tensor(out_size - 1, dtype=u.dtype, device=u.device))
    head = shape + [out_size - 1]
    i = P.broadcast_in_dim(to_dtype(P.iota(out_size - 1, start=0, step=1, dtype=torch.int64, device=u.device),
                                    u.dtype), head, [len(shape)])
    uu = P.broadcast_in_dim(u, head, list(range(len(shape))))
    scaled = to_dtype(P.mul(P.add(i, uu), P.broadcast_in_dim(alpha, head, [])), torch.int64)
    offset = to_dtype(P.mul(uu, P.broadcast_in_dim(alpha, head, [])), torch.int64)
    return P.cat([P.sub(scaled, offset), last], len(shape))


def _fractional_max_pool(name, a, kernel_size, output_size, random_samples, n):
    """(values, indices): the max of each pseudo-random window and its flat position in the input's
    plane. The windows are eager's (see _fractional_starts; the samples are per batch and channel,
    ordered W, H in 2-d and T, H, W in 3-d); ties go to the first position, as eager scans."""
    kernel, output_size = _per_dim("kernel_size", kernel_size, n), _per_dim("output_size", output_size, n)
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(a.shape)}")
    for d in range(1, a.dim()):
        if a.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got "
                               f"input with sizes {list(a.shape)} with dimension {d} being empty")
    x = a if a.dim() == n + 2 else P.expand_dims(a, [0])
    batch, planes, sizes = x.shape[0], x.shape[1], list(x.shape[2:])
    # Eager lets a 2-d pool's last window end at the input's end, a 3-d pool's only before it.
    room = 0 if n == 2 else 1
    names = ("height", "width") if n == 2 else ("time", "height", "width")
    for o, k, size, dim in zip(output_size, kernel, sizes, names):
        if o + k - 1 > size - room:
            raise RuntimeError(f"{name}(): pool {dim} {k} too large relative to input {dim} {size} (output {dim} {o})")
    if list(random_samples.shape) != [batch, planes, n]:
        raise RuntimeError(f"{name}(): expected random_samples of shape {[batch, planes, n]}, got "
                           f"{list(random_samples.shape)}")
    order = [1, 0] if n == 2 else [0, 1, 2]   # which sample drives each spatial dim
    u = to_dtype(random_samples, a.dtype)
    # Flat plane index of every window position: (N, C, O_1..O_n, K_1..K_n).
    shape = [batch, planes] + output_size + kernel
    index = None
    for d in range(n):
        sample = P.squeeze(P.slice(u, [0, 0, order[d]], [batch, planes, order[d] + 1], [1, 1, 1]), [2])
        starts = P.broadcast_in_dim(_fractional_starts(sample, sizes[d], output_size[d], kernel[d]), shape,
                                    [0, 1, 2 + d])
        k = P.broadcast_in_dim(P.iota(kernel[d], start=0, step=1, dtype=torch.int64, device=a.device), shape,
                               [2 + n + d])
        term = P.mul(P.add(starts, k), _i64(_numel(sizes[d + 1:]), shape, a.device))
        index = term if index is None else P.add(index, term)
    windows = _numel(output_size) * _numel(kernel)
    flat = P.reshape(index, [batch, planes, windows])
    win = P.reshape(P.gather(P.reshape(contiguous(x), [batch, planes, _numel(sizes)]), 2, flat),
                    [batch, planes] + output_size + [_numel(kernel)])
    index = P.reshape(index, [batch, planes] + output_size + [_numel(kernel)])
    last = n + 2
    values, position = P.amax(win, [last]), P.argmax(win, last)
    indices = P.squeeze(P.gather(index, last, P.expand_dims(position, [last])), [last])
    if a.dim() == n + 1:
        values, indices = P.squeeze(values, [0]), P.squeeze(indices, [0])
    return contiguous(values), contiguous(indices)


@register(aten.fractional_max_pool2d.default)
def fractional_max_pool2d(a, kernel_size, output_size, random_samples):
    return _fractional_max_pool("fractional_max_pool2d", a, kernel_size, output_size, random_samples, 2)


@register(aten.fractional_max_pool3d.default)
def fractional_max_pool3d(a, kernel_size, output_size, random_samples):
    return _fractional_max_pool("fractional_max_pool3d", a, kernel_size, output_size, random_samples, 3)


def _max_unpool(name, a, indices, output_size, n):
    """Zeros of the output size with each input value written at its index (a flat position in
    its channel's output plane, as max pooling returns them)."""
    if indices.dtype != torch.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {dt.short(indices.dtype)}")
    if len(output_size) != n:
        raise RuntimeError(f"{name}: there should be exactly {n} elements in output_size, but got "
                           f"{len(output_size)} elements.")
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Input to {name} should be a {n + 1}d or {n + 2}d Tensor, but got a tensor with "
                           f"{a.dim()} dimensions.")
    if list(a.shape) != list(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(a.shape)}) but "
                           f"got indices tensor with shape: {list(indices.shape)}")
    for d in range(1, a.dim()):
        if a.shape[d] <= 0:
            raise RuntimeError(f"{name}: Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{list(a.shape)} with dimension {d} being empty.")
    lead = list(a.shape[:a.dim() - n])
    values = P.reshape(a, lead + [_numel(a.shape[a.dim() - n:])])
    where = P.reshape(indices, lead + [_numel(a.shape[a.dim() - n:])])
    zeros = P.full(lead + [_numel(output_size)], 0, dtype=a.dtype, device=a.device)
    out = P.reshape(P.scatter(zeros, len(lead), where, values), lead + list(output_size))
    # Eager's 2-d unpooling keeps a channels-last input's layout; the 3-d one writes a contiguous result.
    return _dense_in_order(out, [0, 2, 3, 1]) if n == 2 and _is_channels_last(a) else contiguous(out)


@register(aten.max_unpool2d.default)
def max_unpool2d(a, indices, output_size):
    return _max_unpool("max_unpooling2d", a, indices, output_size, 2)


@register(aten.max_unpool3d.default)
def max_unpool3d(a, indices, output_size, stride, padding):
    if len(stride) != 3 or len(padding) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in stride and padding, "
                           f"but got stride {list(stride)} and padding {list(padding)}")
    if any(st <= 0 for st in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    return _max_unpool("max_unpooling3d", a, indices, output_size, 3)


# ----------------------------------------------------------------------------- embedding, dropout


@register(aten.embedding.default)
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    # padding_idx only affects the gradient: the forward is a plain row lookup.
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {dt.short(indices.dtype)} instead (while checking arguments for "
                           f"embedding)")
    flat = P.reshape(to_dtype(indices, torch.int64), [_numel(indices.shape)])
    rows = P.index_select(weight, 0, flat)
    if padding_idx is not None and padding_idx >= 0:
        # The rows looked up at padding_idx take no gradient (eager's embedding backward skips them).
        pad = P.broadcast_in_dim(P.eq(flat, P.full([_numel(indices.shape)], padding_idx, dtype=torch.int64,
                                                   device=flat.device)), list(rows.shape), [0])
        rows = P.where(pad, P.stop_gradient(rows), rows)
    return P.reshape(rows, list(indices.shape) + [weight.shape[1]])


EMBEDDING_BAG_MODES = ("sum", "mean", "max")


def _embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx):
    """(output, offset2bag, bag_size, max_indices) of bags of rows: bag b holds the indices from
    offsets[b] to the next offset; a row at padding_idx counts in no bag; an empty bag gives zeros.

    The auxiliary results (which only eager's backward reads) are eager's CPU kernel's in inference:
    offset2bag, each index's bag (empty where eager takes its fast sum path: float32/float16/bfloat16
    weights with unit row stride and no padding_idx); bag_size, the bags' sizes without padding rows
    (in sum mode zeros, one per offset); max_indices, the row each maximum came from (else bag_size). With include_last_offset the last offset must be the input's length, as documented."""
    if weight.dim() != 2:
        raise RuntimeError(f"embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if indices.dim() != 1 or offsets.dim() != 1:
        raise RuntimeError(f"embedding_bag: input and offsets have to be 1D Tensors, but got Tensors of dimension "
                           f"{indices.dim()} and {offsets.dim()}")
    if indices.dtype not in (torch.int32, torch.int64) or offsets.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f"embedding_bag: expected int32 or int64 input and offsets, got {dt.short(indices.dtype)} "
                           f"and {dt.short(offsets.dtype)}")
    if mode not in (0, 1, 2):
        raise RuntimeError(f"embedding_bag: unknown mode {mode}")
    if per_sample_weights is not None and mode != 0:
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{EMBEDDING_BAG_MODES[mode]}')")
    length, dim, device = indices.shape[0], weight.shape[1], weight.device
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    idx, off = to_dtype(indices, torch.int64), to_dtype(offsets, torch.int64)
    starts = P.slice(off, [0], [bags], [1])
    position = P.iota(length, start=0, step=1, dtype=torch.int64, device=device)
    # Position i lies in the last bag that starts at or before it.
    started = P.le(P.broadcast_in_dim(starts, [length, bags], [1]), P.broadcast_in_dim(position, [length, bags], [0]))
    offset2bag = P.sub(P.sum(to_dtype(started, torch.int64), [1]), _i64(1, [length], device))
    counted = P.ge(offset2bag, _i64(0, [length], device))
    if include_last_offset:   # the last offset ends the last bag
        end = P.broadcast_in_dim(P.slice(off, [bags], [bags + 1], [1]), [length], [0])
        counted = P.logical_and(counted, P.lt(position, end))
    if padding_idx is not None and padding_idx >= 0:
        counted = P.logical_and(counted, P.ne(idx, _i64(padding_idx, [length], device)))
    bag = P.where(counted, offset2bag, _i64(0, [length], device))
    bag_rows = P.broadcast_in_dim(bag, [length, dim], [0])
    bag_size = P.scatter_add(P.full([bags], 0, dtype=torch.int64, device=device), 0, bag,
                             to_dtype(counted, torch.int64))
    (w,), orig = upcast(weight)
    rows = P.index_select(w, 0, idx)
    if per_sample_weights is not None:
        rows = P.mul(rows, P.broadcast_in_dim(to_dtype(per_sample_weights, w.dtype), [length, dim], [0]))
    keep = P.broadcast_in_dim(counted, [length, dim], [0])
    zeros = P.full([bags, dim], 0, dtype=w.dtype, device=device)
    if mode == 2:
        out = P.scatter_reduce(zeros, 0, bag_rows, P.where(keep, rows, like(rows, -math.inf)), "amax", False)
        # The first position of each bag holding its maximum (eager's scan keeps the first), as a row index.
        hit = P.logical_and(keep, P.eq(rows, P.gather(out, 0, bag_rows)))
        first = P.scatter_reduce(P.full([bags, dim], length, dtype=torch.int64, device=device), 0, bag_rows,
                                 P.where(hit, P.broadcast_in_dim(position, [length, dim], [0]),
                                         _i64(length, [length, dim], device)), "amin", True)
        found = P.lt(first, _i64(length, [bags, dim], device))
        safe = P.where(found, first, _i64(0, [bags, dim], device))
        max_indices = P.where(found, P.gather(P.broadcast_in_dim(idx, [length, dim], [0]), 0, safe),
                              _i64(0, [bags, dim], device))
        out = P.where(P.broadcast_in_dim(P.gt(bag_size, _i64(0, [bags], device)), [bags, dim], [0]), out, zeros)
    else:
        out = P.scatter_add(zeros, 0, bag_rows, P.where(keep, rows, like(rows, 0)))
        if mode == 1:
            count = P.broadcast_in_dim(to_dtype(bag_size, w.dtype), [bags, dim], [0])
            out = P.where(P.gt(count, like(count, 0)), P.div(out, count), zeros)
        if mode == 0:   # eager sizes the bags only for mean and max mode (and its backward): zeros, one per offset
            bag_size = P.full([offsets.shape[0]], 0, dtype=torch.int64, device=device)
        max_indices = bag_size
        fast_sum = (mode == 0 and (padding_idx is None or padding_idx < 0) and weight.stride(1) == 1 and
                    weight.dtype in (torch.float32, torch.float16, torch.bfloat16) and
                    (per_sample_weights is None or per_sample_weights.stride(0) == 1))
        if fast_sum:
            offset2bag = P.full([0], 0, dtype=torch.int64, device=device)
    return to_dtype(out, orig), offset2bag, bag_size, max_indices


@register(aten.embedding_bag.default)
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False):
    # scale_grad_by_freq and sparse only shape the gradient.
    return _embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, -1)


@register(aten.embedding_bag.padding_idx)
def embedding_bag_padding_idx(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                              include_last_offset, padding_idx):
    if padding_idx is not None and padding_idx < 0:   # counted from the end, as eager's composite does
        padding_idx = padding_idx + weight.shape[0]
    return _embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset,
                          -1 if padding_idx is None else padding_idx)


def _check_dropout_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


# dropout, native_dropout and the other random training ops: decompositions/nn_random.py


# ----------------------------------------------------------------------------- attention


def _repeat_heads(t, repeats):
    """(..., H, S, E) -> (..., H * repeats, S, E), each head repeated in place (repeat_interleave)."""
    head = t.dim() - 3
    shape = list(t.shape[:head + 1]) + [repeats] + list(t.shape[head + 1:])
    expanded = P.broadcast_in_dim(t, shape, [d for d in range(len(shape)) if d != head + 1])
    return P.reshape(expanded, list(t.shape[:head]) + [t.shape[head] * repeats] + list(t.shape[head + 1:]))


def _attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """softmax(q @ k^T * scale + mask) @ v in the computation dtype.

    Returns (output in q's dtype, logsumexp of the masked, scaled scores in the computation
    dtype). A fully masked row gets zero weights (output 0, logsumexp -inf), as eager's kernels.
    """
    _check_dropout_p(dropout_p)
    if not (q.dtype == k.dtype == v.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{dt.short(q.dtype)} key.dtype: {dt.short(k.dtype)} and value.dtype: {dt.short(v.dtype)}"
                           f" instead.")
    if min(q.dim(), k.dim(), v.dim()) < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at least 2 dims")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: query {list(q.shape)}, key {list(k.shape)} and value "
                           f"{list(v.shape)} need equal head sizes for query and key and equal lengths for key and value")
    _check_floating("scaled_dot_product_attention", q)
    (qf, kf, vf), orig = upcast(q, k, v)
    if enable_gqa and q.dim() >= 3 and q.shape[-3] != k.shape[-3]:
        if q.shape[-3] % k.shape[-3] or q.shape[-3] % v.shape[-3]:
            raise RuntimeError(f"scaled_dot_product_attention: enable_gqa needs the query heads ({q.shape[-3]}) to be "
                               f"a multiple of the key/value heads ({k.shape[-3]}, {v.shape[-3]})")
        kf, vf = _repeat_heads(kf, q.shape[-3] // k.shape[-3]), _repeat_heads(vf, q.shape[-3] // v.shape[-3])
    L, S, E, Ev = q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1]
    batch = list(broadcast_shapes(qf.shape[:-2], kf.shape[:-2], vf.shape[:-2]))
    B = _numel(batch)

    def flat(t, rows, cols):
        return P.reshape(broadcast_to(t, batch + [rows, cols]), [B, rows, cols])
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    scores = P.matmul(flat(qf, L, E), P.permute(flat(kf, S, E), [0, 2, 1]))
    scores = P.mul(scores, like(scores, scale))
    masked = like(scores, -math.inf)
    if is_causal:   # query i sees keys j <= i
        row = P.broadcast_in_dim(P.iota(L, start=0, step=1, dtype=torch.int64, device=q.device), [B, L, S], [1])
        col = P.broadcast_in_dim(P.iota(S, start=0, step=1, dtype=torch.int64, device=q.device), [B, L, S], [2])
        scores = P.where(P.le(col, row), scores, masked)
    if attn_mask is not None:
        mask = flat(attn_mask, L, S)
        scores = P.where(mask, scores, masked) if mask.dtype == torch.bool else \
            P.add(scores, to_dtype(mask, scores.dtype))
    row_max = P.amax(scores, [2])
    row_max = P.where(P.eq(row_max, like(row_max, -math.inf)), like(row_max, 0), row_max)
    weights = P.exp(P.sub(scores, _keep(row_max, [2], scores)))
    total = P.sum(weights, [2])
    safe_total = P.where(P.eq(total, like(total, 0)), like(total, 1), total)
    probs = P.div(weights, _keep(safe_total, [2], weights))
    if dropout_p > 0:
        probs = _attention_dropout(probs, dropout_p)
    out = P.matmul(probs, flat(vf, S, Ev))
    logsumexp = P.add(row_max, P.log(total))
    return to_dtype(P.reshape(out, batch + [L, Ev]), orig), P.reshape(logsumexp, batch + [L])


def _attention_dropout(probs, p):
    """Eager's math path (the one CPU takes with dropout): F.dropout of the softmax output, whose mask is
    empty_like(attn).bernoulli_(1 - p) on the contiguous (batch..., L, S) weights in the computation dtype."""
    if p == 1:
        return P.mul(probs, like(probs, 0))
    keep = bernoulli_noise(contiguous(probs), 1 - p, probs.dtype)
    return aten.mul.Tensor(probs, aten.div.Scalar(keep, 1 - p))


def _refuse_fused_dropout(name, dropout_p):
    if dropout_p > 0:
        raise RuntimeError(f"{name}: dropout_p={dropout_p} > 0 is not supported by primkit: the fused kernel draws "
                           f"its mask inside the kernel (its backward redraws it from the returned seed and "
                           f"offset), which no prim reproduces; scaled_dot_product_attention with dropout "
                           f"decomposes through eager's math path instead")


@register(aten.scaled_dot_product_attention.default)
def scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                                 enable_gqa=False):
    out = _attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa)[0]
    # On CPU eager runs 4-d inputs with unit last-dim strides through its flash kernel, which lays
    # the output out like the query (see _scaled_dot_product_flash_attention_for_cpu); with dropout
    # it takes the math path, whose output is contiguous.
    if q.device.type == "cpu" and dropout_p == 0 and all(t.dim() == 4 and (t.shape[-1] == 1 or t.stride(-1) == 1) for t in (q, k, v)):
        return _dense_in_order(out, _dim_order(q))
    return out


def _check_4d(name, *tensors):
    if any(t.dim() != 4 for t in tensors):
        raise RuntimeError(f"{name}: expected 4-D (batch, heads, seq, head_dim) query, key and value, got shapes "
                           f"{[list(t.shape) for t in tensors]}")


@register(aten._scaled_dot_product_flash_attention_for_cpu.default)
def sdpa_flash_for_cpu(q, k, v, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
    _check_4d("_scaled_dot_product_flash_attention_for_cpu", q, k, v)
    if dropout_p > 0:
        raise RuntimeError("scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0")
    # The kernel repeats key/value heads itself when the query has more (grouped-query attention).
    out, logsumexp = _attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa=True)
    # Eager lays the output out like the query and logsumexp as (batch, seq, heads), transposed.
    return _dense_in_order(out, _dim_order(q)), _dense_in_order(to_dtype(logsumexp, torch.float32), [0, 2, 1])


# The CUDA kernels' extra outputs. With dropout_p == 0 no random numbers are drawn, so the philox
# seed and offset carry no information: primkit returns zeros of eager's shapes and dtypes.
def _zeros(shape, dtype, device):
    return P.full(list(shape), 0, dtype=dtype, device=device)


@register(aten._scaled_dot_product_efficient_attention.default)
def sdpa_efficient(q, k, v, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, *, scale=None):
    """(output, logsumexp, philox_seed, philox_offset). The kernel pads logsumexp's last dim to a
    multiple of 32; primkit fills the padding with +inf (the kernel leaves it unspecified)."""
    _check_4d("_scaled_dot_product_efficient_attention", q, k, v)
    _refuse_fused_dropout("_scaled_dot_product_efficient_attention", dropout_p)
    out, logsumexp = _attention(q, k, v, attn_bias, dropout_p, is_causal, scale, enable_gqa=True)
    L = q.shape[2]
    if compute_log_sumexp:
        padded = -(-L // 32) * 32
        logsumexp = P.pad(to_dtype(logsumexp, torch.float32), math.inf, [0, 0, 0], [0, 0, padded - L], [0, 0, 0])
    else:
        logsumexp = _zeros([q.shape[0], q.shape[1], 0], torch.float32, q.device)
    seed, offset = _zeros([], torch.int64, q.device), _zeros([], torch.int64, q.device)
    return _dense_in_order(out, [0, 2, 1, 3]), logsumexp, seed, offset


@register(aten._scaled_dot_product_flash_attention.default)
def sdpa_flash(q, k, v, dropout_p=0.0, is_causal=False, return_debug_mask=False, *, scale=None):
    """(output, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, rng_state, unused, debug_attn_mask):
    cum_seq_* are undefined for dense inputs (None, as eager's meta); the debug mask is not computed."""
    _check_4d("_scaled_dot_product_flash_attention", q, k, v)
    _refuse_fused_dropout("_scaled_dot_product_flash_attention", dropout_p)
    if return_debug_mask:
        raise RuntimeError("_scaled_dot_product_flash_attention: return_debug_mask=True is not supported by primkit")
    out, logsumexp = _attention(q, k, v, None, dropout_p, is_causal, scale, enable_gqa=True)
    # Eager's rng_state is uint64 (2,) and unused uint64 (); primkit's creation prims have no uint64: int64 zeros.
    return (_dense_in_order(out, _dim_order(q)), to_dtype(logsumexp, torch.float32), None, None, q.shape[2],
            k.shape[2], _zeros([2], torch.int64, q.device), _zeros([], torch.int64, q.device),
            _zeros([0], q.dtype, q.device))


@register(aten._scaled_dot_product_cudnn_attention.default)
def sdpa_cudnn(q, k, v, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, return_debug_mask=False, *,
               scale=None):
    """(output, logsumexp (B, H, L, 1), cum_seq_q, cum_seq_k, max_q, max_k, philox_seed, philox_offset,
    debug_attn_mask): cum_seq_* and the debug mask are undefined for dense inputs (None)."""
    _check_4d("_scaled_dot_product_cudnn_attention", q, k, v)
    _refuse_fused_dropout("_scaled_dot_product_cudnn_attention", dropout_p)
    out, logsumexp = _attention(q, k, v, attn_bias, dropout_p, is_causal, scale, enable_gqa=True)
    return (_dense_in_order(out, _dim_order(q)), P.expand_dims(to_dtype(logsumexp, torch.float32), [3]), None, None,
            q.shape[2], k.shape[2], _zeros([], torch.int64, q.device), _zeros([], torch.int64, q.device), None)


def _dim_order(t):
    """t's dims from outermost to innermost (eager allocates the output in the query's layout)."""
    return sorted(range(t.dim()), key=lambda d: -t.stride()[d])


# ----------------------------------------------------------------------------- losses

NONE, MEAN, SUM = 0, 1, 2


def _reduce(loss, reduction):
    if reduction == NONE:
        return loss
    if reduction not in (MEAN, SUM):
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    total = P.sum(loss, list(range(loss.dim())))
    return P.div(total, like(total, _numel(loss.shape))) if reduction == MEAN else total


def _pointwise_loss(name, math_fn):
    """loss(input, target, reduction, *params): ``math_fn(x, y, c, *params)`` on the promoted computation
    dtype (``c(v)``: the number v shaped like x), then reduced."""
    def loss(a, b, reduction=MEAN, *params):
        pointwise = elementwise(lambda x, y: math_fn(x, y, lambda v: like(x, v), *params), a, b)
        (x,), orig = upcast(pointwise)
        return to_dtype(_reduce(x, reduction), orig)
    loss.__name__ = loss.__qualname__ = name
    return loss


def _squared_difference(x, y):
    diff = P.sub(x, y)
    return P.mul(diff, diff)


register_with_variants("mse_loss", _pointwise_loss("mse_loss", lambda x, y, c: _squared_difference(x, y)))
register(aten.l1_loss.default)(_pointwise_loss("l1_loss", lambda x, y, c: P.abs(P.sub(x, y))))


def binary_cross_entropy_with_logits(a, target, weight=None, pos_weight=None, reduction=MEAN):
    """(1 - t) * x - w_pos * log(sigmoid(x)), w_pos = (pos_weight - 1) * t + 1. Op by op as eager,
    so float16/bfloat16 round where eager's do (the subtraction cancels for large |x|)."""
    _check_floating("binary_cross_entropy_with_logits", a)
    if tuple(target.shape) != tuple(a.shape):
        raise ValueError(f"Target size ({list(target.shape)}) must be the same as input size ({list(a.shape)})")
    log_sigmoid = _log_sigmoid_parts(a)[0]
    if pos_weight is not None:
        log_weight = elementwise(P.add, elementwise(P.mul, elementwise(P.sub, pos_weight, 1), target), 1)
        log_sigmoid = elementwise(P.mul, log_sigmoid, log_weight)
    loss = elementwise(P.sub, elementwise(P.mul, elementwise(P.sub, 1, target), a), log_sigmoid)
    if weight is not None:
        loss = elementwise(P.mul, loss, weight)
    (x,), orig = upcast(loss)
    return to_dtype(_reduce(x, reduction), orig)


register_with_variants("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits)


def _nll(logp, target, weight, reduction, ignore_index):
    """(loss, total_weight) of the negative log likelihood; logp is (N, C, *d) or (C,)."""
    if target.dtype not in (torch.int64, torch.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {dt.short(target.dtype)}")
    if logp.dim() < 1 or target.dim() != max(logp.dim() - 1, 0) or \
            (logp.dim() > 1 and (target.shape[0] != logp.shape[0] or list(target.shape[1:]) != list(logp.shape[2:]))):
        raise RuntimeError(f"nll_loss: size mismatch (got input: {list(logp.shape)}, target: {list(target.shape)})")
    classes = logp.shape[0 if logp.dim() == 1 else 1]
    if weight is not None and _numel(weight.shape) != classes:
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")
    (x,), orig = upcast(logp)
    t = to_dtype(target, torch.int64)
    if x.dim() == 1:
        x, t = P.expand_dims(x, [0]), P.expand_dims(t, [0])
    ignored = P.eq(t, _i64(ignore_index, t.shape, t.device))
    safe = P.where(ignored, _i64(0, t.shape, t.device), t)   # ignored targets may be out of range
    picked = P.squeeze(P.gather(x, 1, P.expand_dims(safe, [1])), [1])
    w = like(picked, 1) if weight is None else \
        P.reshape(P.index_select(to_dtype(weight, x.dtype), 0, P.reshape(safe, [_numel(t.shape)])), list(t.shape))
    w = P.where(ignored, like(picked, 0), w)
    loss = P.neg(P.mul(picked, w))
    all_dims = list(range(loss.dim()))
    total_weight = P.sum(w, all_dims)
    if reduction == NONE:
        out = P.reshape(loss, list(target.shape))
        if logp.dim() > 1:   # eager's kernel leaves total_weight 0 per batch, and sums it for a single sample
            total_weight = like(total_weight, 0)
    elif reduction == SUM:
        out = P.sum(loss, all_dims)
    elif reduction == MEAN:
        out = P.div(P.sum(loss, all_dims), total_weight)
    else:
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    return to_dtype(out, orig), to_dtype(total_weight, orig)


@register(aten.nll_loss_forward.default, aten.nll_loss2d_forward.default)
def nll_loss_forward(a, target, weight, reduction, ignore_index):
    if a.dim() > 2 and a.dim() != 4:
        raise RuntimeError(f"nll_loss_forward: input tensor should be 1D or 2D (4D for nll_loss2d), got {a.dim()}D")
    return _nll(a, target, weight, reduction, ignore_index)


@register(aten.nll_loss.default, aten.nll_loss_nd.default)
def nll_loss(a, target, weight=None, reduction=MEAN, ignore_index=-100):
    if a.dim() > 1 and target.dim() >= 1 and a.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({a.shape[0]}) to match target batch_size ({target.shape[0]}).")
    return _nll(a, target, weight, reduction, ignore_index)[0]


@register(aten.cross_entropy_loss.default)
def cross_entropy_loss(a, target, weight=None, reduction=MEAN, ignore_index=-100, label_smoothing=0.0):
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if target.dtype not in dt.FLOAT and a.dim() > 1 and target.dim() >= 1 and a.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({a.shape[0]}) to match target batch_size ({target.shape[0]}).")
    class_dim = 0 if a.dim() == 1 else 1
    classes = a.shape[class_dim]
    logp = _softmax_impl(a, class_dim, a.dtype, log=True)
    (x,), orig = upcast(logp)
    w = None if weight is None else P.broadcast_in_dim(to_dtype(weight, x.dtype), list(x.shape), [class_dim])
    if target.dtype in dt.FLOAT:   # class probabilities
        if tuple(target.shape) != tuple(a.shape):
            raise RuntimeError(f"cross_entropy: target with class probabilities must have the input's shape "
                               f"{list(a.shape)}, got {list(target.shape)}")
        t = to_dtype(target, x.dtype)
        if label_smoothing > 0:
            t = P.add(P.mul(t, like(t, 1 - label_smoothing)), like(t, label_smoothing / classes))
        per_class = P.mul(x, t) if w is None else P.mul(P.mul(x, t), w)
        if reduction == NONE:
            return to_dtype(P.neg(P.sum(per_class, [class_dim])), orig)
        total = P.neg(P.sum(per_class, list(range(x.dim()))))
        if reduction == MEAN:   # averaged over the batch (elements / classes), nan when empty
            total = P.div(total, like(total, _numel(x.shape) // classes if classes else 0))
        return to_dtype(total, orig)
    nll = _nll(logp, target, weight, reduction, ignore_index)[0]
    if label_smoothing == 0:
        return nll
    # Label smoothing: mix in the mean over classes of -log p (weighted), zero at ignored targets.
    smooth = P.neg(P.sum(x if w is None else P.mul(x, w), [class_dim]))
    t = to_dtype(target, torch.int64)
    ignored = P.eq(t, _i64(ignore_index, t.shape, t.device))
    smooth = P.where(ignored, like(smooth, 0), smooth)
    dims = list(range(smooth.dim()))
    if reduction == NONE:
        smooth_total = smooth
    elif reduction == SUM:
        smooth_total = P.sum(smooth, dims)
    else:
        if weight is None:
            denominator = P.sum(to_dtype(P.logical_not(ignored), x.dtype), dims)
        else:
            safe = P.where(ignored, _i64(0, t.shape, t.device), t)
            picked = P.reshape(P.index_select(to_dtype(weight, x.dtype), 0, P.reshape(safe, [_numel(t.shape)])),
                               list(t.shape))
            denominator = P.sum(P.where(ignored, like(picked, 0), picked), dims)
        smooth_total = P.div(P.sum(smooth, dims), denominator)
    smooth_total = P.mul(smooth_total, like(smooth_total, label_smoothing / classes))
    mixed = P.add(P.mul(to_dtype(nll, x.dtype), like(smooth_total, 1 - label_smoothing)), smooth_total)
    return to_dtype(mixed, orig)


@register(aten._safe_softmax.default)
def safe_softmax(a, dim, dtype=None):
    """softmax, but 0 (not nan) on a slice that is all -inf (fully masked attention rows)."""
    x = a if dtype is None else to_dtype(a, dtype)
    out = _softmax_impl(x, dim, x.dtype, log=False)
    if _numel(x.shape) == 0:
        return out
    dims = [wrap_dim(dim, x.dim())] if x.dim() else []
    all_masked = P.logical_not(P.amax(P.ne(x, like(x, -math.inf)), dims)) if dims else \
        P.eq(x, like(x, -math.inf))
    return P.where(_keep(all_masked, dims, out) if dims else all_masked, like(out, 0), out)


# ----------------------------------------------------------------------------- out= overloads
# Each computes its functional form and writes every result into its out tensor.

register_out(aten._adaptive_avg_pool2d.out, adaptive_avg_pool2d)
register_out(aten.adaptive_avg_pool2d.out, adaptive_avg_pool2d)
register_out(aten.adaptive_avg_pool1d.out, adaptive_avg_pool1d)
register_out(aten.avg_pool1d.out, avg_pool1d)
register_out(aten.convolution.out, convolution)
register_out(aten.embedding.out, embedding)
register_out(aten.nll_loss.out, nll_loss)
register_out(aten.max_pool2d_with_indices.out, max_pool2d_with_indices)
register_out(aten.native_batch_norm.out, native_batch_norm)
register_out(aten._native_batch_norm_legit.out, native_batch_norm)
register_out(aten._native_batch_norm_legit.no_stats_out, native_batch_norm_no_stats)
register_out(aten._native_batch_norm_legit_no_training.out, native_batch_norm_no_training)
register_out(aten.native_group_norm.out, native_group_norm)
register_out(aten.native_layer_norm.out, native_layer_norm)
register_out(aten.nll_loss_forward.output, nll_loss_forward)
register_out(aten.log_sigmoid_forward.output, log_sigmoid_forward)
register_out(aten._adaptive_avg_pool3d.out, _adaptive_avg_pool3d)
register_out(aten.adaptive_avg_pool3d.out, adaptive_avg_pool3d)
register_out(aten.avg_pool3d.out, avg_pool3d)
register_out(aten.max_pool3d_with_indices.out, max_pool3d_with_indices)
register_out(aten.adaptive_max_pool2d.out, adaptive_max_pool2d)
register_out(aten.adaptive_max_pool3d.out, adaptive_max_pool3d)
register_out(aten.max_unpool2d.out, max_unpool2d)
register_out(aten.max_unpool3d.out, max_unpool3d)
register_out(aten.fractional_max_pool2d.output, fractional_max_pool2d)
register_out(aten.fractional_max_pool3d.output, fractional_max_pool3d)
