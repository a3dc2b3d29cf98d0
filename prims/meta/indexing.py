"""Meta rules of the indexing family (gather, scatter, index_select, scatter_reduce, index, index_put,
searchsorted, take, index_add, index_copy, masked_scatter)."""
from __future__ import annotations

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import meta_rule
from primkit.prims.meta.common import canonical_dim, check_dtype, check_same_device, contiguous_meta, shape_str


SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")

def _check_index(prim, cid, index, what="index"):
    check(index.dtype == torch.int64, prim, cid, lambda: f"{what} has dtype {dt.short(index.dtype)}, expected int64")


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
    return contiguous_meta(index.shape, a.dtype, a.device)


@meta_rule("scatter", constraints=("C1", "C2", "C3", "C4", "C5"))
def scatter(prim, a, dim, index, src):
    _check_index(prim, "C1", index)
    check(len(index.shape) == len(a.shape) == len(src.shape), prim, "C2", lambda: f"index, operand and src must "
          f"have one rank, got {len(index.shape)}, {len(a.shape)} and {len(src.shape)}")
    dim = canonical_dim(prim, "C3", dim, len(a.shape))
    def unfit():
        return (f"index shape {shape_str(index.shape)} does not fit operand {shape_str(a.shape)} and src "
                f"{shape_str(src.shape)} in dim {d}")
    for d in range(len(a.shape)):   # one check per size (a size read from data is checked where the graph runs)
        check(index.shape[d] <= src.shape[d], prim, "C4", unfit)
        check(d == dim or index.shape[d] <= a.shape[d], prim, "C4", unfit)
    check(src.dtype == a.dtype, prim, "C5", lambda: f"src has dtype {dt.short(src.dtype)} but the operand has "
          f"{dt.short(a.dtype)}")
    check_dtype(prim, "C5", a, prim.dtypes)
    check_same_device(prim, "C2", [a, index, src])
    # Contiguous whatever a's layout, as eager's scatter kernels allocate their output.
    return contiguous_meta(a.shape, a.dtype, a.device)


@meta_rule("index_select", constraints=("C1", "C2", "C3"))
def index_select(prim, a, dim, index):
    _check_index(prim, "C1", index)
    check(len(index.shape) == 1, prim, "C2", lambda: f"index has rank {len(index.shape)}, expected 1")
    dim = canonical_dim(prim, "C3", dim, len(a.shape))
    shape = list(a.shape)
    if shape:
        shape[dim] = index.shape[0]
    check_same_device(prim, "C2", [a, index])
    return contiguous_meta(shape, a.dtype, a.device)


@meta_rule("scatter_reduce", constraints=("C1", "C2", "C3", "C4", "C5", "C6"))
def scatter_reduce(prim, a, dim, index, src, reduce, include_self):
    out = scatter(prim, a, dim, index, src)
    check(reduce in SCATTER_REDUCTIONS, prim, "C6", lambda: f"reduce is '{reduce}', expected one of "
          f"{', '.join(SCATTER_REDUCTIONS)}")
    return out


def broadcast_shapes(prim, cid, shapes):
    """The shape that every shape broadcasts to (right-aligned, sizes equal or 1)."""
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for shape in shapes:
        for i, size in enumerate(shape, rank - len(shape)):
            if size != 1:
                check(out[i] == 1 or out[i] == size, prim, cid, lambda: f"index shapes "
                      f"{', '.join(shape_str(s) for s in shapes)} do not broadcast together")
                out[i] = size
    return tuple(out)


def _indexed_shape(prim, a, indices):
    rank = len(a.shape)
    check(1 <= len(indices) <= rank, prim, "C1", lambda: f"{len(indices)} index tensors for an operand of rank "
          f"{rank}, expected between 1 and {rank}")
    for i, index in enumerate(indices):
        _check_index(prim, "C2", index, f"indices[{i}]")
    shape = broadcast_shapes(prim, "C3", [tuple(i.shape) for i in indices])
    check_same_device(prim, "C4", [a, *indices])
    return shape + tuple(a.shape[len(indices):])


@meta_rule("advanced_index", constraints=("C1", "C2", "C3", "C4"))
def advanced_index(prim, a, indices):
    return contiguous_meta(_indexed_shape(prim, a, indices), a.dtype, a.device)


@meta_rule("advanced_index_put", constraints=("C1", "C2", "C3", "C4", "C5", "C6"))
def advanced_index_put(prim, a, indices, values, accumulate):
    shape = _indexed_shape(prim, a, indices)
    check(tuple(values.shape) == shape, prim, "C5", lambda: f"values has shape {shape_str(values.shape)}, expected "
          f"the indexed shape {shape_str(shape)}")
    check(values.dtype == a.dtype, prim, "C6", lambda: f"values has dtype {dt.short(values.dtype)} but the operand "
          f"has {dt.short(a.dtype)}")
    check_dtype(prim, "C6", a, prim.dtypes)
    check_same_device(prim, "C4", [a, values])
    return contiguous_meta(a.shape, a.dtype, a.device)


@meta_rule("searchsorted", constraints=("C1", "C2", "C3"))
def searchsorted(prim, sorted_sequence, values, right):
    seq, val = tuple(sorted_sequence.shape), tuple(values.shape)
    check(len(seq) == 1 or (len(seq) == len(val) >= 1 and seq[:-1] == val[:-1]), prim, "C1",
          lambda: f"sorted_sequence has shape {shape_str(seq)} and values {shape_str(val)}: expected a 1-d sequence "
          f"or one of values' rank with equal sizes in every dim but the last")
    check(sorted_sequence.dtype == values.dtype, prim, "C2", lambda: f"sorted_sequence has dtype "
          f"{dt.short(sorted_sequence.dtype)} but values has {dt.short(values.dtype)}")
    check_dtype(prim, "C2", values, prim.dtypes, "values")
    check_same_device(prim, "C3", [sorted_sequence, values])
    return contiguous_meta(val, torch.int64, values.device)


@meta_rule("take", constraints=("C1", "C2"))
def take(prim, a, index):
    _check_index(prim, "C1", index)
    check_same_device(prim, "C2", [a, index])
    return contiguous_meta(index.shape, a.dtype, a.device)


@meta_rule("index_write", constraints=("C1", "C2", "C3", "C4", "C5"))
def index_write(prim, a, dim, index, source):
    _check_index(prim, "C1", index)
    check(len(index.shape) == 1, prim, "C2", lambda: f"index has shape {shape_str(index.shape)}, expected 1-d")
    check_same_device(prim, "C2", [a, index, source])
    rank = len(a.shape)
    dim = canonical_dim(prim, "C3", dim, rank)
    expected = list(a.shape)
    if rank:
        expected[dim] = index.shape[0]
    check(tuple(source.shape) == tuple(expected) and (rank or index.shape[0] == 1), prim, "C4",
          lambda: f"source has shape {shape_str(source.shape)} and index {shape_str(index.shape)}, expected source "
          f"{shape_str(expected)} (a's shape {shape_str(a.shape)} with the index length in dim {dim})"
          + ("" if rank else " and an index of one element"))
    check(source.dtype == a.dtype, prim, "C5", lambda: f"source has dtype {dt.short(source.dtype)} but the operand "
          f"has {dt.short(a.dtype)}")
    check_dtype(prim, "C5", a, prim.dtypes)
    return contiguous_meta(a.shape, a.dtype, a.device)


@meta_rule("masked_scatter", constraints=("C1", "C2", "C3", "C4"))
def masked_scatter(prim, a, mask, source):
    check(mask.dtype == torch.bool, prim, "C1", lambda: f"mask has dtype {dt.short(mask.dtype)}, expected bool")
    check(tuple(mask.shape) == tuple(a.shape), prim, "C2", lambda: f"mask has shape {shape_str(mask.shape)} but the "
          f"operand has {shape_str(a.shape)}")
    check(source.dtype == a.dtype, prim, "C3", lambda: f"source has dtype {dt.short(source.dtype)} but the operand "
          f"has {dt.short(a.dtype)}")
    check_same_device(prim, "C4", [a, mask, source])
    return contiguous_meta(a.shape, a.dtype, a.device)
