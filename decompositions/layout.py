"""The decompositions' layout helpers: eager's output layouts (preserve_format, suggest_memory_format,
explicit memory formats) and a tensor laid out so (``in_layout``, ``contiguous``), by a copy only where its
layout differs. The strides themselves are computed by prims/layout.py."""
from __future__ import annotations

import torch

from primkit.decompositions.common import P
from primkit.prims.layout import channels_last_strides, contiguous_strides, elementwise_strides, itemsize, surely


def suggests_channels_last(a) -> bool:
    """Eager's suggest_memory_format: 4-d (5-d) strides ordered C, W, H, (D), N, fastest first."""
    n = a.dim()
    if n not in (4, 5) or a.stride()[1] == 0:
        return False
    shape, strides, lowest = a.shape, a.stride(), 0
    for d in [1] + list(range(n - 1, 1, -1)) + [0]:
        if shape[d] == 0 or strides[d] < lowest:
            return False
        if d == 0 and lowest == strides[1]:   # (N, 1, H, W) reads as contiguous
            return False
        lowest = strides[d] * shape[d] if shape[d] > 1 else strides[d]
    return True


def strides_for(shape, memory_format, op="clone"):
    """Dense strides of an explicit memory format."""
    if memory_format == torch.contiguous_format:
        return contiguous_strides(shape)
    if memory_format in (torch.channels_last, torch.channels_last_3d):
        rank = 4 if memory_format == torch.channels_last else 5
        if len(shape) != rank:
            raise RuntimeError(f"{op}: required rank {rank} tensor to use {str(memory_format)[6:]} format")
        return channels_last_strides(shape)
    raise RuntimeError(f"{op}: unsupported memory_format {memory_format}")


def preserved_strides(a) -> tuple:
    """Eager's preserve_format for a new tensor like a: a's strides if dense, else dense in a's dim order."""
    return elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))])


def suggested_strides(a, shape) -> tuple:
    """Channels-last when a suggests it (eager's suggest_memory_format), else contiguous."""
    return channels_last_strides(shape) if suggests_channels_last(a) and len(shape) == a.dim() \
        else contiguous_strides(shape)


def _same_layout(shape, s1, s2) -> bool:
    if any(surely(n == 0) for n in shape):
        return True
    return all(surely(n == 1) or surely(x == y) for n, x, y in zip(shape, s1, s2))


def in_layout(t, strides):
    """t itself when its layout already is ``strides``, else a copy laid out so."""
    if _same_layout(t.shape, t.stride(), strides):
        return t
    return P.copy_strided(t, list(strides))


def contiguous(t):
    """t laid out contiguously (t itself when it already is)."""
    return in_layout(t, contiguous_strides(t.shape))
