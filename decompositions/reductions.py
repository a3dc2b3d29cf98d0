"""Decompositions of reductions: sums, extrema, statistics, norms, logical reductions; nanmean,
renorm, frobenius_norm; counting (histc, histogram, histogramdd, bincount); integration
(trapezoid, cumulative_trapezoid); cov and corrcoef; diff and sum_to_size.

Each reduces a list of dims with one reduction prim (whose output is contiguous, as eager's
is) and puts the reduced dims back as size 1 for keepdim.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, elementwise, like, register_data_dependent, register_overloads, register_with_variants, to_dtype,
    upcast, wrap_dim)
from primkit.decompositions.indexing import INEXACT, INT64, flatten_1d
from primkit.decompositions.linalg import conj_transpose
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous, in_layout
from primkit.decompositions.type_promotion import computation_dtype
from primkit.prims import dtypes as dt
from primkit.prims.layout import contiguous_strides, surely


# ----------------------------------------------------------------------------- shared helpers

def reduced_dims(a, dim, *, empty_means_all=True):
    """The sorted dims a reduction reduces. None reduces every dim, and so does [] unless
    ``empty_means_all`` is False (any/all, whose dim=() reduces nothing). A 0-d tensor has none."""
    if isinstance(dim, int):
        dim = [dim]
    if dim is None or (len(dim) == 0 and empty_means_all):
        dim = range(a.dim())
    dims = [wrap_dim(d, a.dim()) for d in dim]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return sorted(dims) if a.dim() else []


def reduced_count(a, dims):
    return math.prod(a.shape[d] for d in dims)


def keep(out, dims, keepdim):
    """keepdim: the reduced dims back as size 1."""
    return P.expand_dims(out, dims) if keepdim and dims else out


def unreduce(r, shape, dims):
    """A reduced tensor broadcast back over the reduced dims of shape."""
    return P.broadcast_in_dim(r, list(shape), [d for d in range(len(shape)) if d not in dims])


def full_reduced(a, dims, value, dtype):
    """The value of a reduction over empty dims: its identity, shaped like the result."""
    shape = [s for d, s in enumerate(a.shape) if d not in dims]
    return P.full(shape, value, dtype=dtype, device=a.device)


def check_nonempty(name, a, dim, dims):
    """Reductions with no identity (amax, max, aminmax, argmax...): eager's errors on empty dims."""
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        if surely(a.numel() == 0):
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               f"Specify the reduction dim with the 'dim' argument.")
        return
    for d in dims:
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _is_exact(dtype):
    return dtype == torch.bool or dtype in dt.INT


def _check_inexact(name, dtype, message=None):
    if dtype not in dt.FLOAT and dtype not in dt.COMPLEX:
        raise RuntimeError(message or f"{name}(): could not infer output dtype. Input dtype must be either a "
                                      f"floating point or complex dtype. Got: {_scalar_name(dtype)}")


def _scalar_name(dtype):
    return {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char",
            torch.uint8: "Byte", torch.bool: "Bool"}.get(dtype, dt.short(dtype))


# ----------------------------------------------------------------------------- sum, prod, mean

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


# ----------------------------------------------------------------------------- extrema

def _extremum(name, prim):
    """amax / amin: no identity, so empty reduced dims are errors."""
    def reduce(a, dim=(), keepdim=False):
        dims = reduced_dims(a, dim)
        check_nonempty(name, a, dim, dims)
        return keep(prim(a, dims), dims, keepdim)
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


amax = _extremum("amax", P.amax)
amin = _extremum("amin", P.amin)
register_overloads(amax, "amax", ("default", "out"))
register_overloads(amin, "amin", ("default", "out"))


def _arg_extremum(name, prim):
    """argmax / argmin: dim=None indexes the flattened tensor."""
    def reduce(a, dim=None, keepdim=False):
        if a.dtype == torch.bool:
            raise RuntimeError(f"{name}(): does not support bool input")
        if dim is None:
            if a.numel() == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            index = prim(P.reshape(a, [a.numel()]), 0)
            return P.reshape(index, [1] * a.dim()) if keepdim else index
        dims = reduced_dims(a, dim)
        check_nonempty(name, a, dims, dims)
        return keep(prim(a, dims[0] if dims else 0), dims, keepdim)
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


argmax = _arg_extremum("argmax", P.argmax)
argmin = _arg_extremum("argmin", P.argmin)
register_overloads(argmax, "argmax", ("default", "out"))
register_overloads(argmin, "argmin", ("default", "out"))


def _max_or_min(name, extremum, arg_extremum):
    """max/min of everything (a 0-d tensor), or along a dim: (values, indices). Along a dim the
    values are gathered at the indices, so that a gradient goes to the selected element only, as
    eager's (the extremum prim's own derivative shares it among tied elements)."""
    def reduce(a, dim=None, keepdim=False):
        dims = reduced_dims(a, dim)
        check_nonempty(name, a, dim, dims)
        if dim is None:
            return keep(extremum(a, dims), dims, keepdim)
        if not dims:     # a 0-d tensor: its own extremum, at index 0
            return P.clone(a), P.full([], 0, dtype=torch.int64, device=a.device)
        # The arg-reduction prims take no bool; uint8 0/1 ranks the same.
        ranked = to_dtype(a, torch.uint8) if a.dtype == torch.bool else a
        index = P.expand_dims(arg_extremum(ranked, dims[0]), dims)
        values = P.gather(a, dims[0], index)
        return keep(P.squeeze(values, dims), dims, keepdim), keep(P.squeeze(index, dims), dims, keepdim)
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


max_ = _max_or_min("max", P.amax, P.argmax)
min_ = _max_or_min("min", P.amin, P.argmin)
register_overloads(max_, "max", ("default", "dim", "dim_max", "unary_out"))
register_overloads(min_, "min", ("default", "dim", "dim_min", "unary_out"))


# max.other / min.other: the elementwise maximum / minimum of two tensors.
register_overloads(lambda a, b: torch.maximum(a, b), "max", ("other", "out"))
register_overloads(lambda a, b: torch.minimum(a, b), "min", ("other", "out"))


def aminmax(a, *, dim=None, keepdim=False):
    if dim is None and a.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    dims = reduced_dims(a, dim)
    if dim is not None and a.dim() and a.shape[dims[0]] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    if dim is None and keepdim:   # eager keeps every dim as size 1
        return tuple(P.reshape(r(a, dims), [1] * a.dim()) for r in (P.amin, P.amax))
    return keep(P.amin(a, dims), dims, keepdim), keep(P.amax(a, dims), dims, keepdim)


register_overloads(aminmax, "aminmax", ("default", "out"))


# ----------------------------------------------------------------------------- logical

def _logical(name, prim, identity):
    """any / all: the max / min of a != 0, with the identity over empty dims; bool result
    (uint8 for uint8 input, as eager)."""
    def reduce(a, dim=None, keepdim=False):
        dims = reduced_dims(a, dim, empty_means_all=False)
        out_dtype = torch.uint8 if a.dtype == torch.uint8 else torch.bool
        if reduced_count(a, dims) == 0:
            out = full_reduced(a, dims, identity, torch.bool)
        else:
            out = prim(a if a.dtype == torch.bool else P.ne(a, like(a, 0)), dims)
        return keep(to_dtype(out, out_dtype), dims, keepdim)
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


any_ = _logical("any", P.amax, False)
all_ = _logical("all", P.amin, True)
for _name, _fn in (("any", any_), ("all", all_)):
    register_overloads(_fn, _name, ("default", "dim", "dims", "out", "all_out", "dims_out"))


def count_nonzero(a, dim=None):
    dims = reduced_dims(a, dim)
    nonzero = a if a.dtype == torch.bool else P.ne(a, like(a, 0))
    return P.sum(to_dtype(nonzero, torch.int64), dims)


register_overloads(count_nonzero, "count_nonzero", ("default", "dim_IntList", "out", "dim_IntList_out"))


# ----------------------------------------------------------------------------- statistics

def _correction(unbiased, correction):
    if correction is not None:
        return float(correction)
    return 1.0 if unbiased in (None, True) else 0.0


def _variance(a, dims, unbiased, correction):
    """The variance in the dtype eager accumulates it in (float16/bfloat16 in float32; float32 in
    float64 on CPU, whose kernel accumulates in double), and the real dtype to return."""
    _check_inexact("var", a.dtype, "std and var only support floating point and complex dtypes")
    accumulate = computation_dtype(a.dtype)
    if a.device.type == "cpu":
        accumulate = {torch.float32: torch.float64, torch.complex64: torch.complex128}.get(accumulate, accumulate)
    return P.var(to_dtype(a, accumulate), dims, _correction(unbiased, correction)), dt.to_real(a.dtype)


def var(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims = reduced_dims(a, dim)
    variance, out_dtype = _variance(a, dims, unbiased, correction)
    return keep(to_dtype(variance, out_dtype), dims, keepdim)


def _sqrt_of_variance(v):
    """sqrt(v) whose gradient is 0 where v == 0, as eager's std backward (sqrt's own derivative is
    infinite there, and times var's zero derivative would give nan): zero variances take the branch
    0 * v, whose value is 0 and whose derivative is 0."""
    zeros = P.full(list(v.shape), 0, dtype=v.dtype, device=v.device)
    zero = P.eq(v, zeros)
    ones = P.full(list(v.shape), 1, dtype=v.dtype, device=v.device)
    return P.where(zero, P.mul(v, zeros), P.sqrt(P.where(zero, ones, v)))


def std(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    # The square root is taken before rounding back, as eager does: var may overflow where std does not.
    dims = reduced_dims(a, dim)
    variance, out_dtype = _variance(a, dims, unbiased, correction)
    return keep(to_dtype(_sqrt_of_variance(variance), out_dtype), dims, keepdim)


def var_mean(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return var(a, dim, unbiased, keepdim, correction=correction), mean(a, dim, keepdim)


def std_mean(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return std(a, dim, unbiased, keepdim, correction=correction), mean(a, dim, keepdim)


def _unbiased_overload(fn):
    """var.default (a, unbiased): the flag is the second positional argument, not the dim."""
    return lambda a, unbiased=True: fn(a, None, unbiased)


for _name, _fn in (("var", var), ("std", std), ("var_mean", var_mean), ("std_mean", std_mean)):
    outs = ("correction_out", "out") if _name in ("var", "std") else ("correction_out",)
    register_overloads(_fn, _name, ("dim", "correction") + outs)
    register(getattr(aten, _name).default)(_unbiased_overload(_fn))


def logsumexp(a, dim, keepdim=False):
    """log(sum(exp(a - m))) + m with m the max (0 where it is infinite, so all -inf gives -inf
    and +inf gives +inf, as eager); int inputs compute in the default float dtype."""
    out_dtype = torch.get_default_dtype() if _is_exact(a.dtype) else a.dtype
    dims = reduced_dims(a, dim)
    (x,), _ = upcast(to_dtype(a, out_dtype))
    if reduced_count(a, dims) == 0:
        shift = full_reduced(x, dims, 0, x.dtype)
    else:
        # The shift cancels out of the value, so it is a constant to differentiation: the gradient
        # is exactly softmax (through amax it would cancel only up to rounding, and spread on ties).
        peak = P.stop_gradient(P.amax(x, dims))
        shift = P.where(P.isinf(peak), like(peak, 0), peak)
    total = P.sum(P.exp(P.sub(x, unreduce(shift, x.shape, dims))), dims)
    return keep(to_dtype(P.add(P.log(total), shift), out_dtype), dims, keepdim)


register_overloads(logsumexp, "logsumexp", ("default", "out"))


# ----------------------------------------------------------------------------- norms

def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    _check_inexact("linalg.vector_norm", dtype or x.dtype, f"linalg.vector_norm: Expected a floating point or "
                                                            f"complex tensor as input. Got {_scalar_name(x.dtype)}")
    dims = reduced_dims(x, dim)
    if ord < 0 and not math.isinf(ord):
        for d in dims:
            if x.shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on the dimension {d}because "
                                   f"this dimension is empty and the operation does not have an identity")
    out_dtype = dt.to_real(dtype or x.dtype)
    (magnitude,), _ = upcast(P.abs(to_dtype(x, dtype or x.dtype)))
    if math.isinf(ord):
        if reduced_count(x, dims) == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {'' if ord > 0 else '-'}inf norm on an "
                               f"empty tensor because the operation does not have an identity")
        out = (P.amax if ord > 0 else P.amin)(magnitude, dims)
    elif ord == 0:
        out = P.sum(to_dtype(P.ne(magnitude, like(magnitude, 0)), magnitude.dtype), dims)
    elif ord == 1:
        out = P.sum(magnitude, dims)
    elif ord == 2:
        out = P.sqrt(P.sum(P.mul(magnitude, magnitude), dims))
    else:
        total = P.sum(P.pow(magnitude, like(magnitude, ord)), dims)
        out = P.pow(total, like(total, 1.0 / ord))
    return keep(to_dtype(out, out_dtype), dims, keepdim)


register_overloads(vector_norm, "linalg_vector_norm", ("default", "out"))


def norm(a, p=2, dim=None, keepdim=False, *, dtype=None):
    """aten.norm's number-p overloads: the vector norm (p=None means 2)."""
    return vector_norm(a, 2 if p is None else p, dim, keepdim, dtype=dtype)


register_overloads(lambda a, p=2, *, dtype=None: norm(a, p, dtype=dtype), "norm",
                   ("Scalar", "ScalarOpt_dtype", "Scalar_out", "ScalarOpt_dtype_out"))
register_overloads(norm, "norm", ("ScalarOpt_dim", "ScalarOpt_dim_dtype", "out", "dtype_out"))


_SEGMENT_REDUCE = {"sum": ("sum", 0.0), "mean": ("sum", 0.0), "max": ("amax", -math.inf), "min": ("amin", math.inf),
                   "prod": ("prod", 1.0)}


@register(aten.segment_reduce.default)
def segment_reduce(data, reduce, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """Each segment's reduction, from initial (else the reduction's identity; an empty mean is nan):
    a segment id per element (how many segment ends lie at or before it), then a scatter_reduce
    into the segments. Mean is (initial + sum) / length, as eager's kernel. Eager's check that the
    lengths add up to the axis (when not unsafe) reads values, so it is not made here."""
    if reduce not in _SEGMENT_REDUCE:
        raise RuntimeError(f"segment_reduce(): reduce must be one of {sorted(_SEGMENT_REDUCE)}, got {reduce!r}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if (lengths is None) == (offsets is None):
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    x, lengths, seg = _segment_ids(data, lengths, offsets, axis)
    b, size, r = x.shape
    segments = lengths.shape[1]
    op, identity = _SEGMENT_REDUCE[reduce]
    start = identity if initial is None else initial
    base = P.full([b, segments + 1, r], start, dtype=data.dtype, device=data.device)
    out = P.scatter_reduce(base, 1, P.broadcast_in_dim(seg, [b, size, r], [0, 1]), x, op, True)
    out = P.slice(out, [0, 0, 0], [b, segments, r], [1, 1, 1])
    if reduce == "mean":
        count = P.broadcast_in_dim(to_dtype(lengths, data.dtype), [b, segments, r], [0, 1])
        mean = P.div(out, count)
        if initial is not None:   # an empty segment keeps initial (without it, 0 / 0 is eager's nan)
            mean = P.where(P.gt(count, P.full([b, segments, r], 0, dtype=data.dtype, device=data.device)), mean, out)
        out = mean
    axis = axis + data.dim() if axis < 0 else axis
    shape = list(data.shape[:axis]) + [segments] + list(data.shape[axis + 1:])
    return in_layout(P.reshape(out, shape), contiguous_strides(shape))   # eager's result is contiguous


def _segment_ids(data, lengths, offsets, axis):
    """(data as (B, L, R), lengths as (B, S) int64, each element's segment (B, L); S for elements past
    the lengths' total)."""
    axis = axis + data.dim() if axis < 0 else axis
    if offsets is not None:
        last = offsets.dim() - 1
        n = offsets.shape[last]
        start, stop = [0] * offsets.dim(), list(offsets.shape)
        lengths = P.sub(P.slice(offsets, start[:last] + [1], stop, [1] * offsets.dim()),
                        P.slice(offsets, start, stop[:last] + [n - 1], [1] * offsets.dim()))
    if lengths.dim() != axis + 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}.")
    size, segments = data.shape[axis], lengths.shape[axis]
    b, r = math.prod(data.shape[:axis]), math.prod(data.shape[axis + 1:])
    lengths = P.reshape(to_dtype(lengths, torch.int64), [b, segments])
    ends = P.broadcast_in_dim(P.cumsum(lengths, 1), [b, segments, size], [0, 1])
    j = P.broadcast_in_dim(P.iota(size, start=0, step=1, dtype=torch.int64, device=data.device),
                           [b, segments, size], [2])
    seg = P.sum(to_dtype(P.le(ends, j), torch.int64), [1])
    return P.reshape(data, [b, size, r]), lengths, seg


@register(aten._segment_reduce_backward.default)
def segment_reduce_backward(grad, output, data, reduce, lengths=None, offsets=None, axis=0, initial=None):
    """Eager's gradient per element of segment s: sum: grad[s]; mean: grad[s] / length; max, min:
    grad[s] on the elements equal to the result (or nan), divided by their number when positive;
    prod: grad[s] * out[s] / x, and for x == 0 grad[s] times the product of the segment's other
    elements (and initial)."""
    x, lengths, seg = _segment_ids(data, lengths, offsets, axis)
    b, size, r = x.shape
    segments = lengths.shape[1]
    pad = [0, 0, 0], [0, 1, 0], [0, 0, 0]   # one extra segment for elements past the lengths' total

    def per_element(t):   # (B, S, R) -> each element's segment's value (B, L, R)
        t = P.pad(P.reshape(t, [b, segments, r]), 0, *pad)
        return P.gather(t, 1, P.broadcast_in_dim(seg, [b, size, r], [0, 1]))
    g, out = per_element(grad), per_element(output)
    zero = P.full([b, size, r], 0, dtype=x.dtype, device=x.device)
    if reduce == "sum":
        result = g
    elif reduce == "mean":
        count = per_element(P.broadcast_in_dim(to_dtype(lengths, x.dtype), [b, segments, r], [0, 1]))
        result = P.div(g, count)
    elif reduce in ("max", "min"):
        hit = P.logical_or(P.eq(x, out), P.logical_and(P.ne(x, x), P.ne(out, out)))
        index = P.broadcast_in_dim(seg, [b, size, r], [0, 1])
        counts = P.scatter_add(P.full([b, segments + 1, r], 0, dtype=x.dtype, device=x.device), 1, index,
                               to_dtype(hit, x.dtype))
        counts = P.gather(counts, 1, index)
        # Eager's kernel shares out only a positive gradient among the ties; a negative one goes whole to each.
        result = P.where(hit, P.where(P.gt(g, zero), P.div(g, counts), g), zero)
    elif reduce == "prod":
        index = P.broadcast_in_dim(seg, [b, size, r], [0, 1])
        is_zero = P.eq(x, zero)
        one = P.full([b, size, r], 1, dtype=x.dtype, device=x.device)
        start = 1.0 if initial is None else initial
        nonzero_prod = P.gather(P.scatter_reduce(P.full([b, segments + 1, r], start, dtype=x.dtype, device=x.device),
                                                 1, index, P.where(is_zero, one, x), "prod", True), 1, index)
        zeros = P.gather(P.scatter_add(P.full([b, segments + 1, r], 0, dtype=torch.int64, device=x.device), 1, index,
                                       to_dtype(is_zero, torch.int64)), 1, index)
        alone = P.eq(zeros, P.full([b, size, r], 1, dtype=torch.int64, device=x.device))
        result = P.where(is_zero, P.where(alone, P.mul(g, nonzero_prod), zero), P.div(P.mul(g, out), x))
    else:
        raise RuntimeError(f"segment_reduce(): reduce must be one of {sorted(_SEGMENT_REDUCE)}, got {reduce!r}")
    shape = list(data.shape)
    return in_layout(P.reshape(result, shape), contiguous_strides(shape))


# ----------------------------------------------------------------------------- nanmean, renorm, frobenius_norm

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


def renorm(a, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm scaled to norm maxnorm: factor
    maxnorm / (norm + 1e-7), computed in the norm's accumulation dtype (float32 for
    float16/bfloat16) and taken to a's dtype, as eager's kernel does. Contiguous, as eager's."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if a.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {a.dim()} dimensions")
    d = wrap_dim(dim, a.dim())
    others = [k for k in range(a.dim()) if k != d]
    accumulate = computation_dtype(a.dtype)
    norm = vector_norm(a, p, others, True, dtype=accumulate if accumulate != a.dtype else None)
    factor = P.where(P.gt(norm, like(norm, maxnorm)), P.div(like(norm, maxnorm), P.add(norm, like(norm, 1e-7))),
                     like(norm, 1))
    return contiguous(elementwise(P.mul, a, to_dtype(factor, a.dtype)))


register_overloads(renorm, "renorm", ("default", "out"), inplace=("default",))


def frobenius_norm(a, dim, keepdim=False):
    """The 2-norm over at most two dims (eager's frobenius_norm is norm(a, 2, dim))."""
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    return vector_norm(a, 2, dim, keepdim)


register_overloads(frobenius_norm, "frobenius_norm", ("dim", "out"))


# ----------------------------------------------------------------------------- counting: histc, histogram, histogramdd, bincount

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


register_data_dependent(bincount, "bincount", ("default", "out"))


# --- integration: trapezoid, trapz, cumulative_trapezoid ----------------------------------------------------

def _sample_dim(y, dim):
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, y.dim())


def _check_real_dx(name, dx):
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


def _spacing(name, y, x, dim):
    """The differences of x along dim, x laid against y's dims as eager lays it (a 1-d x along dim,
    a lower-rank x against y's last dims)."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = torch.reshape(x, [x.shape[0] if d == dim else 1 for d in range(y.dim())])
    elif x.dim() < y.dim():
        x = torch.reshape(x, [1] * (y.dim() - x.dim()) + list(x.shape))
    return aten.slice.Tensor(x, dim, 1) - aten.slice.Tensor(x, dim, 0, -1)


def _zeros_without(y, dim):
    """Eager's integral over no samples: zeros of y's shape without dim, in y's dtype."""
    return torch.zeros([s for d, s in enumerate(y.shape) if d != dim], dtype=y.dtype, device=y.device)


def _neighbour_sums(y, dim):
    """y[i] + y[i + 1] along dim: twice each trapezoid's mean height."""
    return aten.slice.Tensor(y, dim, 0, -1) + aten.slice.Tensor(y, dim, 1)


def trapezoid_x(y, x, *, dim=-1):
    dim = _sample_dim(y, dim)
    if y.shape[dim] == 0:
        return _zeros_without(y, dim)
    if y.dtype == torch.bool or x.dtype == torch.bool:
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    dx = _spacing("trapezoid", y, x, dim)
    pairs = _neighbour_sums(y, dim)
    return torch.sum(pairs * dx, dim) / 2.0


def trapezoid_dx(y, *, dx=1, dim=-1):
    dim = _sample_dim(y, dim)
    if y.shape[dim] == 0:
        return _zeros_without(y, dim)
    if y.dtype == torch.bool:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    _check_real_dx("trapezoid", dx)
    # constant spacing: (sum of y - half of its two ends) * dx
    ends = torch.select(y, dim, 0) + torch.select(y, dim, -1)
    return (torch.sum(y, dim) - ends * 0.5) * float(dx)


def cumulative_trapezoid_x(y, x, *, dim=-1):
    dim = _sample_dim(y, dim)
    if y.dtype == torch.bool or x.dtype == torch.bool:
        raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    dx = _spacing("cumulative_trapezoid", y, x, dim)
    pairs = _neighbour_sums(y, dim)
    return torch.cumsum(pairs * dx, dim) / 2.0


def cumulative_trapezoid_dx(y, *, dx=1, dim=-1):
    dim = _sample_dim(y, dim)
    _check_real_dx("cumulative_trapezoid", dx)
    pairs = _neighbour_sums(y, dim)
    return torch.cumsum(float(dx) / 2.0 * pairs, dim)


register(aten.trapezoid.x, aten.trapz.x)(trapezoid_x)
register(aten.trapezoid.dx, aten.trapz.dx)(trapezoid_dx)
register(aten.cumulative_trapezoid.x)(cumulative_trapezoid_x)
register(aten.cumulative_trapezoid.dx)(cumulative_trapezoid_dx)


# --- statistics: cov, corrcoef -----------------------------------------------------------------------------
# Eager also refuses negative weights and weights that sum to zero; those checks read the data,
# which a trace cannot, so here such weights give what the formula gives.

def _check_weights(kind, w, observations, floating):
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got {kind} with {w.dim()} "
                           f"dimensions")
    if floating and w.dtype not in dt.FLOAT or not floating and w.dtype not in dt.INT:
        expected = "floating point" if floating else "integral"
        raise RuntimeError(f"cov(): expected {kind} to have {expected} dtype but got {kind} with "
                           f"{dt.short(w.dtype)} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are observations in the input but "
                           f"got {w.numel()} != {observations}")


@register(aten.cov.default)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the rows of input (variables) over its columns (observations)."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    if input.dtype == torch.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = torch.reshape(input, (1, -1)) if input.dim() < 2 else input
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations, floating=False)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations, floating=True)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = torch.scalar_tensor(observations, dtype=torch.int64, device=x.device)
    else:
        w_sum = torch.sum(w)
    weighted = x if w is None else x * w
    mean = torch.sum(weighted, 1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * torch.sum(w * aweights) / w_sum
    else:
        norm = w_sum - correction
    norm = torch.where(norm <= 0, torch.zeros_like(norm), norm)   # eager warns and divides by 0
    x = x - mean.unsqueeze(1)
    weighted = x if w is None else x * w
    c = torch.mm(x, conj_transpose(weighted))
    return torch.squeeze(torch.true_divide(c, norm))


@register(aten.corrcoef.default)
def corrcoef(input):
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:        # one variable: nan where its variance is 0, nan or inf, else 1
        return c / c
    d = torch.diagonal(c)
    stddev = torch.sqrt(P.real(d) if d.dtype in dt.COMPLEX else d)
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    if c.dtype in dt.COMPLEX:
        return P.complex(torch.clip(P.real(c), -1, 1), torch.clip(P.imag(c), -1, 1))
    return torch.clip(c, -1, 1)


# --- differences and sums to a size: diff, sum_to_size --------------------------------------------

def diff(a, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along dim (not-equal for bool), after prepend and append."""
    if a.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    pieces = [t for t in (prepend, a, append) if t is not None]
    x = aten.cat.default(pieces, dim) if len(pieces) > 1 else a
    for _ in range(n):
        size = x.shape[wrap_dim(dim, x.dim(), "diff")]
        if size == 0:
            break
        hi, lo = aten.slice.Tensor(x, dim, 1, size, 1), aten.slice.Tensor(x, dim, 0, size - 1, 1)
        x = aten.ne.Tensor(hi, lo) if x.dtype == torch.bool else aten.sub.Tensor(hi, lo)
    return aten.clone.default(x) if x is a else x   # n == 0: eager returns a copy


register_with_variants("diff", diff)


@register(aten.sum_to_size.default)
def sum_to_size(a, size):
    """a summed down to size (which a's shape broadcasts to): leading dims and dims of size 1."""
    size = list(size)
    lead = a.dim() - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and a.shape[lead + i] != 1]
    if not dims:
        return a
    return aten.view.default(aten.sum.dim_IntList(a, dims, True), size)
