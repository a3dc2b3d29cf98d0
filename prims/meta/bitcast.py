"""Meta rule of bitcast_convert_type: same shape, same itemsize, contiguous output."""
from __future__ import annotations

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import TensorMeta, meta_rule
from primkit.prims.meta.common import check_dtype
from primkit.prims.layout import contiguous_strides, itemsize


@meta_rule("bitcast", constraints=("C1", "C2", "C3"))
def bitcast(prim, a, dtype):
    check_dtype(prim, "C1", a, prim.dtypes)
    check(dtype in prim.dtypes, prim, "C2", lambda: f"target dtype {dt.short(dtype)} is not supported")
    check(itemsize(a.dtype) == itemsize(dtype), prim, "C3",
          lambda: f"operand dtype {dt.short(a.dtype)} has itemsize {itemsize(a.dtype)} but target dtype "
          f"{dt.short(dtype)} has itemsize {itemsize(dtype)}")
    shape = tuple(a.shape)
    return TensorMeta(shape, contiguous_strides(shape), dtype, a.device)
