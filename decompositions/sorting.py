"""Decompositions of sorting, selection, scans and searching: sort, argsort, msort, topk,
kthvalue, median, nanmedian, the cumulative scans, searchsorted, bucketize, take, nonzero,
argwhere, masked_select and the check _assert_async; mode, quantile and nanquantile (read from the sorted operand, as
eager does); unique (_unique2, _unique), unique_consecutive, unique_dim and unique_dim_consecutive;
isin.

The sort and scan prims return contiguous outputs; where eager's sort keeps the operand's
layout (preserve_format) the decomposition lays the result out so. Selections (kthvalue,
median) read one position of the stable ascending sort, whose nan-last order is eager's.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, check_sizes, like, register_overloads, to_dtype, wrap_dim)
from primkit.decompositions.indexing import INT64, flatten_1d, iota
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous, in_layout, preserved_strides
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
    for ok in (0 <= k, k <= size):
        check_sizes(ok, lambda: RuntimeError(f"selected index k out of range: topk expects 0 <= k <= {size}, "
                                             f"got k={k}"))
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
    for ok in (1 <= k, k <= size):
        check_sizes(ok, lambda: RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}: "
                                             f"expected 1 <= k <= {size}, got k={k}"))
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
        if a.dim():
            check_sizes(a.shape[d] != 0,
                        lambda: IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size."))
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
    """The prim's (count, rank) indices laid out as eager's: column-major, strides (1, count)."""
    indices = P.nonzero(a)
    return in_layout(indices, [1, indices.shape[0]])


def masked_select(a, mask):
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {dt.short(mask.dtype)}")
    shape = broadcast_shapes(a.shape, mask.shape)
    return P.masked_select(broadcast_to(a, shape), broadcast_to(mask, shape))


register_overloads(nonzero, "nonzero", ("default", "out"))
register_overloads(nonzero, "argwhere", ("default",))
register_overloads(masked_select, "masked_select", ("default", "out"))


@register(aten.item.default)
def item(a):
    """t.item(): the value read on the host, the item prim (an unbacked SymInt, SymFloat or SymBool under fake
    tensors), where a tracer keeps item whole (torch.export's run_decompositions; AOTAutograd under
    torch.compile). trace and eager through prims do not use this entry (table.HOST_READ_ENTRIES)."""
    return P.item(a)


@register(aten._assert_async.default, aten._assert_async.msg)
def assert_async(a, assert_msg="Expected Tensor with single nonzero value, but got zero"):
    """torch._assert_async(t, msg): a's one value read on the host (the item prim) and checked where the graph
    runs (aten._assert_scalar, the check torch.export keeps for torch._check), raising msg when it is zero."""
    if a.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    nonzero = a if a.dtype == torch.bool else P.ne(a, like(a, 0))
    aten._assert_scalar.default(P.item(nonzero), assert_msg)


# --- modes, quantiles, unique values ---------------------------------------------------------

def mode(a, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest of the most frequent) and the index of its
    last occurrence: the longest run of the stable ascending sort, its last element.

    Eager's CPU kernel sorts each row with std::sort, which is not stable for rows longer than
    16: there eager's index may be another occurrence of the value."""
    if a.dtype in dt.COMPLEX:
        raise NotImplementedError(f'"mode_cpu" not implemented for {dt.short(a.dtype)}')
    d = wrap_dim(dim, a.dim())
    if a.dim() == 0:
        return P.clone(a), P.full([], 0, dtype=INT64, device=a.device)
    n = a.shape[d]
    check_sizes(n != 0, lambda: IndexError(f"mode(): Expected reduction dim {d} to have non-zero size."))
    values, order = P.sort(a, d, False, True)
    shape = list(values.shape)

    def along(start, stop):
        starts, limits = [0] * a.dim(), list(shape)
        starts[d], limits[d] = start, stop
        return P.slice(values, starts, limits, [1] * a.dim())
    edge = P.full([1 if k == d else s for k, s in enumerate(shape)], True, dtype=torch.bool, device=a.device)
    differs = P.ne(along(1, n), along(0, n - 1))     # sorted[k] != sorted[k - 1]
    starts_run, ends_run = P.cat([edge, differs], d), P.cat([differs, edge], d)
    position = P.broadcast_in_dim(iota(n, a.device), shape, [d])
    run_start = P.cummax(P.where(starts_run, position, like(position, 0)), d)[0]
    run_length = P.where(ends_run, P.add(P.sub(position, run_start), like(position, 1)), like(position, 0))
    best = P.expand_dims(P.argmax(run_length, d), [d])     # the first longest run: the smallest value
    value, index = P.gather(values, d, best), P.gather(order, d, best)
    return (value, index) if keepdim else (P.squeeze(value, [d]), P.squeeze(index, [d]))


register_overloads(mode, "mode", ("default", "values"))


QUANTILE_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(ignore_nan):
    def quantile(a, q, dim=None, keepdim=False, *, interpolation="linear"):
        """Eager's algorithm: sort the reduced values last, read the value at rank q * (n - 1)
        (n: the count of non-nan values for nanquantile; quantile gives nan to a row with a nan)
        and interpolate between its neighbours. q is a number or a 0-d or 1-d tensor; the
        quantiles of a 1-d q come first in the result, a view whose q dim is innermost."""
        if a.dtype not in (torch.float32, torch.float64):
            raise RuntimeError("quantile() input tensor must be either float or double dtype")
        if isinstance(q, torch.Tensor):
            if q.dtype != a.dtype:
                raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
            if q.dim() > 1:
                raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        else:
            if not 0 <= q <= 1:
                raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
            q = P.scalar_tensor(q, dtype=a.dtype, device=a.device)
        if interpolation not in QUANTILE_INTERPOLATIONS:
            raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or "
                               f"nearest, but got {interpolation}")
        check_sizes(a.numel() != 0, lambda: RuntimeError("quantile() input tensor must be non-empty"))
        # The reduced values, last: shape kept + (n,), kept as the result keeps them.
        if dim is None or a.dim() == 0:
            kept = [1] * a.dim() if keepdim else []
            x = P.reshape(a, kept + [a.numel()])
        else:
            d = wrap_dim(dim, a.dim())
            moved = P.permute(a, [k for k in range(a.dim()) if k != d] + [d])
            kept = [1 if k == d else s for k, s in enumerate(a.shape)] if keepdim else \
                [s for k, s in enumerate(a.shape) if k != d]
            x = P.reshape(moved, kept + [a.shape[d]]) if keepdim else moved
        n = x.shape[-1]
        last = x.dim() - 1
        values = P.sort(x, last, False, True)[0]
        nq = q.numel() if q.dim() else 1
        grid = kept + [nq]
        qs = P.broadcast_in_dim(P.reshape(q, [nq]), grid, [last])
        nan = P.isnan(values)
        if ignore_nan:
            count = P.sum(to_dtype(P.logical_not(nan), INT64), [last])
            ranks = P.mul(qs, P.broadcast_in_dim(to_dtype(P.sub(count, like(count, 1)), a.dtype), grid,
                                                 list(range(last))))
            ranks = P.where(P.lt(ranks, like(ranks, 0)), like(ranks, 0), ranks)
        else:
            any_nan = P.broadcast_in_dim(P.reduce_or(nan, [last]), grid, list(range(last)))
            ranks = P.where(any_nan, like(qs, n - 1), P.mul(qs, like(qs, n - 1)))
        rounding = {"lower": P.floor, "higher": P.ceil, "nearest": P.round}.get(interpolation)
        if rounding is not None:
            ranks = rounding(ranks)
        below = to_dtype(ranks, INT64)
        out = P.gather(values, last, below)
        if interpolation in ("linear", "midpoint"):
            weights = like(ranks, 0.5) if interpolation == "midpoint" else P.sub(ranks, to_dtype(below, a.dtype))
            out = P.lerp(out, P.gather(values, last, to_dtype(P.ceil(ranks), INT64)), weights)
        if q.dim() == 0:
            return P.squeeze(out, [last])
        return P.permute(out, [last] + list(range(last)))
    quantile.__name__ = quantile.__qualname__ = "nanquantile" if ignore_nan else "quantile"
    return quantile


for _name, _ignore in (("quantile", False), ("nanquantile", True)):
    register_overloads(_quantile(_ignore), _name, ("default", "out", "scalar", "scalar_out"))


def _empty_int64(device):
    return P.full([0], 0, dtype=INT64, device=device)


def unique_consecutive(a, return_inverse=False, return_counts=False, dim=None):
    """The prim over a flattened; along a dim, unique_dim_consecutive. Without dim, an output not
    asked for is an empty int64 tensor, as eager's."""
    if dim is not None:
        return _unique_dim(a, dim, True)
    values, inverse, counts = P.unique_consecutive(a)
    return (values, inverse if return_inverse else _empty_int64(a.device),
            counts if return_counts else _empty_int64(a.device))


def unique2(a, sorted=True, return_inverse=False, return_counts=False):
    """torch.unique without dim: the prim. Eager's kernels (CPU and CUDA) sort whatever ``sorted``
    says; an output not asked for is an empty int64 tensor, as eager's."""
    values, inverse, counts = P.unique(a)
    return (values, inverse if return_inverse else _empty_int64(a.device),
            counts if return_counts else _empty_int64(a.device))


def unique(a, sorted=True, return_inverse=False):
    """aten::_unique (values and inverse)."""
    return unique2(a, sorted, return_inverse)[:2]


def _unique_dim(a, dim, consecutive):
    """The distinct slices along dim (each run of equal adjacent slices, if consecutive): the
    slices as rows, sorted lexicographically (a stable sort per column, last column first) unless
    consecutive; a run starts at a row that differs from the one before it; the run ids are
    unique_consecutive's input. The values are laid out as eager's: rows of the kept slices
    moved back to dim (a view)."""
    if a.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, a.dim())
    rest = [s for k, s in enumerate(a.shape) if k != d]
    n, m = a.shape[d], math.prod(rest)
    if a.numel() == 0:
        if sum(s == 0 for s in a.shape) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
        if n != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        return P.clone(a), _empty_int64(a.device), _empty_int64(a.device)
    slices = P.permute(a, [d] + [k for k in range(a.dim()) if k != d])
    rows = P.reshape(slices, [n, m])
    order = iota(n, a.device)
    if not consecutive:
        for c in reversed(range(m)):
            column = P.reshape(P.slice(rows, [0, c], [n, c + 1], [1, 1]), [n])
            order = P.take(order, P.sort(P.take(column, order), 0, False, True)[1])
        rows, slices = P.index_select(rows, 0, order), P.index_select(slices, 0, order)
    differs = P.reduce_or(P.ne(P.slice(rows, [1, 0], [n, m], [1, 1]), P.slice(rows, [0, 0], [n - 1, m], [1, 1])),
                          [1])
    starts = P.cat([P.full([1], True, dtype=torch.bool, device=a.device), differs], 0)
    run = P.sub(P.cumsum(to_dtype(starts, INT64), 0), P.full([n], 1, dtype=INT64, device=a.device))
    counts = P.unique_consecutive(run)[2]
    first = P.squeeze(P.nonzero(starts), [1])       # where each run starts
    kept = P.index_select(slices, 0, first)
    values = P.permute(kept, list(range(1, d + 1)) + [0] + list(range(d + 1, a.dim())))
    inverse = run if consecutive else P.scatter(P.full([n], 0, dtype=INT64, device=a.device), 0, order, run)
    return values, inverse, counts


def unique_dim(a, dim, sorted=True, return_inverse=False, return_counts=False):
    """Eager sorts the slices whatever ``sorted`` says, and returns inverse and counts always."""
    return _unique_dim(a, dim, False)


def unique_dim_consecutive(a, dim, return_inverse=False, return_counts=False):
    return _unique_dim(a, dim, True)


register_overloads(unique2, "_unique2", ("default", "out"))
register_overloads(unique, "_unique", ("default", "out"))
register_overloads(unique_consecutive, "unique_consecutive", ("default", "out"))
register_overloads(unique_dim, "unique_dim", ("default", "out"))
register_overloads(unique_dim_consecutive, "unique_dim_consecutive", ("default", "out"))


# --- membership: isin ------------------------------------------------------------------------

def _check_isin_dtype(*dtypes):
    for d in dtypes:
        if d == torch.bool or d in dt.COMPLEX:
            raise RuntimeError(f"Unsupported input type encountered for isin(): {dt.short(d)}")


def _isin(elements, test, invert):
    """Whether each element is among test's: its insertion point in test sorted holds it."""
    found = P.full(list(elements.shape), False, dtype=torch.bool, device=elements.device)
    if test.numel() > 0:
        table = P.sort(flatten_1d(test), 0, False, True)[0]
        at = P.minimum(P.searchsorted(table, elements, False),
                       P.full(list(elements.shape), test.numel() - 1, dtype=INT64, device=elements.device))
        found = P.eq(P.take(table, at), elements)
    return contiguous(P.logical_not(found) if invert else found)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """isin.Tensor_Tensor, Scalar_Tensor and Tensor_Scalar: both sides in their promoted dtype."""
    common = result_type(elements, test_elements)
    _check_isin_dtype(common, *(t.dtype for t in (elements, test_elements) if isinstance(t, torch.Tensor)))
    device = next(t.device for t in (elements, test_elements) if isinstance(t, torch.Tensor))
    x, t = (to_dtype(v, common) if isinstance(v, torch.Tensor) else P.scalar_tensor(v, dtype=common, device=device)
            for v in (elements, test_elements))
    return _isin(x, t, invert)


register_overloads(isin, "isin", ("Tensor_Tensor", "Tensor_Tensor_out", "Scalar_Tensor", "Scalar_Tensor_out",
                                  "Tensor_Scalar", "Tensor_Scalar_out"))
