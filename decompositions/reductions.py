"""Decompositions of reductions: sums, extrema, statistics, norms, logical reductions.

Each reduces a list of dims with one reduction prim (whose output is contiguous, as eager's
is) and puts the reduced dims back as size 1 for keepdim.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import P, aten, like, register_overloads, to_dtype, upcast, wrap_dim
from primkit.decompositions.registry import register
from primkit.decompositions.shape import in_layout
from primkit.decompositions.type_promotion import computation_dtype
from primkit.prims import dtypes as dt
from primkit.prims.meta.strides import contiguous_strides


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
        if a.numel() == 0:
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

