"""Extrema: amax, amin, argmax, argmin, max, min (with indices, and of two tensors), aminmax."""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, check_sizes, register_overloads, to_dtype
from primkit.decompositions.reductions.common import check_nonempty, keep, reduced_dims


def _extremum(name, prim):
    """amax / amin: no identity, so empty reduced dims are errors."""
    def reduce(a, dim=(), keepdim=False):
        dims = reduced_dims(a, dim)
        check_nonempty(name, a, dim, dims)
        return keep(prim(a, dims), dims, keepdim)
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


amax = _extremum("amax", P.amax)
amin = _extremum("amin", P.amin)
register_overloads(amax, "amax", ("default", "out"))
register_overloads(amin, "amin", ("default", "out"))


def _arg_extremum(name, prim):
    """argmax / argmin: dim=None indexes the flattened tensor."""
    def reduce(a, dim=None, keepdim=False):
        if a.dtype == torch.bool:
            raise RuntimeError(f"{name}(): does not support bool input")
        if dim is None:
            if a.numel() == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            index = prim(P.reshape(a, [a.numel()]), 0)
            return P.reshape(index, [1] * a.dim()) if keepdim else index
        dims = reduced_dims(a, dim)
        check_nonempty(name, a, dims, dims)
        return keep(prim(a, dims[0] if dims else 0), dims, keepdim)
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


argmax = _arg_extremum("argmax", P.argmax)
argmin = _arg_extremum("argmin", P.argmin)
register_overloads(argmax, "argmax", ("default", "out"))
register_overloads(argmin, "argmin", ("default", "out"))


def _max_or_min(name, extremum, arg_extremum):
    """max/min of everything (a 0-d tensor), or along a dim: (values, indices). Along a dim the
    values are gathered at the indices, so that a gradient goes to the selected element only, as
    eager's (the extremum prim's own derivative shares it among tied elements)."""
    def reduce(a, dim=None, keepdim=False):
        dims = reduced_dims(a, dim)
        check_nonempty(name, a, dim, dims)
        if dim is None:
            return keep(extremum(a, dims), dims, keepdim)
        if not dims:     # a 0-d tensor: its own extremum, at index 0
            return P.clone(a), P.full([], 0, dtype=torch.int64, device=a.device)
        # The arg-reduction prims take no bool; uint8 0/1 ranks the same.
        ranked = to_dtype(a, torch.uint8) if a.dtype == torch.bool else a
        index = P.expand_dims(arg_extremum(ranked, dims[0]), dims)
        values = P.gather(a, dims[0], index)
        return keep(P.squeeze(values, dims), dims, keepdim), keep(P.squeeze(index, dims), dims, keepdim)
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


max_ = _max_or_min("max", P.amax, P.argmax)
min_ = _max_or_min("min", P.amin, P.argmin)
register_overloads(max_, "max", ("default", "dim", "dim_max", "unary_out"))
register_overloads(min_, "min", ("default", "dim", "dim_min", "unary_out"))


# max.other / min.other: the elementwise maximum / minimum of two tensors.
register_overloads(lambda a, b: torch.maximum(a, b), "max", ("other", "out"))
register_overloads(lambda a, b: torch.minimum(a, b), "min", ("other", "out"))


def aminmax(a, *, dim=None, keepdim=False):
    if dim is None:
        check_sizes(a.numel() != 0, lambda: RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."))
    dims = reduced_dims(a, dim)
    if dim is not None and a.dim():
        check_sizes(a.shape[dims[0]] != 0, lambda: IndexError(
            f"aminmax: Expected reduction dim {dims[0]} to have non-zero size."))
    if dim is None and keepdim:   # eager keeps every dim as size 1
        return tuple(P.reshape(r(a, dims), [1] * a.dim()) for r in (P.amin, P.amax))
    return keep(P.amin(a, dims), dims, keepdim), keep(P.amax(a, dims), dims, keepdim)


register_overloads(aminmax, "aminmax", ("default", "out"))
