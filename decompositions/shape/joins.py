"""Splits and joins: split, split_with_sizes, unbind, cat, stack."""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, register_out, to_dtype, wrap_dim
from primkit.decompositions.registry import register
from primkit.decompositions.shape.views import select, slice_
from primkit.decompositions.type_promotion import result_type
from primkit.prims.layout import maybe, surely


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
