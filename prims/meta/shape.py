"""Meta rules of the shape family. View prims compute view strides (as eager's views do);
``reshape`` is a view when the layout allows and a contiguous copy otherwise; ``pad``, ``cat``
and ``rev`` allocate new tensors."""
from __future__ import annotations

from prims.errors import PrimIndexError, check
from prims.meta import TensorMeta, meta_rule
from prims.meta.common import canonical_dims, check_same_device, shape_str
from prims.meta.strides import contiguous_strides, elementwise_strides, itemsize, memory_format_strides


def _meta(a, shape, strides, dtype=None):
    return TensorMeta(tuple(shape), tuple(strides), dtype or a.dtype, a.device)


@meta_rule("broadcast_in_dim", constraints=("C1", "C2", "C3"))
def broadcast_in_dim(prim, a, shape, broadcast_dimensions):
    bd = list(broadcast_dimensions)
    check(len(bd) == len(a.shape), prim, "C1", lambda: f"broadcast_dimensions has {len(bd)} entries but the "
          f"operand has rank {len(a.shape)}")
    check(all(0 <= d < len(shape) for d in bd) and all(x < y for x, y in zip(bd, bd[1:])), prim, "C2",
          lambda: f"broadcast_dimensions {bd} must be strictly increasing dims of the target rank {len(shape)}")
    strides = [0] * len(shape)
    for i, d in enumerate(bd):
        check(a.shape[i] == 1 or a.shape[i] == shape[d], prim, "C3", lambda: f"operand dim {i} has size "
              f"{a.shape[i]} but target dim {d} has size {shape[d]}")
        strides[d] = a.stride()[i] if a.shape[i] == shape[d] else 0
    return _meta(a, shape, strides)


def view_strides(old_shape, old_strides, new_shape):
    """Strides that view ``old`` as ``new_shape`` without copying, or None if none exist."""
    old_shape, old_strides, new_shape = tuple(old_shape), tuple(old_strides), tuple(new_shape)
    if len(old_shape) == 0 or any(s == 0 for s in old_shape):
        return old_strides if old_shape == new_shape else contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_stride = old_strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel = tensor_numel * old_shape[d]
        # A chunk ends where the next-outer dim is not laid out right after this one.
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * chunk_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_stride
                view_numel = view_numel * new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_stride = old_strides[d - 1]
                tensor_numel = view_numel = 1
    return tuple(new_strides) if view_d == -1 else None


def _numel(shape):
    n = 1
    for s in shape:
        n = n * s
    return n


@meta_rule("reshape", constraints=("C1", "C2"))
def reshape(prim, a, shape):
    check(all(s >= 0 for s in shape), prim, "C1", lambda: f"target shape {shape_str(shape)} has a negative size")
    check(_numel(shape) == _numel(a.shape), prim, "C2", lambda: f"cannot reshape {shape_str(a.shape)} "
          f"({_numel(a.shape)} elements) to {shape_str(shape)} ({_numel(shape)} elements)")
    strides = view_strides(a.shape, a.stride(), shape)
    return _meta(a, shape, strides if strides is not None else contiguous_strides(shape))


@meta_rule("permute", constraints=("C1",))
def permute(prim, a, dims):
    check(sorted(d % max(len(a.shape), 1) if -len(a.shape) <= d < len(a.shape) else -1 for d in dims)
          == list(range(len(a.shape))), prim, "C1",
          lambda: f"dims {list(dims)} is not a permutation of the {len(a.shape)} dims of the operand")
    dims = [d % len(a.shape) for d in dims]
    return _meta(a, [a.shape[d] for d in dims], [a.stride()[d] for d in dims])


@meta_rule("squeeze", constraints=("C1", "C2"))
def squeeze(prim, a, dims):
    dims = canonical_dims(prim, "C1", dims, len(a.shape))
    for d in (dims if len(a.shape) else ()):   # a 0-d operand takes dim 0 or -1 (as eager) and keeps its rank
        check(a.shape[d] == 1, prim, "C2", lambda: f"dim {d} has size {a.shape[d]}, expected 1")
    keep = [i for i in range(len(a.shape)) if i not in dims]
    return _meta(a, [a.shape[i] for i in keep], [a.stride()[i] for i in keep])


@meta_rule("expand_dims", constraints=("C1",))
def expand_dims(prim, a, dims):
    out_rank = len(a.shape) + len(dims)
    dims = sorted(canonical_dims(prim, "C1", dims, out_rank))
    shape, strides = list(a.shape), list(a.stride())
    for d in dims:   # each inserted dim strides like eager's unsqueeze
        stride = shape[d] * strides[d] if d < len(shape) else 1
        shape.insert(d, 1)
        strides.insert(d, stride)
    return _meta(a, shape, strides)


@meta_rule("slice", constraints=("C1", "C2", "C3"))
def slice_(prim, a, start_indices, limit_indices, strides):
    n = len(a.shape)
    check(len(start_indices) == n and len(limit_indices) == n and len(strides) == n, prim, "C1",
          lambda: f"start_indices, limit_indices and strides need {n} entries each (the operand's rank), got "
          f"{len(start_indices)}, {len(limit_indices)} and {len(strides)}")
    for d in range(n):
        check(0 <= start_indices[d] <= limit_indices[d] <= a.shape[d], prim, "C2", lambda: f"dim {d}: expected "
              f"0 <= start ({start_indices[d]}) <= limit ({limit_indices[d]}) <= size ({a.shape[d]})")
        check(strides[d] >= 1, prim, "C3", lambda: f"dim {d}: stride {strides[d]} must be >= 1")
    shape = [(limit_indices[d] - start_indices[d] + strides[d] - 1) // strides[d] for d in range(n)]
    return _meta(a, shape, [a.stride()[d] * strides[d] for d in range(n)])


@meta_rule("rev", constraints=("C1",))
def rev(prim, a, dims):
    canonical_dims(prim, "C1", dims, len(a.shape))
    return _meta(a, a.shape, elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))]))


@meta_rule("pad", constraints=("C1", "C2"))
def pad(prim, a, padding_value, low, high, interior):
    n = len(a.shape)
    check(len(low) == n and len(high) == n and len(interior) == n, prim, "C1",
          lambda: f"low, high and interior need {n} entries each (the operand's rank), got "
          f"{len(low)}, {len(high)} and {len(interior)}")
    shape = []
    for d in range(n):
        check(interior[d] >= 0, prim, "C2", lambda: f"dim {d}: interior padding {interior[d]} must be >= 0")
        size = a.shape[d] + low[d] + high[d] + (a.shape[d] - 1) * interior[d] if a.shape[d] != 0 else low[d] + high[d]
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


@meta_rule("as_strided", constraints=("C1", "C2"))
def as_strided(prim, a, size, stride, storage_offset):
    check(len(size) == len(stride), prim, "C1", lambda: f"size has {len(size)} entries but stride has {len(stride)}")
    check(all(s >= 0 for s in size) and all(s >= 0 for s in stride) and storage_offset >= 0, prim, "C2",
          lambda: f"sizes {list(size)}, strides {list(stride)} and storage_offset {storage_offset} must be >= 0")
    return _meta(a, size, stride)
