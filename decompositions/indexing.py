"""Decompositions of indexing: gather, scatter, index_select, take_along_dim, masked_fill,
advanced indexing (``a[i, j]``) and index_put.

Advanced indexing takes the indexed dims together as one flat dim (row-major over their
sizes), so one index_select reads and one scatter writes. Index values are data: they are
not range-checked at trace time (the prims' reference kernels check them when they run).
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, broadcast_shapes, broadcast_to, like, prepare, register_overloads, to_dtype, wrap_dim)
from primkit.decompositions.registry import register
from primkit.decompositions.shape import contiguous, in_layout
from primkit.prims import dtypes as dt
from primkit.prims.meta.strides import contiguous_strides, elementwise_strides, itemsize

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
        if d != dim and index.shape[d] > a.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index.shape)} to be no "
                               f"larger than self {list(a.shape)} apart from dimension {dim}")
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
        from primkit.decompositions.indexing_extra import _scatter_reduce
        if index.numel() == 0:
            return contiguous(P.clone(a))
        if src.dim() and tuple(src.shape) != tuple(index.shape):   # the leading block of src, as scatter reads it
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

class _Indexing:
    """a[indices]'s geometry: which dims are indexed, the broadcast index shape, where the
    index dims land in the result (in place when the indexed dims are adjacent, else first)."""

    def __init__(self, a, indices):
        indices = list(indices)
        if len(indices) > a.dim():
            raise IndexError(f"too many indices for tensor of dimension {a.dim()} (got {len(indices)})")
        for i in indices:
            if i is not None and i.dtype not in INDEX_DTYPES:
                if i.dtype in (torch.bool, torch.uint8):
                    raise RuntimeError("index: boolean mask indices give a result shape that depends on the "
                                       "mask's values; primkit cannot trace them (index with integer tensors)")
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
                st if sz != 1 else 0 for sz, st in zip(original.shape, original.stride())]
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


register_overloads(index_put, "index_put", ("default", "out"), inplace=("default",))
register(torch.ops.aten._unsafe_index_put.default)(index_put)     # index_put without its bounds check
