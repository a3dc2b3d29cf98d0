"""Reference implementations of the shape prims that split, merge, alias or window dims, slice at
data-given starts, update slices, and roll. Views return views of the operand; the others return
new tensors in the layout their meta rule states."""
from __future__ import annotations

import builtins

import torch


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
    return a[_block_index(a, start_indices, list(slice_sizes))].contiguous()


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
    return torch.roll(a, [s % a.shape[d] if a.shape[d] else 0 for s, d in zip(shifts, dims)], list(dims)).contiguous()
