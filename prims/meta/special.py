"""Meta rule of special functions that take an integer order besides their operand (polygamma)."""
from __future__ import annotations

from prims.errors import check
from prims.meta import meta_rule
from prims.meta.elementwise import elementwise_unary


@meta_rule("elementwise_unary_order", params=("out_dtype",), constraints=("C1", "C2"))
def elementwise_unary_order(prim, a, n):
    check(n >= 0, prim, "C2", lambda: f"order n must be >= 0, got {n}")
    return elementwise_unary(prim, a, n)
