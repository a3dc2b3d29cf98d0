"""Reference implementations of the shape prims that are not one torch call: broadcast, squeeze,
slice, pad, cat; split, merge, alias or window dims, slice at data-given starts, update slices, and
roll. Views return views of the operand; the others return new tensors in the layout their meta rule
states (dynamic_slice and roll through their entries' ``layout``)."""
from __future__ import annotations

import builtins

import torch

from primkit.prims.reference.creation import rounded


def broadcast_in_dim(a, shape, broadcast_dimensions):
    v = a
    for d in range(len(shape)):
        if d not in broadcast_dimensions:
            v = v.unsqueeze(d)
    return v.expand(shape)


def squeeze(a, dims):
    return torch.squeeze(a, tuple(dims)) if len(dims) else a.view(a.shape)


def expand_dims(a, dims):
    v = a
    for d in sorted(d % (a.dim() + len(dims)) for d in dims):
        v = v.unsqueeze(d)
    return v


def slice(a, start_indices, limit_indices, strides):
    # A step past the slice's extent takes one element: clamp it (torch's size arithmetic overflows near 2**63).
    return a[tuple(builtins.slice(s, l, builtins.min(st, builtins.max(l - s, 1)))
                   for s, l, st in zip(start_indices, limit_indices, strides))] if a.dim() else a.view(())


def _suggested_format(a):
    """Eager's suggest_memory_format of a, read from torch itself (not from the meta rule's helpers:
    the tests compare the two): constant_pad_nd allocates its result in that format, and padded by
    one on every side the result has no size-1 dim to make its format ambiguous."""
    probe = torch.constant_pad_nd(torch.empty_strided(a.shape, a.stride(), dtype=a.dtype, device="meta"),
                                  [1] * (2 * a.dim()))
    if probe.dim() in (4, 5) and not probe.is_contiguous():
        return torch.channels_last if probe.dim() == 4 else torch.channels_last_3d
    return torch.contiguous_format


def pad(a, padding_value, low, high, interior):
    padding_value = rounded(padding_value, a.dtype)
    out, fresh = a, False      # fresh: out lives in storage this function made (not a's)
    for d in range(a.dim()):
        n = out.shape[d]
        if interior[d] and n > 1:     # spread the elements interior[d] apart
            shape = list(out.shape)
            shape[d] = n + (n - 1) * interior[d]
            spread = torch.full(shape, padding_value, dtype=a.dtype, device=a.device)
            spread.narrow(d, 0, shape[d])[(builtins.slice(None),) * d + (builtins.slice(None, None, interior[d] + 1),)] = out
            out, fresh = spread, True
        parts = []
        for amount in (low[d], None, high[d]):
            if amount is None:
                parts.append(out)
            elif amount > 0:
                shape = list(out.shape)
                shape[d] = amount
                parts.append(torch.full(shape, padding_value, dtype=a.dtype, device=a.device))
        if len(parts) > 1:
            out, fresh = torch.cat(parts, d), True
        start, stop = max(-low[d], 0), out.shape[d] - max(-high[d], 0)   # negative padding crops
        out = out.narrow(d, start, max(stop - start, 0))
    fmt = _suggested_format(a)
    # pad is not a view: with nothing added, a copy, never a view of the operand. Decided without reading
    # a data pointer, so that the function traces under fake tensors (primkit_inductor lowers it so).
    return out.contiguous(memory_format=fmt) if fresh else out.clone(memory_format=fmt)


def cat(tensors, dim):
    return torch.cat(tensors, dim)


def split_dim(a, dim, outer):
    d = dim % a.dim()
    return a.unflatten(d, (outer, a.shape[d] // outer))


def collapse(a, start, end):
    merged = 1
    for s in a.shape[start:end]:
        merged *= s
    return a.view(*a.shape[:start], merged, *a.shape[end:])   # view, never a copy: the meta rule checked it can


def alias(a):
    return a.as_strided(a.shape, a.stride(), a.storage_offset())   # exactly a's geometry, size-1 dims included


def stop_gradient(a):
    return alias(a).detach()


def diagonal(a, offset, dim1, dim2):
    return torch.diagonal(a, offset, dim1, dim2)


def unfold(a, dim, size, step):
    return a.unfold(dim, size, step)


def split(a, sizes, dim):
    return list(torch.split(a, list(sizes), dim))


def _clamped_starts(a, start_indices, sizes):
    """Each start as a 1-element int64 tensor on a's device, clamped to [0, a.shape[d] - sizes[d]]
    (XLA's rule): arithmetic on the device, no host read."""
    return [s.to(torch.int64).reshape(1).clamp(0, a.shape[d] - sizes[d]) for d, s in enumerate(start_indices)]


def _block_index(a, start_indices, sizes):
    """Index tensors that, broadcast together, address the block of the given sizes at the starts."""
    n = a.dim()
    index = []
    for d, start in enumerate(_clamped_starts(a, start_indices, sizes)):
        view = [1] * n
        view[d] = sizes[d]
        index.append((start + torch.arange(sizes[d], device=a.device)).view(view))
    return tuple(index)


def dynamic_slice(a, start_indices, slice_sizes):
    if a.dim() == 0:
        return a.clone(memory_format=torch.contiguous_format)
    return a[_block_index(a, start_indices, list(slice_sizes))]


def dynamic_update_slice(a, update, start_indices):
    out = a.clone(memory_format=torch.preserve_format)
    if a.dim() == 0:
        return out.copy_(update)
    return out.index_put_(_block_index(a, start_indices, list(update.shape)), update)


def slice_update(a, update, start_indices, limit_indices, strides):
    out = a.clone(memory_format=torch.preserve_format)
    if a.dim() == 0:
        return out.copy_(update)
    out[tuple(builtins.slice(s, l, st) for s, l, st in zip(start_indices, limit_indices, strides))] = update
    return out


def roll(a, shifts, dims):
    if a.dim() == 0:    # dims 0 or -1 of a 0-d operand: one element, nothing moves
        return a.clone(memory_format=torch.contiguous_format)
    # A shift modulo its dim's size moves the same (and stays within what torch's SymInt arguments hold).
    return torch.roll(a, [s % a.shape[d] if a.shape[d] else 0 for s, d in zip(shifts, dims)], list(dims))
