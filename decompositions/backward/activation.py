"""Backward of the activations, of the views and dropout autograd emits, and of the softmax family.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.backward.common import _check_same_shape, _pointwise, _sum_to
from primkit.decompositions.common import (
    P, aten, elementwise, like, register_with_variants, round_to, to_dtype, upcast, wrap_dim)
from primkit.decompositions.nn.activation import glu_halves
from primkit.decompositions.nn.common import keep_expanded
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.decompositions.type_promotion import computation_dtype
from primkit.prims import dtypes as dt


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
