"""Decompositions of shape and layout ops: views, reshapes, transposes, splits, concatenation,
padding, copies and conversions; the functional copies of views (permute_copy, ...); the *_scatter
ops that write a view's worth of values into a copy (as_strided_scatter too); block_diag,
cartesian_prod and combinations; the CompositeImplicitAutograd conveniences of torch.* (ravel,
hsplit, atleast_2d, movedim, diag_embed, rot90, meshgrid, ...).

Views decompose to the view prims (reshape, permute, slice, squeeze, expand_dims,
broadcast_in_dim, as_strided), which return views with eager's strides; ops that allocate
compute eager's output layout and copy into it where the prims' default layout differs.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, contiguous_out, out_names, prepare, register_inplace, register_out,
    register_overloads, register_with_variants, to_dtype, wrap_dim, wrap_dims)
from primkit.decompositions.layout import (
    contiguous, in_layout, preserved_strides, strides_for, suggested_strides, suggests_channels_last)
from primkit.decompositions.registry import register
from primkit.decompositions.type_promotion import result_type
from primkit.prims import dtypes as dt
from primkit.prims.meta.shape import view_strides
from primkit.prims.layout import (
    channels_last_strides, contiguous_strides, elementwise_strides, is_contiguous, is_non_overlapping, itemsize,
    maybe, same_sizes, surely)


# --- dims, sizes and layouts -------------------------------------------------------------

def check_sizes(size, op):
    """Each size >= 0 (eager's RuntimeError). A data-dependent size (an unbacked SymInt, ``.item()``'s)
    cannot be decided while tracing: torch._check records it as the ShapeEnv's assumption instead."""
    for s in size:
        torch._check(s >= 0, lambda: f"{op}: Trying to create tensor with negative dimension {s}: {list(size)}")


def infer_size(shape, numel):
    """Resolve one -1 in shape (eager's rules and messages)."""
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known = known * s
    if neg:
        if known == 0:
            raise RuntimeError(f"cannot reshape tensor of {numel} elements into shape {shape} because the "
                               f"unspecified dimension size -1 can be any value and is ambiguous")
        if numel % known != 0:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return shape




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


def _from_end(index, size):
    """A negative index counts from the end: decided where the sign is known, else (an index that is
    data) a symbolic if-then-else the graph computes when it runs."""
    if surely(index < 0):
        return index + size
    if surely(index >= 0):
        return index
    return torch.sym_ite(index < 0, index + size, index)


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
    # sym_min / sym_max / sym_ite: a bound read from data (.item()) wraps and clamps symbolically
    start = torch.sym_max(0, torch.sym_min(size, _from_end(start, size)))
    end = torch.sym_max(start, torch.sym_min(size, _from_end(end, size)))
    starts, limits, steps = [0] * a.dim(), list(a.shape), [1] * a.dim()
    starts[dim], limits[dim], steps[dim] = start, end, step
    return P.slice(a, starts, limits, steps)


@register(aten.select.int)
def select(a, dim, index):
    if a.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, a.dim())
    size = a.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(a.shape)} at dimension {dim}")
    index = index % size
    return P.squeeze(slice_(a, dim, index, index + 1), [dim])


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
    length = max(min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols), 0)
    # The diagonal of the (rows, cols) plane: flat index first + i * (cols + 1).
    first = offset if offset >= 0 else -offset * cols
    moved = P.permute(a, rest + [d1, d2])
    plane = [rows * cols]
    outer = [a.shape[d] for d in rest]
    if length > 0 and view_strides(moved.shape, moved.stride(), outer + plane) is None:
        # The two dims do not merge into one strided dim: take the diagonal of a dense copy in
        # a's dim order (so the strides are eager's); unlike eager's, it does not alias a.
        dense = P.clone(moved)
        row_stride, col_stride = dense.stride()[-2], dense.stride()[-1]
        start = offset * col_stride if offset >= 0 else -offset * row_stride
        return P.as_strided(dense, outer + [length], list(dense.stride()[:-2]) + [row_stride + col_stride], start)
    flat = P.reshape(moved, outer + plane)
    if length == 0:
        return P.slice(flat, [0] * len(plane + outer), outer + [0], [1] * len(plane + outer))
    last = first + (length - 1) * (cols + 1) + 1
    return P.slice(flat, [0] * len(rest) + [first], outer + [last], [1] * len(rest) + [cols + 1])


# --- splits and joins --------------------------------------------------------------------

def _split_at(a, dim, sizes):
    out, start = [], 0
    for s in sizes:
        out.append(slice_(a, dim, start, start + s))
        start = start + s
    return out


@register(aten.split.Tensor, aten.unsafe_split.Tensor)
def split(a, split_size, dim=0):
    if a.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, a.dim())
    size = a.shape[dim]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    chunks = max((size + split_size - 1) // split_size, 1) if split_size else 1
    return _split_at(a, dim, [min(split_size, size - i * split_size) for i in range(chunks)])


@register(aten.split_with_sizes.default, aten.unsafe_split_with_sizes.default, aten.split.sizes)
def split_with_sizes(a, split_sizes, dim=0):
    if a.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, a.dim())
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={list(split_sizes)}")
    if sum(split_sizes) != a.shape[dim]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {a.shape[dim]} (input tensor's "
                           f"size at dimension {dim}), but got split_sizes={list(split_sizes)}")
    return _split_at(a, dim, split_sizes)


@register(aten.unbind.int)
def unbind(a, dim=0):
    if a.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, a.dim())
    return [select(a, dim, i) for i in range(a.shape[dim])]


@register(aten.cat.default)
def cat(tensors, dim=0):
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    # Eager skips legacy empty 1-d tensors of shape (0,) when others have more dims.
    kept = [t for t in tensors if not (t.dim() == 1 and surely(t.shape[0] == 0))] or list(tensors[:1])
    for i, t in enumerate(kept):
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dtype = result_type(*tensors)
    dim = wrap_dim(dim, kept[0].dim())
    return P.cat([to_dtype(t, dtype) for t in kept], dim)


@register(aten.stack.default)
def stack(tensors, dim=0):
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        def unequal(i=i, t=t):
            return (f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at entry 0 and "
                    f"{list(t.shape)} at entry {i}")
        if t.dim() != tensors[0].dim() or any(not maybe(a == b) for a, b in zip(t.shape, tensors[0].shape)):
            raise RuntimeError(unequal())
        for a, b in zip(t.shape, tensors[0].shape):
            if not surely(a == b):   # data-dependent sizes (masked_select's counts) must be equal: checked where it runs
                torch._check(a == b, unequal)
    dim = wrap_dim(dim, tensors[0].dim() + 1)
    return cat([P.expand_dims(t, [dim]) for t in tensors], dim)


register_out(aten.cat.out, cat)
register_out(aten.stack.out, stack)


# --- reorderings, repeats, padding, triangles --------------------------------------------

@register(aten.flip.default)
def flip(a, dims):
    if not dims:   # eager's flip over no dims is a copy (preserve_format)
        return P.clone(a)
    return P.rev(a, wrap_dims(dims, a.dim(), unique=True))


@register(aten.roll.default)
def roll(a, shifts, dims=()):
    shifts, dims = list(shifts), list(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return P.reshape(roll(P.reshape(a, [a.numel()]), shifts, [0]), list(a.shape))   # the flattened tensor
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if surely(a.numel() == 0):
        return P.clone(a)
    out = a
    for shift, dim in zip(shifts, dims):   # one dim at a time, as eager
        out = _roll_dim(out, shift, wrap_dim(dim, a.dim()))
    return out


def _roll_dim(a, shift, dim):
    """Eager's roll along one dim: cat of a[start:] and a[:start], in the layout eager's cat picks."""
    size = a.shape[dim]
    # sym_max: a size that is data may be 0 when the graph runs (the result is then empty, whatever start is)
    start = (size - shift) % (torch.sym_max(size, 1) if isinstance(size, torch.SymInt) else size)
    pieces = [slice_(a, dim, start, size), slice_(a, dim, 0, start)]
    layout = channels_last_strides(a.shape) if all(suggests_channels_last(p) for p in pieces) \
        else contiguous_strides(a.shape)
    return in_layout(P.cat(pieces, dim), layout)


@register(aten.repeat.default)
def repeat(a, repeats):
    repeats = list(repeats)
    if len(repeats) < a.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    check_sizes(repeats, "repeat")
    lead = len(repeats) - a.dim()
    sizes = [1] * lead + list(a.shape)
    # Broadcast to (r0, s0, r1, s1, ...) and merge each pair: a contiguous copy, as eager's.
    pairs = [x for r, s in zip(repeats, sizes) for x in (r, s)]
    spread = P.broadcast_in_dim(a, pairs, [2 * (lead + i) + 1 for i in range(a.dim())])
    dense = P.copy_strided(spread, list(contiguous_strides(pairs)))
    return P.reshape(dense, [r * s for r, s in zip(repeats, sizes)])


@register(aten.constant_pad_nd.default)
def constant_pad_nd(a, pad, value=0):
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * a.dim():
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)} while the input has {a.dim()} dimensions.")
    low, high = [0] * a.dim(), [0] * a.dim()
    for i in range(len(pad) // 2):   # pairs from the last dim backwards
        low[a.dim() - 1 - i], high[a.dim() - 1 - i] = pad[2 * i], pad[2 * i + 1]
    for d in range(a.dim()):
        if a.shape[d] + low[d] + high[d] < 0:
            raise RuntimeError(f"The input size {a.shape[d]}, plus negative padding {low[d]} and {high[d]} resulted "
                               f"in a negative output size, which is invalid. Check dimension {d} of your input.")
    if all(p <= 0 for p in pad):
        # Only cropping: eager clones the narrowed input, keeping its layout.
        out = a
        for d in range(a.dim()):
            out = slice_(out, d, -low[d], a.shape[d] + high[d])
        return P.clone(out)
    value = cast_value(value, a.dtype)
    padded = P.pad(a, value, low, high, [0] * a.dim())
    return in_layout(padded, suggested_strides(a, padded.shape))


def cast_value(value, dtype):
    """A Python number as eager stores it into a tensor of dtype (bool, truncated int, or as is); a symbolic
    number (t.item()) symbolically, without reading its value."""
    if dtype == torch.bool:
        return value != 0 if isinstance(value, (torch.SymInt, torch.SymFloat)) else bool(value)
    if dtype in dt.INT:
        return torch.sym_int(value)
    return value


def _triangle(a, diagonal, upper):
    if a.dim() < 2:
        raise RuntimeError(f"{'triu' if upper else 'tril'}: input tensor must have at least 2 dimensions")
    rows, cols = a.shape[-2], a.shape[-1]
    row = P.broadcast_in_dim(P.iota(rows, start=0, step=1, dtype=torch.int64, device=a.device), [rows, cols], [0])
    col = P.broadcast_in_dim(P.iota(cols, start=0, step=1, dtype=torch.int64, device=a.device), [rows, cols], [1])
    offset = P.sub(col, row)
    bound = P.full([rows, cols], diagonal, dtype=torch.int64, device=a.device)
    keep = broadcast_to(P.ge(offset, bound) if upper else P.le(offset, bound), a.shape)
    zeros = broadcast_to(P.scalar_tensor(cast_value(0, a.dtype), dtype=a.dtype, device=a.device), a.shape)
    # Eager's triu and tril write a contiguous result.
    return in_layout(P.where(keep, a, zeros), contiguous_strides(a.shape))


@register(aten.triu.default)
def triu(a, diagonal=0):
    return _triangle(a, diagonal, upper=True)


@register(aten.tril.default)
def tril(a, diagonal=0):
    return _triangle(a, diagonal, upper=False)


for _fn, _outs in ((flip, aten.flip.out), (roll, aten.roll.out), (repeat, aten.repeat.out),
                   (constant_pad_nd, aten.constant_pad_nd.out), (triu, aten.triu.out), (tril, aten.tril.out)):
    register_out(_outs, _fn)


register_inplace(aten.triu_.default, triu)
register_inplace(aten.tril_.default, tril)


# --- copies and conversions --------------------------------------------------------------

@register(aten.clone.default)
def clone(a, *, memory_format=None):
    if memory_format in (None, torch.preserve_format):
        return P.clone(a)
    return P.copy_strided(a, list(strides_for(a.shape, memory_format)))


@register(aten._to_copy.default)
def to_copy(a, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None):
    check_layout(layout, "_to_copy")
    out = a
    if device is not None and torch.device(device) != a.device:
        out = P.device_put(out, torch.device(device))
    if dtype is not None and dtype != a.dtype:
        out = P.convert_element_type(out, dtype)
    if memory_format not in (None, torch.preserve_format):
        return in_layout(out, strides_for(a.shape, memory_format, "_to_copy")) if out is not a \
            else clone(a, memory_format=memory_format)
    return P.clone(a) if out is a else out


def check_layout(layout, op):
    if layout not in (None, torch.strided):
        raise RuntimeError(f"{op}: primkit supports strided tensors only, got layout={layout}")


@register(aten._assert_tensor_metadata.default)
def assert_tensor_metadata(a, size=None, stride=None, dtype=None, *, device=None, layout=None):
    """torch.export's check that a tensor has the geometry seen when it was traced. Checked
    here, at trace time, in eager's order; it leaves nothing in the graph (the op returns ())."""
    expected = (("sizes", size, list(a.shape)), ("strides", stride, list(a.stride())), ("dtype", dtype, a.dtype),
                ("device", None if device is None else torch.device(device), a.device),
                ("layout", layout, torch.strided))
    for what, want, got in expected:
        if want is not None and (list(want) if what in ("sizes", "strides") else want) != got:
            raise RuntimeError(f"_assert_tensor_metadata: Tensor {what} mismatch! Expected: {want}, Got: {got}")
    return None


@register(aten.copy.default)
def copy(a, src, non_blocking=False):
    """src's values in a new tensor with a's shape, dtype, device and layout."""
    # Eager allocates with a's own strides when they do not overlap, else densely in a's dim order.
    strides = a.stride() if is_non_overlapping(a.shape, a.stride()) else preserved_strides(a)
    return P.copy_strided(_source_like(a, src), list(strides))


@register(aten.copy_.default)
def copy_(a, src, non_blocking=False):
    return P.copy_to(a, _source_like(a, src))


def _source_like(a, src):
    """src broadcast to a's shape, in a's dtype and on a's device (eager's copy_ rules)."""
    if broadcast_shapes(a.shape, src.shape) != tuple(a.shape):
        raise RuntimeError(f"copy_: src of shape {list(src.shape)} does not broadcast to self's shape {list(a.shape)}")
    return prepare(src, a.dtype, a.shape, a.device)


register_out(aten.clone.out, clone)
register_out(aten._to_copy.out, to_copy)
register_out(aten.copy.out, copy)
register_out(aten._unsafe_view.out, view)


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


# --- shapes of products: block_diag, cartesian_prod, combinations ----------------------------------------

def block_diag(tensors):
    """The tensors (0-d: 1 x 1, 1-d: one row) along the diagonal of a zero matrix."""
    if len(tensors) == 0:
        return P.full([1, 0], 0, dtype=torch.get_default_dtype(), device=torch.device("cpu"))
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        if t.device != tensors[0].device:
            raise RuntimeError(f"torch.block_diag: input tensors must all be on the same device. Input 0 is on device "
                               f"{tensors[0].device} and input {i} is on device {t.device}")
    dtype = result_type(*tensors)
    blocks = [to_dtype(P.reshape(t, [1, t.numel()]) if t.dim() < 2 else t, dtype) for t in tensors]
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        rows.append(P.pad(b, 0, [0, left], [0, width - left - b.shape[1]], [0, 0]))
        left += b.shape[1]
    return P.cat(rows, 0)


register_overloads(block_diag, "block_diag", ("default", "out"))


def _check_vector(t):
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


@register(aten.cartesian_prod.default)
def cartesian_prod(tensors):
    """The rows (x_1[i_1], ..., x_k[i_k]) for every index tuple, the last index fastest."""
    for t in tensors:
        _check_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = torch.meshgrid(*tensors, indexing="ij")
    return torch.stack([g.flatten() for g in grids], 1)


def _combination_rows(x, r, with_replacement):
    """x's r-combinations in lexicographic order, as a (count, r) tensor: each element x[i] followed
    by the (r-1)-combinations of the elements after it (from it, with replacement)."""
    if r == 1:
        return contiguous(P.expand_dims(x, [1]))
    pieces = []
    for i in range(x.shape[0]):
        start = i if with_replacement else i + 1
        if x.shape[0] - start <= 0 or (not with_replacement and x.shape[0] - start < r - 1):
            continue
        tail = _combination_rows(P.slice(x, [start], [x.shape[0]], [1]), r - 1, with_replacement)
        head = broadcast_to(P.slice(x, [i], [i + 1], [1]), (tail.shape[0],))
        pieces.append(P.cat([P.expand_dims(head, [1]), tail], 1))
    return P.cat(pieces, 0) if pieces else P.full([0, r], 0, dtype=x.dtype, device=x.device)


@register(aten.combinations.default)
def combinations(x, r=2, with_replacement=False):
    _check_vector(x)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return P.full([0], 0, dtype=x.dtype, device=x.device)
    return _combination_rows(x, r, with_replacement)


# ------------------------------------------------------------------ functional copies of views
# Eager's <view>_copy is the view cloned into a fresh contiguous tensor.


def contiguous_copy(t):
    return aten.clone.default(t, memory_format=torch.contiguous_format)


def _copy_of(view):
    def copy(a, *args, **kwargs):
        out = view(a, *args, **kwargs)
        return [contiguous_copy(t) for t in out] if isinstance(out, (list, tuple)) else contiguous_copy(out)
    return copy


def _squeeze(a, dim=None):
    if dim is None:
        return aten.squeeze.default(a)
    return aten.squeeze.dims(a, dim) if isinstance(dim, (list, tuple)) else aten.squeeze.dim(a, dim)


VIEW_COPIES = {
    "alias_copy": aten.alias.default, "as_strided_copy": aten.as_strided.default,
    "_reshape_alias_copy": aten._reshape_alias.default,
    "detach_copy": aten.detach.default, "diagonal_copy": aten.diagonal.default, "expand_copy": aten.expand.default,
    "permute_copy": aten.permute.default, "select_copy": aten.select.int, "slice_copy": aten.slice.Tensor,
    "squeeze_copy": _squeeze, "t_copy": aten.t.default, "transpose_copy": aten.transpose.int,
    "unsqueeze_copy": aten.unsqueeze.default, "unfold_copy": P.unfold, "view_as_real_copy": P.view_as_real,
    "view_as_complex_copy": P.view_as_complex,
}
for _name, _view_fn in VIEW_COPIES.items():
    register_with_variants(_name, _copy_of(_view_fn))
register(aten.view_copy.default)(_copy_of(aten.view.default))
register_out(aten.view_copy.out, _copy_of(aten.view.default), "view_copy.out")


@register(aten.view_copy.dtype)
def view_copy_dtype(a, dtype):
    """a's bytes read as elements of dtype, in a contiguous tensor (eager's checks of view(dtype))."""
    return bitcast(a, dtype, "view_copy")


register_out(aten.view_copy.dtype_out, view_copy_dtype, "view_copy.dtype_out")


def narrow_copy(a, dim, start, length):
    """narrow, copied; eager checks dim itself (a RuntimeError, where narrow's is an IndexError)."""
    if not -max(a.dim(), 1) <= dim < max(a.dim(), 1):
        raise RuntimeError(f"narrow_copy: Expected dim < static_cast<int64_t>(self_sizes.size()): dim {dim} is out "
                           f"of range for a {a.dim()}-d tensor")
    return contiguous_copy(aten.narrow.default(a, dim, start, length))


register_with_variants("narrow_copy", narrow_copy)


# Views returning several tensors: their out= overloads write into a list of tensors.
LIST_COPIES = {"split_copy": aten.split.Tensor, "split_with_sizes_copy": aten.split_with_sizes.default,
               "unbind_copy": aten.unbind.int}


for _name, _view_fn in LIST_COPIES.items():
    _packet = getattr(aten, _name)
    for _overload in _packet.overloads():
        _op = getattr(_packet, _overload)
        if out_names(_op):   # eager's split_copy copies into its outs (no resize); the others resize them
            register_out(_op, _copy_of(_view_fn), resize=_name != "split_copy")
        else:
            register(_op)(_copy_of(_view_fn))


# ------------------------------------------------------------------ *_scatter: a view's values written into a copy


def _check_src(src, view, op):
    if tuple(src.shape) != tuple(view.shape):
        raise RuntimeError(f"{op}: expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")


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
    start = 0 if start is None else (start + size if start < 0 else start)
    start = min(max(start, 0), size)
    end = size if end is None else (end + size if end < 0 else end)
    end = min(max(end, start), size)
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


# ------------------------------------------------------------------ conveniences of torch.* and Tensor
# CompositeImplicitAutograd in eager: torch.export keeps them, and these are what its graph then
# decomposes with. Each is written in the views and copies above (or in shape.py).


@register(aten.movedim.int, aten.movedim.intlist)
def movedim(a, source, destination):
    """a's dims permuted so that source[i] lands at destination[i], the rest keeping their order."""
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims) should contain the "
                           f"same number of dims as destination ({destination} dims)")
    n = a.dim()
    src, dst = wrap_dims(source, n, "movedim"), wrap_dims(destination, n, "movedim")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `source` ({source}) or `destination` ({destination})")
    perm = [-1] * n
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(d for d in range(n) if d not in src)
    perm = [p if p != -1 else next(rest) for p in perm]
    return aten.permute.default(a, perm)


@register(aten.ravel.default)
def ravel(a):
    """a's values in one dim: a view of a contiguous a, else of a contiguous copy."""
    return aten.view.default(make_contiguous(a), [-1])


@register(aten.flatten.using_ints)
def flatten(a, start_dim=0, end_dim=-1):
    if a.dim() == 0:
        return aten.reshape.default(a, [1])
    start, end = wrap_dim(start_dim, a.dim(), "flatten"), wrap_dim(end_dim, a.dim(), "flatten")
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return a
    shape = list(a.shape)
    return aten.reshape.default(a, shape[:start] + [-1] + shape[end + 1:])


@register(aten.unflatten.int)
def unflatten(a, dim, sizes):
    dim = wrap_dim(dim, a.dim(), "unflatten")
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape, sizes = list(a.shape), list(sizes)
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes and known != 0:   # eager infers -1 from the dim's size, not the tensor's (0 if any dim is empty)
        if shape[dim] % known:
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                               f"({shape[dim]}) in the input tensor")
        sizes[sizes.index(-1)] = shape[dim] // known
    return aten.view.default(a, shape[:dim] + sizes + shape[dim + 1:])


@register(aten.narrow.default)
def narrow(a, dim, start, length):
    if a.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = a.shape[wrap_dim(dim, a.dim(), "narrow")]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return aten.slice.Tensor(a, dim, start, start + length, 1)


@register(aten.narrow.Tensor)
def narrow_tensor(a, dim, start, length):
    """narrow with start a 0-d integer tensor, kept as data (eager reads it with .item()): the
    block dynamic_slice cuts, laid out with a's strides as eager's view is. A negative start counts
    from the end, as eager's. A start eager refuses (out of range) cannot be checked without a host
    read; dynamic_slice clamps it so the block stays in bounds."""
    if start.dim() != 0 or start.dtype not in dt.INT:
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    if a.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, a.dim(), "narrow")
    size = a.shape[d]
    if length > size:
        raise RuntimeError(f"narrow(): length ({length}) exceeds dimension size ({size}).")
    first = to_dtype(P.device_put(start, a.device) if start.device != a.device else start, torch.int64)
    zero = P.scalar_tensor(0, dtype=torch.int64, device=a.device)
    first = P.where(P.lt(first, zero), P.add(first, P.scalar_tensor(size, dtype=torch.int64, device=a.device)), first)
    starts, sizes = [zero] * a.dim(), list(a.shape)
    starts[d], sizes[d] = first, length
    block = P.dynamic_slice(a, starts, sizes)
    # eager's view keeps a's strides; where a's elements overlap (stride 0), dense in a's dim order
    strides = a.stride() if is_non_overlapping(a.shape, a.stride()) else \
        elementwise_strides(block.shape, [(a.stride(), 1)])
    return in_layout(block, strides)


@register(aten.tile.default)
def tile(a, dims):
    dims = list(dims)
    reps = [1] * (a.dim() - len(dims)) + dims
    return aten.repeat.default(a, reps)


def _sections(size, sections, op):
    if sections <= 0:
        raise RuntimeError(f"{op}: number of sections must be larger than 0, got {sections}")
    return [size // sections + 1] * (size % sections) + [size // sections] * (sections - size % sections)


@register(aten.tensor_split.sections)
def tensor_split_sections(a, sections, dim=0):
    if a.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    return aten.split_with_sizes.default(a, _sections(a.shape[wrap_dim(dim, a.dim(), "tensor_split")], sections,
                                                      "tensor_split()"), dim)


@register(aten.tensor_split.indices)
def tensor_split_indices(a, indices, dim=0):
    if a.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    size = a.shape[wrap_dim(dim, a.dim(), "tensor_split")]
    bounds = [0] + list(indices) + [size]
    # sym_min / sym_max: indices read from a tensor (tensor_split(a, tensor)) are data: clamped symbolically
    return [aten.slice.Tensor(a, dim, torch.sym_min(lo, size), torch.sym_min(torch.sym_max(hi, lo), size), 1)
            for lo, hi in zip(bounds[:-1], bounds[1:])]


@register(aten.where.default, aten.nonzero_numpy.default)
def where_indices(condition):
    """The indices of condition's nonzero elements, one 1-d tensor per dim (nonzero(as_tuple=True)):
    the columns of nonzero's (count, dims) result. A 0-d condition reads as 1-d."""
    c = aten.reshape.default(condition, [1]) if condition.dim() == 0 else condition
    return aten.unbind.int(aten.nonzero.default(c), 1)


@register(aten.chunk.default, aten.unsafe_chunk.default)
def chunk(a, chunks, dim=0):
    if a.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = a.shape[wrap_dim(dim, a.dim(), "chunk")]
    split = -(-size // chunks)
    if split == 0 and size == 0:   # eager splits an empty dim into `chunks` empty pieces
        return aten.split_with_sizes.default(a, [0] * chunks, dim)
    return aten.split.Tensor(a, split, dim)


def _directional_split(op, dim, min_dims):
    def split(a, sections):
        if a.dim() < min_dims:
            raise RuntimeError(f"torch.{op} requires a tensor with at least {min_dims} dimension, but got a tensor "
                               f"with {a.dim()} dimensions!")
        d = 0 if op == "hsplit" and a.dim() == 1 else dim
        if isinstance(sections, int):
            if sections == 0 or a.shape[d] % sections != 0:
                raise RuntimeError(f"torch.{op} attempted to split along dimension {d}, but the size of the "
                                   f"dimension {a.shape[d]} is not divisible by the split_size {sections}!")
            return tensor_split_sections(a, sections, d)
        return tensor_split_indices(a, sections, d)
    split.__qualname__ = op
    return split


for _op, _dim, _min in (("hsplit", 1, 1), ("vsplit", 0, 2), ("dsplit", 2, 3)):
    register(getattr(aten, _op).int, getattr(aten, _op).array)(_directional_split(_op, _dim, _min))


def _atleast(n):
    def atleast(a):
        if isinstance(a, (list, tuple)):
            return [atleast(t) for t in a]
        if a.dim() >= n:
            return a
        if n == 3 and a.dim() == 2:
            return aten.unsqueeze.default(a, -1)
        if n == 3 and a.dim() == 1:
            return aten.reshape.default(a, [1, a.shape[0], 1])
        return aten.reshape.default(a, [1] * (n - a.dim()) + list(a.shape))
    atleast.__qualname__ = f"atleast_{n}d"
    return atleast


for _n in (1, 2, 3):
    register(getattr(aten, f"atleast_{_n}d"))(_atleast(_n))


def _stack_along(op, prepare, dim):
    def stack(tensors):
        if len(tensors) == 0:
            raise RuntimeError(f"{op} expects a non-empty TensorList")
        pieces = prepare(list(tensors))
        d = 0 if op == "hstack" and pieces[0].dim() == 1 else dim
        return aten.cat.default(pieces, d)
    stack.__qualname__ = op
    return stack


def _column_pieces(tensors):
    return [aten.reshape.default(t, [t.numel(), 1]) if t.dim() <= 1 else t for t in tensors]


STACKS = {"hstack": (_atleast(1), 1), "vstack": (_atleast(2), 0), "dstack": (_atleast(3), 2),
          "column_stack": (_column_pieces, 1)}
for _op, (_prepare, _dim) in STACKS.items():
    _fn = _stack_along(_op, _prepare, _dim)
    register(getattr(aten, _op).default)(_fn)
    register_out(getattr(aten, _op).out, _fn, f"{_op}.out")


@register(aten.broadcast_to.default)
def broadcast_to_shape(a, size):
    return aten.expand.default(a, size)


@register(aten.broadcast_tensors.default)
def broadcast_tensors(tensors):
    shape = list(broadcast_shapes(*(t.shape for t in tensors)))
    return [aten.expand.default(t, shape) for t in tensors]


@register(aten.fliplr.default)
def fliplr(a):
    if a.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return aten.flip.default(a, [1])


@register(aten.flipud.default)
def flipud(a):
    if a.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return aten.flip.default(a, [0])


def _matrix_transpose(op, conj):
    def transpose(a):
        if a.dim() < 2:
            raise RuntimeError(f"tensor.{op} is only supported on matrices or batches of matrices. Got {a.dim()}-D "
                               "tensor.")
        t = aten.transpose.int(a, -2, -1)
        return aten.conj_physical.default(t) if conj and a.is_complex() else t
    transpose.__qualname__ = op
    return transpose


register(aten.mT.default)(_matrix_transpose("mT", False))
register(aten.mH.default)(_matrix_transpose("mH", True))
register(aten.adjoint.default)(_matrix_transpose("adjoint", True))


@register(aten.matrix_H.default)
def matrix_h(a):
    """Tensor.H: the conjugate transpose of a matrix (2-d only, unlike mH)."""
    if a.dim() != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {a.dim()}-D tensor.")
    return _matrix_transpose("matrix_H", True)(a)


@register(aten.numpy_T.default)
def numpy_t(a):
    return aten.permute.default(a, list(range(a.dim() - 1, -1, -1)))


@register(aten.view_as.default)
def view_as(a, other):
    return aten.view.default(a, list(other.shape))


@register(aten.reshape_as.default)
def reshape_as(a, other):
    return aten.reshape.default(a, list(other.shape))


@register(aten.expand_as.default)
def expand_as(a, other):
    return aten.expand.default(a, list(other.shape))


@register(aten.type_as.default)
def type_as(a, other):
    return a if a.dtype == other.dtype else aten._to_copy.default(a, dtype=other.dtype)


@register(aten.contiguous.default)
def make_contiguous(a, memory_format=torch.contiguous_format):
    if same_sizes(a.stride(), strides_for(a.shape, memory_format)) or (
            memory_format == torch.contiguous_format and is_contiguous(a.shape, a.stride())):
        return a
    return aten.clone.default(a, memory_format=memory_format)


# ------------------------------------------------------------------ diagonals, rotations and small math conveniences


def diag_embed(a, offset=0, dim1=-2, dim2=-1):
    """Zeros with a's last dim written on the (offset, dim1, dim2) diagonal of two new dims."""
    ndim = a.dim() + 1
    d1, d2 = wrap_dim(dim1, ndim, "diag_embed"), wrap_dim(dim2, ndim, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = a.shape[-1] + abs(offset)
    shape = list(a.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    zeros = aten.zeros.default(shape, dtype=a.dtype, device=a.device)
    return diagonal_scatter(zeros, a, offset, d1, d2)


@register(aten.diagflat.default)
def diagflat(a, offset=0):
    return diag_embed(aten.reshape.default(a, [-1]), offset, 0, 1)


def diag(a, diagonal=0):
    """A 1-d a on a matrix's diagonal, or a matrix's diagonal (a contiguous copy)."""
    if a.dim() == 1:
        return diag_embed(a, diagonal, 0, 1)
    if a.dim() == 2:
        return contiguous_copy(aten.diagonal.default(a, diagonal, 0, 1))
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{a.dim()}D")


register_with_variants("diag", diag)
register_with_variants("diag_embed", diag_embed)


def rot90(a, k=1, dims=(0, 1)):
    """a rotated k quarter turns from dims[0] towards dims[1]: flips and a transpose."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if a.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {a.dim()}")
    d0, d1 = wrap_dim(dims[0], a.dim(), "rot90"), wrap_dim(dims[1], a.dim(), "rot90")
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return aten.transpose.int(aten.flip.default(a, [d1]), d0, d1)
    if k == 2:
        return aten.flip.default(a, [d0, d1])
    if k == 3:
        return aten.transpose.int(aten.flip.default(a, [d0]), d0, d1)
    return contiguous_copy(a)


register_with_variants("rot90", rot90, contiguous_out)   # eager: resize_output, then a copy


@register(aten.meshgrid.default, aten.meshgrid.indexing)
def meshgrid(tensors, *, indexing="ij"):
    """Each 0-d or 1-d tensor viewed along its own dim and expanded to the grid ("xy": the grid of
    the first two tensors swapped, so the first varies along dim 1)."""
    tensors = list(tensors)
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.dim()}D")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = [t.numel() for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[i] = -1
        grids.append(aten.expand.default(aten.view.default(t, view), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


@register(aten._chunk_cat.default)
def chunk_cat(tensors, dim, num_chunks):
    """FSDP's flat-parameter copy: each tensor zero-padded along dim to a multiple of num_chunks, seen as
    (its dims before dim, num_chunks, the rest flattened), and the tensors concatenated on the flat dim."""
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    d = dim % tensors[0].dim() if -tensors[0].dim() <= dim < tensors[0].dim() else dim
    pieces = []
    for t in tensors:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
        if t.numel() == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if not 0 <= d < t.dim():
            raise IndexError(f"_chunk_cat: dim {dim} is out of range for a {t.dim()}-d tensor")
        if tuple(t.shape[:d]) != tuple(tensors[0].shape[:d]):
            raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
        padded = -(-t.shape[d] // num_chunks) * num_chunks
        if padded != t.shape[d]:
            t = aten.constant_pad_nd.default(t, [0, 0] * (t.dim() - d - 1) + [0, padded - t.shape[d]], 0)
        pieces.append(aten.reshape.default(t, list(t.shape[:d]) + [num_chunks, -1]))
    return aten.cat.default(pieces, d + 1)


register_out(aten._chunk_cat.out, chunk_cat, "_chunk_cat")
