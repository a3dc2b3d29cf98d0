"""Counting: histc, histogram, histogramdd, bincount."""
from __future__ import annotations

import math
import torch

from primkit.decompositions.common import P, aten, like, register_overloads, to_dtype
from primkit.decompositions.indexing import INT64, flatten_1d
from primkit.decompositions.layout import contiguous
from primkit.decompositions.registry import register
from primkit.prims import dtypes as dt


def histc(a, bins=100, min=0, max=0):
    """The histc prim over [min, max]; with min == max (eager's default 0, 0) over the data's own
    range, which is data: then eager's formula ((x - min) * bins) / (max - min), each operation
    in a's dtype, counted with a scatter_add into the (static) bins."""
    if a.dtype not in dt.FLOAT:
        raise NotImplementedError(f'"histogram_cpu" not implemented for {dt.short(a.dtype)}')
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and a.numel() > 0:
        return _histc_over_data(a, bins)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    return P.histc(a, bins, lo, hi)


def _histc_over_data(a, bins):
    x = flatten_1d(a)
    lo, hi = P.amin(x, [0]), P.amax(x, [0])
    same = P.eq(lo, hi)
    lo = P.where(same, P.sub(lo, like(lo, 1)), lo)
    hi = P.where(same, P.add(hi, like(hi, 1)), hi)
    lo, hi = (P.broadcast_in_dim(t, list(x.shape), []) for t in (lo, hi))
    position = to_dtype(P.div(P.mul(P.sub(x, lo), like(x, bins)), P.sub(hi, lo)), INT64)
    bin_ = P.minimum(position, like(position, bins - 1))     # x == max: the last bin
    inside = P.logical_and(P.ge(x, lo), P.le(x, hi))      # False for nan
    counts = P.scatter_add(P.full([bins], 0, dtype=INT64, device=a.device), 0,
                           P.where(inside, bin_, like(bin_, 0)), to_dtype(inside, INT64))
    return to_dtype(counts, a.dtype)


register_overloads(histc, "histc", ("default", "out"))


# histogram / histogramdd: the points are the rows of a (N, D) view of the input (D = 1 for
# histogram); each dim's bin edges are given, or D linspaces over the range (given, else the data's
# own min and max: values in the graph, not sizes). A point falls in the bin upper_bound(edges, x) - 1
# (x equal to the last edge: the last bin), which is what eager's local and binary searches find, and
# counts (or adds its weight) only if it is inside the edges in every dim (nan never is). A data range
# that is not finite (nan or inf in the input) raises in eager; the graph cannot check values, and
# gives nan edges there.


def _histogram_points(name, a, d, weight):
    if a.dtype not in (torch.float32, torch.float64):
        raise NotImplementedError(f'"{name}" not implemented for {dt.short(a.dtype)}')
    if weight is not None and tuple(weight.shape) != tuple(a.shape[:-1] if d else a.shape):
        raise RuntimeError(f"{name}: expected weight to have the same shape as the input's points "
                           f"{list(a.shape[:-1] if d else a.shape)}, got {list(weight.shape)}")
    d = d or 1
    return P.reshape(contiguous(a), [a.numel() // d, d])


def _outer_edges(name, x, ranges):
    """(leftmost, rightmost) of each dim as 0-d tensors in x's dtype: the given range, else the data's."""
    n, d = x.shape
    outer = []
    for k in range(d):
        if ranges is not None:
            lo, hi = float(ranges[2 * k]), float(ranges[2 * k + 1])
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise RuntimeError(f"torch.histogramdd: dimension {k}'s range [{lo}, {hi}] is not finite")
            if lo > hi:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo} max {hi} "
                                   f"for dimension {k}")
            if lo == hi:      # numpy's widening of an empty range
                lo, hi = lo - 0.5, hi + 0.5
            outer.append((P.scalar_tensor(lo, dtype=x.dtype, device=x.device),
                          P.scalar_tensor(hi, dtype=x.dtype, device=x.device)))
        elif n == 0:
            outer.append((P.scalar_tensor(0.0, dtype=x.dtype, device=x.device),
                          P.scalar_tensor(1.0, dtype=x.dtype, device=x.device)))
        else:
            column = P.reshape(P.slice(x, [0, k], [n, k + 1], [1, 1]), [n])
            lo, hi = P.amin(column, [0]), P.amax(column, [0])
            same = P.eq(lo, hi)
            outer.append((P.where(same, P.sub(lo, like(lo, 0.5)), lo), P.where(same, P.add(hi, like(hi, 0.5)), hi)))
    return outer


def _check_bin_cts(name, bins, d, ranges):
    if len(bins) != d:
        raise RuntimeError(f"histogramdd: The size of bins must be equal to the innermost dimension of the input "
                           f"(expected {d} bin counts, got {len(bins)}).")
    for k, b in enumerate(bins):
        if b <= 0:
            raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {b} for dimension {k}")
    if ranges is not None and len(ranges) != 2 * d:
        raise RuntimeError(f"torch.histogramdd: for a {d}-dimensional histogram range should have {2 * d} "
                           f"elements, but got {len(ranges)}")


def _edges_from_bin_cts(name, x, bins, ranges):
    _check_bin_cts(name, bins, x.shape[1], ranges)
    return [aten.linspace.Tensor_Tensor(lo, hi, b + 1, dtype=x.dtype, device=x.device)
            for b, (lo, hi) in zip(bins, _outer_edges(name, x, ranges))]


def _histogram_counts(x, edges, weight, density):
    """The (bins...) histogram of the rows of x over the given edges of each dim."""
    n, d = x.shape
    sizes = [e.shape[0] - 1 for e in edges]
    flat = P.full([n], 0, dtype=INT64, device=x.device)
    inside = P.full([n], True, dtype=torch.bool, device=x.device)
    stride = 1
    for k in reversed(range(d)):
        edge, bins = edges[k], sizes[k]
        column = P.reshape(P.slice(x, [0, k], [n, k + 1], [1, 1]), [n])
        position = P.sub(P.searchsorted(contiguous(edge), column, True), like(flat, 1))
        position = P.minimum(position, like(position, bins - 1))      # x == the last edge: the last bin
        first = P.broadcast_in_dim(P.reshape(P.slice(edge, [0], [1], [1]), []), [n], [])
        last = P.broadcast_in_dim(P.reshape(P.slice(edge, [bins], [bins + 1], [1]), []), [n], [])
        inside = P.logical_and(inside, P.logical_and(P.ge(column, first), P.le(column, last)))
        flat = P.add(flat, P.mul(position, like(position, stride)))
        stride *= bins
    counted = to_dtype(inside, x.dtype) if weight is None else \
        P.where(inside, to_dtype(flatten_1d(weight), x.dtype), like(x, 0) if n == 0 else P.full([n], 0, dtype=x.dtype,
                                                                                         device=x.device))
    hist = P.scatter_add(P.full([stride], 0, dtype=x.dtype, device=x.device), 0,
                         P.where(inside, flat, like(flat, 0)), counted)
    hist = P.reshape(hist, sizes)
    if density:
        hist = P.div(hist, P.broadcast_in_dim(P.sum(hist, list(range(d))), sizes, []))
        for k, edge in enumerate(edges):
            widths = P.sub(P.slice(edge, [1], [sizes[k] + 1], [1]), P.slice(edge, [0], [sizes[k]], [1]))
            hist = P.div(hist, P.broadcast_in_dim(widths, sizes, [k]))
    return hist


def _check_bin_tensors(name, x, bins):
    if len(bins) != x.shape[1]:
        raise RuntimeError(f"{name}: expected {x.shape[1]} sequences of bin edges for each dimension, but got "
                           f"{len(bins)}")
    for k, b in enumerate(bins):
        if b.dtype != x.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                               f"got input {dt.short(x.dtype)} and bins for dimension {k} {dt.short(b.dtype)}")
        if b.dim() != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {b.dim()} "
                               f"dimensions in the bins tensor for dimension {k}")
        if b.numel() == 0:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 element, but got "
                               f"{b.numel()} elements in the bins tensor for dimension {k}")


def histogram_bin_ct(a, bins=100, *, range=None, weight=None, density=False):
    x = _histogram_points("histogram_cpu", a, 0, weight)
    (edges,) = _edges_from_bin_cts("histogram", x, [bins], range)
    return _histogram_counts(x, [edges], weight, density), edges


def histogram_bins_tensor(a, bins, *, weight=None, density=False):
    x = _histogram_points("histogram_cpu", a, 0, weight)
    _check_bin_tensors("histogram", x, [bins])
    return _histogram_counts(x, [bins], weight, density), contiguous(P.clone(bins))


register_overloads(histogram_bin_ct, "histogram", ("bin_ct", "bin_ct_out"))
register_overloads(histogram_bins_tensor, "histogram", ("bins_tensor", "bins_tensor_out"))


def _points_dd(name, a, weight):
    if a.dim() < 1:
        raise RuntimeError(f"{name}: input tensor should have at least 1 dimension, but got 0")
    return _histogram_points("histogramdd", a, a.shape[-1], weight)


@register(aten._histogramdd_bin_edges.default)
def histogramdd_bin_edges(a, bins, *, range=None, weight=None, density=False):
    return _edges_from_bin_cts("torch.histogramdd", _points_dd("torch.histogramdd", a, weight), bins, range)


@register(aten._histogramdd_from_bin_cts.default)
def histogramdd_from_bin_cts(a, bins, *, range=None, weight=None, density=False):
    x = _points_dd("torch.histogramdd", a, weight)
    return _histogram_counts(x, _edges_from_bin_cts("torch.histogramdd", x, bins, range), weight, density)


@register(aten._histogramdd_from_bin_tensors.default)
def histogramdd_from_bin_tensors(a, bins, *, weight=None, density=False):
    x = _points_dd("torch.histogramdd", a, weight)
    _check_bin_tensors("torch.histogramdd", x, bins)
    return _histogram_counts(x, list(bins), weight, density)


register_overloads(histogramdd_from_bin_cts, "_histogramdd_from_bin_cts", ("out",))
register_overloads(histogramdd_from_bin_tensors, "_histogramdd_from_bin_tensors", ("out",))


@register(aten.histogramdd.default, aten.histogramdd.int_bins)
def histogramdd(a, bins, range=None, weight=None, density=False):
    """The CompositeImplicitAutograd op torch.export keeps: the edges, then the counts over them."""
    x = _points_dd("torch.histogramdd", a, weight)
    bins = [bins] * x.shape[1] if isinstance(bins, int) else list(bins)
    edges = _edges_from_bin_cts("torch.histogramdd", x, bins, range)
    return _histogram_counts(x, edges, weight, density), edges


@register(aten.histogramdd.TensorList_bins)
def histogramdd_bin_tensors(a, bins, range=None, weight=None, density=False):
    x = _points_dd("torch.histogramdd", a, weight)
    _check_bin_tensors("torch.histogramdd", x, bins)
    return _histogram_counts(x, list(bins), weight, density), [contiguous(P.clone(b)) for b in bins]


def bincount(a, weights=None, minlength=0):
    """The count prim; weighted counts add the weights (float32 ones in float32, others in
    float64, as eager) at the values into zeros of the counts' (data-dependent) length."""
    if a.dtype not in dt.INT:
        raise NotImplementedError(f'"bincount_cpu" not implemented for {dt.short(a.dtype)}')
    if a.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != a.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if a.numel() == 0:      # eager: int64 zeros of minlength, weights or not
        return P.full([minlength], 0, dtype=INT64, device=a.device)
    x = to_dtype(a, INT64)
    counts = P.bincount(x, minlength)
    if weights is None:
        return counts
    dtype = torch.float32 if weights.dtype == torch.float32 else torch.float64
    zeros = P.full([counts.shape[0]], 0, dtype=dtype, device=a.device)
    return P.scatter_add(zeros, 0, x, to_dtype(weights, dtype))


register_overloads(bincount, "bincount", ("default", "out"))
