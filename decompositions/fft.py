"""Decompositions of torch.fft: the ATen kernels _fft_c2c / _fft_r2c / _fft_c2r and the public
transforms (fft, ifft, rfft, irfft, hfft, ihfft and their 2-d and n-d forms), fftfreq,
rfftfreq, fftshift and ifftshift.

Every transform is one fft prim on the operand resized (trimmed or zero-padded) to the signal
size: n (1-d) or s (n-d). ``norm`` picks the prim's scaling per direction: "backward" scales
the inverse by 1/n, "forward" the forward one, "ortho" both by 1/sqrt(n). hfft is the c2r
transform of the conjugate (a forward transform of a Hermitian signal); ihfft the conjugate
of r2c (an inverse transform of a real one).
"""
from __future__ import annotations

import torch

from decompositions.common import P, aten, register_with_variants, to_dtype, write_into
from decompositions.reductions import register_overloads, wrap_dim
from decompositions.registry import register
from decompositions.shape import in_layout
from prims import dtypes as dt

NORMALIZATION = {  # norm -> (prim normalization of the forward transform, of the inverse)
    None: (0, 2), "backward": (0, 2), "ortho": (1, 1), "forward": (2, 0),
}


def _normalization(norm, forward):
    if norm not in NORMALIZATION:
        raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")
    return NORMALIZATION[norm][0 if forward else 1]


def _real_dtype(name, a):
    """Real operands compute in their floating dtype (integers in the default one)."""
    if a.dtype in dt.COMPLEX:
        raise RuntimeError(f"{name} expects a real input tensor, but got {dt.short(a.dtype)}")
    dtype = a.dtype if a.dtype in dt.FLOAT else torch.get_default_dtype()
    if dtype not in (torch.float32, torch.float64):
        raise RuntimeError(f"{name}: Unsupported dtype {dt.short(dtype)}")
    return to_dtype(a, dtype)


def _complex(name, a):
    return a if a.dtype in dt.COMPLEX else to_dtype(_real_dtype(name, a), dt.to_complex(_real_dtype(name, a).dtype))


def _resize(a, dims, sizes):
    """a trimmed or zero-padded at the end of each dim to its size."""
    for d, n in zip(dims, sizes):
        have = a.shape[d]
        if n < have:
            limit = list(a.shape)
            limit[d] = n
            a = P.slice(a, [0] * a.dim(), limit, [1] * a.dim())
        elif n > have:
            high = [0] * a.dim()
            high[d] = n - have
            a = P.pad(a, 0, [0] * a.dim(), high, [0] * a.dim())
    return a


def _check_size(name, n, what="Invalid number of data points"):
    if n < 1:
        raise RuntimeError(f"{name}: {what} ({n}) specified")


# --- the ATen kernels -----------------------------------------------------------------------

def _kernel_layout(out, a, dims, *, reorder=False):
    """Eager's CPU kernels lay the output out dense with the batch dims outermost (ordered by
    a's strides, largest first) and the transformed dims innermost: in the order given, or for
    c2c (``reorder``, where the order is free) also by a's strides."""
    dims = [d % a.dim() for d in dims]
    by_stride = lambda ds: sorted(ds, key=lambda d: -a.stride(d))   # noqa: E731
    batch = by_stride(d for d in range(a.dim()) if d not in dims)
    order = batch + (by_stride(dims) if reorder else dims)
    strides, step = [0] * a.dim(), 1
    for d in reversed(order):
        strides[d] = step
        step *= max(out.shape[d], 1)
    return in_layout(out, strides)


def _fft_c2c(a, dim, normalization, forward):
    return _kernel_layout(P.fft_c2c(a, list(dim), forward, normalization), a, dim, reorder=True)


def _fft_r2c(a, dim, normalization, onesided):
    return _kernel_layout(P.fft_r2c(a, list(dim), onesided, normalization), a, dim)


def _fft_c2r(a, dim, normalization, last_dim_size):
    return _kernel_layout(P.fft_c2r(a, list(dim), last_dim_size, normalization), a, dim)


register_with_variants("_fft_c2c", _fft_c2c)
register_with_variants("_fft_r2c", _fft_r2c)
register_with_variants("_fft_c2r", _fft_c2r)


# --- signal sizes ---------------------------------------------------------------------------

def _dims_and_sizes(name, a, s, dim, *, default_all=True):
    """(dims, sizes) of an n-d transform: dim=None takes the last len(s) dims (every dim without
    s); s=None (or -1 entries) keeps the operand's sizes."""
    if dim is None:
        dims = list(range(a.dim())) if s is None else list(range(a.dim() - len(s), a.dim()))
        if s is not None and len(s) > a.dim():
            raise RuntimeError(f"{name}: Got shape with {len(s)} values but input tensor only has {a.dim()} "
                               f"dimensions.")
    else:
        dims = [wrap_dim(d, a.dim()) for d in (dim if isinstance(dim, (list, tuple)) else [dim])]
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"{name}: FFT dims must be unique")
        if s is not None and len(s) != len(dims):
            raise RuntimeError(f"{name}: When given, dim and shape arguments must have the same length")
    sizes = [a.shape[d] for d in dims] if s is None else [a.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    for n in sizes:
        _check_size(name, n)
    return dims, sizes


# --- complex-to-complex -----------------------------------------------------------------------

def _c2c(name, forward):
    def fftn(a, s=None, dim=None, norm=None):
        dims, sizes = _dims_and_sizes(name, a, s, dim)
        if not dims:
            return _complex(name, a)
        x = _resize(a, dims, sizes)
        mode = _normalization(norm, forward)
        if x.dtype in dt.COMPLEX:
            return P.fft_c2c(x, dims, forward, mode)
        x = _real_dtype(name, x)
        if forward:
            return P.fft_r2c(x, dims, False, mode)
        return P.conj_physical(P.fft_r2c(x, dims, False, mode))   # inverse of real x = conj(forward)
    fftn.__name__ = fftn.__qualname__ = name
    return fftn


def _r2c(name, forward):
    """rfft (forward) and ihfft (inverse: the conjugate of the forward transform)."""
    def rfftn(a, s=None, dim=None, norm=None):
        x = _real_dtype(name, a)
        dims, sizes = _dims_and_sizes(name, x, s, dim)
        if not dims:
            raise RuntimeError(f"{name} must transform at least one axis")
        out = P.fft_r2c(_resize(x, dims, sizes), dims, True, _normalization(norm, forward))
        return out if forward else P.conj_physical(out)
    rfftn.__name__ = rfftn.__qualname__ = name
    return rfftn


def _c2r(name, forward):
    """irfft (inverse) and hfft (forward: the c2r transform of the conjugate)."""
    def irfftn(a, s=None, dim=None, norm=None):
        x = _complex(name, a)
        dims, sizes = _dims_and_sizes(name, x, s, dim)
        if not dims:
            raise RuntimeError(f"{name} must transform at least one axis")
        last = sizes[-1] if s is not None and s[-1] != -1 else 2 * (x.shape[dims[-1]] - 1)
        _check_size(name, last)
        x = _resize(x, dims, sizes[:-1] + [last // 2 + 1])
        if forward:
            x = P.conj_physical(x)
        return P.fft_c2r(x, dims, last, _normalization(norm, forward))
    irfftn.__name__ = irfftn.__qualname__ = name
    return irfftn


def _as_1d(fn):
    def one(a, n=None, dim=-1, norm=None):
        return fn(a, None if n is None else [n], [dim], norm)
    one.__name__ = one.__qualname__ = fn.__name__ + "_1d"
    return one


def _as_2d(fn):
    def two(a, s=None, dim=(-2, -1), norm=None):
        return fn(a, s, dim, norm)
    two.__name__ = two.__qualname__ = fn.__name__ + "_2d"
    return two


FAMILIES = {  # public name -> (factory, forward)
    "fft": (_c2c, True), "ifft": (_c2c, False), "rfft": (_r2c, True), "ihfft": (_r2c, False),
    "irfft": (_c2r, False), "hfft": (_c2r, True),
}
for _base, (_factory, _forward) in FAMILIES.items():
    _n = _factory(f"{_base}n", _forward)
    register_with_variants(f"fft_{_base}n", _n)
    register_with_variants(f"fft_{_base}2", _as_2d(_n))
    register_with_variants(f"fft_{_base}", _as_1d(_n))


# --- frequencies and shifts -------------------------------------------------------------------

def _freq(name, onesided):
    def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, pin_memory=None):
        dtype = dtype or torch.get_default_dtype()
        if dtype not in dt.FLOAT:
            raise RuntimeError(f"{name}: expected a floating dtype, got {dt.short(dtype)}")
        k = torch.arange(n // 2 + 1 if onesided else n, dtype=dtype, device=device)
        if not onesided and n > 1:
            # the upper half counts up from -(n // 2)
            k = torch.cat([k[:(n + 1) // 2], torch.arange(-(n // 2), 0, dtype=dtype, device=device)])
        return torch.mul(k, 1.0 / (n * d))
    fftfreq.__name__ = fftfreq.__qualname__ = name
    return fftfreq


def _freq_out(fn, name):
    def out_variant(n, d=1.0, *, out):
        return write_into(out, fn(n, d, dtype=out.dtype, device=out.device), name)
    out_variant.__qualname__ = f"{name}[out]"
    return out_variant


for _name, _onesided in (("fft_fftfreq", False), ("fft_rfftfreq", True)):
    _fn = _freq(_name, _onesided)
    register_overloads(_fn, _name, ("default",))
    register(getattr(aten, _name).out)(_freq_out(_fn, f"aten::{_name}.out"))


def _shift(name, inverse):
    def shift(a, dim=None):
        dims = list(range(a.dim())) if dim is None else \
            [wrap_dim(d, a.dim()) for d in (dim if isinstance(dim, (list, tuple)) else [dim])]
        if not dims:
            return P.clone(a)
        shifts = [(a.shape[d] + 1) // 2 if inverse else a.shape[d] // 2 for d in dims]
        return P.roll(a, shifts, dims)
    shift.__name__ = shift.__qualname__ = name
    return shift


register_overloads(_shift("fft_fftshift", False), "fft_fftshift", ("default",))
register_overloads(_shift("fft_ifftshift", True), "fft_ifftshift", ("default",))
