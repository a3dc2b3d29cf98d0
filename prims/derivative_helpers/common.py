"""What the helper modules share: the prims as callables, and tensors full of one value."""
from __future__ import annotations

import torch


def prim_ops():
    """torch.ops.primkit: helpers call prims, so a backward made of helpers is a prim graph."""
    return torch.ops.primkit


def full(shape, value, like, dtype=None):
    """A tensor of ``shape`` full of ``value``, with like's dtype (or ``dtype``) and device."""
    return prim_ops().full(list(shape), value, dtype=dtype or like.dtype, device=like.device)


def full_like(x, value):
    """A tensor shaped like x full of ``value``."""
    return full(x.shape, value, x)
