"""Small checks shared by the family meta rules."""
from __future__ import annotations

import torch

from prims import dtypes as dt
from prims.errors import PrimIndexError, check


def canonical_dim(prim, cid, dim: int, ndim: int) -> int:
    """Wrap a negative dim; IndexError citing the constraint when out of range."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    check(lo <= dim <= hi, prim, cid, lambda: f"dim {dim} out of range for a tensor of rank {ndim} "
          f"(expected a dim in [{lo}, {hi}])", PrimIndexError)
    return dim % max(ndim, 1)


def canonical_dims(prim, cid, dims, ndim: int) -> tuple:
    out = tuple(canonical_dim(prim, cid, d, ndim) for d in dims)
    check(len(set(out)) == len(out), prim, cid, lambda: f"dims {list(dims)} repeat a dim")
    return out


def check_dtype(prim, cid, x, allowed, what="operand"):
    check(x.dtype in allowed, prim, cid, lambda: f"{what} has dtype {dt.short(x.dtype)}, expected one of "
          f"{{{', '.join(sorted(dt.short(d) for d in allowed))}}}")


def check_same_device(prim, cid, tensors):
    devs = [torch.device(t.device) for t in tensors]
    check(all(d == devs[0] for d in devs), prim, cid,
          lambda: f"operands are on different devices: {[str(d) for d in devs]}")


def shape_str(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
