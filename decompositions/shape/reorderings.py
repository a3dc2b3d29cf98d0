"""Reorderings, repeats, padding and triangles: flip, roll, repeat, constant_pad_nd, triu, tril."""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, broadcast_to, register_inplace, register_out, wrap_dim, wrap_dims
from primkit.decompositions.layout import in_layout, suggested_strides, suggests_channels_last
from primkit.decompositions.registry import register
from primkit.decompositions.shape.common import check_sizes
from primkit.decompositions.shape.views import slice_
from primkit.prims import dtypes as dt
from primkit.prims.layout import channels_last_strides, contiguous_strides, surely


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
