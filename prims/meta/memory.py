"""Meta rules of the memory family: copies that keep or set a layout."""
from __future__ import annotations

from prims import dtypes as dt
from prims.errors import check
from prims.meta import TensorMeta, meta_rule
from prims.meta.common import check_same_device, shape_str
from prims.meta.strides import elementwise_strides, itemsize


@meta_rule("clone", constraints=())
def clone(prim, a):
    return TensorMeta(tuple(a.shape), elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))]),
                      a.dtype, a.device)


@meta_rule("copy_to", constraints=("C1", "C2", "C3"))
def copy_to(prim, dst, src):
    check(tuple(dst.shape) == tuple(src.shape), prim, "C1", lambda: f"src has shape {shape_str(src.shape)} but "
          f"dst has shape {shape_str(dst.shape)}")
    check(dst.dtype == src.dtype, prim, "C2", lambda: f"src has dtype {dt.short(src.dtype)} but dst has dtype "
          f"{dt.short(dst.dtype)}; convert first")
    check_same_device(prim, "C3", [dst, src])
    return dst


@meta_rule("device_put", constraints=())
def device_put(prim, a, device):
    import torch
    return TensorMeta(tuple(a.shape), elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))]),
                      a.dtype, torch.device(device))
