"""Decompositions of low-precision arithmetic: affine quantization and the int8 / float8 matmuls.

- ``quantized_decomposed``: the ops torch.ao's PT2E flow writes into a converted program
  (quantize / dequantize per tensor and per channel, choose_qparams). torch defines them in Python
  when ``torch.ao.quantization.fx._decomposed`` is imported (torchao's PT2E imports it), so they are
  registered once they exist (``register_when_defined``). Their eager kernels are written in ATen
  ops: these follow them step by step, so each rounding is eager's (round half to even, then clamp,
  then convert).
- ``fake_quantize_*``: eager's C++ kernels, whose arithmetic is float32 whatever the input dtype
  (1.0f / scale, the product, and the dequantized value); the gradient is eager's straight-through
  estimate: the incoming gradient where the rounded value lies in [quant_min, quant_max], else 0.
- ``_int_mm`` (int8 x int8 accumulated in int32) and ``_scaled_mm`` (float8 operands upcast to
  float32, scaled, multiplied in float32, bias added, rounded to the output dtype), here rather
  than with mm in linalg.py: what defines them is their low-precision dtypes and scales.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, elementwise, like, round_to, to_dtype, with_gradient_of
from primkit.decompositions.registry import register, register_when_defined
from primkit.decompositions.layout import contiguous
from primkit.prims import dtypes as dt

FLOAT8 = (torch.float8_e4m3fn, torch.float8_e5m2)

# torch.ao's bounds of each quantized dtype (quant_min and quant_max must lie inside them): integers, and
# float8 (values rounded to integers, then converted)
_QVALUE_BOUNDS = {**{d: (torch.iinfo(d).min, torch.iinfo(d).max)
                     for d in (torch.uint8, torch.int8, torch.uint16, torch.int16, torch.int32)},
                  **{d: (int(torch.finfo(d).min), int(torch.finfo(d).max)) for d in FLOAT8}}


def _bounds_check(op, quant_min, quant_max, dtype):
    if dtype not in _QVALUE_BOUNDS:
        raise ValueError(f"{op}: unsupported dtype {dt.short(dtype)} (expected one of "
                         f"{', '.join(dt.short(d) for d in _QVALUE_BOUNDS)})")
    low, high = _QVALUE_BOUNDS[dtype]
    if quant_min < low:
        raise AssertionError(f"{op}: quant_min out of bounds for dtype, quant_min_lower_bound: {low} "
                             f"quant_min: {quant_min}")
    if quant_max > high:
        raise AssertionError(f"{op}: quant_max out of bounds for dtype, quant_max_upper_bound: {high} "
                             f"quant_max: {quant_max}")


def _float_input(op, x):
    """torch.ao quantizes float32; float16 and bfloat16 inputs are upcast first."""
    if x.dtype in (torch.float16, torch.bfloat16):
        x = to_dtype(x, torch.float32)
    if x.dtype != torch.float32:
        raise AssertionError(f"{op}: Expecting input to have dtype torch.float32, but got dtype: {x.dtype}")
    return x


def _one_element(op, **tensors):
    for name, t in tensors.items():
        if t.numel() != 1:
            raise AssertionError(f"{op}: Expecting {name} tensor to be one element, but received : {t.numel()}")


def _along(t, ndim):
    """A per-channel parameter (C,) shaped (C, 1, ...) to broadcast along dim 0 of an ndim tensor."""
    return P.reshape(t, [t.shape[0]] + [1] * (ndim - 1))


def _axis_first(x, axis):
    """x with axis and 0 swapped (its own inverse): torch.ao computes per channel on this view,
    so its result's strides are those of elementwise ops on it, swapped back."""
    order = list(range(x.dim()))
    order[0], order[axis] = axis, 0
    return aten.permute.default(x, order), order


def _clamp(x, low, high):
    if isinstance(low, torch.Tensor):
        return aten.clamp.Tensor(x, low, high)
    return aten.clamp.default(x, low, high)


def _quantize(x, inv_scale, zero_point, quant_min, quant_max, dtype):
    """clamp(round(x * inv_scale) + zero_point, quant_min, quant_max).to(dtype): eager's ATen ops,
    so each step promotes and rounds as eager's does."""
    q = aten.add.Tensor(aten.round.default(aten.mul.Tensor(x, inv_scale)), zero_point)
    return P.convert_element_type(_clamp(q, quant_min, quant_max), dtype)


def _check_dtype(op, x, dtype):
    if x.dtype != dtype:
        raise AssertionError(f"{op}: Expecting input to have dtype: {dtype}, but got {x.dtype}")


# ----------------------------------------------------------------------------- per tensor

@register_when_defined("quantized_decomposed::quantize_per_tensor")
def quantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype):
    x = _float_input("quantize_per_tensor", input)
    _bounds_check("quantize_per_tensor", quant_min, quant_max, dtype)
    return _quantize(x, 1.0 / scale, zero_point, quant_min, quant_max, dtype)


def _operand(v):
    """A qparam given as a one-element tensor (eager reads it with .item(), a Python number) as a 0-d
    tensor, which takes part in type promotion as that number would."""
    return P.reshape(v, []) if isinstance(v, torch.Tensor) else v


@register_when_defined("quantized_decomposed::quantize_per_tensor.tensor",
                       "quantized_decomposed::quantize_per_tensor.tensor2")
def quantize_per_tensor_tensor(input, scale, zero_point, quant_min, quant_max, dtype):
    """Eager reads scale.item() and divides 1.0 by it in float64 (Python's division); the product
    reads that quotient as a float32 operand."""
    _one_element("quantize_per_tensor", zero_point=zero_point, scale=scale)
    x = _float_input("quantize_per_tensor", input)
    if not isinstance(quant_min, torch.Tensor):   # .tensor2's bounds are data: eager checks them after .item()
        _bounds_check("quantize_per_tensor", quant_min, quant_max, dtype)
    inv = elementwise(P.div, 1.0, to_dtype(_operand(scale), torch.float64))
    return _quantize(x, inv, _operand(zero_point), _operand(quant_min), _operand(quant_max), dtype)


def _dequantize(x, scale, zero_point, out_dtype):
    """(x.to(out_dtype) - zero_point) * scale."""
    return aten.mul.Tensor(aten.sub.Tensor(to_dtype(x, out_dtype), zero_point), scale)


@register_when_defined("quantized_decomposed::dequantize_per_tensor")
def dequantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype=None):
    _check_dtype("dequantize_per_tensor", input, dtype)
    if dtype not in _QVALUE_BOUNDS:
        raise ValueError(f"Unsupported dtype in dequantize_per_tensor: {dtype}")
    return _dequantize(input, scale, zero_point, out_dtype or torch.float32)


@register_when_defined("quantized_decomposed::dequantize_per_tensor.tensor",
                       "quantized_decomposed::dequantize_per_tensor.tensor2")
def dequantize_per_tensor_tensor(input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype=None):
    """scale.item() and zero_point.item() as Python numbers: wrapped numbers in eager's promotion, so
    here 0-d tensors of the computation dtype (a float64 scale is rounded to it, as eager does)."""
    _one_element("dequantize_per_tensor", zero_point=zero_point, scale=scale)
    _check_dtype("dequantize_per_tensor", input, dtype)
    if dtype not in _QVALUE_BOUNDS:
        raise ValueError(f"Unsupported dtype in dequantize_per_tensor: {dtype}")
    return _dequantize(input, _operand(scale), _operand(zero_point), out_dtype or torch.float32)


# ----------------------------------------------------------------------------- per channel

def _check_axis(op, x, axis):
    if axis >= x.dim():
        raise AssertionError(f"{op}: Expecting axis to be < {x.dim()}")


@register_when_defined("quantized_decomposed::quantize_per_channel")
def quantize_per_channel(input, scales, zero_points, axis, quant_min, quant_max, dtype):
    x = _float_input("quantize_per_channel", input)
    _check_axis("quantize_per_channel", x, axis)
    _bounds_check("quantize_per_channel", quant_min, quant_max, dtype)
    x, order = _axis_first(x, axis)
    inv = aten.reciprocal.default(_along(scales, x.dim()))
    q = aten.add.Tensor(aten.round.default(aten.mul.Tensor(x, inv)), _along(zero_points, x.dim()))
    return P.convert_element_type(aten.permute.default(_clamp(q, quant_min, quant_max), order), dtype)


@register_when_defined("quantized_decomposed::dequantize_per_channel")
def dequantize_per_channel(input, scales, zero_points, axis, quant_min, quant_max, dtype, *, out_dtype=None):
    _check_dtype("dequantize_per_channel", input, dtype)
    _check_axis("dequantize_per_channel", input, axis)
    _bounds_check("dequantize_per_channel", quant_min, quant_max, dtype)
    x, order = _axis_first(input, axis)
    shifted = x if zero_points is None else aten.sub.Tensor(x, _along(zero_points, x.dim()))
    res = to_dtype(aten.mul.Tensor(shifted, _along(scales, x.dim())), out_dtype or torch.float32)
    return aten.permute.default(res, order)


# ----------------------------------------------------------------------------- per token (rows of the last dim)

def _check_tokens(input, scales, zero_points):
    tokens = input.shape[:-1].numel()
    for name, t in (("scales", scales), ("zero_points", zero_points)):
        if t.numel() != tokens:
            raise AssertionError(f"per-token quantization: num_tokens: {tokens} {name}: {list(t.shape)}")


@register_when_defined("quantized_decomposed::quantize_per_token")
def quantize_per_token(input, scales, zero_points, quant_min, quant_max, dtype):
    """clamp(round(input * (1 / scales) + zero_points)).to(dtype): here the zero point is added
    before rounding (torch.ao's order for tokens)."""
    _bounds_check("quantize_per_token", quant_min, quant_max, dtype)
    _check_tokens(input, scales, zero_points)
    q = aten.round.default(aten.add.Tensor(aten.mul.Tensor(input, aten.reciprocal.default(scales)), zero_points))
    return P.convert_element_type(aten.clamp.default(q, quant_min, quant_max), dtype)


@register_when_defined("quantized_decomposed::dequantize_per_token")
def dequantize_per_token(input, scales, zero_points, quant_min, quant_max, dtype, output_dtype=torch.float32):
    return to_dtype(aten.mul.Tensor(aten.sub.Tensor(input, zero_points), scales), output_dtype)


@register_when_defined("quantized_decomposed::convert_element_type.no_fuse")
def convert_element_type_no_fuse(input, dtype):
    return P.convert_element_type(input, dtype)


# ----------------------------------------------------------------------------- choosing qparams

def _min_max_around_zero(input, quant_min, quant_max, dtype):
    """torch.ao's checks, then min(aminmax(input).min, 0) and max(aminmax(input).max, 0)."""
    if input.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise AssertionError(f"choose_qparams: Expecting input to have dtype torch.float32/16/b16, but got "
                             f"dtype: {input.dtype}")
    if dtype not in _QVALUE_BOUNDS:
        raise AssertionError(f"choose_qparams: Expecting target dtype to be one of "
                             f"{', '.join(dt.short(d) for d in _QVALUE_BOUNDS)}, but got: {dtype}")
    if not quant_min <= 0 <= quant_max:
        raise AssertionError("choose_qparams: Used-specified quantization range must include 0.")
    if quant_min >= quant_max:
        raise AssertionError("choose_qparams: qmin must be strictly less than qmax for user-specified "
                             "quantization range.")
    low, high = aten.aminmax.default(input)
    return (aten.minimum.default(low, aten.zeros_like.default(low)),
            aten.maximum.default(high, aten.zeros_like.default(high)))


@register_when_defined("quantized_decomposed::choose_qparams.tensor")
def choose_qparams(input, quant_min, quant_max, eps, dtype):
    """torch.ao's determine_qparams (per tensor, affine) on aminmax(input): returns scale (1,)
    float64 and zero_point (1,) int64."""
    low, high = _min_max_around_zero(input, quant_min, quant_max, dtype)
    scale = aten.div.Scalar(aten.sub.Tensor(high, low), float(quant_max - quant_min))
    scale = aten.maximum.default(scale, P.full([1], eps, dtype=torch.float32, device=input.device))
    steps = aten._to_copy.default(aten.round.default(aten.div.Tensor(low, scale)), dtype=torch.int32)
    zero_point = aten.clamp.default(aten.rsub.Scalar(steps, quant_min), quant_min, quant_max)
    return to_dtype(scale, torch.float64), to_dtype(zero_point, torch.int64)


@register_when_defined("quantized_decomposed::choose_qparams_symmetric.tensor")
def choose_qparams_symmetric(input, quant_min, quant_max, eps, dtype):
    """determine_qparams per tensor, symmetric: scale = max(|min|, |max|) / ((quant_max - quant_min) / 2),
    zero_point 0 (128 for uint8)."""
    low, high = _min_max_around_zero(input, quant_min, quant_max, dtype)
    high = aten.maximum.default(aten.neg.default(low), high)
    scale = aten.div.Scalar(high, float(quant_max - quant_min) / 2)
    scale = aten.maximum.default(scale, P.full([1], eps, dtype=torch.float32, device=input.device))
    zero_point = P.full([1], 128 if dtype == torch.uint8 else 0, dtype=torch.int64, device=input.device)
    return to_dtype(scale, torch.float64), zero_point


@register_when_defined("quantized_decomposed::choose_qparams_per_token")
def choose_qparams_per_token(input, dtype):
    """Symmetric int8 per row of the last dim: scale = max(amax(|input|), 1e-5) / 127 (float32 for a
    float16 input), zero point 0 in the scale's dtype."""
    if dtype != torch.int8:
        raise Exception(f"unsupported dtype in choose_qparams_per_token: {dtype}")  # noqa: TRY002  (eager's)
    scales = aten.amax.default(aten.abs.default(input), [-1], True)
    if scales.dtype == torch.float16:
        scales = to_dtype(scales, torch.float32)
    scales = aten.div.Scalar(aten.clamp.default(scales, 1e-5), 127)
    return scales, aten.zeros_like.default(scales)


@register_when_defined("quantized_decomposed::choose_qparams_per_token_asymmetric",
                       "quantized_decomposed::_choose_qparams_per_token_asymmetric_impl")
def choose_qparams_per_token_asymmetric(input, dtype):
    """Per row of the last dim (XNNPACK's rule, int8 range whatever dtype): scale (..., 1) float64 and
    zero_point (..., 1) int64, the zero point chosen from the end with the smaller rounding error."""
    qmin, qmax = -128, 127
    low = aten.amin.default(input, [-1], True)
    high = aten.amax.default(input, [-1], True)
    low = aten.minimum.default(low, aten.zeros_like.default(low))
    high = aten.maximum.default(high, aten.zeros_like.default(high))
    scale = aten.clamp.default(aten.div.Scalar(aten.sub.Tensor(high, low), float(qmax - qmin)),
                               torch.finfo(torch.float32).eps)
    descaled_min, descaled_max = aten.div.Tensor(low, scale), aten.div.Tensor(high, scale)
    from_min = aten.add.Tensor(descaled_min, qmin)
    from_max = aten.add.Tensor(descaled_max, qmax)
    zero_point = aten.where.self(aten.gt.Scalar(aten.add.Tensor(from_min, from_max), 0),
                                 aten.rsub.Scalar(descaled_min, qmin), aten.rsub.Scalar(descaled_max, qmax))
    zero_point = aten.round.default(aten.clamp.default(zero_point, qmin, qmax))
    return to_dtype(scale, torch.float64), to_dtype(zero_point, torch.int64)


# ----------------------------------------------------------------------------- fake quantization

def _straight_through(x, fake, mask):
    """``fake``'s value (bit for bit, -0.0 included) with eager's gradient: grad where mask, else 0."""
    return with_gradient_of(fake, P.where(mask, x, like(x, 0)))


def _check_range(quant_min, quant_max):
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or equal to `quant_max`.")


def _fake_quantize_tensor(x, scale, inv_scale, zero_point, quant_min, quant_max):
    """Eager's CPU kernel: qval = zero_point + nearbyint(x * inv_scale) in float (double for float64
    x); the mask is qval in [quant_min, quant_max]; nan clamps to quant_min (fmax ignores nan); the
    result is (qval - zero_point) * scale in float32, stored in x's dtype. scale, inv_scale: 0-d
    float32; zero_point: 0-d int64."""
    compute = torch.float64 if x.dtype == torch.float64 else torch.float32

    def spread(t, dtype=compute):   # a 0-d qparam over x's shape
        return P.broadcast_in_dim(to_dtype(t, dtype), x.shape, [])
    qval = P.add(P.round(P.mul(to_dtype(x, compute), spread(inv_scale))), spread(zero_point))
    low, high = like(qval, quant_min), like(qval, quant_max)
    mask = P.logical_and(P.ge(qval, low), P.le(qval, high))
    clamped = P.where(P.isnan(qval), low, P.clamp(qval, low, high))
    steps = to_dtype(P.sub(clamped, spread(zero_point)), torch.float32)
    fake = to_dtype(P.mul(steps, spread(scale, torch.float32)), x.dtype)
    return _straight_through(x, fake, mask), mask


def _fq_per_tensor_qparams(op, x, scale, zero_point, quant_min, quant_max):
    """(scale, 1.0f / scale, zero_point) as 0-d tensors, from Python numbers."""
    _check_range(quant_min, quant_max)
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    scale32 = round_to(scale, torch.float32)
    inv = round_to(1.0 / scale32, torch.float32) if scale32 != 0 else float("inf")
    return (P.scalar_tensor(scale32, dtype=torch.float32, device=x.device),
            P.scalar_tensor(inv, dtype=torch.float32, device=x.device),
            P.scalar_tensor(zero_point, dtype=torch.int64, device=x.device))


@register(aten.fake_quantize_per_tensor_affine_cachemask.default)
def fake_quantize_per_tensor_affine_cachemask(input, scale, zero_point, quant_min, quant_max):
    return _fake_quantize_tensor(input, *_fq_per_tensor_qparams("fake_quantize_per_tensor_affine", input, scale,
                                                               zero_point, quant_min, quant_max),
                                 quant_min, quant_max)


@register(aten.fake_quantize_per_tensor_affine.default)
def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    return fake_quantize_per_tensor_affine_cachemask(input, scale, zero_point, quant_min, quant_max)[0]


@register(aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams.default)
def fake_quantize_per_tensor_affine_cachemask_tensor_qparams(input, scale, zero_point, fake_quant_enabled,
                                                             quant_min, quant_max):
    """Eager reads the qparams with .item(): scale as float32, zero_point and fake_quant_enabled
    truncated to integers; fake quantization off passes input through with an all-true mask."""
    _check_range(quant_min, quant_max)
    scale32 = to_dtype(P.reshape(scale, []), torch.float32)
    inv = P.div(P.scalar_tensor(1.0, dtype=torch.float32, device=input.device), scale32)
    zp = to_dtype(P.reshape(zero_point, []), torch.int64)
    out, mask = _fake_quantize_tensor(input, scale32, inv, zp, quant_min, quant_max)
    on = P.broadcast_in_dim(P.ne(to_dtype(P.reshape(fake_quant_enabled, []), torch.int64),
                                 P.scalar_tensor(0, dtype=torch.int64, device=input.device)), input.shape, [])
    return P.where(on, out, input), P.logical_or(mask, P.logical_not(on))


@register(aten.fake_quantize_per_tensor_affine.tensor_qparams)
def fake_quantize_per_tensor_affine_tensor_qparams(input, scale, zero_point, quant_min, quant_max):
    on = P.full([1], 1, dtype=torch.int64, device=input.device)
    return fake_quantize_per_tensor_affine_cachemask_tensor_qparams(input, scale, zero_point, on, quant_min,
                                                                    quant_max)[0]


def _check_per_channel(x, scale, zero_point, axis, quant_min, quant_max):
    _check_range(quant_min, quant_max)
    if scale.dtype not in (torch.float32, torch.bfloat16):
        raise RuntimeError(f"Scale must be Float or BFloat16, found {dt.eager_name(scale.dtype)}")
    if zero_point.dtype not in (torch.int32, torch.float32, torch.float16):
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {dt.eager_name(zero_point.dtype)}")
    if scale.dim() != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point.dim() != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if not 0 <= axis < x.dim():
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    if scale.numel() != x.shape[axis] or zero_point.numel() != x.shape[axis]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")


@register(aten.fake_quantize_per_channel_affine_cachemask.default)
def fake_quantize_per_channel_affine_cachemask(input, scale, zero_point, axis, quant_min, quant_max):
    """Eager's CPU kernel per channel: an integer zero_point is added after nearbyint, a float one
    before lrintf (in float32); the integer cast of a value outside int64 (inf, nan) is INT64_MIN,
    so it clamps to quant_min; the result is (qval - zero_point) * scale in double."""
    _check_per_channel(input, scale, zero_point, axis, quant_min, quant_max)
    compute = torch.float64 if input.dtype == torch.float64 else torch.float32

    def at_axis(t, dtype):   # a (C,) parameter over input's shape, along axis
        return P.broadcast_in_dim(to_dtype(t, dtype), input.shape, [axis])
    scale32 = to_dtype(scale, torch.float32)
    inv = P.div(like(scale32, 1.0), scale32)
    product = P.mul(to_dtype(input, compute), at_axis(inv, compute))
    zp = at_axis(zero_point, compute)
    if zero_point.dtype == torch.int32:
        qval = P.add(P.round(product), zp)
    else:
        qval = to_dtype(P.round(to_dtype(P.add(product, zp), torch.float32)), compute)
    in_int64 = P.lt(P.abs(qval), like(qval, 2.0 ** 63))   # false for inf and nan
    mask = P.logical_and(in_int64, P.logical_and(P.ge(qval, like(qval, quant_min)), P.le(qval, like(qval, quant_max))))
    clamped = P.where(in_int64, P.clamp(qval, like(qval, quant_min), like(qval, quant_max)), like(qval, quant_min))
    steps = P.sub(to_dtype(clamped, torch.float64), at_axis(zero_point, torch.float64))
    fake = to_dtype(P.mul(steps, at_axis(scale, torch.float64)), input.dtype)
    return _straight_through(input, fake, mask), mask


@register(aten.fake_quantize_per_channel_affine.default)
def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    return fake_quantize_per_channel_affine_cachemask(input, scale, zero_point, axis, quant_min, quant_max)[0]


# ----------------------------------------------------------------------------- low-precision matmuls

def _check_matrices(name, a, b, first, second):
    for what, t in ((first, a), (second, b)):
        if t.dim() != 2:
            raise RuntimeError(f"{name}: Expected {what} to be of dimension 2 but got {t.dim()}")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"{name}: {first} and {second} shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} "
                           f"and {b.shape[0]}x{b.shape[1]})")


@register(aten._int_mm.default)
def int_mm(self, mat2):
    """int8 (or uint8) x int8 -> int32: the products summed in int32, as eager's kernel accumulates."""
    _check_matrices("_int_mm", self, mat2, "self", "mat2")
    if self.dtype not in (torch.int8, torch.uint8):
        raise RuntimeError(f"_int_mm: Expected self dtype to be int8 or uint8 but got {dt.short(self.dtype)}")
    if mat2.dtype != torch.int8:
        raise RuntimeError(f"_int_mm: Expected mat2 dtype to be of type int8 but got {dt.short(mat2.dtype)}")
    return P.matmul(to_dtype(self, torch.int32), to_dtype(mat2, torch.int32))


def _scale_of(scale, along):
    """A tensor-wise scale (one float32 element) as 0-d; a row-wise one ((m, 1) for mat_a, (1, n) for
    mat_b) as it is: both broadcast over the float32 matrix. None for any other."""
    if scale.dtype != torch.float32:
        return None
    if scale.numel() == 1:
        return P.reshape(scale, [])
    return scale if scale.dim() == 2 and tuple(scale.shape) == along else None


@register(aten._scaled_mm.default)
def scaled_mm(self, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None, use_fast_accum=False):
    """Eager's CPU kernel: each float8 matrix upcast to float32 and multiplied by its scale, the
    float32 product, bias added in float32, divided by scale_result for a float8 output, rounded
    to out_dtype (default: self's dtype). use_fast_accum changes nothing on CPU."""
    _check_matrices("_scaled_mm", self, mat2, "mat_a", "mat_b")
    scales = _scale_of(scale_a, (self.shape[0], 1)), _scale_of(scale_b, (1, mat2.shape[1]))
    if self.dtype not in FLOAT8 or mat2.dtype not in FLOAT8 or None in scales:
        # eager's ValueError
        raise ValueError(f"_scaled_mm: Invalid scaling configuration: mat_a and mat_b must be float8 (got "
                         f"{dt.short(self.dtype)} and {dt.short(mat2.dtype)}) and their scales float32, either "
                         f"single elements (tensor-wise) or of shapes [{self.shape[0]}, 1] and [1, {mat2.shape[1]}] "
                         f"(row-wise); got {dt.short(scale_a.dtype)} {list(scale_a.shape)} and "
                         f"{dt.short(scale_b.dtype)} {list(scale_b.shape)}")
    if bias is not None and bias.numel() != mat2.shape[1]:
        raise RuntimeError(f"_scaled_mm: Bias must be size {mat2.shape[1]} but got {bias.numel()}")
    out_dtype = out_dtype or self.dtype
    # eager makes both matrices contiguous first: the float32 product then runs the same BLAS path
    a = elementwise(P.mul, to_dtype(contiguous(self), torch.float32), scales[0])
    b = elementwise(P.mul, to_dtype(contiguous(mat2), torch.float32), scales[1])
    product = P.matmul(a, b)
    if bias is not None:
        product = elementwise(P.add, product, to_dtype(bias, torch.float32))
    if scale_result is not None and out_dtype in FLOAT8:
        inverse = P.div(P.scalar_tensor(1.0, dtype=torch.float32, device=self.device), P.reshape(scale_result, []))
        product = elementwise(P.mul, product, inverse)
    return P.convert_element_type(product, out_dtype)
