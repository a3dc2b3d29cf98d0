"""Decompositions of sorting, selection, scans and searching: sort, argsort, msort, topk,
kthvalue, median, nanmedian, the cumulative scans, searchsorted, bucketize, take, nonzero,
argwhere and masked_select.

The sort and scan prims return contiguous outputs; where eager's sort keeps the operand's
layout (preserve_format) the decomposition lays the result out so. Selections (kthvalue,
median) read one position of the stable ascending sort, whose nan-last order is eager's.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, like, register_overloads, to_dtype, wrap_dim)
from primkit.decompositions.registry import register
from primkit.decompositions.shape import in_layout, preserved_strides
from primkit.decompositions.type_promotion import computation_dtype, result_type
from primkit.prims import dtypes as dt

INEXACT = dt.FLOAT | dt.COMPLEX


def _check_sortable(name, a):
    if a.dtype in dt.COMPLEX:
        raise RuntimeError(f"{name}(): sort does not support complex input dtype {dt.short(a.dtype)}")


# --- sort -------------------------------------------------------------------------------------

def _sort(a, dim, descending, name="sort"):
    _check_sortable(name, a)
    d = wrap_dim(dim, a.dim())
    values, indices = P.sort(a, d, descending, True)
    strides = preserved_strides(a)
    return in_layout(values, strides), in_layout(indices, strides)


def sort(a, dim=-1, descending=False):
    return _sort(a, dim, descending)


def sort_stable(a, *, stable=None, dim=-1, descending=False):
    # The prim is stable; stable=False lets eager pick any order among equal values.
    return _sort(a, dim, descending)


def argsort(a, dim=-1, descending=False):
    return _sort(a, dim, descending, "argsort")[1]


def argsort_stable(a, *, stable, dim=-1, descending=False):
    return argsort(a, dim, descending)


def msort(a):
    return _sort(a, 0, False, "msort")[0]


register_overloads(sort, "sort", ("default", "values"))
register_overloads(sort_stable, "sort", ("stable", "values_stable"))
register_overloads(argsort, "argsort", ("default",))
register_overloads(argsort_stable, "argsort", ("stable", "stable_out"))
register_overloads(msort, "msort", ("default", "out"))


def topk(a, k, dim=-1, largest=True, sorted=True):
    _check_sortable("topk", a)
    d = wrap_dim(dim, a.dim())
    size = a.shape[d] if a.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"selected index k out of range: topk expects 0 <= k <= {size}, got k={k}")
    return P.topk(a, k, d, largest, sorted)


register_overloads(topk, "topk", ("default", "values"))


# --- selections from the sorted order ----------------------------------------------------------

def _pick(values, indices, d, position, keepdim, a):
    """values/indices (sorted along d) at ``position`` (a tensor shaped like a reduced to d with
    keepdim), reduced as eager's keepdim says."""
    v = P.gather(values, d, position)
    i = P.gather(indices, d, position)
    if not keepdim and a.dim() > 0:
        v, i = P.squeeze(v, [d]), P.squeeze(i, [d])
    return v, i


def _position(a, d, value):
    """``value`` (an int) as the int64 gather index tensor for one position along d."""
    shape = [1 if j == d else n for j, n in enumerate(a.shape)] if a.dim() else []
    return P.broadcast_in_dim(P.scalar_tensor(value, dtype=torch.int64, device=a.device), shape, [])


def kthvalue(a, k, dim=-1, keepdim=False):
    _check_sortable("kthvalue", a)
    d = wrap_dim(dim, a.dim())
    size = a.shape[d] if a.dim() else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}: expected 1 <= k <= {size}, "
                         f"got k={k}")
    values, indices = P.sort(a, d, False, True)
    return _pick(values, indices, d, _position(a, d, k - 1), keepdim, a)


register_overloads(kthvalue, "kthvalue", ("default", "values"))


def _median_position(a, values, d, ignore_nan):
    """Index of the lower median in the ascending sort along d: of the non-nan values for
    nanmedian; median returns a nan (the first one sorted) when the row has any."""
    n = a.shape[d] if a.dim() else 1
    if a.dtype in INEXACT:
        nans = P.sum(to_dtype(P.isnan(values), torch.int64), [d]) if a.dim() else \
            to_dtype(P.isnan(values), torch.int64)
        count = P.sub(P.scalar_tensor(n, dtype=torch.int64, device=a.device) if not a.dim() else
                      like(nans, n), nans)
        if ignore_nan:
            # (count - 1) // 2, and 0 for an all-nan row (whose value then is nan)
            pos = P.floor_divide(P.maximum(P.sub(count, like(count, 1)), like(count, 0)), like(count, 2))
        else:
            pos = P.where(P.gt(nans, like(nans, 0)), count, like(count, (n - 1) // 2))
        return P.expand_dims(pos, [d]) if a.dim() else pos
    return _position(a, d, (n - 1) // 2)


def _median_dim(name, ignore_nan):
    def median_dim(a, dim=-1, keepdim=False):
        _check_sortable(name, a)
        d = wrap_dim(dim, a.dim())
        if a.dim() and a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        values, indices = P.sort(a, d, False, True)
        return _pick(values, indices, d, _median_position(a, values, d, ignore_nan), keepdim, a)
    median_dim.__name__ = median_dim.__qualname__ = f"{name}_dim"
    return median_dim


def _median_all(name, ignore_nan):
    def median_all(a):
        _check_sortable(name, a)
        if a.numel() == 0:
            if a.dtype not in INEXACT:
                raise IndexError(f"{name}(): input is empty and its dtype {dt.short(a.dtype)} has no nan")
            return P.full([], float("nan"), dtype=a.dtype, device=a.device)
        flat = P.reshape(a, [a.numel()])
        value = _median_dim(name, ignore_nan)(flat, 0)[0]
        if a.dtype not in dt.FLOAT:
            return value
        # Eager's median() sends the gradient evenly to every element equal to the median (median(dim)
        # to the one it picked): the same value, as the max of the elements equal to it, whose amax
        # derivative splits the gradient among them. A nan median (nothing equals it) is value itself.
        equal = P.eq(flat, P.broadcast_in_dim(value, [a.numel()], []))
        ties = P.amax(P.where(equal, flat, like(flat, float("-inf"))), [0])
        return P.where(P.isnan(value), value, ties)
    median_all.__name__ = median_all.__qualname__ = f"{name}_all"
    return median_all


for _name, _ignore in (("median", False), ("nanmedian", True)):
    register_overloads(_median_all(_name, _ignore), _name, ("default", "out"))
    register_overloads(_median_dim(_name, _ignore), _name, ("dim", "dim_values"))


# --- scans ------------------------------------------------------------------------------------

def _accumulate(name, prim):
    """cumsum / cumprod: integers and bool accumulate in int64 (unless dtype says otherwise);
    float16/bfloat16 accumulate in float32 and round each output."""
    def scan(a, dim, *, dtype=None):
        if dtype is None:
            dtype = torch.int64 if a.dtype in dt.INT or a.dtype == torch.bool else a.dtype
        d = wrap_dim(dim, a.dim())
        x = to_dtype(a, dtype)
        compute = computation_dtype(dtype)
        return to_dtype(prim(to_dtype(x, compute), d), dtype)
    scan.__name__ = scan.__qualname__ = name
    return scan


cumsum = _accumulate("cumsum", P.cumsum)
cumprod = _accumulate("cumprod", P.cumprod)


def _accumulate_inplace(name, scan):
    """cumsum_ / cumprod_: accumulate in self's dtype, which dtype= must not change."""
    def scan_(a, dim, *, dtype=None):
        if dtype is not None and dtype != a.dtype:
            raise RuntimeError(f"{name}: expected out tensor to have dtype {dt.short(dtype)}, but got "
                               f"{dt.short(a.dtype)} instead")
        if a.dtype == torch.bool:
            # eager's kernel rejects bool, but a 0-d or empty self never reaches it
            if a.dim() and a.numel():
                raise NotImplementedError(f"{name}: not implemented for 'Bool'")
            return P.copy_to(a, P.clone(a))
        return P.copy_to(a, scan(a, dim, dtype=a.dtype))
    scan_.__name__ = scan_.__qualname__ = name
    return scan_


register_overloads(cumsum, "cumsum", ("default", "out"))
register_overloads(cumprod, "cumprod", ("default", "out"))
register(aten.cumsum_.default)(_accumulate_inplace("cumsum_", cumsum))
register(aten.cumprod_.default)(_accumulate_inplace("cumprod_", cumprod))


def _running_extremum(name, prim):
    def running(a, dim):
        _check_sortable(name, a)
        return prim(a, wrap_dim(dim, a.dim()))
    running.__name__ = running.__qualname__ = name
    return running


register_overloads(_running_extremum("cummax", P.cummax), "cummax", ("default", "out"))
register_overloads(_running_extremum("cummin", P.cummin), "cummin", ("default", "out"))


def logcumsumexp(a, dim):
    if a.dtype not in INEXACT:
        raise RuntimeError(f"logcumsumexp: expected a floating or complex input, got {dt.short(a.dtype)}")
    (x,), dtype = [to_dtype(a, computation_dtype(a.dtype))], a.dtype
    return to_dtype(P.logcumsumexp(x, wrap_dim(dim, a.dim())), dtype)


register_overloads(logcumsumexp, "logcumsumexp", ("default", "out"))
register_overloads(logcumsumexp, "_logcumsumexp", ("default", "out"))


# --- searching --------------------------------------------------------------------------------

def _search(name, sorted_sequence, values, out_int32, right, side, sorter):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{name}(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(f"{name}(): side and right can't be set to opposites, got side of left while right "
                               f"was True")
        right = side == "right"
    seq_is_1d = sorted_sequence.dim() == 1
    if not seq_is_1d and (sorted_sequence.dim() != values.dim()
                          or tuple(sorted_sequence.shape[:-1]) != tuple(values.shape[:-1])):
        raise RuntimeError(f"{name}(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                           f"tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(sorted_sequence.shape)} and input value tensor {list(values.shape)}")
    if sorter is not None:
        if sorter.dtype != torch.int64:
            raise RuntimeError(f"{name}(): sorter must be a tensor of long dtype but got {dt.short(sorter.dtype)}")
        if tuple(sorter.shape) != tuple(sorted_sequence.shape):
            raise RuntimeError(f"{name}(): boundary and sorter must have the same size, but got boundary tensor "
                               f"{list(sorted_sequence.shape)} and sorter tensor {list(sorter.shape)}")
        sorted_sequence = P.gather(sorted_sequence, sorted_sequence.dim() - 1, sorter)
    common = result_type(sorted_sequence, values)
    if common in dt.COMPLEX or common == torch.bool:
        raise RuntimeError(f"{name}(): input of dtype {dt.short(common)} is not supported")
    if not seq_is_1d and values.dim() == 0:
        values = P.reshape(values, [1])
    out = P.searchsorted(to_dtype(sorted_sequence, common), to_dtype(values, common), right)
    return to_dtype(out, torch.int32 if out_int32 else torch.int64)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    if not isinstance(values, torch.Tensor):
        values = P.scalar_tensor(values, dtype=result_type(values), device=sorted_sequence.device)
    return _search("searchsorted", sorted_sequence, values, out_int32, right, side, sorter)


def bucketize(values, boundaries, *, out_int32=False, right=False):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    if not isinstance(values, torch.Tensor):
        values = P.scalar_tensor(values, dtype=result_type(values), device=boundaries.device)
    return _search("bucketize", boundaries, values, out_int32, right, None, None)


register_overloads(searchsorted, "searchsorted", ("Tensor", "Tensor_out", "Scalar", "Scalar_out"))
register_overloads(bucketize, "bucketize", ("Tensor", "Tensor_out", "Scalar", "Scalar_out"))


def take(a, index):
    if index.dtype != torch.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {dt.short(index.dtype)}")
    return P.take(a, index)


register_overloads(take, "take", ("default", "out"))


# --- data-dependent selections ---------------------------------------------------------------

def nonzero(a):
    return P.nonzero(a)


def masked_select(a, mask):
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {dt.short(mask.dtype)}")
    shape = broadcast_shapes(a.shape, mask.shape)
    return P.masked_select(broadcast_to(a, shape), broadcast_to(mask, shape))


register_overloads(nonzero, "nonzero", ("default", "out"))
register_overloads(nonzero, "argwhere", ("default",))
register_overloads(masked_select, "masked_select", ("default", "out"))
