"""Meta rules of the sort family: contiguous values and int64 indices; topk shortens dim to k, kthvalue
removes dim."""
from __future__ import annotations

import torch

from primkit.prims.errors import PrimIndexError, check
from primkit.prims.meta.rules import TensorMeta, flag, meta_rule
from primkit.prims.meta.common import canonical_dim, check_dtype
from primkit.prims.layout import contiguous_strides


def _values_and_indices(a, shape):
    strides = contiguous_strides(shape)
    return TensorMeta(shape, strides, a.dtype, a.device), TensorMeta(shape, strides, torch.int64, a.device)


@meta_rule("sort", params={"indices_only": flag}, constraints=("C1", "C2"),
           outputs=lambda params: 1 if params.get("indices_only") else 2)
def sort(prim, a, dim, descending, stable):
    canonical_dim(prim, "C1", dim, len(a.shape))
    check_dtype(prim, "C2", a, prim.dtypes)
    values, indices = _values_and_indices(a, tuple(a.shape))
    return indices if prim.params.get("indices_only", False) else (values, indices)


@meta_rule("topk", constraints=("C1", "C2", "C3"), outputs=2)
def topk(prim, a, k, dim, largest, sorted):
    dim = canonical_dim(prim, "C1", dim, len(a.shape))
    check_dtype(prim, "C2", a, prim.dtypes)
    if len(a.shape) == 0:
        check(k == 1, prim, "C3", lambda: f"k is {k} but a 0-d operand has exactly one element")
        return _values_and_indices(a, ())
    size = a.shape[dim]
    check(0 <= k, prim, "C3", lambda: f"k is {k}, expected k >= 0")
    check(k <= size, prim, "C3", lambda: f"k is {k} but dim {dim} has size {size}")
    shape = tuple(k if d == dim else s for d, s in enumerate(a.shape))
    return _values_and_indices(a, shape)


@meta_rule("kthvalue", constraints=("C1", "C2", "C3", "C4"), outputs=2)
def kthvalue(prim, a, k, dim):
    dim = canonical_dim(prim, "C1", dim, len(a.shape))
    check_dtype(prim, "C2", a, prim.dtypes)
    size = a.shape[dim] if len(a.shape) else 1
    check(size != 0, prim, "C3", lambda: f"cannot select along dim {dim} of size 0", PrimIndexError)
    check(1 <= k and k <= size, prim, "C4", lambda: f"k is {k}, expected 1 <= k <= {size} (the size of dim {dim})")
    return _values_and_indices(a, tuple(s for d, s in enumerate(a.shape) if d != dim))
