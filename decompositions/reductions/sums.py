"""Sums and means: sum, prod, mean, nansum, nanmean, sum_to_size."""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, like, register_overloads, to_dtype, upcast
from primkit.decompositions.indexing import INEXACT
from primkit.decompositions.reductions.common import _check_inexact, _is_exact, keep, reduced_count, reduced_dims
from primkit.decompositions.registry import register
from primkit.prims import dtypes as dt


def _accumulating(prim, *, upcast_halves):
    """sum and prod: bool and integer inputs accumulate in int64; ``dtype`` casts the input first
    (eager's sum([1.5, 2.5], dtype=long) is 3)."""
    def reduce(a, dim=None, keepdim=False, *, dtype=None):
        dims = reduced_dims(a, dim)
        out_dtype = dtype or (torch.int64 if _is_exact(a.dtype) else a.dtype)
        x = to_dtype(a, out_dtype)
        if upcast_halves:
            (x,), _ = upcast(x)
        return keep(to_dtype(prim(x, dims), out_dtype), dims, keepdim)
    return reduce


# Eager sums float16/bfloat16 in float32; its CPU prod multiplies them in their own dtype (an
# overflow to inf stays inf), as the prod prim does.
sum_ = _accumulating(P.sum, upcast_halves=True)
prod = _accumulating(P.prod, upcast_halves=False)
register_overloads(sum_, "sum", ("default", "dim_IntList", "out", "IntList_out"))
register_overloads(prod, "prod", ("default", "dim_int", "out", "int_out"))


def mean(a, dim=None, keepdim=False, *, dtype=None):
    out_dtype = dtype or a.dtype
    _check_inexact("mean", out_dtype)
    dims = reduced_dims(a, dim)
    (x,), _ = upcast(to_dtype(a, out_dtype))
    total = P.sum(x, dims)
    return keep(to_dtype(P.div(total, like(total, reduced_count(a, dims))), out_dtype), dims, keepdim)


register_overloads(mean, "mean", ("default", "dim", "out", "dtype_out"))


def nansum(a, dim=None, keepdim=False, *, dtype=None):
    if a.dtype in dt.FLOAT:
        a = P.where(P.isnan(a), like(a, 0), a)
    return sum_(a, dim, keepdim, dtype=dtype)


register_overloads(nansum, "nansum", ("default", "out"))


def nanmean(a, dim=None, keepdim=False, *, dtype=None):
    """nansum over the count of non-nan elements (nan where there is none)."""
    if a.dtype not in INEXACT:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{dt.short(a.dtype)}")
    if dtype is not None and dtype not in INEXACT:
        raise RuntimeError(f"nanmean(): could not infer output dtype. Optional dtype must be either a floating "
                           f"point or complex dtype. Got: {dt.short(dtype)}")
    counted = sum_(P.logical_not(P.isnan(a)), dim, keepdim)
    return aten.div.Tensor(nansum(a, dim, keepdim, dtype=dtype), counted)


register_overloads(nanmean, "nanmean", ("default", "out"))


@register(aten.sum_to_size.default)
def sum_to_size(a, size):
    """a summed down to size (which a's shape broadcasts to): leading dims and dims of size 1."""
    size = list(size)
    lead = a.dim() - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and a.shape[lead + i] != 1]
    if not dims:
        return a
    return aten.view.default(aten.sum.dim_IntList(a, dims, True), size)
