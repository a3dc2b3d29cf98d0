"""Meta rules of the indexing family (gather, scatter, index_select)."""
from __future__ import annotations

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta import TensorMeta, meta_rule
from primkit.prims.meta.common import canonical_dim, check_dtype, check_same_device, shape_str
from primkit.prims.meta.strides import contiguous_strides


def _check_index(prim, cid, index):
    check(index.dtype == torch.int64, prim, cid, lambda: f"index has dtype {dt.short(index.dtype)}, expected int64")


@meta_rule("gather", constraints=("C1", "C2", "C3", "C4"))
def gather(prim, a, dim, index):
    _check_index(prim, "C1", index)
    check(len(index.shape) == len(a.shape), prim, "C2", lambda: f"index has rank {len(index.shape)} but the "
          f"operand has rank {len(a.shape)}")
    dim = canonical_dim(prim, "C3", dim, len(a.shape))
    for d in range(len(a.shape)):
        check(d == dim or index.shape[d] <= a.shape[d], prim, "C4", lambda: f"index has size {index.shape[d]} in "
              f"dim {d} but the operand has {a.shape[d]}")
    check_same_device(prim, "C2", [a, index])
    return TensorMeta(tuple(index.shape), contiguous_strides(index.shape), a.dtype, a.device)


@meta_rule("scatter", constraints=("C1", "C2", "C3", "C4", "C5"))
def scatter(prim, a, dim, index, src):
    _check_index(prim, "C1", index)
    check(len(index.shape) == len(a.shape) == len(src.shape), prim, "C2", lambda: f"index, operand and src must "
          f"have one rank, got {len(index.shape)}, {len(a.shape)} and {len(src.shape)}")
    dim = canonical_dim(prim, "C3", dim, len(a.shape))
    for d in range(len(a.shape)):
        check(index.shape[d] <= src.shape[d] and (d == dim or index.shape[d] <= a.shape[d]), prim, "C4",
              lambda: f"index shape {shape_str(index.shape)} does not fit operand {shape_str(a.shape)} and src "
              f"{shape_str(src.shape)} in dim {d}")
    check(src.dtype == a.dtype, prim, "C5", lambda: f"src has dtype {dt.short(src.dtype)} but the operand has "
          f"{dt.short(a.dtype)}")
    check_dtype(prim, "C5", a, prim.dtypes)
    check_same_device(prim, "C2", [a, index, src])
    # Contiguous whatever a's layout, as eager's scatter kernels allocate their output.
    return TensorMeta(tuple(a.shape), contiguous_strides(a.shape), a.dtype, a.device)


@meta_rule("index_select", constraints=("C1", "C2", "C3"))
def index_select(prim, a, dim, index):
    _check_index(prim, "C1", index)
    check(len(index.shape) == 1, prim, "C2", lambda: f"index has rank {len(index.shape)}, expected 1")
    dim = canonical_dim(prim, "C3", dim, len(a.shape))
    shape = list(a.shape)
    if shape:
        shape[dim] = index.shape[0]
    check_same_device(prim, "C2", [a, index])
    return TensorMeta(tuple(shape), contiguous_strides(shape), a.dtype, a.device)
