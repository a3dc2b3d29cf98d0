"""Reference implementations of the memory family: copies that keep or set a layout, device moves,
the host read of item."""
from __future__ import annotations

import torch


def clone(a):
    return a.clone(memory_format=torch.preserve_format)


def copy_to(dst, src):
    return dst.copy_(src)


def device_put(a, device):
    return a.to(device, copy=True)


def item(a):
    # a host read: the one prim that syncs with the device on purpose. Not a.item(): aten::item is
    # CompositeImplicitAutograd, so inside ``composites`` of a table holding its entry (the item prim)
    # it would run this kernel again, down to a RecursionError
    return torch.ops.aten._local_scalar_dense.default(a)


def copy_strided(a, stride):
    return torch.empty_strided(a.shape, stride, dtype=a.dtype, device=a.device).copy_(a)
