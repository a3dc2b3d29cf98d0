"""Decompositions of the backward ATen ops that autograd (and so AOTAutograd) emits for
torch.nn: activations, softmax, norms, convolution, pooling, embedding, attention and losses.

Each is the adjoint of the forward in decompositions/nn/, written in prims. Float16/bfloat16
are computed in float32 and cast back, as eager's kernels do; an ``output_mask`` entry that is
False gives None, as eager gives an undefined tensor.
"""
from __future__ import annotations

import itertools
import math

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_to, elementwise, like, register_out, register_with_variants, round_to, to_dtype, upcast,
    wrap_dim)
from primkit.decompositions.nn.activation import glu_halves
from primkit.decompositions.nn.attention import dim_order, repeat_heads
from primkit.decompositions.nn.common import (
    contiguous_unless_channels_last, dense_in_order, i64, is_channels_last_4d, is_channels_last_nd, keep_expanded,
    numel_of, per_dim)
from primkit.decompositions.nn.loss import MEAN, NONE, SUM
from primkit.decompositions.nn.pooling import adaptive_bins, pool_geometry, pool_windows
from primkit.decompositions.registry import register
from primkit.decompositions.shape import contiguous, in_layout, preserved_strides
from primkit.decompositions.type_promotion import computation_dtype
from primkit.prims import dtypes as dt
from primkit.prims.layout import elementwise_strides, sizes_differ

# ----------------------------------------------------------------------------- helpers


def _pointwise(name, math_fn, lead):
    """A backward op that is pointwise in its tensors: promote, upcast, ``math_fn(*ops, c)``, cast
    back (``c(v)`` is the constant v shaped like the operands). The result is laid out as eager's
    TensorIterator lays it out, which takes the operand order from the kernel: ``lead`` is the
    index of the tensor argument eager lists first."""
    def decomp(*args, **kwargs):
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        scalars = [a for a in args if not isinstance(a, torch.Tensor)]

        def fn(*ops):
            return math_fn(*ops, lambda v: like(ops[0], v), *scalars, **kwargs)
        out = elementwise(fn, *tensors)
        ordered = [tensors[lead]] + [t for i, t in enumerate(tensors) if i != lead]
        if all(tuple(t.shape) == tuple(out.shape) for t in ordered):
            out = in_layout(out, elementwise_strides(out.shape, [(t.stride(), t.element_size()) for t in ordered]))
        return out
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


def _sum_to(t, dims):
    return P.sum(t, list(dims)) if dims else t


def _maybe(mask, value):
    return value if mask else None


def _check_same_shape(name, *tensors):
    shapes = [list(t.shape) for t in tensors]
    if any(s != shapes[0] for s in shapes):
        raise RuntimeError(f"{name}: expected grad_output and the saved tensors to have one shape, got {shapes}")


# ----------------------------------------------------------------------------- activations


def _gelu_backward(g, x, c, *, approximate="none"):
    if approximate == "none":
        cdf = P.mul(c(0.5), P.add(c(1.0), P.erf(P.mul(x, c(math.sqrt(0.5))))))
        pdf = P.mul(P.exp(P.mul(P.mul(x, x), c(-0.5))), c(1.0 / math.sqrt(2.0 * math.pi)))
        return P.mul(g, P.add(cdf, P.mul(x, pdf)))
    if approximate == "tanh":
        beta, kappa = math.sqrt(2.0 / math.pi), 0.044715
        x2 = P.mul(x, x)
        inner = P.mul(c(beta), P.add(x, P.mul(c(kappa), P.mul(x2, x))))
        t = P.tanh(inner)
        left = P.mul(c(0.5), P.add(c(1.0), t))
        d_inner = P.mul(c(beta), P.add(c(1.0), P.mul(c(3.0 * kappa), x2)))
        right = P.mul(P.mul(P.mul(c(0.5), x), P.sub(c(1.0), P.mul(t, t))), d_inner)
        return P.mul(g, P.add(left, right))
    raise RuntimeError(f"approximate argument must be either none or tanh, got '{approximate}'")


def _silu_backward(g, x, c):
    s = P.sigmoid(x)
    return P.mul(g, P.mul(s, P.add(c(1.0), P.mul(x, P.sub(c(1.0), s)))))


def _conj(y):
    return P.conj_physical(y) if y.dtype in dt.COMPLEX else y


def _sigmoid_backward(g, y, c):
    y = _conj(y)
    return P.mul(g, P.mul(P.sub(c(1.0), y), y))


def _tanh_backward(g, y, c):
    y = _conj(y)
    return P.mul(g, P.sub(c(1.0), P.mul(y, y)))


def _threshold_backward(g, x, c, threshold):
    return P.where(P.le(x, c(threshold)), c(0), g)


def _leaky_relu_backward(g, x, c, negative_slope, self_is_result):
    if self_is_result and negative_slope < 0:
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead.")
    return P.where(P.gt(x, c(0)), g, P.mul(g, c(negative_slope)))


def _hardtanh_backward(g, x, c, min_val, max_val):
    return P.where(P.logical_or(P.le(x, c(min_val)), P.ge(x, c(max_val))), c(0), g)


def _elu_backward(g, x, c, alpha, scale, input_scale, is_result):
    """x is the forward's input, or its result when is_result (in-place elu): for x <= 0 the
    derivative is input_scale * (result + alpha * scale), else input_scale * alpha * scale *
    exp(input_scale * x); scale above 0."""
    if is_result and alpha < 0:
        raise RuntimeError("In-place elu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead.")
    if is_result:
        negative = P.mul(P.mul(g, c(input_scale)), P.add(x, c(alpha * scale)))
    else:
        negative = P.mul(P.mul(P.mul(g, c(input_scale)), c(alpha * scale)), P.exp(P.mul(x, c(input_scale))))
    return P.where(P.le(x, c(0)), negative, P.mul(g, c(scale)))


# eager's hardsigmoid_backward multiplies by 1/6 rounded to float32, in every dtype (float64 included)
_ONE_SIXTH_F32 = round_to(1 / 6, torch.float32)


def _hardsigmoid_backward(g, x, c):
    inside = P.logical_and(P.gt(x, c(-3.0)), P.lt(x, c(3.0)))
    return P.where(inside, P.mul(g, c(_ONE_SIXTH_F32)), c(0))


def _hardswish_backward(g, x, c):
    middle = P.mul(g, P.add(P.div(x, c(3.0)), c(0.5)))
    return P.where(P.le(x, c(-3.0)), c(0), P.where(P.lt(x, c(3.0)), middle, g))   # eager's: 0 at -3, g at 3


def _softplus_backward(g, x, c, beta, threshold):
    z = P.exp(P.mul(x, c(beta)))
    return P.where(P.gt(P.mul(x, c(beta)), c(threshold)), g, P.div(P.mul(g, z), P.add(z, c(1.0))))


def _shrink_backward(g, x, c, lambd):
    return P.where(P.logical_and(P.ge(x, c(-lambd)), P.le(x, c(lambd))), c(0), g)


def _mish_backward(g, x, c):
    sigmoid = P.sigmoid(x)
    tanh_softplus = P.tanh(P.log1p(P.exp(x)))
    return P.mul(g, P.add(tanh_softplus, P.mul(P.mul(x, sigmoid), P.sub(c(1.0), P.mul(tanh_softplus, tanh_softplus)))))


def _logit_backward(g, x, c, eps=None):
    grad = P.div(g, P.mul(x, P.sub(c(1.0), x)))
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    outside = P.logical_or(P.lt(x, c(lo)), P.gt(x, c(hi)))
    return P.where(outside, c(float("nan") if eps is None else 0.0), grad)


GRAD, SELF = 0, 1
BACKWARD_ACTIVATIONS = {
    # name: (math, the operand eager's kernel lists first: its layout wins)
    "gelu_backward": (_gelu_backward, GRAD),
    "silu_backward": (_silu_backward, GRAD),
    "sigmoid_backward": (_sigmoid_backward, GRAD),
    "tanh_backward": (_tanh_backward, GRAD),
    "threshold_backward": (_threshold_backward, SELF),
    "leaky_relu_backward": (_leaky_relu_backward, SELF),
    "hardtanh_backward": (_hardtanh_backward, GRAD),
    "elu_backward": (_elu_backward, GRAD),
    "hardsigmoid_backward": (_hardsigmoid_backward, GRAD),
    "hardswish_backward": (_hardswish_backward, GRAD),
    "softplus_backward": (_softplus_backward, GRAD),
    "softshrink_backward": (_shrink_backward, GRAD),
    "hardshrink_backward": (_shrink_backward, GRAD),
    "mish_backward": (_mish_backward, GRAD),
    "logit_backward": (_logit_backward, GRAD),
}

for _name, (_math, _lead) in BACKWARD_ACTIVATIONS.items():
    register_with_variants(_name, _pointwise(_name, _math, _lead))


# Eager's kernel iterates over (self, weight, grad_output), self's layout first; both results have the
# broadcast shape (autograd sums grad_weight to the weight's shape).
_prelu_grad_self = _pointwise("_prelu_kernel_backward", lambda x, w, g, c: P.where(P.gt(x, c(0)), g, P.mul(w, g)), 0)
_prelu_grad_weight = _pointwise("_prelu_kernel_backward", lambda x, w, g, c: P.where(P.gt(x, c(0)), c(0), P.mul(x, g)),
                                0)


@register(aten._prelu_kernel_backward.default)
def prelu_kernel_backward(grad_output, a, weight):
    return _prelu_grad_self(a, weight, grad_output), _prelu_grad_weight(a, weight, grad_output)


def _log_sigmoid_backward(g, x, buffer, c):
    """Eager's formula on the saved buffer exp(-|x|): d/dx log(sigmoid(x)) is 1 - b/(1+b) for x < 0,
    else b/(1+b)."""
    ratio = P.div(buffer, P.add(c(1.0), buffer))
    return P.mul(P.where(P.lt(x, c(0)), P.sub(c(1.0), ratio), ratio), g)


_log_sigmoid_backward_pointwise = _pointwise("log_sigmoid_backward", _log_sigmoid_backward, GRAD)


def log_sigmoid_backward(grad_output, a, buffer):
    if buffer.numel() == 0 and a.numel() and a.device.type != "cpu":   # CUDA saves no buffer
        buffer = elementwise(lambda x: P.exp(P.neg(P.abs(x))), a)
    return _log_sigmoid_backward_pointwise(grad_output, a, buffer)


register_with_variants("log_sigmoid_backward", log_sigmoid_backward)


def glu_backward(grad_output, a, dim):
    """glu(x) = a * sigmoid(b) for the halves a, b of x along dim: the gradient of a is
    sigmoid(b) * g, of b is (1 - sigmoid(b)) * sigmoid(b) * a * g. Eager rounds sigmoid(b) to the
    input's dtype first (it writes it into grad_input's first half), so this does too."""
    first, second, dim, orig = glu_halves(a, dim)
    if list(grad_output.shape) != list(first.shape):
        raise RuntimeError(f"glu_backward: expected grad_output of shape {list(first.shape)}, got "
                           f"{list(grad_output.shape)}")
    (g,), _ = upcast(grad_output)
    sig = to_dtype(to_dtype(P.sigmoid(second), orig), first.dtype)
    grad_first = P.mul(sig, g)
    grad_second = P.mul(P.mul(P.mul(P.sub(like(sig, 1.0), sig), sig), first), g)
    return contiguous(to_dtype(P.cat([grad_first, grad_second], dim), orig))   # eager's grad_input is contiguous


register_with_variants("glu_backward", glu_backward)


# ----------------------------------------------------------------------------- views and dropout
# The backward of a view writes the gradient into zeros of the input's shape: padding does it
# for a select or a (strided) slice.


def select_backward(grad_output, input_sizes, dim, index):
    dim = wrap_dim(dim, len(input_sizes))
    size = input_sizes[dim]
    if not -size <= index < size:
        raise IndexError(f"select_backward(): index {index} out of range for dim {dim} of size {size}")
    index = index % size
    low, high = [0] * len(input_sizes), [0] * len(input_sizes)
    low[dim], high[dim] = index, size - index - 1
    return P.pad(P.expand_dims(grad_output, [dim]), 0, low, high, [0] * len(input_sizes))


def slice_backward(grad_output, input_sizes, dim, start, end, step):
    dim = wrap_dim(dim, len(input_sizes))
    size, count = input_sizes[dim], grad_output.shape[dim]
    if step < 1:
        raise RuntimeError(f"slice_backward(): step must be positive, got {step}")
    start = min(max(start + size if start < 0 else start, 0), size)
    low, high, interior = [0] * len(input_sizes), [0] * len(input_sizes), [0] * len(input_sizes)
    low[dim], interior[dim] = start, step - 1
    high[dim] = size - start - (count - 1) * step - 1 if count else size - start
    return P.pad(grad_output, 0, low, high, interior)


def native_dropout_backward(grad_output, mask, scale):
    # grad * mask * scale, as eager: the kept elements scaled by 1 / (1 - p).
    return elementwise(lambda g, m: P.mul(P.mul(g, m), like(g, scale)), grad_output, to_dtype(mask, grad_output.dtype))


register_with_variants("select_backward", select_backward)
register_with_variants("slice_backward", slice_backward)
register_with_variants("native_dropout_backward", native_dropout_backward)


# ----------------------------------------------------------------------------- softmax family


def _softmax_backward(name, log):
    def decomp(grad_output, output, dim, input_dtype):
        _check_same_shape(name, grad_output, output)
        dims = [wrap_dim(dim, output.dim())] if output.dim() else []
        compute = computation_dtype(output.dtype)
        g, y = (to_dtype(contiguous(t), compute) for t in (grad_output, output))
        if log:     # g - exp(y) * sum(g)
            out = P.sub(g, P.mul(P.exp(y), keep_expanded(_sum_to(g, dims), dims, g)))
        else:       # y * (g - sum(g * y))
            gy = P.mul(g, y)
            out = P.sub(gy, P.mul(y, keep_expanded(_sum_to(gy, dims), dims, y)))
        return to_dtype(out, input_dtype)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


register_with_variants("_softmax_backward_data", _softmax_backward("_softmax_backward_data", log=False))
register_with_variants("_log_softmax_backward_data", _softmax_backward("_log_softmax_backward_data", log=True))


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
        grad_input = to_dtype(_norm_input_grad(gw, xhat, r, dims, numel_of(a.shape[axis:])), orig)
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
            grad_input = _norm_input_grad(gw, xhat, per_channel(invstd), dims, numel_of([x.shape[d] for d in dims]))
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
    train = save_mean is not None and numel_of(save_mean.shape) > 0
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


# ----------------------------------------------------------------------------- convolution


def _weight_grad(x, gy, kernel, stride, padding, dilation, groups):
    """d(conv(x, w))/dw contracted with gy: itself a convolution of x (channels as batch) with gy
    (as the kernel), stride and dilation swapped, cut to the kernel size."""
    n = len(kernel)
    N, cin = x.shape[0], x.shape[1]
    cpg = cin // groups
    # x: (N, G*cpg, *s) -> (cpg, G*N, *s), so group g of the new channels is group g of x's.
    spatial = list(x.shape[2:])
    xg = P.reshape(contiguous(x), [N, groups, cpg] + spatial)
    xg = P.reshape(contiguous(P.permute(xg, [2, 1, 0] + list(range(3, n + 3)))), [cpg, groups * N] + spatial)
    kg = P.permute(gy, [1, 0] + list(range(2, n + 2)))            # (Cout, N, *o)
    out = P.convolution(xg, kg, None, dilation, padding, stride, False, [0] * n, groups)   # (cpg, Cout, *k')
    starts, limits = [0] * (n + 2), [out.shape[0], out.shape[1]] + list(kernel)
    out = P.slice(out, starts, limits, [1] * (n + 2))
    return P.permute(out, [1, 0] + list(range(2, n + 2)))         # (Cout, cpg, *k)


def _input_grad(gy, w, in_spatial, stride, padding, dilation, groups):
    """d(conv(x, w))/dx contracted with gy: the transposed convolution, output_padding chosen so
    the result has x's size."""
    n = len(in_spatial)
    out_spatial = gy.shape[2:]
    output_padding = [in_spatial[i] - ((out_spatial[i] - 1) * stride[i] - 2 * padding[i]
                                       + dilation[i] * (w.shape[2 + i] - 1) + 1) for i in range(n)]
    return P.convolution(gy, w, None, stride, padding, dilation, True, output_padding, groups)


@register(aten.convolution_backward.default)
def convolution_backward(grad_output, a, weight, bias_sizes, stride, padding, dilation, transposed, output_padding,
                         groups, output_mask):
    n = weight.dim() - 2
    if a.dim() != n + 2 or grad_output.dim() != n + 2:
        raise RuntimeError(f"convolution_backward: expected {n + 2}-D input and grad_output for a {n + 2}-D weight, "
                           f"got input {list(a.shape)} and grad_output {list(grad_output.shape)}")
    stride, padding, dilation, output_padding = (per_dim(k, v, n) for k, v in (
        ("stride", stride), ("padding", padding), ("dilation", dilation), ("output_padding", output_padding)))
    kernel = list(weight.shape[2:])
    grad_input = grad_weight = grad_bias = None
    if not transposed:
        if output_mask[0]:
            grad_input = _input_grad(grad_output, weight, list(a.shape[2:]), stride, padding, dilation, groups)
        if output_mask[1]:
            grad_weight = _weight_grad(a, grad_output, kernel, stride, padding, dilation, groups)
    else:
        # y = conv_transpose(x, w) is the adjoint of x = conv(y, w): swap the roles of x and y.
        if output_mask[0]:
            grad_input = P.convolution(grad_output, weight, None, stride, padding, dilation, False, [0] * n, groups)
        if output_mask[1]:
            grad_weight = _weight_grad(grad_output, a, kernel, stride, padding, dilation, groups)
    # Eager lays both gradients out channels-last when the input or the weight is, else contiguous.
    layout = _channels_last if is_channels_last_4d(a) or is_channels_last_4d(weight) else contiguous
    grad_input = None if grad_input is None else layout(grad_input)
    grad_weight = None if grad_weight is None else layout(grad_weight)
    if output_mask[2]:
        (g,), orig = upcast(grad_output)
        grad_bias = to_dtype(P.sum(g, [0] + list(range(2, n + 2))), orig)
    return grad_input, grad_weight, grad_bias


# ----------------------------------------------------------------------------- pooling


def _channels_last(t):
    return dense_in_order(t, [0, 2, 3, 1])


def _like_input_layout(grad, a):
    """A pooling gradient laid out as eager's: channels-last when the input is, else contiguous."""
    return in_layout(grad, a.stride()) if is_channels_last_4d(a) else contiguous(grad)


def _max_pool_backward(name, n):
    def decomp(grad_output, a, kernel_size, stride, padding, dilation, ceil_mode, indices):
        pool_geometry(name, a, n, kernel_size, stride, padding, dilation, ceil_mode)
        if list(indices.shape) != list(grad_output.shape):
            raise RuntimeError(f"{name}: expected indices of grad_output's shape {list(grad_output.shape)}, got "
                               f"{list(indices.shape)}")
        return _like_input_layout(_scatter_to_plane(grad_output, a, indices, n), a)
    decomp.__name__ = decomp.__qualname__ = f"{name}_with_indices_backward"
    return decomp


def _scatter_to_plane(grad_output, a, indices, n):
    """Each output's gradient added at its index (a flat position in its channel's input plane)."""
    lead = list(a.shape[:a.dim() - n])
    plane, out_plane = numel_of(a.shape[a.dim() - n:]), numel_of(grad_output.shape[a.dim() - n:])
    (g,), orig = upcast(contiguous(grad_output))
    g = P.reshape(g, lead + [out_plane])
    index = P.reshape(contiguous(indices), lead + [out_plane])
    zeros = P.full(lead + [plane], 0, dtype=g.dtype, device=g.device)
    return to_dtype(P.reshape(P.scatter_add(zeros, len(lead), index, g), list(a.shape)), orig)


def _fractional_max_pool_backward(name, n):
    def decomp(grad_output, a, kernel_size, output_size, indices):
        output_size = per_dim("output_size", output_size, n)
        expected = list(a.shape[:a.dim() - n]) + output_size
        if list(grad_output.shape) != expected or list(indices.shape) != expected:
            raise RuntimeError(f"{name}: expected grad_output and indices of shape {expected}, got "
                               f"{list(grad_output.shape)} and {list(indices.shape)}")
        return contiguous(_scatter_to_plane(grad_output, a, indices, n))   # eager's gradient is contiguous
    decomp.__name__ = decomp.__qualname__ = f"{name}_backward"
    return decomp


def _adaptive_max_pool_backward(name, n, layout):
    def decomp(grad_output, a, indices):
        if list(indices.shape) != list(grad_output.shape) or grad_output.dim() != a.dim():
            raise RuntimeError(f"{name}: expected grad_output and indices of one shape, with self's dimensions "
                               f"{a.dim()}, got {list(grad_output.shape)} and {list(indices.shape)}")
        return layout(_scatter_to_plane(grad_output, a, indices, n), a)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


register_with_variants("max_pool2d_with_indices_backward", _max_pool_backward("max_pool2d", 2))
register_with_variants("max_pool3d_with_indices_backward", _max_pool_backward("max_pool3d", 3))
register_with_variants("fractional_max_pool2d_backward", _fractional_max_pool_backward("fractional_max_pool2d", 2))
register_with_variants("fractional_max_pool3d_backward", _fractional_max_pool_backward("fractional_max_pool3d", 3))
register_with_variants("adaptive_max_pool2d_backward",
                       _adaptive_max_pool_backward("adaptive_max_pool2d_backward", 2, _like_input_layout))


# eager's 3-d gradient is contiguous whatever the input's layout
register_with_variants("adaptive_max_pool3d_backward",
                       _adaptive_max_pool_backward("adaptive_max_pool3d_backward", 3, lambda g, a: contiguous(g)))


def _avg_pool_backward(name, n):
    def decomp(grad_output, a, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
        kernel, stride, padding, _, out = pool_geometry(name, a, n, kernel_size, stride, padding, 1, ceil_mode)
        if divisor_override is not None and divisor_override == 0:
            raise RuntimeError(f"{name}: divisor must be not zero")
        if list(grad_output.shape[a.dim() - n:]) != out:
            raise RuntimeError(f"{name}: expected grad_output's spatial size {out}, got {list(grad_output.shape)}")
        spatial = list(range(a.dim() - n, a.dim()))
        sizes = [a.shape[d] for d in spatial]
        (g,), orig = upcast(grad_output)
        if divisor_override is not None:
            g = P.div(g, like(g, divisor_override))
        else:   # the forward's divisor per window, as in decompositions.nn.pooling._avg_pool
            padded = [s + (2 * p if count_include_pad else 0) for s, p in zip(sizes, padding)]
            ones = P.full(padded, 1, dtype=g.dtype, device=g.device)
            low = [0] * n if count_include_pad else padding
            counts = P.sum(pool_windows(ones, list(range(n)), kernel, stride, [1] * n, out, low, 0), [n])
            g = P.div(g, P.broadcast_in_dim(counts, list(g.shape), spatial))
        # Window offset k sends g[o] to padded position o * stride + k: interior padding spreads
        # g by the stride, low/high padding shifts it by k and crops it to the input.
        total = None
        for offsets in itertools.product(*(range(k) for k in kernel)):
            low, high, interior = [0] * g.dim(), [0] * g.dim(), [0] * g.dim()
            for i, d in enumerate(spatial):
                low[d] = offsets[i] - padding[i]
                high[d] = sizes[i] - low[d] - (out[i] - 1) * stride[i] - 1
                interior[d] = stride[i] - 1
            part = P.pad(g, 0, low, high, interior)
            total = part if total is None else P.add(total, part)
        return _like_input_layout(to_dtype(total, orig), a)
    decomp.__name__ = decomp.__qualname__ = f"{name}_backward"
    return decomp


register_with_variants("avg_pool2d_backward", _avg_pool_backward("avg_pool2d", 2))
register_with_variants("avg_pool3d_backward", _avg_pool_backward("avg_pool3d", 3))


def _adaptive_avg_pool_backward(name, n):
    def decomp(grad_output, a):
        if a.dim() not in (n + 1, n + 2) or grad_output.dim() != a.dim():
            raise RuntimeError(f"{name}: expected a {n + 1}D or {n + 2}D input and a grad_output of the same rank, "
                               f"got {list(a.shape)} and {list(grad_output.shape)}")
        spatial = list(range(a.dim() - n, a.dim()))
        (g,), orig = upcast(contiguous(grad_output))
        bins = [adaptive_bins(a.shape[d], g.shape[d], a.device) for d in spatial]
        for d, (_, _, count) in zip(spatial, bins):   # the forward's divisor, one factor per dim
            g = P.div(g, P.broadcast_in_dim(to_dtype(count, g.dtype), list(g.shape), [d]))
        for d, (index, valid, _) in zip(spatial, bins):
            # Bin o of this dim read input positions index[o, :valid]: add g's slice o back there.
            out_size, kmax = index.shape
            split = list(g.shape[:d]) + [out_size, kmax] + list(g.shape[d + 1:])
            spread = P.broadcast_in_dim(g, split, [k for k in range(len(split)) if k != d + 1])
            spread = P.where(P.broadcast_in_dim(valid, split, [d, d + 1]), spread, like(spread, 0))
            flat = list(g.shape[:d]) + [out_size * kmax] + list(g.shape[d + 1:])
            spread = P.reshape(spread, flat)
            where = P.broadcast_in_dim(P.reshape(index, [out_size * kmax]), flat, [d])
            target = list(g.shape[:d]) + [a.shape[d]] + list(g.shape[d + 1:])
            g = P.scatter_add(P.full(target, 0, dtype=g.dtype, device=g.device), d, where, spread)
        return _like_input_layout(to_dtype(g, orig), a)
    decomp.__name__ = decomp.__qualname__ = f"{name}_backward"
    return decomp


register_with_variants("_adaptive_avg_pool2d_backward", _adaptive_avg_pool_backward("adaptive_avg_pool2d", 2))
register_with_variants("_adaptive_avg_pool3d_backward", _adaptive_avg_pool_backward("adaptive_avg_pool3d", 3))


# ----------------------------------------------------------------------------- embedding


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    if indices.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f"embedding_dense_backward: expected int32 or int64 indices, got {dt.short(indices.dtype)}")
    count = numel_of(indices.shape)
    dim = grad_output.shape[-1]
    (g,), orig = upcast(P.reshape(contiguous(grad_output), [count, dim]))
    idx = P.reshape(to_dtype(contiguous(indices), torch.int64), [count])
    if scale_grad_by_freq:   # each row's gradient divided by how often its index occurs
        ones = P.full([count], 1, dtype=g.dtype, device=g.device)
        freq = P.scatter_add(P.full([num_weights], 0, dtype=g.dtype, device=g.device), 0, idx, ones)
        g = P.div(g, P.broadcast_in_dim(P.index_select(freq, 0, idx), [count, dim], [0]))
    if padding_idx >= 0:     # the padding row gets no gradient
        pad = P.eq(idx, i64(padding_idx, [count], idx.device))
        g = P.where(P.broadcast_in_dim(pad, [count, dim], [0]), like(g, 0), g)
    zeros = P.full([num_weights, dim], 0, dtype=g.dtype, device=g.device)
    grad = P.scatter_add(zeros, 0, P.broadcast_in_dim(idx, [count, dim], [0]), g)
    return to_dtype(grad, orig)


register_with_variants("embedding_dense_backward", embedding_dense_backward)


# ----------------------------------------------------------------------------- attention


def _attention_backward(grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, attn_mask, scale):
    """(grad_q, grad_k, grad_v, grad_scores) of out = softmax(q k^T * scale + mask) v, the
    probabilities recomputed from the forward's logsumexp; grouped key/value heads are summed."""
    if dropout_p > 0:
        # Only the fused kernels' backwards come here; with dropout their mask lives inside the kernel (redrawn
        # from the philox seed and offset), and their forwards refuse dropout too. SDPA with dropout on CPU
        # decomposes through eager's math path, whose backward reads the saved mask.
        raise RuntimeError(f"scaled_dot_product_attention backward: dropout_p={dropout_p} > 0 is not supported by "
                           f"primkit for the fused attention kernels (their mask is drawn inside the kernel)")
    (qf, kf, vf, gf, of), orig = upcast(q, k, v, grad_out, out)
    groups = q.shape[1] // k.shape[1]
    if groups > 1:
        kf, vf = repeat_heads(kf, groups), repeat_heads(vf, groups)
    B, H, L, S = q.shape[0], q.shape[1], q.shape[2], k.shape[2]
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    kt = P.permute(kf, [0, 1, 3, 2])
    scores = P.matmul(qf, kt)
    scores = P.mul(scores, like(scores, scale))
    if is_causal:
        row = P.broadcast_in_dim(P.iota(L, start=0, step=1, dtype=torch.int64, device=q.device), [B, H, L, S], [2])
        col = P.broadcast_in_dim(P.iota(S, start=0, step=1, dtype=torch.int64, device=q.device), [B, H, L, S], [3])
        scores = P.where(P.le(col, row), scores, like(scores, -math.inf))
    if attn_mask is not None:
        mask = broadcast_to(attn_mask, [B, H, L, S])
        scores = P.where(mask, scores, like(scores, -math.inf)) if mask.dtype == torch.bool else \
            P.add(scores, to_dtype(mask, scores.dtype))
    lse = to_dtype(logsumexp, scores.dtype)
    lse = P.where(P.eq(lse, like(lse, -math.inf)), like(lse, math.inf), lse)   # fully masked rows: weights 0
    probs = P.exp(P.sub(scores, P.broadcast_in_dim(lse, [B, H, L, S], [0, 1, 2])))
    grad_v = P.matmul(P.permute(probs, [0, 1, 3, 2]), gf)
    grad_probs = P.matmul(gf, P.permute(vf, [0, 1, 3, 2]))
    row_dot = P.sum(P.mul(gf, of), [3])
    grad_scores = P.mul(probs, P.sub(grad_probs, P.broadcast_in_dim(row_dot, [B, H, L, S], [0, 1, 2])))
    grad_q = P.mul(P.matmul(grad_scores, kf), like(qf, scale))
    grad_k = P.matmul(P.permute(grad_scores, [0, 1, 3, 2]), qf)
    grad_k = P.mul(grad_k, like(grad_k, scale))
    if groups > 1:   # each key/value head served `groups` query heads
        def fold(t):
            shape = [B, k.shape[1], groups] + list(t.shape[2:])
            return P.sum(P.reshape(t, shape), [2])
        grad_k, grad_v = fold(grad_k), fold(grad_v)
    return to_dtype(grad_q, orig), to_dtype(grad_k, orig), to_dtype(grad_v, orig), grad_scores


@register(aten._scaled_dot_product_flash_attention_for_cpu_backward.default)
def sdpa_flash_for_cpu_backward(grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, *, attn_mask=None,
                                scale=None):
    gq, gk, gv, _ = _attention_backward(grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, attn_mask, scale)
    # Eager's kernel writes every gradient as (batch, seq, heads, dim), transposed to (B, H, S, E).
    return tuple(dense_in_order(g, [0, 2, 1, 3]) for g in (gq, gk, gv))


@register(aten._scaled_dot_product_efficient_attention_backward.default)
def sdpa_efficient_backward(grad_out, q, k, v, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p,
                            grad_input_mask, is_causal=False, *, scale=None):
    L = q.shape[2]
    lse = P.slice(logsumexp, [0, 0, 0], [logsumexp.shape[0], logsumexp.shape[1], L], [1, 1, 1])   # drop padding
    gq, gk, gv, gs = _attention_backward(grad_out, q, k, v, out, lse, dropout_p, is_causal, attn_bias, scale)
    grad_bias = None
    if len(grad_input_mask) > 3 and grad_input_mask[3] and attn_bias is not None:
        # The bias was broadcast over (B, H, L, S): sum the score gradient back to its shape.
        expanded = [d for d in range(4) if d >= 4 - attn_bias.dim() and attn_bias.shape[d - 4 + attn_bias.dim()] == 1]
        lead = list(range(4 - attn_bias.dim()))
        gb = P.sum(gs, lead + expanded) if lead or expanded else gs
        kept = [d for d in range(4) if d not in lead and d not in expanded]
        gb = P.broadcast_in_dim(gb, list(attn_bias.shape), [d - len(lead) for d in kept])
        grad_bias = to_dtype(gb, attn_bias.dtype)
    return (_maybe(grad_input_mask[0], gq), _maybe(grad_input_mask[1], gk), _maybe(grad_input_mask[2], gv),
            grad_bias)


@register(aten._scaled_dot_product_flash_attention_backward.default)
def sdpa_flash_backward(grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal,
                        philox_seed, philox_offset, *, scale=None):
    gq, gk, gv, _ = _attention_backward(grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, None, scale)
    return tuple(dense_in_order(g, dim_order(t)) for g, t in ((gq, q), (gk, k), (gv, v)))


# ----------------------------------------------------------------------------- losses


def _check_nll_backward_sizes(grad_output, a, target, reduction, total_weight):
    """Eager's checks: an unreduced batch's grad_output has the target's shape; otherwise grad_output and
    total_weight are single elements (shape () or (1,))."""
    if reduction == NONE and a.dim() >= 2:
        if sizes_differ(grad_output.shape, target.shape):
            raise RuntimeError(f"nll_loss_backward: grad_output of shape {list(grad_output.shape)} should have the "
                               f"target's shape {list(target.shape)}")
    elif grad_output.dim() > 1 or sizes_differ([numel_of(grad_output.shape)], [1]):
        raise RuntimeError(f"nll_loss_backward: expected a single element grad_output tensor, "
                           f"got shape {list(grad_output.shape)}")
    if sizes_differ([numel_of(total_weight.shape)], [1]):
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
            w = P.reshape(P.index_select(to_dtype(weight, x.dtype), 0, P.reshape(safe, [numel_of(t.shape)])),
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
    count = numel_of(a.shape)
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
        out = elementwise(lambda x: P.div(x, like(x, numel_of(a.shape))), out)
    return in_layout(out, preserved_strides(a))     # eager's grad_input is empty_like(input)


register_with_variants("binary_cross_entropy_backward", binary_cross_entropy_backward)


# ----------------------------------------------------------------------------- out= overloads

for _op, _fn in ((aten.convolution_backward.out, convolution_backward),
                 (aten.native_batch_norm_backward.out, _batch_norm_backward),
                 (aten.native_layer_norm_backward.out, native_layer_norm_backward),
                 (aten.native_group_norm_backward.out, native_group_norm_backward),
                 (aten.cudnn_batch_norm_backward.out, cudnn_batch_norm_backward),
                 (aten.miopen_batch_norm_backward.out, miopen_batch_norm_backward),
                 (aten._weight_norm_interface_backward.out, weight_norm_interface_backward)):
    register_out(_op, _fn)
