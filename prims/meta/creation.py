"""Meta rules of the creation family: new contiguous tensors (or explicitly strided ones)."""
from __future__ import annotations

import torch

from primkit.prims.errors import check
from primkit.prims.meta.rules import TensorMeta, meta_rule
from primkit.prims.meta.common import check_fits, fits, shape_str
from primkit.prims.layout import contiguous_strides, strides_from_perm


@meta_rule("full", constraints=("C1", "C2", "C3"))
def full(prim, shape, fill_value, dtype, device):
    check(all(s >= 0 for s in shape), prim, "C1", lambda: f"shape {shape_str(shape)} has a negative size")
    check(dtype in prim.dtypes, prim, "C2", lambda: f"dtype {dtype} is not supported")
    check_fits(prim, "C3", "fill_value", fill_value, dtype)
    return TensorMeta(tuple(shape), contiguous_strides(shape), dtype, torch.device(device))


@meta_rule("scalar_tensor", constraints=("C1", "C2"))
def scalar_tensor(prim, value, dtype, device):
    check(dtype in prim.dtypes, prim, "C1", lambda: f"dtype {dtype} is not supported")
    check_fits(prim, "C2", "value", value, dtype)
    return TensorMeta((), (), dtype, torch.device(device))


@meta_rule("iota", constraints=("C1", "C2", "C3", "C4"))
def iota(prim, length, start, step, dtype, device):
    check(length >= 0, prim, "C1", lambda: f"length {length} must be >= 0")
    check(dtype in prim.dtypes, prim, "C2", lambda: f"dtype {dtype} is not supported")
    check(step != 0, prim, "C3", "step must be non-zero")
    if all(type(v) is int for v in (length, start, step)) and length > 0:
        last, bound = start + (length - 1) * step, start + length * step
        check(fits(start, dtype) and fits(last, dtype) and fits(bound, torch.int64), prim, "C4",
              lambda: f"values {start} .. {last} (bound {bound}) do not fit {dtype} and int64")
    return TensorMeta((length,), (1,), dtype, torch.device(device))


@meta_rule("empty_strided", constraints=("C1", "C2"))
def empty_strided(prim, shape, stride, dtype, device):
    check(len(shape) == len(stride) and all(s >= 0 for s in shape) and all(s >= 0 for s in stride), prim, "C1",
          lambda: f"shape {shape_str(shape)} and stride {shape_str(stride)} must have equal length, entries >= 0")
    check(dtype in prim.dtypes, prim, "C2", lambda: f"dtype {dtype} is not supported")
    return TensorMeta(tuple(shape), tuple(stride), dtype, torch.device(device))




@meta_rule("empty_permuted", constraints=("C1", "C2", "C3"))
def empty_permuted(prim, shape, physical_layout, dtype, device):
    check(all(s >= 0 for s in shape), prim, "C1", lambda: f"shape {shape_str(shape)} has a negative size")
    check(sorted(physical_layout) == list(range(len(shape))), prim, "C2", lambda: f"physical_layout "
          f"{list(physical_layout)} is not a permutation of the {len(shape)} dims of shape {shape_str(shape)}")
    check(dtype in prim.dtypes, prim, "C3", lambda: f"dtype {dtype} is not supported")
    # physical_layout lists dims outermost first; the last one is dense (stride 1).
    return TensorMeta(tuple(shape), strides_from_perm(shape, list(reversed(physical_layout))), dtype,
                      torch.device(device))
