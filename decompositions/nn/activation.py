"""Activations (relu, gelu, elu family, hardtanh, shrink, glu, log_sigmoid, prelu, rrelu, ...) and the
softmax family. Float16/bfloat16 are computed in float32 and cast back, as eager's kernels do.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, elementwise, like, register_inplace, register_out, register_with_variants, round_to, to_dtype, upcast,
    wrap_dim, write_into)
from primkit.decompositions.nn.common import check_floating, keep_expanded
from primkit.decompositions.random import masked_uniform
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.decompositions.type_promotion import computation_dtype
from primkit.prims.layout import numel, surely


# ----------------------------------------------------------------------------- activations
# Each is the math on x in its computation dtype; ``c(v)`` is the constant v shaped like x.


def _activation(name, math_fn, *, floating_only=True):
    def decomp(a, *args, **kwargs):
        if floating_only:
            check_floating(name, a)
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
    first, second, _, orig = glu_halves(a, dim, check=lambda a: check_floating("glu", a))
    return to_dtype(P.mul(first, P.sigmoid(second)), orig)


register_with_variants("glu", glu)


def log_sigmoid_parts(a):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|; and exp(-|x|),
    the buffer eager's CPU kernel saves for the backward."""
    check_floating("log_sigmoid", a)
    (x,), orig = upcast(contiguous(a))   # eager's kernel writes a contiguous result
    buffer = P.exp(P.neg(P.abs(x)))
    out = P.sub(P.minimum(x, like(x, 0.0)), P.log1p(buffer))
    return to_dtype(out, orig), to_dtype(buffer, orig)


@register(aten.log_sigmoid_forward.default)
def log_sigmoid_forward(a):
    out, buffer = log_sigmoid_parts(a)
    if a.device.type != "cpu":
        buffer = P.full([0], 0, dtype=a.dtype, device=a.device)   # CUDA saves no buffer
    return out, buffer


register_with_variants("log_sigmoid", lambda a: log_sigmoid_parts(a)[0])


# ----------------------------------------------------------------------------- softmax family


def softmax_impl(a, dim, out_dtype, log):
    """(log_)softmax along dim: subtract the max before exp so huge inputs stay finite; rows with
    an inf or all -inf give nan, as eager. The result is contiguous, as eager's."""
    dims = [wrap_dim(dim, a.dim())] if a.dim() else []
    x = to_dtype(contiguous(a), computation_dtype(a.dtype))
    if x is a:
        x = P.clone(x)
    if surely(numel(x.shape) == 0):
        return to_dtype(x, out_dtype)
    # A reduced size that is data (a mask's count) may be 0 when the graph runs: a -inf appended gives
    # amax its identity there (the result is empty) and leaves it unchanged elsewhere.
    maybe_empty = [d for d in dims if not surely(x.shape[d] >= 1)]
    top_of = P.pad(x, -math.inf, [0] * x.dim(), [int(k in maybe_empty) for k in range(x.dim())], [0] * x.dim()) \
        if maybe_empty else x
    shifted = P.sub(x, keep_expanded(P.amax(top_of, dims), dims, x))
    exp = P.exp(shifted)
    total = keep_expanded(P.sum(exp, dims), dims, x)
    out = P.sub(shifted, P.log(total)) if log else P.div(exp, total)
    return to_dtype(out, out_dtype)


def _check_half_to_float(name, a, half_to_float):
    if half_to_float and a.dtype not in (torch.float16, torch.bfloat16):
        raise RuntimeError(f"{name}: conversion is supported for Half type only")
    check_floating(name, a)


def _softmax(a, dim, half_to_float):
    _check_half_to_float("softmax", a, half_to_float)
    return softmax_impl(a, dim, torch.float32 if half_to_float else a.dtype, log=False)


def _log_softmax(a, dim, half_to_float):
    _check_half_to_float("log_softmax", a, half_to_float)
    return softmax_impl(a, dim, torch.float32 if half_to_float else a.dtype, log=True)


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


@register(aten._safe_softmax.default)
def safe_softmax(a, dim, dtype=None):
    """softmax, but 0 (not nan) on a slice that is all -inf (fully masked attention rows)."""
    x = a if dtype is None else to_dtype(a, dtype)
    out = softmax_impl(x, dim, x.dtype, log=False)
    if numel(x.shape) == 0:
        return out
    dims = [wrap_dim(dim, x.dim())] if x.dim() else []
    all_masked = P.logical_not(P.amax(P.ne(x, like(x, -math.inf)), dims)) if dims else \
        P.eq(x, like(x, -math.inf))
    return P.where(keep_expanded(all_masked, dims, out) if dims else all_masked, like(out, 0), out)
register_out(aten.log_sigmoid_forward.output, log_sigmoid_forward)


@register(aten.relu6.default)
def relu6(a):
    return aten.hardtanh.default(a, 0.0, 6.0)


register_inplace(aten.relu6_.default, relu6, "relu6_")


@register(aten._prelu_kernel.default)
def prelu_kernel(a, weight):
    return elementwise(lambda x, w: P.where(P.gt(x, like(x, 0)), x, P.mul(w, x)), a, weight)


@register(aten.prelu.default)
def prelu(a, weight):
    n = weight.numel()
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if a.dim() == 0 and n != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    channels = a.shape[1] if a.dim() >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} "
                           f"and channel size = {channels}.")
    if weight.dim() == 1 and a.dim() >= 2:     # one weight per channel (dim 1)
        weight = P.broadcast_in_dim(weight, [n] + [1] * (a.dim() - 2), [0])
    elif a.dim() == 0 and weight.dim() == 1:    # a 0-d input keeps its shape
        weight = P.reshape(weight, [])
    return prelu_kernel(a, weight)


# ----------------------------------------------------------------------------- rrelu


def _opmath(dtype):
    return torch.float64 if dtype == torch.float64 else torch.float32


def _rrelu_train(a, lower, upper):
    """Eager's CPU training kernel over the contiguous input, in order: an element x <= 0 draws a slope
    r = uniform(lower, upper) (a double, rounded to the opmath type) and gives x * r with noise r;
    any other element (nan too) gives x with noise 1. Returns (output, noise), both contiguous."""
    x = contiguous(a)
    opmath = _opmath(a.dtype)
    low, high = (float(lower), float(upper)) if opmath == torch.float64 else \
        (round_to(float(lower), torch.float32), round_to(float(upper), torch.float32))
    if not low <= high:
        raise RuntimeError(f"rrelu: Lower bound should be less than or equal to the upper bound, got lower={lower}, "
                           f"upper={upper}")
    drawn = P.le(x, like(x, 0))
    slope = P.convert_element_type(masked_uniform(drawn, low, high), opmath)
    out = P.where(drawn, P.convert_element_type(P.mul(P.convert_element_type(x, opmath), slope), a.dtype), x)
    noise = P.where(drawn, P.convert_element_type(slope, a.dtype), like(x, 1))
    return out, noise


def _rrelu_eval(a, lower, upper):
    return contiguous(aten.leaky_relu.default(a, (lower + upper) / 2))     # eager writes a contiguous result


def _check_generator(name, generator):
    if generator is not None:
        raise RuntimeError(f"{name}: generator= is not supported by primkit: its generator prims draw from the "
                           f"device's default generator (pass generator=None)")


def rrelu_with_noise_functional(a, noise, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    """(output, noise_out): noise_out is the slopes drawn in training, noise itself otherwise."""
    if tuple(noise.shape) != tuple(a.shape):
        raise RuntimeError(f"rrelu_with_noise: noise tensor shape must match self tensor shape. Got self.shape = "
                           f"{list(a.shape)} noise.shape = {list(noise.shape)}")
    if not training:
        return _rrelu_eval(a, lower, upper), noise
    _check_generator("rrelu_with_noise", generator)
    out, drawn = _rrelu_train(a, lower, upper)
    return out, P.convert_element_type(drawn, noise.dtype)


def rrelu_with_noise(a, noise, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    out, noise_out = rrelu_with_noise_functional(a, noise, lower, upper, training, generator)
    if training:
        write_into(noise, noise_out, "rrelu_with_noise")    # eager writes the slopes into noise
    return out


def rrelu(a, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    """Eager's composite: rrelu_with_noise with a fresh contiguous noise tensor."""
    if not training:
        return _rrelu_eval(a, lower, upper)
    _check_generator("rrelu", generator)
    return _rrelu_train(a, lower, upper)[0]


register(aten.rrelu.default)(rrelu)
register_inplace(aten.rrelu_.default, rrelu, "rrelu_")
register(aten.rrelu_with_noise.default)(rrelu_with_noise)
register(aten.rrelu_with_noise_functional.default)(rrelu_with_noise_functional)
register_inplace(aten.rrelu_with_noise_.default, rrelu_with_noise, "rrelu_with_noise_")
register_out(aten.rrelu_with_noise.out, rrelu_with_noise, "rrelu_with_noise")


@register(aten.rrelu_with_noise_backward.default)
def rrelu_with_noise_backward(grad, a, noise, lower, upper, training, self_is_result):
    """noise * grad in training (the forward's slopes: nothing is drawn again), else leaky_relu's backward
    with the mean slope."""
    if training:
        return aten.mul.Tensor(noise, grad)
    return aten.leaky_relu_backward.default(grad, a, (lower + upper) / 2, self_is_result)


register_out(aten.rrelu_with_noise_backward.out, rrelu_with_noise_backward)
