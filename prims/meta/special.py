"""Meta rule of special functions that take an integer order besides their operand (polygamma's
n, mvlgamma's p). The entry's ``min_order`` is the least order allowed (default 0); ``order_terms``: the
value sums that many terms per element, which must be addressable as a tensor (the "storage" check)."""
from __future__ import annotations

from primkit.prims.errors import check
from primkit.prims.meta import count, flag, meta_rule
from primkit.prims.meta.common import check_addressable
from primkit.prims.meta.elementwise import elementwise_unary, out_dtype_kind
from primkit.prims.meta.strides import contiguous_strides


@meta_rule("elementwise_unary_order", params={"out_dtype": out_dtype_kind, "min_order": count, "order_terms": flag},
           constraints=("C1", "C2"))
def elementwise_unary_order(prim, a, n):
    least = prim.params.get("min_order", 0)
    check(n >= least, prim, "C2", lambda: f"order {prim.arg_names[1]} must be >= {least}, got {n}")
    if prim.params.get("order_terms"):     # n terms per element (mvlgamma's sum): as many must be addressable
        shape = (*a.shape, n)
        check_addressable(prim, shape, contiguous_strides(shape), a.dtype)
    return elementwise_unary(prim, a, n)
