"""Helpers the reduction modules share: the reduced dims and their count, keepdim, the checks of empty
inputs and of dtypes."""
from __future__ import annotations

import math
import torch

from primkit.decompositions.common import P, check_sizes, wrap_dim
from primkit.prims import dtypes as dt


def reduced_dims(a, dim, *, empty_means_all=True):
    """The sorted dims a reduction reduces. None reduces every dim, and so does [] unless
    ``empty_means_all`` is False (any/all, whose dim=() reduces nothing). A 0-d tensor has none."""
    if isinstance(dim, int):
        dim = [dim]
    if dim is None or (len(dim) == 0 and empty_means_all):
        dim = range(a.dim())
    dims = [wrap_dim(d, a.dim()) for d in dim]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return sorted(dims) if a.dim() else []


def reduced_count(a, dims):
    return math.prod(a.shape[d] for d in dims)


def keep(out, dims, keepdim):
    """keepdim: the reduced dims back as size 1."""
    return P.expand_dims(out, dims) if keepdim and dims else out


def unreduce(r, shape, dims):
    """A reduced tensor broadcast back over the reduced dims of shape."""
    return P.broadcast_in_dim(r, list(shape), [d for d in range(len(shape)) if d not in dims])


def full_reduced(a, dims, value, dtype):
    """The value of a reduction over empty dims: its identity, shaped like the result."""
    shape = [s for d, s in enumerate(a.shape) if d not in dims]
    return P.full(shape, value, dtype=dtype, device=a.device)


def check_nonempty(name, a, dim, dims):
    """Reductions with no identity (amax, max, aminmax, argmax...): eager's errors on empty dims."""
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        check_sizes(a.numel() != 0, lambda: RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            f"Specify the reduction dim with the 'dim' argument."))
        return
    for d in dims:
        check_sizes(a.shape[d] != 0, lambda: IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size."))


def _is_exact(dtype):
    return dtype == torch.bool or dtype in dt.INT


def _check_inexact(name, dtype, message=None):
    if dtype not in dt.FLOAT and dtype not in dt.COMPLEX:
        raise RuntimeError(message or f"{name}(): could not infer output dtype. Input dtype must be either a "
                                      f"floating point or complex dtype. Got: {_scalar_name(dtype)}")


def _scalar_name(dtype):
    return {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char",
            torch.uint8: "Byte", torch.bool: "Bool"}.get(dtype, dt.short(dtype))
