"""Helpers the nn decompositions share: element counts, keepdim broadcasts, layouts (channels-last,
dense in a given order), dtype checks and int64 index tensors.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, like
from primkit.decompositions.layout import contiguous
from primkit.prims import dtypes as dt
from primkit.prims.layout import channels_last_strides, contiguous_strides, is_channels_last, is_contiguous, surely


def keep_expanded(reduced, dims, like):
    """A reduction's result broadcast back over the reduced dims of ``like`` (keepdim + expand)."""
    kept = [d for d in range(like.dim()) if d not in dims]
    return P.broadcast_in_dim(reduced, list(like.shape), kept)


def contiguous_unless_channels_last(t):
    """Eager's norm kernels allocate their output channels-last for a channels-last input, else contiguous."""
    return t if is_channels_last_4d(t) else contiguous(t)


def dense_in_order(t, perm):
    """t with the strides of a contiguous tensor of permute(t, perm) (eager's transposed buffers)."""
    inverse = [perm.index(d) for d in range(len(perm))]
    return P.permute(contiguous(P.permute(t, perm)), inverse)


def is_channels_last_4d(t):
    return t.dim() == 4 and is_channels_last(t.shape, t.stride()) and not is_contiguous(t.shape, t.stride())


def is_channels_last_nd(t):
    """t (4-D or 5-D) laid out channels-last and not also contiguous: eager's suggest_memory_format."""
    if t.dim() not in (4, 5) or surely(t.numel() == 0):
        return False
    # decided where known (``surely``): a size read from data (a batch of selected rows) is no guard, and takes
    # the general path (not size 1, not empty)
    shape, strides = t.shape, t.stride()
    laid_out = lambda expected: all(surely(n == 1) or surely(s == e)   # noqa: E731
                                    for n, s, e in zip(shape, strides, expected, strict=True))
    return laid_out(channels_last_strides(shape)) and not laid_out(contiguous_strides(shape))


def check_floating(name, t):
    if t.dtype not in dt.FLOAT:
        raise RuntimeError(f"{name}: expected a floating-point input, got {dt.short(t.dtype)}")


def per_dim(name, value, n):
    """An int or list argument as n ints (eager repeats a single value for every spatial dim)."""
    values = [value] if isinstance(value, int) else list(value)
    if len(values) == 1 and n > 1:
        values = values * n
    if len(values) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={values}")
    return values


def working_layout(a, n):
    """(x, spatial dims of x, restore): NHWC for a channels-last input, else a itself."""
    if n == 2 and is_channels_last_4d(a):
        return P.permute(a, [0, 2, 3, 1]), [1, 2], lambda t: P.permute(t, [0, 3, 1, 2])
    return a, list(range(a.dim() - n, a.dim())), lambda t: t


def i64(value, shape, device):
    return P.broadcast_in_dim(P.scalar_tensor(value, dtype=torch.int64, device=device), list(shape), [])
