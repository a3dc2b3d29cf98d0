"""Meta rule of the scan family: the operand's shape and dtype, contiguous; with_indices adds an
int64 index tensor of the same shape."""
from __future__ import annotations

import torch

from primkit.prims.meta.rules import TensorMeta, flag, meta_rule
from primkit.prims.meta.common import canonical_dim, check_dtype
from primkit.prims.layout import contiguous_strides


@meta_rule("scan", params={"with_indices": flag}, constraints=("C1", "C2"),
           outputs=lambda params: 2 if params.get("with_indices") else 1)
def scan(prim, a, dim):
    canonical_dim(prim, "C1", dim, len(a.shape))
    check_dtype(prim, "C2", a, prim.dtypes)
    shape = tuple(a.shape)
    values = TensorMeta(shape, contiguous_strides(shape), a.dtype, a.device)
    if prim.params.get("with_indices", False):
        return values, TensorMeta(shape, contiguous_strides(shape), torch.int64, a.device)
    return values
