"""Views: view, reshape, permute, transpose, expand, squeeze, slice, select, as_strided, unfold, diagonal,
and view(dtype) (a tensor's bits reinterpreted). They decompose to the view prims, which return views with
eager's strides."""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, to_dtype, wrap_dim
from primkit.decompositions.layout import in_layout
from primkit.decompositions.registry import register
from primkit.decompositions.shape.common import infer_size, wrapped_clamped
from primkit.prims import dtypes as dt
from primkit.prims.layout import contiguous_strides, elementwise_strides, is_non_overlapping, itemsize, maybe, surely
from primkit.prims.meta.shape import view_strides


# --- views -------------------------------------------------------------------------------

@register(aten.view.default, aten._unsafe_view.default)
def view(a, size):
    shape = infer_size(size, a.numel())
    if view_strides(a.shape, a.stride(), shape) is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return P.reshape(a, shape)


# --- reinterpreting bits: view(dtype) ----------------------------------------------------
# Integers of each itemsize: the words a value's bytes are regrouped in.
WORDS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _resized_words(w, size):
    """Integer words w regrouped into words of ``size`` bytes, little-endian (eager's byte order on
    the platforms torch supports): each word splits into, or joins from, the last dim's neighbours."""
    have, shape = itemsize(w.dtype), list(w.shape)
    if size == have:
        return w
    if size < have:   # split: word k of each group is w >> 8 * size * k, its low bits kept (as .to keeps them)
        r = have // size
        pieces = [to_dtype(P.shift_right_logical(w, P.full(shape, 8 * size * k, dtype=w.dtype, device=w.device)),
                           WORDS[size]) for k in range(r)]
        spread = P.cat([P.expand_dims(p, [len(shape)]) for p in pieces], len(shape))
        return P.reshape(spread, shape[:-1] + [shape[-1] * r])
    r = size // have   # join: sum over k of (group[k] zero-extended) << 8 * have * k
    groups = P.reshape(w, shape[:-1] + [shape[-1] // r, r])
    out_shape = shape[:-1] + [shape[-1] // r]
    word = WORDS[size]
    low_bits = P.full(out_shape, 2 ** (8 * have) - 1, dtype=word, device=w.device)
    joined = None
    for k in range(r):
        piece = P.squeeze(slice_(groups, -1, k, k + 1), [len(shape)])
        piece = P.bitwise_and(to_dtype(piece, word), low_bits)
        piece = P.shift_left(piece, P.full(out_shape, 8 * have * k, dtype=word, device=w.device))
        joined = piece if joined is None else P.bitwise_or(joined, piece)
    return joined


def _check_view_dtype(a, dtype, ratio, op):
    """Eager's checks where the element size changes: the last dim dense, and for larger
    elements whole groups of it (and of every other stride and the storage offset)."""
    what = f"to view {a.dtype} as {dtype} (different element sizes)"
    if a.dim() == 0:
        raise RuntimeError(f"{op}: self.dim() cannot be 0 {what}")
    if a.stride()[-1] != 1:
        raise RuntimeError(f"{op}: self.stride(-1) must be 1 {what}, but got {a.stride()[-1]}")
    if ratio > 1:
        if a.shape[-1] % ratio:
            raise RuntimeError(f"{op}: self.size(-1) must be divisible by {ratio} {what}, but got {a.shape[-1]}")
        if a.storage_offset() % ratio:
            raise RuntimeError(f"{op}: self.storage_offset() must be divisible by {ratio} {what}, but got "
                               f"{a.storage_offset()}")
        for d, st in enumerate(a.stride()[:-1]):
            if st % ratio:
                raise RuntimeError(f"{op}: self.stride({d}) must be divisible by {ratio} {what}, but got {st}")


def bitcast(a, dtype, op="view"):
    """a's bytes read as elements of dtype, in a new contiguous tensor (eager's view(dtype) values).
    Elements of another size regroup the bytes of the last dim: its size scales by the ratio of
    the element sizes. Complex elements are their real and imaginary parts side by side."""
    if itemsize(a.dtype) == itemsize(dtype):
        return P.bitcast_convert_type(a, dtype)
    _check_view_dtype(a, dtype, itemsize(dtype) // itemsize(a.dtype), op)
    a = in_layout(a, contiguous_strides(a.shape))
    if a.dtype in dt.COMPLEX:
        a = P.reshape(P.view_as_real(a), list(a.shape[:-1]) + [2 * a.shape[-1]])
    real = dt.to_real(dtype) if dtype in dt.COMPLEX else dtype
    words = _resized_words(P.bitcast_convert_type(a, WORDS[itemsize(a.dtype)]), itemsize(real))
    out = P.bitcast_convert_type(words, real)
    if dtype in dt.COMPLEX:
        out = P.view_as_complex(P.reshape(out, list(out.shape[:-1]) + [out.shape[-1] // 2, 2]))
    return out


@register(aten.view.dtype)
def view_dtype(a, dtype):
    """Eager's view(dtype) values, laid out as its view: a's strides, scaled by the ratio of the
    element sizes (dense in their order where a's elements overlap)."""
    out = bitcast(a, dtype)
    if a.dim() == 0:
        return out
    have, want = itemsize(a.dtype), itemsize(dtype)
    outer = [st * (have // want) if have >= want else st // (want // have) for st in a.stride()[:-1]]
    strides = outer + [a.stride()[-1] if have == want else 1]
    if not is_non_overlapping(out.shape, strides):
        strides = elementwise_strides(out.shape, [(strides, 1)])
    return in_layout(out, strides)


@register(aten.reshape.default)
def reshape(a, shape):
    """Eager's reshape: a view where a's strides allow one, through aten.view (so that functionalization
    sees it: a write into the result reaches a), else a reshaped copy."""
    shape = infer_size(shape, a.numel())
    if view_strides(a.shape, a.stride(), shape) is not None:
        return aten.view.default(a, shape)
    return P.reshape(a, shape)


@register(aten.permute.default)
def permute(a, dims):
    if len(dims) != a.dim():
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {a.dim()} is not equal to "
                           f"len(dims) = {len(dims)}")
    dims = [wrap_dim(d, a.dim()) for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return P.permute(a, dims)


@register(aten.t.default)
def t(a):
    if a.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.dim()}D")
    return P.permute(a, list(range(a.dim()))[::-1])


@register(aten.transpose.int)
def transpose(a, dim0, dim1):
    d0, d1 = wrap_dim(dim0, a.dim()), wrap_dim(dim1, a.dim())
    perm = list(range(a.dim()))
    if a.dim():
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return P.permute(a, perm)


@register(aten.expand.default)
def expand(a, size, *, implicit=False):
    size = list(size)
    if len(size) < a.dim():
        raise RuntimeError(f"expand: the number of sizes provided ({len(size)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({a.dim()})")
    lead = len(size) - a.dim()
    shape = []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            shape.append(s)
        else:
            cur = a.shape[i - lead]
            shape.append(cur if s == -1 else s)
            if shape[-1] != cur and cur != 1:
                raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                                   f"({cur}) at non-singleton dimension {i}.  Target sizes: {size}.  Tensor sizes: "
                                   f"{list(a.shape)}")
    return P.broadcast_in_dim(a, shape, list(range(lead, len(shape))))


@register(aten.unsqueeze.default)
def unsqueeze(a, dim):
    return P.expand_dims(a, [wrap_dim(dim, a.dim() + 1)])


@register(aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims)
def squeeze(a, dim=None):
    if dim is None:
        dims = [i for i, s in enumerate(a.shape) if s == 1]
    else:
        dims = [wrap_dim(d, a.dim()) for d in ([dim] if isinstance(dim, int) else dim)]
        dims = [d for d in dims if a.dim() and a.shape[d] == 1]   # eager ignores non-size-1 dims
    return P.squeeze(a, sorted(set(dims)))


@register(aten.alias.default)
def alias(a):
    # A same-shape reshape is a view: the graph keeps eager's aliasing.
    return P.reshape(a, list(a.shape))


@register(aten.detach.default)
def detach(a):
    # A view whose derivative is zero: a prim graph run under autograd stops the gradient there.
    return P.stop_gradient(a)


def _is_data(size) -> bool:
    """A size read from data (an unbacked symbol: nonzero's count, a .item())."""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
    return isinstance(size, torch.SymInt) and bool(free_unbacked_symbols(size))


@register(aten.slice.Tensor)
def slice_(a, dim=0, start=None, end=None, step=1):
    if a.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, a.dim())
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = a.shape[dim]
    start = 0 if start is None else start
    end = size if end is None else end
    start = wrapped_clamped(start, size)
    return slice_in_dim(a, dim, start, torch.sym_max(start, wrapped_clamped(end, size)), step)


def slice_in_dim(a, dim, start, end, step=1):
    """a[start:end:step] in dim, for 0 <= start <= end <= a.shape[dim] (the bounds already wrapped and clamped)."""
    if step == 1 and any(_is_data(s) for d, s in enumerate(a.shape) if d != dim):
        # slice's limits would name every dim's size: where one is data (a tangent sized by masked_select's
        # count), reading it binds that size in the backward graph, which AOTAutograd's partitioner then asks
        # the forward for and fails ('Node sym_size_int was invalid, but is output'). split names dim's only.
        return P.split(a, [start, end - start, a.shape[dim] - end], dim)[1]
    starts, limits, steps = [0] * a.dim(), list(a.shape), [1] * a.dim()
    starts[dim], limits[dim], steps[dim] = start, end, step
    return P.slice(a, starts, limits, steps)


@register(aten.select.int)
def select(a, dim, index):
    if a.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, a.dim())
    size = a.shape[dim]
    # maybe / torch._check: an index read from data (.item()) is checked where the graph runs
    if not (maybe(-size <= index) and maybe(index < size)):
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(a.shape)} at dimension {dim}")
    torch._check(-size <= index)
    torch._check(index < size)
    index = wrapped_clamped(index, size)   # in range: a negative index counts from the end
    return P.squeeze(slice_in_dim(a, dim, index, index + 1), [dim])


@register(aten.as_strided.default)
def as_strided(a, size, stride, storage_offset=None):
    # The offset counts from the start of a's storage, as eager's does.
    offset = a.storage_offset() if storage_offset is None else storage_offset
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(size)} sizes, {len(stride)} strides")
    if any(s < 0 for s in size) or any(s < 0 for s in stride) or offset < 0:
        raise RuntimeError(f"as_strided: Negative sizes, strides or storage offset are not supported: size "
                           f"{list(size)}, stride {list(stride)}, storage_offset {offset}")
    return P.as_strided(a, list(size), list(stride), offset)


@register(aten._reshape_alias.default)
def reshape_alias(a, size, stride):
    """a's storage read with the given sizes and strides from a's storage offset (what view computed for a
    reshape that needs no copy): as_strided with a's offset, a reshape where that gives these very strides."""
    if len(size) == len(stride) and torch.Size(size).numel() == a.numel() and \
            view_strides(a.shape, a.stride(), size) == tuple(stride):
        return P.reshape(a, list(size))
    return as_strided(a, size, stride)


@register(aten.unfold.default)
def unfold(a, dimension, size, step):
    """Tensor.unfold: the windows of length size, step apart, along dimension (a view)."""
    return P.unfold(a, wrap_dim(dimension, a.dim()), size, step)


@register(aten.diagonal.default)
def diagonal(a, offset=0, dim1=0, dim2=1):
    if a.dim() < 2:
        raise RuntimeError(f"diagonal dimensions requires ndim larger than 1, got {a.dim()}")
    d1, d2 = wrap_dim(dim1, a.dim()), wrap_dim(dim2, a.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rest = [d for d in range(a.dim()) if d not in (d1, d2)]
    rows, cols = a.shape[d1], a.shape[d2]
    # sym_min/sym_max: no guard where a size is data (rows a mask selects); ints as min/max
    length = torch.sym_max(torch.sym_min(rows, cols - offset) if offset >= 0 else torch.sym_min(rows + offset, cols), 0)
    # The diagonal of the (rows, cols) plane: flat index first + i * (cols + 1).
    first = offset if offset >= 0 else -offset * cols
    moved = P.permute(a, rest + [d1, d2])
    plane = [rows * cols]
    outer = [a.shape[d] for d in rest]
    if maybe(length > 0) and view_strides(moved.shape, moved.stride(), outer + plane) is None:
        # The two dims do not merge into one strided dim: take the diagonal of a dense copy in
        # a's dim order (so the strides are eager's); unlike eager's, it does not alias a.
        dense = P.clone(moved)
        row_stride, col_stride = dense.stride()[-2], dense.stride()[-1]
        start = offset * col_stride if offset >= 0 else -offset * row_stride
        return P.as_strided(dense, outer + [length], list(dense.stride()[:-2]) + [row_stride + col_stride], start)
    flat = P.reshape(moved, outer + plane)
    if surely(length == 0):
        return P.slice(flat, [0] * len(plane + outer), outer + [0], [1] * len(plane + outer))
    if isinstance(length, int):
        last = first + (length - 1) * (cols + 1) + 1
    else:   # a length read from data may be 0 where the graph runs: first and last clamped into the plane
        first = torch.sym_min(first, rows * cols)
        last = torch.sym_max(torch.sym_min(first + length * (cols + 1) - cols, rows * cols), first)
    return P.slice(flat, [0] * len(rest) + [first], outer + [last], [1] * len(rest) + [cols + 1])
