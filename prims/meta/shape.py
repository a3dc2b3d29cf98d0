"""Meta rules of the shape family. View prims compute view strides (as eager's views do);
``reshape`` is a view when the layout allows and a contiguous copy otherwise; ``pad``, ``cat``,
``rev``, ``roll`` and ``dynamic_slice`` allocate new tensors, and the slice updates return a copy of
the operand dense in its dim order (the clone prim's layout). The complex views (view_as_real,
view_as_complex) live here too: they are views that change the dtype."""
from __future__ import annotations

from dataclasses import replace

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import PrimIndexError, check
from primkit.prims.meta.rules import TensorMeta, meta_rule
from primkit.prims.meta.common import canonical_dim, canonical_dims, check_dtype, check_fits, check_same_device, shape_str
from primkit.prims.layout import (
    contiguous_strides, elementwise_strides, itemsize, maybe, memory_format_strides, numel, surely)


def _meta(a, shape, strides, dtype=None):
    return TensorMeta(tuple(shape), tuple(strides), dtype or a.dtype, a.device)


def _view(a, shape, strides, offset=0, dtype=None):
    """A view of a: in a's storage (its size), at a's storage offset plus ``offset`` elements of a's dtype (as
    the real kernel's result, a view of a copy of a's storage); an operand without a storage (a symbolic
    spec) gives a view at offset 0."""
    out = _meta(a, shape, strides, dtype)
    if not hasattr(a, "untyped_storage"):
        return out
    start = a.storage_offset() + offset
    if out.dtype != a.dtype:   # view_as_real, view_as_complex: the offset in elements of the view's dtype
        start = start * itemsize(a.dtype) // itemsize(out.dtype)
    return replace(out, storage_offset=start, storage_nbytes=a.untyped_storage().nbytes())


@meta_rule("broadcast_in_dim", constraints=("C1", "C2", "C3", "C4"))
def broadcast_in_dim(prim, a, shape, broadcast_dimensions):
    check(all(s >= 0 for s in shape), prim, "C4", lambda: f"shape {shape_str(shape)} has a negative size")
    bd = list(broadcast_dimensions)
    check(len(bd) == len(a.shape), prim, "C1", lambda: f"broadcast_dimensions has {len(bd)} entries but the "
          f"operand has rank {len(a.shape)}")
    check(all(0 <= d < len(shape) for d in bd) and all(x < y for x, y in zip(bd, bd[1:])), prim, "C2",
          lambda: f"broadcast_dimensions {bd} must be strictly increasing dims of the target rank {len(shape)}")
    strides = [0] * len(shape)
    for i, d in enumerate(bd):
        check(surely(a.shape[i] == 1) or a.shape[i] == shape[d], prim, "C3", lambda: f"operand dim {i} has size "
              f"{a.shape[i]} but target dim {d} has size {shape[d]}")
        strides[d] = a.stride()[i] if surely(a.shape[i] == shape[d]) else 0
    return _view(a, shape, strides)


def view_strides(old_shape, old_strides, new_shape):
    """Strides that view ``old`` as ``new_shape`` without copying, or None if none exist."""
    old_shape, old_strides, new_shape = tuple(old_shape), tuple(old_strides), tuple(new_shape)
    if len(old_shape) == 0 or any(surely(s == 0) for s in old_shape):
        same = len(old_shape) == len(new_shape) and all(surely(x == y) for x, y in zip(old_shape, new_shape))
        return old_strides if same else contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_stride = old_strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel = tensor_numel * old_shape[d]
        # A chunk ends where the next-outer dim is not laid out right after this one.
        if d == 0 or (maybe(old_shape[d - 1] != 1)
                      and maybe(old_strides[d - 1] != tensor_numel * chunk_stride)):
            while view_d >= 0 and (maybe(view_numel < tensor_numel) or surely(new_shape[view_d] == 1)):
                new_strides[view_d] = view_numel * chunk_stride
                view_numel = view_numel * new_shape[view_d]
                view_d -= 1
            if maybe(view_numel != tensor_numel):
                return None
            if d > 0:
                chunk_stride = old_strides[d - 1]
                tensor_numel = view_numel = 1
    return tuple(new_strides) if view_d == -1 else None


@meta_rule("reshape", constraints=("C1", "C2"))
def reshape(prim, a, shape):
    for s in shape:
        check(s >= 0, prim, "C1", lambda: f"target shape {shape_str(shape)} has a negative size")
    check(numel(shape) == numel(a.shape), prim, "C2", lambda: f"cannot reshape {shape_str(a.shape)} "
          f"({numel(a.shape)} elements) to {shape_str(shape)} ({numel(shape)} elements)")
    strides = view_strides(a.shape, a.stride(), shape)   # a view where one exists, else a contiguous copy
    return _view(a, shape, strides) if strides is not None else _meta(a, shape, contiguous_strides(shape))


@meta_rule("permute", constraints=("C1",))
def permute(prim, a, dims):
    check(sorted(d % max(len(a.shape), 1) if -len(a.shape) <= d < len(a.shape) else -1 for d in dims)
          == list(range(len(a.shape))), prim, "C1",
          lambda: f"dims {list(dims)} is not a permutation of the {len(a.shape)} dims of the operand")
    dims = [d % len(a.shape) for d in dims]
    return _view(a, [a.shape[d] for d in dims], [a.stride()[d] for d in dims])


@meta_rule("squeeze", constraints=("C1", "C2"))
def squeeze(prim, a, dims):
    dims = canonical_dims(prim, "C1", dims, len(a.shape))
    for d in (dims if len(a.shape) else ()):   # a 0-d operand takes dim 0 or -1 (as eager) and keeps its rank
        check(a.shape[d] == 1, prim, "C2", lambda: f"dim {d} has size {a.shape[d]}, expected 1")
    keep = [i for i in range(len(a.shape)) if i not in dims]
    return _view(a, [a.shape[i] for i in keep], [a.stride()[i] for i in keep])


@meta_rule("expand_dims", constraints=("C1",))
def expand_dims(prim, a, dims):
    out_rank = len(a.shape) + len(dims)
    dims = sorted(canonical_dims(prim, "C1", dims, out_rank))
    shape, strides = list(a.shape), list(a.stride())
    for d in dims:   # each inserted dim strides like eager's unsqueeze
        stride = shape[d] * strides[d] if d < len(shape) else 1
        shape.insert(d, 1)
        strides.insert(d, stride)
    return _view(a, shape, strides)


@meta_rule("slice", constraints=("C1", "C2", "C3"))
def slice_(prim, a, start_indices, limit_indices, strides):
    n = len(a.shape)
    check(len(start_indices) == n and len(limit_indices) == n and len(strides) == n, prim, "C1",
          lambda: f"start_indices, limit_indices and strides need {n} entries each (the operand's rank), got "
          f"{len(start_indices)}, {len(limit_indices)} and {len(strides)}")
    for d in range(n):
        for low, high in ((0, start_indices[d]), (start_indices[d], limit_indices[d]), (limit_indices[d], a.shape[d])):
            check(low <= high, prim, "C2", lambda: f"dim {d}: expected "
                  f"0 <= start ({start_indices[d]}) <= limit ({limit_indices[d]}) <= size ({a.shape[d]})")
        check(strides[d] >= 1, prim, "C3", lambda: f"dim {d}: stride {strides[d]} must be >= 1")
    shape = [(limit_indices[d] - start_indices[d] + strides[d] - 1) // strides[d] for d in range(n)]
    # A dim of at most one element: its stride addresses nothing (the step's product may not fit int64).
    def step(d):
        st, extent = strides[d], limit_indices[d] - start_indices[d]
        return min(st, max(extent, 1)) if type(st) is int and type(extent) is int else st
    return _view(a, shape, [a.stride()[d] * step(d) for d in range(n)],
                 sum((start_indices[d] * a.stride()[d] for d in range(n)), 0))


@meta_rule("rev", constraints=("C1",))
def rev(prim, a, dims):
    canonical_dims(prim, "C1", dims, len(a.shape))
    return _meta(a, a.shape, elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))]))


@meta_rule("pad", constraints=("C1", "C2", "C3"))
def pad(prim, a, padding_value, low, high, interior):
    check_fits(prim, "C3", "padding_value", padding_value, a.dtype)
    n = len(a.shape)
    check(len(low) == n and len(high) == n and len(interior) == n, prim, "C1",
          lambda: f"low, high and interior need {n} entries each (the operand's rank), got "
          f"{len(low)}, {len(high)} and {len(interior)}")
    shape = []
    for d in range(n):
        check(interior[d] >= 0, prim, "C2", lambda: f"dim {d}: interior padding {interior[d]} must be >= 0")
        size = a.shape[d] + low[d] + high[d] + (a.shape[d] - 1) * interior[d] if maybe(a.shape[d] != 0) \
            else low[d] + high[d]
        check(size >= 0, prim, "C2", lambda: f"dim {d}: padding ({low[d]}, {high[d]}, {interior[d]}) of size "
              f"{a.shape[d]} gives a negative size {size}")
        shape.append(size)
    return _meta(a, shape, memory_format_strides(shape, [(a.shape, a.stride())]))


@meta_rule("cat", constraints=("C1", "C2", "C3", "C4", "C5"))
def cat(prim, tensors, dim):
    check(len(tensors) > 0, prim, "C1", "expected a non-empty list of tensors")
    first = tensors[0]
    n = len(first.shape)
    check(-max(n, 1) <= dim < max(n, 1), prim, "C5", lambda: f"dim {dim} out of range for rank {n}", PrimIndexError)
    dim = dim % max(n, 1)
    check(n > 0, prim, "C2", "zero-dimensional tensors cannot be concatenated")
    for i, t in enumerate(tensors):
        check(len(t.shape) == n, prim, "C2", lambda: f"tensor {i} has rank {len(t.shape)}, expected {n}")
        for d in range(n):
            check(d == dim or t.shape[d] == first.shape[d], prim, "C3", lambda: f"tensor {i} has size "
                  f"{t.shape[d]} in dim {d}, expected {first.shape[d]} (all dims but {dim} must match)")
        check(t.dtype == first.dtype, prim, "C4", lambda: f"tensor {i} has dtype {t.dtype}, expected "
              f"{first.dtype}; prims do not promote")
    check_same_device(prim, "C4", tensors)
    shape = list(first.shape)
    shape[dim] = sum((t.shape[dim] for t in tensors[1:]), first.shape[dim])
    return _meta(first, shape, memory_format_strides(shape, [(t.shape, t.stride()) for t in tensors]))


@meta_rule("as_strided", constraints=("C1", "C2", "C3"))
def as_strided(prim, a, size, stride, storage_offset):
    check(len(size) == len(stride), prim, "C1", lambda: f"size has {len(size)} entries but stride has {len(stride)}")
    check(all(s >= 0 for s in size) and all(s >= 0 for s in stride) and storage_offset >= 0, prim, "C2",
          lambda: f"sizes {list(size)}, strides {list(stride)} and storage_offset {storage_offset} must be >= 0")
    # Real and fake tensors know their storage's size (symbolic specs do not); sizes known only
    # symbolically are left to the backend rather than guarded on.
    available = a.untyped_storage().nbytes() // itemsize(a.dtype) if hasattr(a, "untyped_storage") else None
    if all(type(v) is int for v in (*size, *stride, storage_offset, available)):
        needed = 0 if 0 in size else storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
        check(needed <= available, prim, "C3", lambda: f"sizes {list(size)}, strides {list(stride)} and "
              f"storage_offset {storage_offset} reach element {needed - 1} but a's storage holds {available} elements")
    view = _view(a, size, stride)
    return replace(view, storage_offset=storage_offset)   # counted from the storage's start, not a's offset


# --- views that split, merge, alias or window dims ----------------------------------------------

def _rank_dim(prim, cid, dim, ndim):
    """A dim of an operand of rank >= 1 (IndexError citing cid for a 0-d operand or a dim out of range)."""
    check(ndim >= 1, prim, cid, "expected an operand of rank >= 1, got a 0-d operand", PrimIndexError)
    return canonical_dim(prim, cid, dim, ndim)


@meta_rule("split_dim", constraints=("C1", "C2"))
def split_dim(prim, a, dim, outer):
    d = _rank_dim(prim, "C1", dim, len(a.shape))
    size = a.shape[d]
    check(outer >= 1 and size % outer == 0, prim, "C2", lambda: f"outer {outer} must be >= 1 and divide the size "
          f"{size} of dim {d}")
    inner = size // outer
    shape, strides = list(a.shape), list(a.stride())
    shape[d:d + 1] = [outer, inner]
    strides[d:d + 1] = [strides[d] * inner, strides[d]]
    return _view(a, shape, strides)


@meta_rule("collapse", constraints=("C1", "C2"))
def collapse(prim, a, start, end):
    n = len(a.shape)
    check(0 <= start < end <= n, prim, "C1", lambda: f"expected 0 <= start ({start}) < end ({end}) <= rank ({n})",
          PrimIndexError)
    shape = list(a.shape[:start]) + [numel(a.shape[start:end])] + list(a.shape[end:])
    strides = view_strides(a.shape, a.stride(), shape)   # the dims outside [start, end) keep theirs
    check(strides is not None, prim, "C2", lambda: f"dims [{start}, {end}) of shape {shape_str(a.shape)} with "
          f"strides {shape_str(a.stride())} are not laid out one inside the next: merging them needs a copy")
    return _view(a, shape, strides)


@meta_rule("alias", constraints=("C1",))
def alias(prim, a):
    check_dtype(prim, "C1", a, prim.dtypes)
    return _view(a, a.shape, a.stride())


@meta_rule("diagonal", constraints=("C1", "C2"))
def diagonal(prim, a, offset, dim1, dim2):
    n = len(a.shape)
    check(n >= 2, prim, "C1", lambda: f"expected an operand of rank >= 2, got rank {n}", PrimIndexError)
    d1, d2 = canonical_dim(prim, "C1", dim1, n), canonical_dim(prim, "C1", dim2, n)
    check(d1 != d2, prim, "C2", lambda: f"dim1 ({dim1}) and dim2 ({dim2}) name the same dim {d1}")
    rows, cols = (a.shape[d1], a.shape[d2] - offset) if offset >= 0 else (a.shape[d1] + offset, a.shape[d2])
    length = rows if rows <= cols else cols
    length = length if length >= 0 else 0
    keep = [i for i in range(n) if i not in (d1, d2)]
    # The first element's place (eager adds none for an empty diagonal).
    start = 0 if surely(length == 0) else offset * a.stride()[d2] if offset >= 0 else -offset * a.stride()[d1]
    return _view(a, [a.shape[i] for i in keep] + [length],
                 [a.stride()[i] for i in keep] + [a.stride()[d1] + a.stride()[d2]], start)


@meta_rule("unfold", constraints=("C1", "C2", "C3"))
def unfold(prim, a, dim, size, step):
    n = len(a.shape)
    d = canonical_dim(prim, "C1", dim, n)
    dim_size = a.shape[d] if n else 1   # a 0-d operand unfolds as one element (as eager)
    check(0 <= size <= dim_size, prim, "C2", lambda: f"window size {size} must be in [0, {dim_size}] (the size "
          f"of dim {d})")
    check(step >= 1, prim, "C3", lambda: f"step {step} must be >= 1")
    if n == 0:
        return _view(a, [size], [1])
    shape, strides = list(a.shape), list(a.stride())
    shape[d] = (dim_size - size) // step + 1
    strides[d] = strides[d] * step
    return _view(a, shape + [size], strides + [a.stride()[d]])


@meta_rule("split", constraints=("C1", "C2"))
def split(prim, a, sizes, dim):
    d = _rank_dim(prim, "C1", dim, len(a.shape))
    check(all(s >= 0 for s in sizes) and sum(sizes[1:], sizes[0] if len(sizes) else 0) == a.shape[d], prim, "C2",
          lambda: f"sizes {list(sizes)} must be non-negative and sum to {a.shape[d]} (the size of dim {d})")
    pieces, start = [], 0
    for s in sizes:
        shape = list(a.shape)
        shape[d] = s
        pieces.append(_view(a, shape, a.stride(), start * a.stride()[d]))
        start = start + s
    return tuple(pieces)


# --- slices at data-given or static starts, and their updates -------------------------------

def _check_start_indices(prim, a, start_indices, cid_count, cid_index, cid_device):
    n = len(a.shape)
    check(len(start_indices) == n, prim, cid_count, lambda: f"start_indices has {len(start_indices)} entries, "
          f"expected {n} (the operand's rank)")
    for i, s in enumerate(start_indices):
        check(len(s.shape) == 0 and s.dtype in (torch.int32, torch.int64), prim, cid_index,
              lambda: f"start_indices[{i}] has shape {shape_str(s.shape)} and dtype {dt.short(s.dtype)}, expected "
              f"a 0-d int32 or int64 tensor")
    check_same_device(prim, cid_device, [a, *start_indices])


def _copy_meta(a):
    # A new tensor dense in a's dim order (the memory prim clone's layout).
    return _meta(a, a.shape, elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))]))


@meta_rule("dynamic_slice", constraints=("C1", "C2", "C3", "C4"))
def dynamic_slice(prim, a, start_indices, slice_sizes):
    n = len(a.shape)
    check(len(slice_sizes) == n, prim, "C1", lambda: f"slice_sizes has {len(slice_sizes)} entries, expected {n} "
          f"(the operand's rank)")
    _check_start_indices(prim, a, start_indices, "C1", "C2", "C4")
    for d in range(n):
        check(0 <= slice_sizes[d] <= a.shape[d], prim, "C3", lambda: f"dim {d}: slice size {slice_sizes[d]} must "
              f"be in [0, {a.shape[d]}]")
    return _meta(a, slice_sizes, contiguous_strides(slice_sizes))


def _check_update(prim, a, update, cid_rank, cid_dtype, cid_device):
    check(len(update.shape) == len(a.shape), prim, cid_rank, lambda: f"update has rank {len(update.shape)}, "
          f"expected {len(a.shape)} (the operand's rank)")
    check(update.dtype == a.dtype, prim, cid_dtype, lambda: f"update has dtype {dt.short(update.dtype)} but the "
          f"operand has {dt.short(a.dtype)}; prims do not promote")
    check_same_device(prim, cid_device, [a, update])


@meta_rule("dynamic_update_slice", constraints=("C1", "C2", "C3", "C4", "C5"))
def dynamic_update_slice(prim, a, update, start_indices):
    _check_update(prim, a, update, "C1", "C3", "C5")
    _check_start_indices(prim, a, start_indices, "C1", "C4", "C5")
    for d in range(len(a.shape)):
        check(update.shape[d] <= a.shape[d], prim, "C2", lambda: f"dim {d}: update size {update.shape[d]} exceeds "
              f"the operand's size {a.shape[d]}")
    return _copy_meta(a)


@meta_rule("slice_update", constraints=("C1", "C2", "C3", "C4", "C5", "C6"))
def slice_update(prim, a, update, start_indices, limit_indices, strides):
    check(len(update.shape) == len(a.shape), prim, "C1", lambda: f"update has rank {len(update.shape)}, "
          f"expected {len(a.shape)} (the operand's rank)")
    target = slice_(prim, a, start_indices, limit_indices, strides)   # C1 (lengths), C2, C3 as the slice prim
    check(tuple(update.shape) == tuple(target.shape), prim, "C4", lambda: f"update has shape "
          f"{shape_str(update.shape)}, expected {shape_str(target.shape)} (the slice's shape)")
    _check_update(prim, a, update, "C1", "C5", "C6")
    return _copy_meta(a)


@meta_rule("roll", constraints=("C1", "C2"))
def roll(prim, a, shifts, dims):
    check(len(shifts) == len(dims) and len(dims) >= 1, prim, "C1", lambda: f"shifts ({len(shifts)} entries) and "
          f"dims ({len(dims)} entries) must have equal, non-zero length")
    for d in dims:
        canonical_dim(prim, "C2", d, len(a.shape))
    return _meta(a, a.shape, contiguous_strides(a.shape))


# --- complex numbers as pairs of reals ----------------------------------------------------------

@meta_rule("view_as_real", constraints=("C1",))
def view_as_real(prim, a):
    check_dtype(prim, "C1", a, prim.dtypes)
    return _view(a, list(a.shape) + [2], [s * 2 for s in a.stride()] + [1], dtype=dt.to_real(a.dtype))


@meta_rule("view_as_complex", constraints=("C1", "C2", "C3", "C4", "C5"))
def view_as_complex(prim, a):
    check_dtype(prim, "C1", a, prim.dtypes)
    n = len(a.shape)
    check(n >= 1 and a.shape[-1] == 2, prim, "C2", lambda: f"the last dim must have size 2, got shape "
          f"{shape_str(a.shape)}")
    check(a.stride()[-1] == 1, prim, "C3", lambda: f"the last dim must have stride 1, got strides "
          f"{shape_str(a.stride())}")
    check(all(s % 2 == 0 for s in a.stride()[:-1]), prim, "C4", lambda: f"every stride but the last must be even, "
          f"got strides {shape_str(a.stride())}")
    # Only tensors that have a storage offset (real and fake ones; not symbolic specs) can violate C5.
    offset = a.storage_offset() if hasattr(a, "storage_offset") else 0
    check(offset % 2 == 0, prim, "C5", lambda: f"the storage offset must be even, got {offset}")
    return _view(a, a.shape[:-1], [s // 2 for s in a.stride()[:-1]], dtype=dt.to_complex(a.dtype))
