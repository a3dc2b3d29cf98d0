"""Decompositions of indexing: gather, scatter, index_select, take_along_dim, masked_fill,
advanced indexing (``a[i, j]``) and index_put; the writes at tensor-valued indices (index_add,
index_copy, index_fill, index_reduce, scatter_reduce, masked_scatter, put), each one write prim;
repeat_interleave and nonzero_static.

Advanced indexing takes the indexed dims together as one flat dim (row-major over their
sizes), so one index_select reads and one scatter writes. Index values are data: they are
not range-checked at trace time (the prims' reference kernels check them when they run).
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, check_sizes, like, prepare, register_overloads,
    register_with_variants, to_dtype, wrap_dim)
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous, in_layout, preserved_strides
from primkit.prims import dtypes as dt
from primkit.prims.layout import elementwise_strides, itemsize, same_sizes, surely


INDEX_DTYPES = (torch.int64, torch.int32)


def _as_int64_index(name, index, allowed=INDEX_DTYPES):
    if index.dtype not in allowed:
        raise RuntimeError(f"{name}(): Expected dtype {' or '.join(dt.short(d) for d in allowed)} for index, "
                           f"got {dt.short(index.dtype)}")
    return to_dtype(index, torch.int64)


# ----------------------------------------------------------------------------- gather / scatter

def _check_index_rank(name, a, index, what="input"):
    if index.dim() != a.dim() and not (index.dim() <= 1 and a.dim() <= 1):
        raise RuntimeError(f"{name}: Index tensor must have the same number of dimensions as {what} tensor")


def gather(a, dim, index, *, sparse_grad=False):
    index = _as_int64_index("gather", index)
    _check_index_rank("gather", a, index)
    dim = wrap_dim(dim, a.dim())
    for d in range(a.dim()):
        if d != dim:
            check_sizes(index.shape[d] <= a.shape[d], lambda: RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index.shape)} to be no larger than self "
                f"{list(a.shape)} apart from dimension {dim}"))
    return P.gather(a, dim, index)


register_overloads(gather, "gather", ("default", "out"))


def scatter(a, dim, index, src, *, reduce=None):
    """scatter.src / scatter.value (src a number); reduce='add' is scatter_add, reduce='multiply'
    the scatter_reduce prim's product (self included). Eager's result is contiguous (its structured
    kernel allocates a fresh output)."""
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    index = _as_int64_index("scatter", index)
    _check_index_rank("scatter", a, index, "self")
    if isinstance(src, torch.Tensor):
        if src.dtype != a.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    else:
        src = P.full(list(index.shape), src, dtype=a.dtype, device=a.device)
    dim = wrap_dim(dim, a.dim())
    if reduce == "multiply":   # scatter_reduce's prod over a and src (include_self)
        if surely(index.numel() == 0):
            return contiguous(P.clone(a))
        if src.dim() and not same_sizes(src.shape, index.shape):   # the leading block of src, as scatter reads it
            src = P.slice(src, [0] * src.dim(), list(index.shape), [1] * src.dim())
        return contiguous(_scatter_reduce(a, dim, index, src, "prod", True))
    prim = P.scatter_add if reduce == "add" else P.scatter
    return contiguous(prim(a, dim, index, src))


def scatter_add(a, dim, index, src):
    return scatter(a, dim, index, src, reduce="add")


register_overloads(scatter, "scatter", ("src", "value", "reduce", "value_reduce", "src_out", "value_out",
                                        "reduce_out", "value_reduce_out"),
                   inplace=("src", "value", "reduce", "value_reduce"))
register_overloads(scatter_add, "scatter_add", ("default", "out"), inplace=("default",))


def index_select(a, dim, index):
    index = _as_int64_index("index_select", index)
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return P.index_select(a, wrap_dim(dim, a.dim()), P.reshape(index, [index.numel()]))


register_overloads(index_select, "index_select", ("default", "out"))


def take_along_dim(a, indices, dim=None):
    if indices.dtype != torch.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {dt.short(indices.dtype)}")
    if dim is None:
        return P.gather(P.reshape(a, [a.numel()]), 0, P.reshape(indices, [indices.numel()]))
    if a.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {a.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    dim = wrap_dim(dim, a.dim())
    # Every dim but dim broadcasts; along dim each keeps its own size.
    common = list(broadcast_shapes(*(tuple(1 if d == dim else s for d, s in enumerate(t.shape))
                                     for t in (a, indices))))
    expanded = [broadcast_to(t, common[:dim] + [t.shape[dim]] + common[dim + 1:]) for t in (a, indices)]
    return P.gather(expanded[0], dim, expanded[1])


register_overloads(take_along_dim, "take_along_dim", ("default", "out"))


# ----------------------------------------------------------------------------- masked_fill

def masked_fill(a, mask, value):
    """where(mask, value, a) over the broadcast shape; eager's result is contiguous."""
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {dt.short(mask.dtype)}")
    if isinstance(value, torch.Tensor) and value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    shape = broadcast_shapes(a.shape, mask.shape)
    filled = P.where(broadcast_to(mask, shape), prepare(value, a.dtype, shape, a.device), broadcast_to(a, shape))
    return contiguous(filled)


register_overloads(masked_fill, "masked_fill", ("Scalar", "Tensor", "Scalar_out", "Tensor_out"),
                   inplace=("Scalar", "Tensor"))


# ----------------------------------------------------------------------------- advanced indexing

def _is_mask(i) -> bool:
    return i is not None and i.dtype in (torch.bool, torch.uint8)


def _masks_as_coordinates(a, indices):
    """Each boolean (or byte) mask index as eager reads it: one int64 index per dim it covers, the
    columns of the mask's nonzero coordinates (their count is data: an unbacked size under trace)."""
    out = []
    for i in indices:
        if not _is_mask(i):
            out.append(i)
            continue
        if i.dim() == 0:
            raise RuntimeError("index: a 0-d boolean mask index (x[True]) has no decomposition to prims; index "
                               "with a 1-element mask of x's leading dim instead")
        _check_mask_shape(a, i, len(out))
        coordinates = P.nonzero(_nonzero_mask(i))
        n = coordinates.shape[0]
        out += [P.reshape(P.slice(coordinates, [0, c], [n, c + 1], [1, 1]), [n]) for c in range(i.dim())]
    return out


def _check_mask_shape(a, mask, first):
    """The mask covers a's dims first, first + 1, ...: sizes equal (eager's IndexError)."""
    for j, size in enumerate(mask.shape):
        if first + j >= a.dim() or not _may_equal(size, a.shape[first + j]):
            raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not match the shape of "
                             f"the indexed tensor {list(a.shape)} at index {first + j}")


def _may_equal(x, y) -> bool:
    """x == y unless known otherwise (sizes of a data-dependent count are assumed equal, as torch does)."""
    return not surely(x != y)


class _Indexing:
    """a[indices]'s geometry: which dims are indexed, the broadcast index shape, where the
    index dims land in the result (in place when the indexed dims are adjacent, else first)."""

    def __init__(self, a, indices):
        indices = _masks_as_coordinates(a, indices)
        if len(indices) > a.dim():
            raise IndexError(f"too many indices for tensor of dimension {a.dim()} (got {len(indices)})")
        for i in indices:
            if i is not None and i.dtype not in INDEX_DTYPES:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        self.a = a
        self.dims = [d for d, i in enumerate(indices) if i is not None]
        self.given = {d: indices[d] for d in self.dims}
        self.rest = [d for d in range(a.dim()) if d not in self.dims]
        shapes = [tuple(indices[d].shape) for d in self.dims]
        try:
            self.shape = broadcast_shapes(*shapes)
        except RuntimeError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                             + ", ".join(str(list(s)) for s in shapes)) from None
        self.indices = [to_dtype(broadcast_to(indices[d], self.shape), torch.int64) for d in self.dims]
        adjacent = self.dims == list(range(self.dims[0], self.dims[-1] + 1)) if self.dims else True
        self.at = self.dims[0] if adjacent and self.dims else 0   # where the index dims go in the result

    def flat_index(self):
        """The row-major position over the indexed dims; negative indices count from the end."""
        flat = None
        for d, i in zip(self.dims, self.indices):
            size = self.a.shape[d]
            i = P.where(P.lt(i, like(i, 0)), P.add(i, like(i, size)), i)
            flat = i if flat is None else P.add(P.mul(flat, like(flat, size)), i)
        return P.reshape(flat, [math.prod(self.shape)])

    def grouped(self, t):
        """t (shaped like a) with its indexed dims first and merged into one."""
        t = P.permute(t, self.dims + self.rest)
        return P.reshape(t, [math.prod(self.a.shape[d] for d in self.dims)] + [self.a.shape[d] for d in self.rest])

    def ungrouped(self, t):
        """The inverse of grouped."""
        t = P.reshape(t, [self.a.shape[d] for d in self.dims + self.rest])
        order = self.dims + self.rest
        return P.permute(t, [order.index(d) for d in range(self.a.dim())])

    def result_shape(self):
        rest = [self.a.shape[d] for d in self.rest]
        return rest[:self.at] + list(self.shape) + rest[self.at:]

    def index_first(self, t):
        """A result-shaped t with the index dims moved first (the grouped order)."""
        n = len(self.shape)
        order = list(range(self.at, self.at + n)) + list(range(self.at)) + list(range(self.at + n, t.dim()))
        return P.permute(t, order)

    def index_in_place(self, t):
        """The inverse of index_first."""
        n = len(self.shape)
        order = list(range(n, n + self.at)) + list(range(n)) + list(range(n + self.at, t.dim()))
        return P.permute(t, order)

    def eager_strides(self):
        """The result's strides as eager's TensorIterator lays them out: from a's strides, with
        the index dims ordered by the index tensors' strides."""
        shape = self.result_shape()
        n, zeros = len(self.shape), [0] * len(self.shape)
        rest = [self.a.stride(d) for d in self.rest]
        operands = [(rest[:self.at] + zeros + rest[self.at:], itemsize(self.a.dtype))]
        for d in self.dims:
            original = self.given[d]
            strides = [0] * (n - original.dim()) + [
                0 if surely(sz == 1) else st for sz, st in zip(original.shape, original.stride())]
            operands.append(([0] * self.at + strides + [0] * (len(shape) - self.at - n), 8))
        return elementwise_strides(shape, operands)


def index(a, indices):
    g = _Indexing(a, indices)
    if not g.dims:
        return P.clone(a)
    picked = P.index_select(g.grouped(a), 0, g.flat_index())
    out = P.reshape(picked, list(g.shape) + [a.shape[d] for d in g.rest])
    return in_layout(g.index_in_place(out), g.eager_strides())


register_overloads(index, "index", ("Tensor", "Tensor_out"))


# aten::_unsafe_index is index without its bounds check (torch's CompositeImplicitAutograd upsample
# kernels index with it, so training graphs reach it); an index out of range is undefined there.
register(torch.ops.aten._unsafe_index.Tensor)(index)


def index_put(a, indices, values, accumulate=False):
    """A copy of a with values (broadcast to a[indices]'s shape) written, or added, at indices.
    With repeated indices and accumulate=False the winner is unspecified, as in eager."""
    if values.dtype != a.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{dt.short(a.dtype)} for the destination and {dt.short(values.dtype)} for the source.")
    given = [i for i in indices if i is not None]
    if len(given) == 1 and _is_mask(given[0]) and given[0].dim() > 0 and not accumulate:
        return _masked_write(a, list(indices), values)
    g = _Indexing(a, indices)
    if not g.dims:
        return P.clone(a)
    if broadcast_shapes(values.shape, g.result_shape()) != tuple(g.result_shape()):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {g.result_shape()}")
    values = g.index_first(broadcast_to(values, g.result_shape()))
    rows = math.prod(g.shape)
    values = P.reshape(values, [rows] + [a.shape[d] for d in g.rest])
    where = P.broadcast_in_dim(g.flat_index(), list(values.shape), [0])
    prim = P.scatter_add if accumulate else P.scatter
    out = g.ungrouped(prim(g.grouped(a), 0, where, values))
    # Eager clones a (keeping its layout) and writes in place.
    return in_layout(out, elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))]))


def _masked_write(a, indices, values):
    """index_put at one boolean mask (None elsewhere: ``x[m] = v``, ``x[:, m] = v``): values where the
    mask holds, a elsewhere. The result is a's shape whatever the mask holds, so no data-dependent size
    arises. values are broadcast over the masked dims where they have one row there (or none), else
    (``x[m] = y[m]``) each True element takes the row of its rank among the True ones (row-major), as
    eager's. That the row count is the mask's True count is assumed, not checked, when the graph runs."""
    first = next(k for k, i in enumerate(indices) if i is not None)
    mask = indices[first]
    _check_mask_shape(a, mask, first)
    masked = list(range(first, first + mask.dim()))
    lead, trail = list(a.shape[:first]), list(a.shape[first + mask.dim():])
    target = lead + [mask.numel()] + trail          # the rows of the result, at most one per element
    if values.dim() > len(target):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {lead + ['count'] + trail}")
    shape = [1] * (len(target) - values.dim()) + list(values.shape)
    rows = shape[first]
    broadcast_shapes(shape[:first] + [1] + shape[first + 1:], lead + [1] + trail)   # eager's error on a mismatch
    aligned = broadcast_to(values, lead + [rows] + trail)
    if surely(rows == 1):    # (squeeze, not reshape: values may be a constant, which make_fx folds)
        rows_at = P.broadcast_in_dim(P.squeeze(aligned, [first]), list(a.shape),
                                     list(range(first)) + list(range(first + mask.dim(), a.dim())))
    else:
        # the k-th True element takes row k; a zero row appended keeps every position in range (no True
        # element, no rows) for the elements where the mask is False
        padded = P.cat([aligned, P.full(lead + [1] + trail, 0, dtype=a.dtype, device=a.device)], first)
        rank = P.cumsum(to_dtype(flatten_1d(_nonzero_mask(mask)), INT64), 0)
        rank = P.maximum(P.sub(rank, like(rank, 1)), like(rank, 0))
        rows_at = P.reshape(P.index_select(padded, first, rank), list(a.shape))
    written = P.where(P.broadcast_in_dim(_nonzero_mask(mask), list(a.shape), masked),
                      broadcast_to(rows_at, a.shape), a)
    return in_layout(written, elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))]))


register_overloads(index_put, "index_put", ("default", "out"), inplace=("default",))
register(torch.ops.aten._unsafe_index_put.default)(index_put)     # index_put without its bounds check


def index_put_impl(a, indices, values, accumulate=False, unsafe=False):
    """The kernel index_put_ calls (in place, aten._index_put_impl_; its functional and out= forms too): unsafe
    skips eager's bounds check, where an index out of range is undefined; here it is index_put's either way."""
    return index_put(a, indices, values, accumulate)


register_overloads(index_put_impl, "_index_put_impl", ("default", "out"), inplace=("default",))


# ----------------------------------------------------------------------------- index writes

INT64 = torch.int64
INEXACT = dt.FLOAT | dt.COMPLEX


def iota(n, device):
    return P.iota(n, start=0, step=1, dtype=INT64, device=device)


def flatten_1d(t):
    return P.reshape(t, [t.numel()])


def _nonzero_mask(a):
    return a if a.dtype == torch.bool else P.ne(a, like(a, 0))


def _truth(t):
    """A bool op's result from its int64 computation (the write prims take no bool): bool adds and
    takes maxima as a logical or, multiplies and takes minima as a logical and, so an int64
    result's nonzero elements are eager's True ones."""
    return P.ne(t, like(t, 0))


def _index_vector(name, index, dtypes):
    """A 0-d or 1-d integer index as a 1-d int64 tensor, with eager's checks."""
    if index.dtype not in dtypes:
        raise RuntimeError(f"{name}(): Expected dtype {'/'.join(dt.short(d) for d in dtypes)} for index, got "
                           f"{dt.short(index.dtype)}")
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: {index.dim()} with size "
                         f"{list(index.shape)}")
    return flatten_1d(to_dtype(index, INT64))


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
    index = flatten_1d(index)
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
    def larger():
        return RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(a.shape)} apart "
                            f"from dimension {d} and to be no larger size than src {list(src.shape)}")
    for k in range(index.dim()):
        check_sizes(index.shape[k] <= (src.shape[k] if src.dim() else 1), larger)
        if k != d:
            check_sizes(index.shape[k] <= (a.shape[k] if a.dim() else 1), larger)
    if surely(index.numel() == 0):
        return contiguous(P.clone(a))
    if src.dim() != index.dim() or not same_sizes(src.shape, index.shape):
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


def masked_scatter_backward(grad_output, mask, sizes):
    """The gradient of masked_scatter's source (of size ``sizes``): grad_output's elements where the
    mask is set, in order, then zeros (the source elements masked_scatter did not read). The k-th set
    element goes to position k, a running count of the mask: no size depends on the data."""
    numel = math.prod(sizes)
    zeros = aten.zeros.default([numel], dtype=grad_output.dtype, device=grad_output.device)
    if numel == 0:
        return aten.reshape.default(zeros, sizes)
    mask = aten.reshape.default(broadcast_to(mask, grad_output.shape), [-1])
    position = aten.sub.Tensor(aten.cumsum.default(mask, 0, dtype=torch.int64), 1)
    position = aten.where.ScalarOther(mask, position, 0)
    values = aten.where.ScalarOther(mask, aten.reshape.default(grad_output, [-1]), 0)
    return aten.reshape.default(aten.scatter_add.default(zeros, 0, position, values), sizes)


register_with_variants("masked_scatter_backward", masked_scatter_backward)


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
    index = flatten_1d(index)
    index = P.where(P.lt(index, like(index, 0)), P.add(index, like(index, n)), index)
    if accumulate and a.dtype == torch.bool:
        written = _truth(P.index_add(to_dtype(flatten_1d(a), INT64), 0, index, to_dtype(flatten_1d(source), INT64)))
    else:
        written = (P.index_add if accumulate else P.index_copy)(flatten_1d(a), 0, index, flatten_1d(source))
    written = P.reshape(written, list(a.shape))
    return in_layout(written, preserved_strides(a))


register_overloads(put, "put", ("default", "out"), inplace=("default",))


# ----------------------------------------------------------------------------- data-sized results: repeat_interleave, nonzero_static

def _int64_of(name, t):
    if t.dtype not in dt.INT:
        raise NotImplementedError(f'"{name}_cpu" not implemented for {dt.short(t.dtype)}')
    return to_dtype(t, INT64)


def _repeated_positions(counts, output_size):
    """Index i repeated counts[i] times (counts int64). Given output_size, the size is static:
    position j belongs to the first i whose running total of counts exceeds j."""
    if output_size is None:
        return P.repeat_interleave(counts)
    return P.searchsorted(P.cumsum(counts, 0), iota(output_size, counts.device), True)


def repeat_interleave_tensor(repeats, *, output_size=None):
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    return to_dtype(_repeated_positions(_int64_of("repeat_interleave", repeats), output_size), repeats.dtype)


def repeat_interleave_self_tensor(a, repeats, dim=None, *, output_size=None):
    """index_select of the positions repeated; a single count applies to every slice (a 0-d a
    is one slice)."""
    x = a if dim is not None and a.dim() else flatten_1d(a)
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
    x = a if dim is not None else flatten_1d(a)
    d = wrap_dim(dim if dim is not None else 0, a.dim())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    wrap_dim(d + 1, x.dim() + 1)       # eager unsqueezes dim + 1: its range check
    shape = list(x.shape)
    spread = P.broadcast_in_dim(x, shape[:d + 1] + [repeats] + shape[d + 1:],
                                list(range(d + 1)) + list(range(d + 2, x.dim() + 1)))
    return contiguous(P.reshape(spread, shape[:d] + [shape[d] * repeats] + shape[d + 1:]))


register_overloads(repeat_interleave_tensor, "repeat_interleave", ("Tensor", "Tensor_out"))
register(aten.repeat_interleave.self_Tensor)(repeat_interleave_self_tensor)
register(aten.repeat_interleave.self_int)(repeat_interleave_self_int)


def nonzero_static(a, *, size, fill_value=-1):
    """nonzero's first ``size`` rows, padded with fill_value: static in shape. Each nonzero
    element's coordinates are scattered to the row of its rank among the nonzeros; elements past
    ``size`` go to a scratch row that is cut off."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    rank, n = a.dim(), a.numel()
    if rank == 0 or n == 0:
        return P.full([size, rank], fill_value, dtype=INT64, device=a.device)
    nonzero = flatten_1d(_nonzero_mask(a))
    position = P.sub(P.cumsum(to_dtype(nonzero, INT64), 0), P.full([n], 1, dtype=INT64, device=a.device))
    kept = P.logical_and(nonzero, P.lt(position, like(position, size)))
    row = P.where(kept, position, like(position, size))
    coordinates = P.cat([P.reshape(P.broadcast_in_dim(iota(s, a.device), list(a.shape), [k]), [n, 1])
                         for k, s in enumerate(a.shape)], 1)
    rows = P.full([size + 1, rank], fill_value, dtype=INT64, device=a.device)
    written = P.scatter(rows, 0, P.broadcast_in_dim(row, [n, rank], [0]), coordinates)
    return P.slice(written, [0, 0], [size, rank], [1, 1])


register_overloads(nonzero_static, "nonzero_static", ("default", "out"))
