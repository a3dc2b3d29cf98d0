"""Decompositions of torch.fft: the ATen kernels _fft_c2c / _fft_r2c / _fft_c2r and the public
transforms (fft, ifft, rfft, irfft, hfft, ihfft and their 2-d and n-d forms), fftfreq,
rfftfreq, fftshift and ifftshift, the short-time transforms stft and istft, and the window
functions they take (hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window).

Every transform is one fft prim on the operand resized (trimmed or zero-padded) to the signal
size: n (1-d) or s (n-d). ``norm`` picks the prim's scaling per direction: "backward" scales
the inverse by 1/n, "forward" the forward one, "ortho" both by 1/sqrt(n). hfft is the c2r
transform of the conjugate (a forward transform of a Hermitian signal); ihfft the conjugate
of r2c (an inverse transform of a real one).
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, contiguous_out, like, prepare, register_out, register_overloads, register_with_variants, to_dtype,
    wrap_dim)
from primkit.decompositions.registry import register
from primkit.decompositions.layout import in_layout
from primkit.decompositions.type_promotion import computation_dtype
from primkit.prims import dtypes as dt


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

def _c2c(name, forward, one_d):
    """fft and ifft. Eager's 1-d transform of a real signal is the two-sided r2c transform (the
    inverse its conjugate); its n-d transforms make the signal complex and run c2c."""
    def fftn(a, s=None, dim=None, norm=None):
        dims, sizes = _dims_and_sizes(name, a, s, dim)
        if not dims:
            return _complex(name, a)
        mode = _normalization(norm, forward)
        if a.dtype in dt.COMPLEX or not one_d:
            x = _resize(_complex(name, a), dims, sizes)
            return _kernel_layout(P.fft_c2c(x, dims, forward, mode), x, dims, reorder=True)
        x = _resize(_real_dtype(name, a), dims, sizes)
        out = _kernel_layout(P.fft_r2c(x, dims, False, mode), x, dims)
        return out if forward else P.conj_physical(out)   # inverse of real x = conj(forward)
    fftn.__name__ = fftn.__qualname__ = name
    return fftn


def _r2c(name, forward, one_d):
    """rfft (forward) and ihfft (inverse: the conjugate of the forward transform; eager's n-d ihfft
    transforms the last dim r2c and the others by an inverse c2c of its conjugate)."""
    def rfftn(a, s=None, dim=None, norm=None):
        x = _real_dtype(name, a)
        dims, sizes = _dims_and_sizes(name, x, s, dim)
        if not dims:
            raise RuntimeError(f"{name} must transform at least one axis")
        x = _resize(x, dims, sizes)
        mode = _normalization(norm, forward)
        if forward:
            return _kernel_layout(P.fft_r2c(x, dims, True, mode), x, dims)
        out = P.conj_physical(_kernel_layout(P.fft_r2c(x, dims[-1:], True, mode), x, dims[-1:]))
        if len(dims) == 1:
            return out
        return _kernel_layout(P.fft_c2c(out, dims[:-1], False, mode), out, dims[:-1], reorder=True)
    rfftn.__name__ = rfftn.__qualname__ = name
    return rfftn


def _c2r(name, forward, one_d):
    """irfft (inverse) and hfft (forward: the c2r transform of the conjugate; eager's n-d hfft
    first transforms every dim but the last by a forward c2c)."""
    def irfftn(a, s=None, dim=None, norm=None):
        x = _complex(name, a)
        dims, sizes = _dims_and_sizes(name, x, s, dim)
        if not dims:
            raise RuntimeError(f"{name} must transform at least one axis")
        last = sizes[-1] if s is not None and s[-1] != -1 else 2 * (x.shape[dims[-1]] - 1)
        _check_size(name, last)
        x = _resize(x, dims, sizes[:-1] + [last // 2 + 1])
        mode = _normalization(norm, forward)
        if forward:
            if len(dims) > 1:
                x = _kernel_layout(P.fft_c2c(x, dims[:-1], True, mode), x, dims[:-1], reorder=True)
            x, dims = P.conj_physical(x), dims[-1:]
        return _kernel_layout(P.fft_c2r(x, dims, last, mode), x, dims)
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
    _n = _factory(f"{_base}n", _forward, one_d=False)
    # eager's out= forms resize out contiguous, then copy the transform into it
    register_with_variants(f"fft_{_base}n", _n, contiguous_out)
    register_with_variants(f"fft_{_base}2", _as_2d(_n), contiguous_out)
    register_with_variants(f"fft_{_base}", _as_1d(_factory(_base, _forward, one_d=True)), contiguous_out)


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


for _name, _onesided in (("fft_fftfreq", False), ("fft_rfftfreq", True)):
    _fn = _freq(_name, _onesided)
    register_overloads(_fn, _name, ("default",))
    register_out(getattr(aten, _name).out, _fn, factory=True)


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


# --- short-time transforms ------------------------------------------------------------------

def _centered_window(window, win_length, n_fft, dtype, device):
    """The window (ones without one) zero-padded on both sides to n_fft, centred as eager's."""
    if window is None:
        window = aten.ones.default([win_length], dtype=dtype, device=device)
    left = (n_fft - win_length) // 2
    return window if win_length == n_fft else aten.constant_pad_nd.default(window, [left, n_fft - win_length - left])


def _stft(a, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex,
          align_to_window):
    """Eager's stft: the (padded) signal cut into frames hop_length apart, each multiplied by the
    window and transformed along its n_fft samples; (batch, frequency, frame)."""
    what = f"stft(n_fft={n_fft}, hop_length={hop_length}, win_length={win_length})"
    if window is not None and window.device != a.device:
        raise RuntimeError(f"stft input and window must be on the same device but got self on {a.device} and window "
                           f"on {window.device}")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false.")
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if return_complex is None:
        if not (a.is_complex() or (window is not None and window.is_complex())):
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                               "require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if a.dtype not in dt.FLOAT and a.dtype not in dt.COMPLEX:
        raise NotImplementedError(f"{what}: expected a tensor of floating point or complex values")
    if a.dim() not in (1, 2):
        raise RuntimeError(f"{what}: expected a 1D or 2D tensor")
    x = aten.unsqueeze.default(a, 0) if a.dim() == 1 else a
    if center:   # pad the signal by n_fft // 2 at both ends, as a 3-d (1, batch, length) input of pad
        pad = n_fft // 2
        x = aten.squeeze.dim(aten.pad.default(aten.unsqueeze.default(x, 0), [pad, pad], pad_mode), 0)
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"{what}: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop_length <= 0:
        raise RuntimeError(f"{what}: expected hop_length > 0, but got hop_length={hop_length}")
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError(f"{what}: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(f"{what}: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    if window is not None or win_length < n_fft:
        window = _centered_window(window, win_length, n_fft, a.dtype, a.device)
    if not center and align_to_window:   # frames start where the window starts
        frames = 1 + (length - win_length) // hop_length
        side = (n_fft - win_length) // 2
        x = aten.pad.default(x, [side, side], pad_mode)
    else:
        frames = 1 + (length - n_fft) // hop_length
    x = aten.unfold.default(x, 1, n_fft, hop_length)   # (batch, frame, n_fft)
    if x.shape[1] < frames:
        raise RuntimeError(f"{what}: the window-aligned frames would read past the padded signal")
    x = aten.slice.Tensor(x, 1, 0, frames)
    if window is not None:
        x = aten.mul.Tensor(x, window)
    normalization = 1 if normalized else 0   # by 1/sqrt(n_fft), or none
    if x.is_complex():
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = aten._fft_c2c.default(x, [2], normalization, True)
    else:
        out = aten._fft_r2c.default(x, [2], normalization, True if onesided is None else onesided)
    out = aten.transpose.int(out, 1, 2)
    if a.dim() == 1:
        out = aten.squeeze.dim(out, 0)
    return out if return_complex else aten.view_as_real.default(out)


@register(aten.stft.default)
def stft(a, n_fft, hop_length=None, win_length=None, window=None, normalized=False, onesided=None,
         return_complex=None, align_to_window=None):
    return _stft(a, n_fft, hop_length, win_length, window, False, "constant", normalized, onesided, return_complex,
                 align_to_window)


@register(aten.stft.center)
def stft_center(a, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
                normalized=False, onesided=None, return_complex=None, align_to_window=None):
    return _stft(a, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex,
                 align_to_window)


def _overlap_add(frames, length, hop_length):
    """(channel, frame, n) frames summed into (channel, length) signals, frame f starting at
    f * hop_length (eager's unfold_backward along the signal)."""
    channels, count, n = frames.shape
    start = P.broadcast_in_dim(P.iota(count, start=0, step=hop_length, dtype=torch.int64, device=frames.device),
                               [count, n], [0])
    offset = P.broadcast_in_dim(P.iota(n, start=0, step=1, dtype=torch.int64, device=frames.device), [count, n], [1])
    index = P.broadcast_in_dim(P.reshape(P.add(start, offset), [count * n]), [channels, count * n], [1])
    zeros = P.full([channels, length], 0, dtype=frames.dtype, device=frames.device)
    return P.scatter_add(zeros, 1, index, P.reshape(aten.contiguous.default(frames), [channels, count * n]))


@register(aten.istft.default)
def istft(a, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=None,
          length=None, return_complex=False):
    """Eager's istft: each frame's inverse transform, windowed and overlap-added, divided by the
    overlap-added squared window. Eager refuses a window whose envelope nearly vanishes (a check
    of values, |envelope| < 1e-11); the decomposition cannot read values, and divides anyway."""
    what = f"istft(n_fft={n_fft}, hop_length={hop_length}, win_length={win_length})"
    if window is not None and window.device != a.device:
        raise RuntimeError(f"istft input and window must be on the same device but got self on {a.device} and window "
                           f"on {window.device}")
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not a.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    if a.numel() == 0:
        raise RuntimeError(f"{what}: input tensor cannot be empty.")
    if a.dim() not in (2, 3):
        raise RuntimeError(f"{what}: expected a tensor with 3 or 4 dimensions, but got {a.dim() + 1}")
    frames, fft_size = a.shape[-1], a.shape[-2]
    onesided = fft_size != n_fft if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(f"{what}: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not onesided and n_fft != fft_size:
        raise RuntimeError(f"{what}: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop_length <= win_length:
        raise RuntimeError(f"{what}: expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{what}: expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(f"{what}: Invalid window shape. window has to be 1D and length of `win_length`")
    window = _centered_window(window, win_length, n_fft, dt.to_real(a.dtype), a.device)
    x = aten.transpose.int(aten.unsqueeze.default(a, 0) if a.dim() == 2 else a, 1, 2)   # (channel, frame, freq)
    normalization = 1 if normalized else 2   # by 1/sqrt(n_fft), or 1/n_fft
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        x = aten._fft_c2c.default(x, [2], normalization, False)
    else:
        if window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            x = aten.slice.Tensor(x, -1, 0, n_fft // 2 + 1)
        x = aten._fft_c2r.default(x, [2], normalization, n_fft)
    expected = n_fft + hop_length * (frames - 1)
    y = _overlap_add(aten.mul.Tensor(x, aten.view.default(window, [1, 1, n_fft])), expected, hop_length)
    squared = aten.expand.default(aten.pow.Tensor_Scalar(window, 2), [1, frames, n_fft])
    envelope = _overlap_add(squared, expected, hop_length)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (-(n_fft // 2) if center else expected)
    y = aten.div.Tensor(aten.slice.Tensor(y, 1, start, end), aten.slice.Tensor(envelope, 1, start, end))
    if a.dim() == 2:
        y = aten.squeeze.dim(y, 0)
    if end > expected:   # a length beyond the frames: zeros
        y = aten.constant_pad_nd.default(y, [0, end - expected])
    return y


# ----------------------------------------------------------------------------- window functions


def _window_args(name, window_length, dtype, device):
    dtype = dtype or torch.get_default_dtype()
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if dtype not in dt.FLOAT:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    return dtype, torch.device(device or "cpu")


def _window(name, formula):
    """A window from formula(n (arange of length N in dtype), N, step rounding fn), with eager's
    handling of periodic (N + 1 then drop the last), N == 0 (empty) and N == 1 (ones)."""
    def fn(window_length, periodic=True, *params, dtype=None, layout=None, device=None, pin_memory=None):
        dtype, device = _window_args(name, window_length, dtype, device)
        if window_length == 0:
            return P.full([0], 0, dtype=dtype, device=device)
        if window_length == 1:
            return P.full([1], 1, dtype=dtype, device=device)
        length = window_length + 1 if periodic else window_length
        n = P.iota(length, start=0, step=1, dtype=torch.int64, device=device)
        w = formula(P.convert_element_type(n, dtype), length, dtype, *params)
        if periodic:
            w = P.slice(w, [0], [window_length], [1])
        return w
    fn.__name__ = fn.__qualname__ = name
    return fn


def _step(dtype):
    """Eager computes windows as a chain of in-place ops, each rounded to dtype."""
    compute = computation_dtype(dtype)

    def op(prim, t, v):
        x = to_dtype(t, compute)
        # eager's scalar operand is first rounded to dtype
        return to_dtype(prim(x, prepare(v, compute, x.shape, x.device, common=dtype)), dtype)
    return op


def _hamming(n, N, dtype, alpha=0.54, beta=0.46):
    s = _step(dtype)
    w = s(P.mul, n, 2.0 * math.pi / (N - 1))
    w = to_dtype(P.cos(to_dtype(w, computation_dtype(dtype))), dtype)
    return s(P.add, s(P.mul, w, -beta), alpha)


def _bartlett(n, N, dtype):
    s = _step(dtype)
    w = s(P.mul, n, 2.0 / (N - 1))
    half = ((N - 1) >> 1) + 1
    second = s(P.add, s(P.mul, P.slice(w, [half], [N], [1]), -1), 2)
    return P.cat([P.slice(w, [0], [half], [1]), second], 0)


def _blackman(n, N, dtype):
    s = _step(dtype)
    compute = computation_dtype(dtype)
    w = s(P.mul, n, math.pi / (N - 1))
    cos = lambda t: to_dtype(P.cos(to_dtype(t, compute)), dtype)   # noqa: E731
    first = s(P.mul, cos(s(P.mul, w, 4)), 0.08)
    second = s(P.mul, cos(s(P.mul, w, 2)), 0.5)
    return s(P.add, s(P.sub, first, second), 0.42)


def _kaiser(n, N, dtype, beta=12.0):
    compute = computation_dtype(dtype)
    x = to_dtype(n, compute)
    c = lambda v: like(x, v)   # noqa: E731
    alpha = (N - 1) / 2.0
    r = P.div(P.sub(x, c(alpha)), c(alpha))
    arg = P.mul(c(beta), P.sqrt(P.abs(P.sub(c(1.0), P.mul(r, r)))))
    return to_dtype(P.div(P.i0(arg), P.i0(c(beta))), dtype)


WINDOWS = {
    "hann_window": lambda n, N, dtype: _hamming(n, N, dtype, 0.5, 0.5),
    "hamming_window": _hamming,
    "bartlett_window": _bartlett,
    "blackman_window": _blackman,
    "kaiser_window": _kaiser,
}


def _register_window(name, formula):
    base = _window(name, formula)
    packet = getattr(aten, name)
    for overload in packet.overloads():
        op = getattr(packet, overload)
        if overload.endswith("out"):
            register_out(op, base, name, factory=True)
        else:
            register(op)(base)


for _name, _formula in WINDOWS.items():
    _register_window(_name, _formula)
