"""Decompositions of shape and layout ops: views, reshapes, transposes, splits, concatenation,
padding, copies and conversions.

Views decompose to the view prims (reshape, permute, slice, squeeze, expand_dims,
broadcast_in_dim, as_strided), which return views with eager's strides; ops that allocate
compute eager's output layout and copy into it where the prims' default layout differs.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, prepare, register_inplace, register_out, to_dtype, wrap_dim, wrap_dims)
from primkit.decompositions.registry import register
from primkit.decompositions.type_promotion import result_type
from primkit.prims import dtypes as dt
from primkit.prims.meta.shape import view_strides
from primkit.prims.meta.strides import (
    channels_last_strides, contiguous_strides, elementwise_strides, is_non_overlapping, itemsize,
)


# --- dims, sizes and layouts -------------------------------------------------------------

def _check_sizes(size, op):
    if any(s < 0 for s in size):
        raise RuntimeError(f"{op}: Trying to create tensor with negative dimension "
                           f"{next(s for s in size if s < 0)}: {list(size)}")


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


def suggests_channels_last(a) -> bool:
    """Eager's suggest_memory_format: 4-d (5-d) strides ordered C, W, H, (D), N, fastest first."""
    n = a.dim()
    if n not in (4, 5) or a.stride()[1] == 0:
        return False
    shape, strides, lowest = a.shape, a.stride(), 0
    for d in [1] + list(range(n - 1, 1, -1)) + [0]:
        if shape[d] == 0 or strides[d] < lowest:
            return False
        if d == 0 and lowest == strides[1]:   # (N, 1, H, W) reads as contiguous
            return False
        lowest = strides[d] * shape[d] if shape[d] > 1 else strides[d]
    return True


def strides_for(shape, memory_format, op="clone"):
    """Dense strides of an explicit memory format."""
    if memory_format == torch.contiguous_format:
        return contiguous_strides(shape)
    if memory_format in (torch.channels_last, torch.channels_last_3d):
        rank = 4 if memory_format == torch.channels_last else 5
        if len(shape) != rank:
            raise RuntimeError(f"{op}: required rank {rank} tensor to use {str(memory_format)[6:]} format")
        return channels_last_strides(shape)
    raise RuntimeError(f"{op}: unsupported memory_format {memory_format}")


def preserved_strides(a) -> tuple:
    """Eager's preserve_format for a new tensor like a: a's strides if dense, else dense in a's dim order."""
    return elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))])


def suggested_strides(a, shape) -> tuple:
    """Channels-last when a suggests it (eager's suggest_memory_format), else contiguous."""
    return channels_last_strides(shape) if suggests_channels_last(a) and len(shape) == a.dim() \
        else contiguous_strides(shape)


def _same_layout(shape, s1, s2) -> bool:
    if any(n == 0 for n in shape):
        return True
    return all(n == 1 or x == y for n, x, y in zip(shape, s1, s2))


def in_layout(t, strides):
    """t itself when its layout already is ``strides``, else a copy laid out so."""
    if _same_layout(t.shape, t.stride(), strides):
        return t
    return P.copy_strided(t, list(strides))


def contiguous(t):
    """t laid out contiguously (t itself when it already is)."""
    return in_layout(t, contiguous_strides(t.shape))


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
    return P.reshape(a, infer_size(shape, a.numel()))


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
    start = max(0, min(size, start + size if start < 0 else start))
    end = max(start, min(size, end + size if end < 0 else end))
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
    kept = [t for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)] or list(tensors[:1])
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
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {i}")
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
    if a.numel() == 0:
        return P.clone(a)
    out = a
    for shift, dim in zip(shifts, dims):   # one dim at a time, as eager
        out = _roll_dim(out, shift, wrap_dim(dim, a.dim()))
    return out


def _roll_dim(a, shift, dim):
    """Eager's roll along one dim: cat of a[start:] and a[:start], in the layout eager's cat picks."""
    size = a.shape[dim]
    start = (size - shift) % size
    pieces = [slice_(a, dim, start, size), slice_(a, dim, 0, start)]
    layout = channels_last_strides(a.shape) if all(suggests_channels_last(p) for p in pieces) \
        else contiguous_strides(a.shape)
    return in_layout(P.cat(pieces, dim), layout)


@register(aten.repeat.default)
def repeat(a, repeats):
    repeats = list(repeats)
    if len(repeats) < a.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    _check_sizes(repeats, "repeat")
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
    value = _cast_value(value, a.dtype)
    padded = P.pad(a, value, low, high, [0] * a.dim())
    return in_layout(padded, suggested_strides(a, padded.shape))


def _cast_value(value, dtype):
    """A Python number as eager stores it into a tensor of dtype (bool, truncated int, or as is)."""
    if dtype == torch.bool:
        return bool(value)
    if dtype in dt.INT:
        return int(value)
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
    zeros = broadcast_to(P.scalar_tensor(_cast_value(0, a.dtype), dtype=a.dtype, device=a.device), a.shape)
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
