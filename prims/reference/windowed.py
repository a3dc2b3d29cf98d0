"""Reference implementations of the windowed family: pad with the reduction's identity, unfold
every dim into its windows, reduce the window elements (flattened, row-major) in one last dim."""
from __future__ import annotations

import math

import torch

from prims.meta.windowed import window_output_size


def _lowest(dtype):
    return -math.inf if dtype.is_floating_point else torch.iinfo(dtype).min


def _highest(dtype):
    return math.inf if dtype.is_floating_point else torch.iinfo(dtype).max


def _windows(a, fill, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    """(*output shape, K): the K elements of each window in row-major window order."""
    dims = list(zip(a.shape, window_dimensions, window_strides, padding_low, padding_high, window_dilation))
    out_shape = [window_output_size(*d) for d in dims]
    count = math.prod(window_dimensions)
    if 0 in out_shape:
        return a.new_empty(out_shape + [count])
    padded = torch.full([n + lo + hi for n, _, _, lo, hi, _ in dims], fill, dtype=a.dtype, device=a.device)
    padded[tuple(slice(lo, lo + n) for n, _, _, lo, _, _ in dims)] = a
    w = padded
    for d, (_, size, stride, _, _, dilation) in enumerate(dims):
        # unfold appends the window dim last; keep every dilation-th element of the dilated extent
        w = w.unfold(d, (size - 1) * dilation + 1, stride)[..., ::dilation]
    return w.reshape(out_shape + [count])


def _reducer(identity, reduce):
    def fn(a, *window_args):
        return reduce(_windows(a, identity(a.dtype), *window_args)).contiguous()
    return fn


reduce_window_max = _reducer(_lowest, lambda w: torch.amax(w, -1))
reduce_window_min = _reducer(_highest, lambda w: torch.amin(w, -1))
reduce_window_sum = _reducer(lambda dtype: 0, lambda w: torch.sum(w, -1, dtype=w.dtype))
reduce_window_prod = _reducer(lambda dtype: 1, lambda w: torch.prod(w, -1, dtype=w.dtype))


def argmax_window(a, *window_args):
    values = _windows(a, _lowest(a.dtype), *window_args)
    # The flat position of each element of a; -1 marks padding.
    positions = _windows(torch.arange(a.numel(), device=a.device).reshape(a.shape), -1, *window_args)
    valid = positions >= 0
    nan = valid & values.isnan() if a.dtype.is_floating_point else torch.zeros_like(valid)
    best = torch.amax(torch.where(valid & ~nan, values, _lowest(a.dtype)), -1, keepdim=True)
    # argmax of a bool-as-int tensor is its first True: eager's max-pool keeps the first maximum
    first_max = torch.argmax((valid & ~nan & (values == best)).to(torch.uint8), -1, keepdim=True)
    last_nan = nan.shape[-1] - 1 - torch.argmax(nan.flip(-1).to(torch.uint8), -1, keepdim=True)
    k = torch.where(nan.any(-1, keepdim=True), last_nan, first_max)
    index = torch.gather(positions, -1, k).squeeze(-1)
    return torch.where(valid.any(-1), index, -1).contiguous()
