"""Decompositions of the indexing and reduction extras.

- Writes at tensor-valued indices: index_add, index_copy, index_fill, index_reduce,
  scatter_reduce, masked_scatter, put; each is one write prim (index_fill writes a broadcast
  value with index_copy, index_reduce a broadcast index with scatter_reduce, put a flat view).
- Reductions: nanmean, mode, renorm, frobenius_norm, quantile and nanquantile (read from the
  sorted operand, as eager does).
- Counting and selection: repeat_interleave, histc, bincount, unique_consecutive, unique_dim,
  unique_dim_consecutive (data-dependent sizes, through the data_dependent prims), and
  nonzero_static, isin and isclose (static sizes).

Index values are data: they are not range-checked at trace time (the prims' kernels check them
when they run), and neither are the other value checks eager makes (negative counts for
repeat_interleave and bincount, q outside [0, 1] for quantile, a non-finite range for histc).
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, elementwise, like, out_names, prepare, register_out, register_overloads, to_dtype, wrap_dim)
from primkit.decompositions.indexing import contiguous
from primkit.decompositions.reductions import nansum, sum_, vector_norm
from primkit.decompositions.registry import register
from primkit.decompositions.shape import in_layout, preserved_strides
from primkit.decompositions.type_promotion import computation_dtype, result_type
from primkit.prims import dtypes as dt

INT64 = torch.int64
INEXACT = dt.FLOAT | dt.COMPLEX


def _iota(n, device):
    return P.iota(n, start=0, step=1, dtype=INT64, device=device)


def _flat(t):
    return P.reshape(t, [t.numel()])


def _nonzero_mask(a):
    return a if a.dtype == torch.bool else P.ne(a, like(a, 0))


def _truth(t):
    """A bool op's result from its int64 computation (the write prims take no bool): bool adds and
    takes maxima as a logical or, multiplies and takes minima as a logical and, so an int64
    result's nonzero elements are eager's True ones."""
    return P.ne(t, like(t, 0))


# ----------------------------------------------------------------------------- index writes

def _index_vector(name, index, dtypes):
    """A 0-d or 1-d integer index as a 1-d int64 tensor, with eager's checks."""
    if index.dtype not in dtypes:
        raise RuntimeError(f"{name}(): Expected dtype {'/'.join(dt.short(d) for d in dtypes)} for index, got "
                           f"{dt.short(index.dtype)}")
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: {index.dim()} with size "
                         f"{list(index.shape)}")
    return _flat(to_dtype(index, INT64))


def _check_source(name, a, dim, index, source, *, count_error=RuntimeError):
    """source is shaped like a with index.numel() slices along dim, in a's dtype."""
    if source.dtype != a.dtype:
        raise RuntimeError(f"{name}(): self ({dt.short(a.dtype)}) and source ({dt.short(source.dtype)}) must have "
                           f"the same scalar type")
    n = index.shape[0]
    if a.dim() == 0:
        if source.numel() != 1 or n != 1:
            raise count_error(f"{name}(): a 0-d self takes one index and one source element, got {n} indices and "
                              f"source of shape {list(source.shape)}")
        return
    if source.dim() != a.dim() and not (source.dim() == 0 and n == 1 and a.dim() == 1):
        raise count_error(f"{name}(): source has {source.dim()} dims, self has {a.dim()}")
    if source.dim() == a.dim():
        if any(s != t for d, (s, t) in enumerate(zip(source.shape, a.shape)) if d != dim):
            raise RuntimeError(f"{name}(): source tensor shape must match self tensor shape, excluding the specified "
                               f"dimension. Got self.shape = {list(a.shape)} source.shape = {list(source.shape)}")
        if source.shape[dim] != n:
            raise count_error(f"{name}(): Number of indices ({n}) should be equal to source.size(dim): "
                              f"({source.shape[dim]}), for dim: {dim}")


def _index_write(prim, name, *, index_dtypes, count_error=RuntimeError):
    """``prim(a, dim, index, source)`` (index_add / index_copy) behind eager's checks; a 0-d a
    takes a 0-d source, and a 1-d a of one element a 0-d source too."""
    def write(a, dim, index, source):
        d = wrap_dim(dim, a.dim())
        index = _index_vector(name, index, index_dtypes)
        _check_source(name, a, d, index, source, count_error=count_error)
        if a.dim() == 0:
            source = P.reshape(source, [])
        elif source.dim() == 0:
            source = P.reshape(source, [1])
        return prim(a, d, index, source)
    return write


_index_add = _index_write(P.index_add, "index_add_", index_dtypes=(torch.int64, torch.int32))
_index_copy = _index_write(P.index_copy, "index_copy_", index_dtypes=(torch.int64,), count_error=IndexError)


def index_add(a, dim, index, source, *, alpha=1):
    """a with alpha * source.select(dim, i) added to a.select(dim, index[i]); alpha is taken in
    a's dtype first, as eager's kernel does (an int a adds source * int(alpha))."""
    if a.dtype == torch.bool and source.dtype == torch.bool:
        return _truth(index_add(to_dtype(a, INT64), dim, index, to_dtype(source, INT64), alpha=int(bool(alpha))))
    if alpha != 1 and source.dtype == a.dtype:
        source = P.mul(source, like(source, alpha))
    return _index_add(a, dim, index, source)


def index_copy(a, dim, index, source):
    """Where an index repeats, eager leaves the winner unspecified; the prim's last write wins."""
    return _index_copy(a, dim, index, source)


register_overloads(index_add, "index_add", ("default", "out"), inplace=("default",))
register_overloads(index_copy, "index_copy", ("default", "out"), inplace=("default",))


def index_fill(a, dim, index, value):
    """The slices at index (negative ones count from the end) filled with value: index_copy of
    the value broadcast to the slices' shape. Eager's result keeps a's layout (a clone of a)."""
    if index.dtype != INT64:
        raise IndexError(f"index_fill_(): Expected dtype int64 for index, got {dt.short(index.dtype)}")
    if index.dim() > 1:
        raise RuntimeError(f"index_fill_(): Index has to be a vector/scalar, got {index.dim()} dims")
    if isinstance(value, torch.Tensor) and value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    if a.dtype not in dt.COMPLEX and (isinstance(value, complex) or
                                      (isinstance(value, torch.Tensor) and value.dtype in dt.COMPLEX)):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    d = wrap_dim(dim, a.dim())
    x = a if a.dim() else P.reshape(a, [1])
    index = _flat(index)
    size = x.shape[d]
    index = P.where(P.lt(index, like(index, 0)), P.add(index, like(index, size)), index)
    slices = [index.shape[0] if k == d else n for k, n in enumerate(x.shape)]
    filled = P.index_copy(x, d, index, prepare(value, a.dtype, slices, a.device))
    return in_layout(P.reshape(filled, list(a.shape)), preserved_strides(a))


register_overloads(index_fill, "index_fill", ("int_Scalar", "int_Tensor", "int_Scalar_out", "int_Tensor_out"),
                   inplace=("int_Scalar", "int_Tensor"))


SCATTER_REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin",
                      "max": "amax", "min": "amin"}   # eager also takes max and min, unlisted


def _scatter_reduce(a, dim, index, src, reduce, include_self):
    """The scatter_reduce prim (real dtypes): bool through int64 (or / and), complex sums and
    means part by part; a 0-d a as one element."""
    if a.dtype == torch.bool:
        if reduce == "mean":
            raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for bool')
        return _truth(_scatter_reduce(to_dtype(a, INT64), dim, index, to_dtype(src, INT64), reduce, include_self))
    if a.dtype in dt.COMPLEX:
        if reduce in ("amax", "amin"):
            raise NotImplementedError(f"scatter_reduce: reduce='{reduce}' is not implemented for {dt.short(a.dtype)}")
        if reduce == "prod":
            raise RuntimeError(f"scatter_reduce: reduce='prod' on {dt.short(a.dtype)} has no decomposition (the "
                               f"scatter_reduce prim takes real dtypes, and a complex product mixes the parts)")
        return P.complex(*(_scatter_reduce(part(a), dim, index, part(src), reduce, include_self)
                           for part in (P.real, P.imag)))
    if a.dim() == 0:
        one = [P.reshape(t, [1]) for t in (a, index, src)]
        return P.reshape(P.scatter_reduce(one[0], 0, one[1], one[2], reduce, include_self), [])
    return P.scatter_reduce(a, dim, index, src, reduce, include_self)


def scatter_reduce(a, dim, index, src, reduce, *, include_self=True):
    if reduce not in SCATTER_REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if index.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(f"scatter(): Expected dtype int32/int64 for index, got {dt.short(index.dtype)}")
    if src.dtype != a.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.dim() != a.dim() and not (index.dim() <= 1 and a.dim() <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    d = wrap_dim(dim, a.dim())
    for k in range(index.dim()):
        if index.shape[k] > (src.shape[k] if src.dim() else 1) or \
                (k != d and index.shape[k] > (a.shape[k] if a.dim() else 1)):
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(a.shape)} apart "
                               f"from dimension {d} and to be no larger size than src {list(src.shape)}")
    if index.numel() == 0:
        return contiguous(P.clone(a))
    if src.dim() != index.dim() or tuple(src.shape) != tuple(index.shape):
        # the prim reads src where index has elements: the leading block of src
        src = P.slice(src, [0] * src.dim(), list(index.shape), [1] * src.dim()) if src.dim() else src
    return _scatter_reduce(a, d, to_dtype(index, INT64), src, SCATTER_REDUCTIONS[reduce], include_self)


register_overloads(scatter_reduce, "scatter_reduce", ("two", "two_out"), inplace=("two",))


def index_reduce(a, dim, index, source, reduce, *, include_self=True):
    """scatter_reduce with index[i] broadcast over the slice source.select(dim, i)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = wrap_dim(dim, a.dim())
    index = _index_vector("index_reduce_", index, (torch.int64, torch.int32))
    _check_source("index_reduce_", a, d, index, source)
    if a.dim() == 0:
        return _scatter_reduce(a, 0, index, P.reshape(source, [1]), reduce, include_self)
    if source.dim() == 0:
        source = P.reshape(source, [1])
    spread = P.broadcast_in_dim(index, list(source.shape), [d])
    return _scatter_reduce(a, d, spread, source, reduce, include_self)


register_overloads(index_reduce, "index_reduce", ("default", "out"), inplace=("default",))


def masked_scatter(a, mask, source):
    """a and mask broadcast together; the k-th True position takes source's k-th element."""
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{dt.short(mask.dtype)}")
    if source.dtype != a.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got "
                           f"{dt.short(a.dtype)} and {dt.short(source.dtype)}")
    shape = broadcast_shapes(a.shape, mask.shape)
    return P.masked_scatter(broadcast_to(a, shape), broadcast_to(mask, shape), source)


register_overloads(masked_scatter, "masked_scatter", ("default", "out"), inplace=("default",))


def put(a, index, source, accumulate=False):
    """source written (or added) at index into a viewed as 1-d in row-major order; negative
    indices count from the end. Eager's result keeps a's layout (a clone of a)."""
    if index.dtype != INT64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {dt.short(index.dtype)}")
    if source.dtype != a.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{dt.short(a.dtype)} and source.dtype = {dt.short(source.dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if a.numel() == 0 and index.numel() > 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    n = a.numel()
    index = _flat(index)
    index = P.where(P.lt(index, like(index, 0)), P.add(index, like(index, n)), index)
    if accumulate and a.dtype == torch.bool:
        written = _truth(P.index_add(to_dtype(_flat(a), INT64), 0, index, to_dtype(_flat(source), INT64)))
    else:
        written = (P.index_add if accumulate else P.index_copy)(_flat(a), 0, index, _flat(source))
    written = P.reshape(written, list(a.shape))
    return in_layout(written, preserved_strides(a))


register_overloads(put, "put", ("default", "out"), inplace=("default",))


# ----------------------------------------------------------------------------- reductions

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
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    values, order = P.sort(a, d, False, True)
    shape = list(values.shape)

    def along(start, stop):
        starts, limits = [0] * a.dim(), list(shape)
        starts[d], limits[d] = start, stop
        return P.slice(values, starts, limits, [1] * a.dim())
    edge = P.full([1 if k == d else s for k, s in enumerate(shape)], True, dtype=torch.bool, device=a.device)
    differs = P.ne(along(1, n), along(0, n - 1))     # sorted[k] != sorted[k - 1]
    starts_run, ends_run = P.cat([edge, differs], d), P.cat([differs, edge], d)
    position = P.broadcast_in_dim(_iota(n, a.device), shape, [d])
    run_start = P.cummax(P.where(starts_run, position, like(position, 0)), d)[0]
    run_length = P.where(ends_run, P.add(P.sub(position, run_start), like(position, 1)), like(position, 0))
    best = P.expand_dims(P.argmax(run_length, d), [d])     # the first longest run: the smallest value
    value, index = P.gather(values, d, best), P.gather(order, d, best)
    return (value, index) if keepdim else (P.squeeze(value, [d]), P.squeeze(index, [d]))


register_overloads(mode, "mode", ("default", "values"))


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
        if a.numel() == 0:
            raise RuntimeError("quantile() input tensor must be non-empty")
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


# ----------------------------------------------------------------------------- counting and selection

def register_data_dependent(fn, name, overloads):
    """register_overloads for ops whose result sizes are data: an out= overload is traced on the
    assumption that they are the out tensors' sizes (eager resizes out; primkit does not, and the
    copy_to prim checks the sizes when the graph runs)."""
    packet = getattr(aten, name)
    for overload in overloads:
        op = getattr(packet, overload)
        if out_names(op):
            register_out(op, fn, check=_sizes_are_outs)
        else:
            register(op)(fn)
    return fn


def _sizes_are_outs(out, result):
    if out.dim() == result.dim():
        for size, out_size in zip(result.shape, out.shape):
            if isinstance(size, torch.SymInt):
                torch._check(size == out_size)


def _int64_of(name, t):
    if t.dtype not in dt.INT:
        raise NotImplementedError(f'"{name}_cpu" not implemented for {dt.short(t.dtype)}')
    return to_dtype(t, INT64)


def _repeated_positions(counts, output_size):
    """Index i repeated counts[i] times (counts int64). Given output_size, the size is static:
    position j belongs to the first i whose running total of counts exceeds j."""
    if output_size is None:
        return P.repeat_interleave(counts)
    return P.searchsorted(P.cumsum(counts, 0), _iota(output_size, counts.device), True)


def repeat_interleave_tensor(repeats, *, output_size=None):
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    return to_dtype(_repeated_positions(_int64_of("repeat_interleave", repeats), output_size), repeats.dtype)


def repeat_interleave_self_tensor(a, repeats, dim=None, *, output_size=None):
    """index_select of the positions repeated; a single count applies to every slice (a 0-d a
    is one slice)."""
    x = a if dim is not None and a.dim() else _flat(a)
    d = wrap_dim(dim, a.dim()) if dim is not None else 0
    if repeats.dim() > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    counts = _int64_of("repeat_interleave", repeats)
    if repeats.numel() == 1:
        counts = P.broadcast_in_dim(P.reshape(counts, []), [x.shape[d]], [])
    elif repeats.shape[0] != x.shape[d]:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{repeats.shape[0]} and input.size({d}) = {x.shape[d]}")
    return P.index_select(x, d, _repeated_positions(counts, output_size))


def repeat_interleave_self_int(a, repeats, dim=None, *, output_size=None):
    """Each slice along dim repeated: a new dim of size repeats after dim, merged into it."""
    x = a if dim is not None else _flat(a)
    d = wrap_dim(dim if dim is not None else 0, a.dim())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    wrap_dim(d + 1, x.dim() + 1)       # eager unsqueezes dim + 1: its range check
    shape = list(x.shape)
    spread = P.broadcast_in_dim(x, shape[:d + 1] + [repeats] + shape[d + 1:],
                                list(range(d + 1)) + list(range(d + 2, x.dim() + 1)))
    return contiguous(P.reshape(spread, shape[:d] + [shape[d] * repeats] + shape[d + 1:]))


register_data_dependent(repeat_interleave_tensor, "repeat_interleave", ("Tensor", "Tensor_out"))
register(aten.repeat_interleave.self_Tensor)(repeat_interleave_self_tensor)
register(aten.repeat_interleave.self_int)(repeat_interleave_self_int)


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
    x = _flat(a)
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


# as_strided_scatter: eager clones self keeping its geometry (strides, storage offset, storage) and
# copies src into that clone's as_strided view. Here: self's elements written into a flat buffer at
# their storage positions, src's over them at the view's positions, and self's positions read back.


def _storage_positions(shape, strides, offset, device):
    """The storage index of every element of a (shape, strides, offset) view, shaped like it."""
    idx = P.full(list(shape), offset, dtype=INT64, device=device)
    for d, (n, st) in enumerate(zip(shape, strides)):
        if n > 1 and st:
            idx = P.add(idx, P.broadcast_in_dim(P.iota(n, start=0, step=st, dtype=INT64, device=device),
                                                list(shape), [d]))
    return idx


def _reach(shape, strides, offset):
    return offset + sum((n - 1) * st for n, st in zip(shape, strides)) + 1 if all(shape) else 0


def as_strided_scatter(a, src, size, stride, storage_offset=None):
    offset = a.storage_offset() if storage_offset is None else storage_offset
    if any(s < 0 for s in list(size) + list(stride)) or offset < 0:
        raise RuntimeError(f"as_strided_scatter: Negative sizes, strides or storage offset are not supported: size "
                           f"{list(size)}, stride {list(stride)}, storage_offset {offset}")
    if tuple(src.shape) != tuple(size):
        raise RuntimeError(f"as_strided_scatter: expected src to have the view's size {list(size)}, got "
                           f"{list(src.shape)}")
    own = _reach(a.shape, a.stride(), a.storage_offset())
    if _reach(size, stride, offset) > own:
        raise RuntimeError(f"as_strided_scatter: the view (size {list(size)}, stride {list(stride)}, storage offset "
                           f"{offset}) reaches past self's storage of {own} elements")
    if a.numel() == 0:
        return P.clone(a)
    flat = lambda t: P.reshape(t, [t.numel()])   # noqa: E731
    self_pos = _storage_positions(a.shape, a.stride(), a.storage_offset(), a.device)
    buffer = P.scatter(P.full([own], 0, dtype=a.dtype, device=a.device), 0, flat(self_pos), flat(contiguous(a)))
    if src.numel():
        view_pos = _storage_positions(size, stride, offset, a.device)
        buffer = P.scatter(buffer, 0, flat(view_pos), flat(contiguous(to_dtype(src, a.dtype))))
    return in_layout(P.reshape(P.take(buffer, flat(self_pos)), list(a.shape)), a.stride())


register_overloads(as_strided_scatter, "as_strided_scatter", ("default", "out"))


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
        P.where(inside, to_dtype(_flat(weight), x.dtype), like(x, 0) if n == 0 else P.full([n], 0, dtype=x.dtype,
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
    order = _iota(n, a.device)
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


register_data_dependent(unique_consecutive, "unique_consecutive", ("default", "out"))
register_data_dependent(unique_dim, "unique_dim", ("default", "out"))
register_data_dependent(unique_dim_consecutive, "unique_dim_consecutive", ("default", "out"))


def nonzero_static(a, *, size, fill_value=-1):
    """nonzero's first ``size`` rows, padded with fill_value: static in shape. Each nonzero
    element's coordinates are scattered to the row of its rank among the nonzeros; elements past
    ``size`` go to a scratch row that is cut off."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    rank, n = a.dim(), a.numel()
    if rank == 0 or n == 0:
        return P.full([size, rank], fill_value, dtype=INT64, device=a.device)
    nonzero = _flat(_nonzero_mask(a))
    position = P.sub(P.cumsum(to_dtype(nonzero, INT64), 0), P.full([n], 1, dtype=INT64, device=a.device))
    kept = P.logical_and(nonzero, P.lt(position, like(position, size)))
    row = P.where(kept, position, like(position, size))
    coordinates = P.cat([P.reshape(P.broadcast_in_dim(_iota(s, a.device), list(a.shape), [k]), [n, 1])
                         for k, s in enumerate(a.shape)], 1)
    rows = P.full([size + 1, rank], fill_value, dtype=INT64, device=a.device)
    written = P.scatter(rows, 0, P.broadcast_in_dim(row, [n, rank], [0]), coordinates)
    return P.slice(written, [0, 0], [size, rank], [1, 1])


register_overloads(nonzero_static, "nonzero_static", ("default", "out"))


# ----------------------------------------------------------------------------- membership and closeness

def _check_isin_dtype(*dtypes):
    for d in dtypes:
        if d == torch.bool or d in dt.COMPLEX:
            raise RuntimeError(f"Unsupported input type encountered for isin(): {dt.short(d)}")


def _isin(elements, test, invert):
    """Whether each element is among test's: its insertion point in test sorted holds it."""
    found = P.full(list(elements.shape), False, dtype=torch.bool, device=elements.device)
    if test.numel() > 0:
        table = P.sort(_flat(test), 0, False, True)[0]
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


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """a == b, or |a - b| <= atol + |rtol * b| where that is finite (nan == nan with equal_nan);
    bool operands compare in the default float dtype."""
    if a.dtype != b.dtype:
        raise RuntimeError(f"isclose: {dt.short(a.dtype)} did not match {dt.short(b.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    close = elementwise(P.eq, a, b, kind="always_bool")
    if equal_nan and a.dtype in INEXACT:
        close = P.logical_or(close, elementwise(P.logical_and, P.isnan(a), P.isnan(b)))
    if rtol == 0 and atol == 0:
        return close
    if a.dtype == torch.bool:
        a, b = (to_dtype(t, torch.get_default_dtype()) for t in (a, b))
    allowed = elementwise(P.add, P.abs(elementwise(P.mul, b, rtol)), atol)
    actual = P.abs(elementwise(P.sub, a, b))
    within = elementwise(P.le, actual, allowed, kind="always_bool")
    if actual.dtype in INEXACT:
        within = P.logical_and(P.isfinite(actual), within)
    return P.logical_or(close, within)


register(aten.isclose.default)(isclose)
