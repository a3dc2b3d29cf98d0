"""The *_scatter ops that write a view's worth of values into a copy (as_strided_scatter, select_scatter,
slice_scatter, diagonal_scatter) and the backward ops of diagonal and unfold."""
from __future__ import annotations

import torch

from primkit.decompositions.common import (
    P, aten, check_sizes, register_overloads, register_with_variants, to_dtype, wrap_dim)
from primkit.decompositions.layout import contiguous, in_layout
from primkit.decompositions.shape.common import wrapped_clamped
from primkit.prims.layout import elementwise_strides, is_non_overlapping, itemsize


# as_strided_scatter: eager clones self keeping its geometry (strides, storage offset, storage) and
# copies src into that clone's as_strided view. Here: self's elements written into a flat buffer at
# their storage positions, src's over them at the view's positions, and self's positions read back.


# --- as_strided_scatter ----------------------------------------------------------------

def _storage_positions(shape, strides, offset, device):
    """The storage index of every element of a (shape, strides, offset) view, shaped like it."""
    idx = P.full(list(shape), offset, dtype=torch.int64, device=device)
    for d, (n, st) in enumerate(zip(shape, strides)):
        if n > 1 and st:
            idx = P.add(idx, P.broadcast_in_dim(P.iota(n, start=0, step=st, dtype=torch.int64, device=device),
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
    # eager writes into a copy of self's whole storage: the view may reach past self's elements, not past it
    storage = a.untyped_storage().nbytes() // itemsize(a.dtype)
    own, reach = _reach(a.shape, a.stride(), a.storage_offset()), _reach(size, stride, offset)
    if reach > max(own, storage):
        raise RuntimeError(f"as_strided_scatter: the view (size {list(size)}, stride {list(stride)}, storage offset "
                           f"{offset}) reaches past self's storage of {max(own, storage)} elements")
    if a.numel() == 0:
        return P.clone(a)
    own = max(own, reach)   # the buffer holds self's positions and the view's
    flat = lambda t: P.reshape(t, [t.numel()])   # noqa: E731
    self_pos = _storage_positions(a.shape, a.stride(), a.storage_offset(), a.device)
    buffer = P.scatter(P.full([own], 0, dtype=a.dtype, device=a.device), 0, flat(self_pos), flat(contiguous(a)))
    if src.numel():
        view_pos = _storage_positions(size, stride, offset, a.device)
        buffer = P.scatter(buffer, 0, flat(view_pos), flat(contiguous(to_dtype(src, a.dtype))))
    return in_layout(P.reshape(P.take(buffer, flat(self_pos)), list(a.shape)), a.stride())


register_overloads(as_strided_scatter, "as_strided_scatter", ("default", "out"))


# ------------------------------------------------------------------ *_scatter: a view's values written into a copy


def _check_src(src, view, op):
    def unequal():
        return RuntimeError(f"{op}: expected src to have a size equal to the slice of self. src size = "
                            f"{list(src.shape)}, slice size = {list(view.shape)}")
    check_sizes(src.dim() == view.dim(), unequal)
    for s, v in zip(src.shape, view.shape):   # a size read from data is checked where the graph runs
        check_sizes(s == v, unequal)


def in_scatter_layout(result, a):
    """result laid out as eager's *_scatter lays it out: a's exact strides (gaps included) when a's
    elements do not overlap, else dense in a's dim order (a clone that preserves strides)."""
    strides = a.stride() if is_non_overlapping(a.shape, a.stride()) else elementwise_strides(a.shape, [(a.stride(), 1)])
    return in_layout(result, strides)


def _slice_update(a, src, dim, start, limit, step):
    """a with src written into a[start:limit:step] along dim (every other dim whole)."""
    starts = [0] * a.dim()
    limits = list(a.shape)
    steps = [1] * a.dim()
    starts[dim], limits[dim], steps[dim] = start, limit, step
    return in_scatter_layout(P.slice_update(a, to_dtype(src, a.dtype), starts, limits, steps), a)


def select_scatter(a, src, dim, index):
    """a with src written at index along dim (dense in a's dim order, like eager's clone)."""
    view = aten.select.int(a, dim, index)     # eager's checks of dim and index
    _check_src(src, view, "select_scatter")
    dim = wrap_dim(dim, a.dim(), "select_scatter")
    index = index + a.shape[dim] if index < 0 else index
    return _slice_update(a, aten.unsqueeze.default(src, dim), dim, index, index + 1, 1)


def slice_scatter(a, src, dim=0, start=None, end=None, step=1):
    """a with src written into a[start:end:step] along dim."""
    view = aten.slice.Tensor(a, dim, start, end, step)
    _check_src(src, view, "slice_scatter")
    dim = wrap_dim(dim, a.dim(), "slice_scatter")
    size = a.shape[dim]
    start = 0 if start is None else wrapped_clamped(start, size)
    end = size if end is None else torch.sym_max(wrapped_clamped(end, size), start)
    return _slice_update(a, src, dim, start, end, step)


def diagonal_scatter(a, src, offset=0, dim1=0, dim2=1):
    """a with src written on its diagonal (offset, dim1, dim2): src's last dim, padded to the
    length of the dim it runs along, broadcast over the other dim and selected on the diagonal."""
    view = aten.diagonal.default(a, offset, dim1, dim2)   # eager's checks of the dims
    _check_src(src, view, "diagonal_scatter")
    d1, d2 = wrap_dim(dim1, a.dim(), "diagonal_scatter"), wrap_dim(dim2, a.dim(), "diagonal_scatter")
    along = d1 if offset >= 0 else d2            # the diagonal's k-th entry sits at index k of this dim
    n = a.shape[along]
    padded = aten.constant_pad_nd.default(to_dtype(src, a.dtype), [0, n - src.shape[-1]])
    batch = [d for d in range(a.dim()) if d not in (d1, d2)]
    targets = batch + [along]                    # a's dim each of padded's dims maps to
    order = sorted(range(len(targets)), key=targets.__getitem__)
    full = P.broadcast_in_dim(aten.permute.default(padded, order), list(a.shape), sorted(targets))
    rows = P.broadcast_in_dim(P.iota(a.shape[d1], start=0, step=1, dtype=torch.int64, device=a.device),
                              list(a.shape), [d1])
    cols = P.broadcast_in_dim(P.iota(a.shape[d2], start=-offset, step=1, dtype=torch.int64, device=a.device),
                              list(a.shape), [d2])
    return in_scatter_layout(aten.where.self(P.eq(rows, cols), full, a), a)


register_with_variants("select_scatter", select_scatter)
register_with_variants("slice_scatter", slice_scatter)
register_with_variants("diagonal_scatter", diagonal_scatter)


# The backward ops of diagonal and unfold (AOTAutograd's backward graphs hold them).
def diagonal_backward(grad_output, input_sizes, offset, dim1, dim2):
    """diagonal's gradient: grad_output on the diagonal of zeros of the input's size."""
    zeros = aten.zeros.default(input_sizes, dtype=grad_output.dtype, device=grad_output.device)
    return diagonal_scatter(zeros, grad_output, offset, dim1, dim2)


def unfold_backward(grad_in, input_sizes, dim, size, step):
    """unfold's gradient: each window's gradient added back where the window read (windows overlap
    where step < size). grad_in holds the windows along ``dim`` and each window's elements last."""
    if len(input_sizes) == 0:      # a 0-d input unfolds to its one element
        return aten.reshape.default(grad_in, [])
    dim = wrap_dim(dim, len(input_sizes), "unfold_backward")
    windows = grad_in.shape[dim]
    g = aten.flatten.using_ints(aten.movedim.int(grad_in, -1, dim + 1), dim, dim + 1)
    starts = P.broadcast_in_dim(P.iota(windows, start=0, step=step, dtype=torch.int64, device=grad_in.device),
                                [windows, size], [0])
    offsets = P.broadcast_in_dim(P.iota(size, start=0, step=1, dtype=torch.int64, device=grad_in.device),
                                 [windows, size], [1])
    index = aten.reshape.default(P.add(starts, offsets), [-1])
    zeros = aten.zeros.default(input_sizes, dtype=grad_in.dtype, device=grad_in.device)
    return aten.index_add.default(zeros, dim, index, g)


register_with_variants("diagonal_backward", diagonal_backward)
register_with_variants("unfold_backward", unfold_backward)
