"""Decompositions of PyTorch's own prims (``torch.ops.prims``), as a program that calls them runs them.

torch's prims are strict as primkit's are (operands of one dtype and shape, explicit broadcasting),
so most map to the primkit prim of the same idea. Where eager's kernel for a torch prim departs from
its own meta (an integer sum is int64, as torch.sum's; a Python number operand), the decomposition
follows what eager computes. Nothing here imports torch's prim definitions: the ops are looked up in
``torch.ops.prims`` (torch defines them when it is imported) and registered once they exist.

Names map to primkit's where they differ: transpose -> permute, view_of -> alias, view_of_dtype ->
bitcast_convert_type, erf_inv -> erfinv, bessel_i0/i0e/i1/i1e -> i0/i0e/i1/i1e, xor_sum -> reduce_xor;
torch's collapse and collapse_view name their last dim inclusively, primkit's collapse exclusively.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, broadcast_to, like, to_dtype
from primkit.decompositions.registry import register_when_defined
from primkit.decompositions.layout import contiguous
from primkit.prims import dtypes as dt

UNARY = {name: name for name in (
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_not", "cbrt", "ceil", "conj_physical", "cos",
    "cosh", "digamma", "erf", "erfc", "erfcx", "exp", "exp2", "expm1", "floor", "isfinite", "lgamma", "log",
    "log10", "log1p", "log2", "ndtri", "neg", "reciprocal", "round", "rsqrt", "sign", "signbit", "sin",
    "sinh", "spherical_bessel_j0", "sqrt", "tan", "tanh", "trunc", "bessel_j0", "bessel_j1")}
UNARY.update(erf_inv="erfinv", bessel_i0="i0", bessel_i0e="i0e", bessel_i1="i1", bessel_i1e="i1e")

BINARY = {name: name for name in (
    "add", "atan2", "bitwise_and", "bitwise_or", "bitwise_xor", "eq", "fmax", "fmin", "fmod", "gcd", "ge", "gt",
    "hypot", "igamma", "igammac", "le", "lt", "maximum", "minimum", "mul", "ne", "nextafter", "pow", "remainder",
    "shift_left", "shift_right_arithmetic", "sub", "zeta")}

REDUCTIONS = {"sum": "sum", "prod": "prod", "amax": "amax", "amin": "amin", "xor_sum": "reduce_xor"}


def _prim(name):
    return f"prims::{name}"


def _operands(*args):
    """The tensor operands over one shape and dtype: a Python number (or a 0-d tensor beside a
    dimensioned one) takes the dtype and shape of the first dimensioned tensor, as eager's prim does."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    ref = next((t for t in tensors if t.dim() > 0), tensors[0])
    out = []
    for a in args:
        if not isinstance(a, torch.Tensor):
            a = like(ref, a)
        elif a.dim() == 0 and ref.dim() > 0:
            a = broadcast_to(to_dtype(a, ref.dtype), ref.shape)
        out.append(a)
    return out


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _unary(prim):
    return lambda a: prim(a)


def _binary(prim):
    return lambda a, b: prim(*_operands(a, b))


for _torch_name, _name in UNARY.items():
    register_when_defined(_prim(_torch_name))(_named(_unary(getattr(P, _name)), _torch_name))
for _torch_name, _name in BINARY.items():
    register_when_defined(_prim(_torch_name))(_named(_binary(getattr(P, _name)), _torch_name))


@register_when_defined(_prim("div"))
def div(a, b):
    """True division of floats, division rounded toward zero of integers (torch's prim)."""
    a, b = _operands(a, b)
    return P.trunc_divide(a, b) if a.dtype in dt.INT else P.div(a, b)


def _dims(inp, dims, empty_means_all=False):
    """The reduced dims; eager's kernels for sum, amax and amin are torch's, which read [] as every dim."""
    if dims is None or (empty_means_all and len(dims) == 0):
        return list(range(inp.dim()))
    return [d % max(inp.dim(), 1) for d in dims]


def _no_output_dtype(name, output_dtype):
    if output_dtype is not None:   # eager's kernel passes it to torch.<name>, which has no such argument
        raise TypeError(f"prims.{name}: output_dtype is not supported by eager's kernel (got {output_dtype})")


def _reduction(name, prim):
    def decomp(inp, dims, *, output_dtype=None):
        _no_output_dtype(name, output_dtype)
        if name in ("sum", "prod") and (inp.dtype in dt.INT or inp.dtype == torch.bool):
            inp = to_dtype(inp, torch.int64)   # eager's kernel is torch.sum / torch.prod: integers sum in int64
        return prim(inp, _dims(inp, dims, empty_means_all=name in ("sum", "amax", "amin")))
    return decomp


for _torch_name, _name in REDUCTIONS.items():
    register_when_defined(_prim(_torch_name))(_named(_reduction(_torch_name, getattr(P, _name)), _torch_name))


@register_when_defined(_prim("var"))
def var(inp, dims, correction=1, *, output_dtype=None):
    _no_output_dtype("var", output_dtype)
    return P.var(inp, _dims(inp, dims), float(1 if correction is None else correction))


# ----------------------------------------------------------------------------- shape and layout

@register_when_defined(_prim("broadcast_in_dim"))
def broadcast_in_dim(a, shape, broadcast_dimensions):
    return P.broadcast_in_dim(a, list(shape), list(broadcast_dimensions))


@register_when_defined(_prim("transpose"))
def transpose(a, permutation):
    return P.permute(a, list(permutation))


@register_when_defined(_prim("squeeze"))
def squeeze(a, dimensions):
    return P.squeeze(a, list(dimensions))


@register_when_defined(_prim("reshape"))
def reshape(a, shape):
    return P.reshape(a, list(shape))


@register_when_defined(_prim("split_dim"))
def split_dim(a, dim, outer_length):
    return P.split_dim(a, dim, outer_length)


@register_when_defined(_prim("collapse_view"))
def collapse_view(a, start, end):
    return P.collapse(a, start, end + 1)   # torch's end is the last merged dim


@register_when_defined(_prim("collapse"))
def collapse(a, start, end):
    """collapse into a fresh contiguous tensor (eager's kernel copies whatever the layout)."""
    shape = list(a.shape[:start]) + [a.shape[start:end + 1].numel()] + list(a.shape[end + 1:])
    return P.reshape(contiguous(a), shape)


@register_when_defined(_prim("view_of"))
def view_of(a):
    return P.alias(a)


@register_when_defined(_prim("view_of_dtype"))
def view_of_dtype(a, dtype):
    return P.bitcast_convert_type(a, dtype)


@register_when_defined(_prim("rev"))
def rev(a, dims):
    return P.rev(a, list(dims))


@register_when_defined(_prim("cat"))
def cat(tensors, dim):
    return P.cat(list(tensors), dim)


@register_when_defined(_prim("where"))
def where(pred, a, b):
    a, b = _operands(a, b)
    return P.where(pred, a, b)


@register_when_defined(_prim("convert_element_type"))
def convert_element_type(a, dtype):
    return P.convert_element_type(a, dtype)


@register_when_defined(_prim("clone"))
def clone(a, *, memory_format=None):
    return aten.clone.default(a, memory_format=memory_format)


@register_when_defined(_prim("copy_strided"))
def copy_strided(a, stride):
    return P.copy_strided(a, list(stride))


@register_when_defined(_prim("device_put"))
def device_put(a, device, non_blocking=False):
    return P.device_put(a, torch.device(device))


@register_when_defined(_prim("conj"))
def conj(a):
    return aten.conj.default(a)


@register_when_defined(_prim("real"))
def real(a):
    return aten.real.default(a)   # a view of a complex tensor's real parts, as eager's


@register_when_defined(_prim("imag"))
def imag(a):
    return aten.imag.default(a)


@register_when_defined(_prim("frexp"))
def frexp(a):
    return P.frexp(a)


@register_when_defined(_prim("as_strided"))
def as_strided(a, size, stride, storage_offset):
    return aten.as_strided.default(a, size, stride, storage_offset)


@register_when_defined(_prim("as_strided_scatter"))
def as_strided_scatter(a, src, size, stride, storage_offset):
    return aten.as_strided_scatter.default(a, src, size, stride, storage_offset)


@register_when_defined(_prim("fill"))
def fill(a, value):
    return aten.fill.Scalar(a, value)


@register_when_defined(_prim("fft_r2c"))
def fft_r2c(a, *, dim, onesided):
    return aten._fft_r2c.default(a, dim, 0, onesided)   # torch's prims transform unnormalized


@register_when_defined(_prim("fft_c2c"))
def fft_c2c(a, *, dim, forward):
    return aten._fft_c2c.default(a, dim, 0, forward)


@register_when_defined(_prim("fft_c2r"))
def fft_c2r(a, *, dim, last_dim_size):
    return aten._fft_c2r.default(a, dim, 0, last_dim_size)


def _extreme(dtype, largest):
    """A dtype's largest or smallest finite value as a Python number (a complex dtype's real part's)."""
    if dtype == torch.bool:
        return largest
    info = torch.iinfo(dtype) if dtype in dt.INT else torch.finfo(dtype)
    return info.max if largest else info.min


@register_when_defined(_prim("maximum_value"))
def maximum_value(dtype):
    return _extreme(dtype, True)


@register_when_defined(_prim("minimum_value"))
def minimum_value(dtype):
    return _extreme(dtype, False)


# ----------------------------------------------------------------------------- creation

@register_when_defined(_prim("iota"))
def iota(length, *, start, step, dtype, device, requires_grad):
    return P.iota(length, start=start, step=step, dtype=dtype, device=torch.device(device))


@register_when_defined(_prim("full"))
def full(shape, fill_value, *, dtype, device, requires_grad):
    return P.full(list(shape), fill_value, dtype=dtype, device=torch.device(device))


@register_when_defined(_prim("full_like"))
def full_like(a, fill_value, *, dtype, device, requires_grad):
    return aten.full_like.default(a, fill_value, dtype=dtype, device=device)   # eager keeps a's layout


@register_when_defined(_prim("empty"))
def empty(shape, *, dtype, device, requires_grad):
    return aten.empty.memory_format(list(shape), dtype=dtype, device=device)


@register_when_defined(_prim("empty_strided"))
def empty_strided(shape, strides, *, dtype, device, requires_grad):
    return P.empty_strided(list(shape), list(strides), dtype=dtype, device=torch.device(device))


@register_when_defined(_prim("empty_permuted"))
def empty_permuted(shape, physical_layout, *, dtype, device, requires_grad):
    return P.empty_permuted(list(shape), list(physical_layout), dtype=dtype, device=torch.device(device))


@register_when_defined(_prim("scalar_tensor"))
def scalar_tensor(s, *, dtype=None, device=None):
    return P.scalar_tensor(s, dtype=dtype or torch.get_default_dtype(), device=torch.device(device or "cpu"))


@register_when_defined(_prim("svd"))
def svd(a, *, full_matrices):
    return P.svd(a, full_matrices)
