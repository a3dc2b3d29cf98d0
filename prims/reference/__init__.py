"""Reference implementations of prims that are not a single torch call.

Each returns exactly the geometry its meta rule declares: where a torch kernel's output
layout depends on the backend, the prim fixes one layout and these functions produce it.
"""
from __future__ import annotations

import builtins

import torch


def _reduce_dims(fn):
    # torch's reductions treat an empty dim list as "all dims"; a prim reduces exactly `dims`.
    def reduce(a, dims, *rest):
        if len(dims) == 0:
            return a.clone(memory_format=torch.contiguous_format)
        return fn(a, dims, *rest).contiguous()
    reduce.__name__ = fn.__name__
    return reduce


@_reduce_dims
def sum(a, dims):
    return torch.sum(a, dims, dtype=a.dtype)


@_reduce_dims
def prod(a, dims):
    out = a
    for d in sorted((d % a.dim() for d in dims), reverse=True):
        out = torch.prod(out, d, dtype=a.dtype)
    return out


@_reduce_dims
def amax(a, dims):
    return torch.amax(a, dims)


@_reduce_dims
def amin(a, dims):
    return torch.amin(a, dims)


def var(a, dims, correction):
    if len(dims) == 0:
        # Each "group" is one element: variance 0, or nan where n - correction <= 0 (as eager).
        n = 1 - correction
        out = torch.zeros_like(a, dtype=a.real.dtype if a.is_complex() else a.dtype,
                               memory_format=torch.contiguous_format)
        return out if n > 0 else out.fill_(float("nan"))
    return torch.var(a, dims, correction=correction).contiguous()


def argmax(a, dim):
    return torch.argmax(a, dim).contiguous()


def argmin(a, dim):
    return torch.argmin(a, dim).contiguous()


def _dense_copy(t):
    # Materialize a strided view (real/imag) densely in the same dim order.
    return t.clone(memory_format=torch.preserve_format)


def real(a):
    return _dense_copy(torch.real(a))


def imag(a):
    return _dense_copy(torch.imag(a))


def convert_element_type(a, dtype):
    return a.to(dtype, copy=True)


def broadcast_in_dim(a, shape, broadcast_dimensions):
    v = a
    for d in range(len(shape)):
        if d not in broadcast_dimensions:
            v = v.unsqueeze(d)
    return v.expand(shape)


def squeeze(a, dims):
    return torch.squeeze(a, tuple(dims)) if len(dims) else a.view(a.shape)


def expand_dims(a, dims):
    v = a
    for d in sorted(d % (a.dim() + len(dims)) for d in dims):
        v = v.unsqueeze(d)
    return v


def slice(a, start_indices, limit_indices, strides):
    # A step past the slice's extent takes one element: clamp it (torch's size arithmetic overflows near 2**63).
    return a[tuple(builtins.slice(s, l, builtins.min(st, builtins.max(l - s, 1)))
                   for s, l, st in zip(start_indices, limit_indices, strides))] if a.dim() else a.view(())


def pad(a, padding_value, low, high, interior):
    padding_value = _rounded(padding_value, a.dtype)
    out = a
    for d in range(a.dim()):
        n = out.shape[d]
        if interior[d] and n > 1:     # spread the elements interior[d] apart
            shape = list(out.shape)
            shape[d] = n + (n - 1) * interior[d]
            spread = torch.full(shape, padding_value, dtype=a.dtype, device=a.device)
            spread.narrow(d, 0, shape[d])[(builtins.slice(None),) * d + (builtins.slice(None, None, interior[d] + 1),)] = out
            out = spread
        parts = []
        for amount in (low[d], None, high[d]):
            if amount is None:
                parts.append(out)
            elif amount > 0:
                shape = list(out.shape)
                shape[d] = amount
                parts.append(torch.full(shape, padding_value, dtype=a.dtype, device=a.device))
        out = torch.cat(parts, d) if len(parts) > 1 else out
        start, stop = max(-low[d], 0), out.shape[d] - max(-high[d], 0)   # negative padding crops
        out = out.narrow(d, start, max(stop - start, 0))
    from primkit.prims.meta.strides import suggested_memory_format
    fmt = {"channels_last": torch.channels_last, "channels_last_3d": torch.channels_last_3d}.get(
        suggested_memory_format(tuple(a.shape), a.stride()), torch.contiguous_format)
    result = out.contiguous(memory_format=fmt)
    # pad is not a view: with nothing to pad, return a copy, never the operand's own storage.
    return result.clone(memory_format=fmt) if result.untyped_storage().data_ptr() == \
        a.untyped_storage().data_ptr() else result


def cat(tensors, dim):
    return torch.cat(tensors, dim)


def matmul(a, b):
    return torch.matmul(a, b).contiguous()


def _complex_convolution(x, weight, bias, *params):
    # aten's convolution kernels are real-only: (xr + i xi) * (wr + i wi) from four real ones.
    def conv(a, b):
        return torch.convolution(a, b, None, *params)
    out = torch.complex(conv(x.real, weight.real) - conv(x.imag, weight.imag),
                        conv(x.real, weight.imag) + conv(x.imag, weight.real))
    return out if bias is None else out + bias.view(-1, *([1] * (x.dim() - 2)))


def convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    from primkit.prims.meta.linalg import _channels_last
    conv = _complex_convolution if x.is_complex() else torch.convolution
    out = conv(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    fmt = torch.channels_last if (_channels_last(x) or _channels_last(weight)) else torch.contiguous_format
    return out.contiguous(memory_format=fmt)


def gather(a, dim, index):
    return torch.gather(a, dim, index).contiguous()


def index_select(a, dim, index):
    return torch.index_select(a, dim, index).contiguous()


def _rounded(value, dtype):
    """value in a floating or complex dtype as IEEE rounding gives it (+-inf beyond its range), which
    torch.full refuses to do for some dtypes; other dtypes take value as it is (the meta rule checked it)."""
    if isinstance(value, builtins.complex) and not dtype.is_complex:
        value = value.real      # C3: no imaginary part
    if dtype.is_floating_point or dtype.is_complex:
        wide = torch.complex128 if dtype.is_complex else torch.float64
        return torch.tensor(value, dtype=wide).to(dtype).item()
    return value


def full(shape, fill_value, *, dtype, device):
    return torch.full(shape, _rounded(fill_value, dtype), dtype=dtype, device=device)


def scalar_tensor(value, *, dtype, device):
    return torch.scalar_tensor(_rounded(value, dtype), dtype=dtype, device=device)


def iota(length, *, start, step, dtype, device):
    return torch.arange(start, start + length * step, step, dtype=dtype, device=device)[:length]


def empty_strided(shape, stride, *, dtype, device):
    return torch.empty_strided(shape, stride, dtype=dtype, device=device)


def empty_permuted(shape, physical_layout, *, dtype, device):
    return torch.empty_permuted(shape, physical_layout, dtype=dtype, device=device)


def clone(a):
    return a.clone(memory_format=torch.preserve_format)


def copy_to(dst, src):
    return dst.copy_(src)


def trunc_divide(a, b):
    return torch.div(a, b, rounding_mode="trunc")


def device_put(a, device):
    return a.to(device, copy=True)


def item(a):
    return a.item()   # a host read: the one prim that syncs with the device on purpose
