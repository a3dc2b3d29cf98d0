"""Small checks shared by the family meta rules."""
from __future__ import annotations

import math
import numbers

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import PrimIndexError, check
from primkit.prims.meta.rules import TensorMeta
from primkit.prims.layout import contiguous_strides


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


def contiguous_meta(shape, dtype, device) -> TensorMeta:
    """A row-major (contiguous) output of this shape."""
    shape = tuple(shape)
    return TensorMeta(shape, contiguous_strides(shape), dtype, device)


def shape_str(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


MAX_STORAGE_BYTES = 2 ** 63 - 1    # torch counts a storage's bytes in an int64


def check_addressable(prim, shape, strides, dtype) -> None:
    """A tensor whose storage would need more bytes than an int64 counts: torch refuses to make it
    ("Storage size calculation overflowed"), so a meta rule refuses it too, citing "storage" (every
    prim's output is checked so, by the registered kernels). Static sizes only."""
    if not all(type(v) is int for v in (*shape, *strides)) or 0 in shape:
        return
    elements = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    check(elements * dtype.itemsize <= MAX_STORAGE_BYTES, prim, "storage", lambda: f"a tensor of sizes "
          f"{list(shape)} and strides {list(strides)} needs {elements} elements of {dtype}, more than "
          f"{MAX_STORAGE_BYTES} bytes")


def fits(value, dtype) -> bool:
    """Whether a number converts to dtype without overflow: any number for bool; for an integer
    dtype a finite value in its range (and, for an unsigned one, an int down to -max, which wraps as
    torch.full wraps it); for a real dtype no imaginary part; a floating dtype takes any real value (beyond its range
    it rounds to +-inf). A symbolic value (SymInt, SymFloat) is unknown here and passes."""
    if not isinstance(value, numbers.Number) or dtype == torch.bool:
        return True
    if isinstance(value, complex):
        if dtype.is_complex:
            return True
        if value.imag != 0:
            return False
        value = value.real
    if dtype.is_floating_point or dtype.is_complex:
        return True
    if isinstance(value, float) and not math.isfinite(value):
        return False
    info = torch.iinfo(dtype)
    low = -info.max if info.min == 0 and not isinstance(value, float) else info.min   # only an int wraps
    return low <= value <= info.max


def check_fits(prim, cid, name, value, dtype):
    check(fits(value, dtype), prim, cid, lambda: f"{name} {value!r} cannot be converted to {dtype} without overflow; "
          f"a decomposition wraps or rounds a Python number into the dtype first")
