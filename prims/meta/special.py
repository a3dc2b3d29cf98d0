"""Meta rule of special functions that take an integer order besides their operand (polygamma's
n, mvlgamma's p). The entry's ``min_order`` is the least order allowed (default 0)."""
from __future__ import annotations

from prims.errors import check
from prims.meta import count, meta_rule
from prims.meta.elementwise import elementwise_unary, out_dtype_kind


@meta_rule("elementwise_unary_order", params={"out_dtype": out_dtype_kind, "min_order": count}, constraints=("C1", "C2"))
def elementwise_unary_order(prim, a, n):
    least = prim.params.get("min_order", 0)
    check(n >= least, prim, "C2", lambda: f"order {prim.arg_names[1]} must be >= {least}, got {n}")
    return elementwise_unary(prim, a, n)
