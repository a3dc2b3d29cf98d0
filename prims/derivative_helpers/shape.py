"""Derivative helpers of the shape family: the adjoints of permutes, broadcasts, slices, pads,
splits, unfold, diagonal and as_strided."""
from __future__ import annotations

import torch

from primkit.prims.derivative_helpers.common import prim_ops
from primkit.prims.derivative_helpers.elementwise import zeros_like


def inverse_permutation(dims):
    """The permutation undoing ``permute(x, dims)``."""
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d % n] = i
    return inv


def swap_last_two(x):
    """The dims of x with the last two exchanged: ``permute(x, swap_last_two(x))`` is x transposed."""
    dims = list(range(x.dim()))
    dims[-2], dims[-1] = dims[-1], dims[-2]
    return dims


def unbroadcast(grad, a, broadcast_dimensions):
    """The gradient of ``broadcast_in_dim(a, shape, broadcast_dimensions)``: grad summed over the new
    dims and over the dims a had as size 1 and that were broadcast, then reshaped to a's shape."""
    kept = {d: i for i, d in enumerate(broadcast_dimensions)}
    reduced = [d for d in range(grad.dim()) if d not in kept or (a.shape[kept[d]] == 1 and grad.shape[d] != 1)]
    return prim_ops().reshape(prim_ops().sum(grad, reduced), list(a.shape))


def unslice(grad, a, start_indices, limit_indices, strides):
    """The gradient of ``slice``: grad put back at its positions in a's shape, zero elsewhere (pad)."""
    low, high, interior = [], [], []
    for size, n, start, step in zip(a.shape, grad.shape, start_indices, strides):
        last = start + (n - 1) * step if n > 0 else start - 1   # index of the last element taken
        low.append(start)
        high.append(size - 1 - last if n > 0 else size - start)
        interior.append(step - 1)
    return prim_ops().pad(grad, 0, low, high, interior)


def unpad(grad, a, low, high, interior):
    """The gradient of ``pad``: the elements of grad that came from a (a cropped edge, negative low or
    high, gets zero gradient: it is padded back first), read with a slice."""
    ops = prim_ops()
    if any(x < 0 for x in (*low, *high)):
        grad = ops.pad(grad, 0, [max(-x, 0) for x in low], [max(-x, 0) for x in high], [0] * len(low))
        low, high = [max(x, 0) for x in low], [max(x, 0) for x in high]
    limits = [lo + (n - 1) * (i + 1) + 1 if n > 0 else lo for lo, n, i in zip(low, a.shape, interior)]
    return ops.slice(grad, list(low), limits, [i + 1 for i in interior])


def split_like(grad, tensors, dim):
    """The gradient of ``cat(tensors, dim)``: one slice of grad per input."""
    out, start = [], 0
    dim = dim % grad.dim()
    for t in tensors:
        lo, hi = [0] * grad.dim(), list(grad.shape)
        lo[dim], hi[dim] = start, start + t.shape[dim]
        out.append(prim_ops().slice(grad, lo, hi, [1] * grad.dim()))
        start += t.shape[dim]
    return out


def unfold_back(grad, a, dim, size, step):
    """The gradient of ``unfold(a, dim, size, step)``: element k of window i came from position
    i * step + k of dim, so each window-element slice of grad is spread back along dim with interior
    padding (``pad``) and the slices are summed (overlapping windows add up)."""
    ops = prim_ops()
    if a.dim() == 0:
        return ops.reshape(grad, [])
    dim = dim % a.dim()
    n = grad.shape[dim]
    total = zeros_like(a)
    for k in range(size):
        lo, hi = [0] * grad.dim(), list(grad.shape)
        lo[-1], hi[-1] = k, k + 1
        piece = ops.reshape(ops.slice(grad, lo, hi, [1] * grad.dim()), list(grad.shape[:-1]))
        low, high, interior = [0] * a.dim(), [0] * a.dim(), [0] * a.dim()
        low[dim], interior[dim] = k, step - 1
        high[dim] = a.shape[dim] - (k + (n - 1) * step + 1 if n > 0 else k)
        total = ops.add(total, ops.pad(piece, 0, low, high, interior))
    return total


def diagonal_back(grad, a, offset, dim1, dim2):
    """The gradient of ``diagonal(a, offset, dim1, dim2)``: grad (the diagonal, last dim) written onto
    the diagonal of zeros shaped like a. A vector v of length L becomes a diagonal L x L matrix by
    padding it to (L, L + 1), flattening, keeping L * L elements and reshaping; pads then place the
    matrix at the offset, and a permute puts dim1 and dim2 back."""
    ops = prim_ops()
    nd = a.dim()
    dim1, dim2 = dim1 % nd, dim2 % nd
    batch = list(grad.shape[:-1])
    L = grad.shape[-1]
    x = ops.reshape(grad, batch + [L, 1])
    x = ops.pad(x, 0, [0] * (len(batch) + 2), [0] * len(batch) + [0, L], [0] * (len(batch) + 2))
    x = ops.reshape(x, batch + [L * (L + 1)])
    x = ops.slice(x, [0] * (len(batch) + 1), batch + [L * L], [1] * (len(batch) + 1))
    x = ops.reshape(x, batch + [L, L])
    n, m = a.shape[dim1], a.shape[dim2]
    row0, col0 = (0, offset) if offset >= 0 else (-offset, 0)
    if L == 0:
        row0, col0 = 0, 0
    x = ops.pad(x, 0, [0] * len(batch) + [row0, col0], [0] * len(batch) + [n - row0 - L, m - col0 - L],
                [0] * (len(batch) + 2))
    others = [d for d in range(nd) if d not in (dim1, dim2)]
    perm = [others.index(d) if d in others else (nd - 2 if d == dim1 else nd - 1) for d in range(nd)]
    return ops.permute(x, perm)


def _storage_indices(shape, strides, offset, device):
    """int64 tensor of shape ``shape``: the storage index of each element of that geometry (iota per
    dim, scaled by its stride, broadcast and summed)."""
    ops = prim_ops()
    idx = ops.full(list(shape), offset, dtype=torch.int64, device=device)
    for d, (n, st) in enumerate(zip(shape, strides)):
        if st == 0:
            continue    # an expanded dim reads one index throughout
        steps = ops.iota(n, start=0, step=st, dtype=torch.int64, device=device)
        idx = ops.add(idx, ops.broadcast_in_dim(steps, list(shape), [d]))
    return idx


def as_strided_back(grad, a, size, stride, storage_offset):
    """The gradient of ``as_strided(a, size, stride, storage_offset)``: grad summed (``index_add``,
    so elements of an overlapping view add up) into a flat buffer at the storage index each output
    element reads, then read back (``take``) at the storage index of each element of a. Exact for an
    operand whose own elements do not overlap in memory (the operands as_strided is used on)."""
    ops = prim_ops()
    reach = [storage_offset + sum((n - 1) * st for n, st in zip(size, stride)) if 0 not in size else 0,
             a.storage_offset() + sum((n - 1) * st for n, st in zip(a.shape, a.stride())) if a.numel() else 0]
    buffer = ops.full([max(reach) + 1], 0, dtype=grad.dtype, device=grad.device)
    out_idx = ops.reshape(_storage_indices(list(size), list(stride), storage_offset, grad.device), [grad.numel()])
    buffer = ops.index_add(buffer, 0, out_idx, ops.reshape(grad, [grad.numel()]))
    return ops.take(buffer, _storage_indices(list(a.shape), list(a.stride()), a.storage_offset(), grad.device))


HELPERS = (inverse_permutation, swap_last_two, unbroadcast, unslice, unpad, split_like, unfold_back, diagonal_back, as_strided_back,)
