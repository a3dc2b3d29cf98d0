"""Backward of max, average, adaptive and fractional pooling.
"""
from __future__ import annotations

import itertools

from primkit.decompositions.common import P, like, register_with_variants, to_dtype, upcast
from primkit.decompositions.nn.common import dense_in_order, is_channels_last_4d, per_dim
from primkit.decompositions.nn.pooling import adaptive_bins, pool_geometry, pool_windows
from primkit.decompositions.layout import contiguous, in_layout
from primkit.prims.layout import numel


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
    plane, out_plane = numel(a.shape[a.dim() - n:]), numel(grad_output.shape[a.dim() - n:])
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
