"""Meta rule of the memory_extra family (copy_strided): the output has the requested strides."""
from __future__ import annotations

from prims.errors import check
from prims.meta import TensorMeta, meta_rule
from prims.meta.common import shape_str


@meta_rule("copy_strided", constraints=("C1", "C2"))
def copy_strided(prim, a, stride):
    check(len(stride) == len(a.shape), prim, "C1", lambda: f"stride has {len(stride)} entries but the operand has "
          f"rank {len(a.shape)}")
    check(all(s >= 0 for s in stride), prim, "C2", lambda: f"stride {list(stride)} has a negative entry")
    # Dims of size > 1, innermost first: each must step past everything the inner ones span.
    dims = sorted((st, size) for st, size in zip(stride, a.shape) if size != 1)
    extent = 1
    if all(size != 0 for size in a.shape):     # an empty tensor has no elements to overlap
        for st, size in dims:
            check(st >= extent, prim, "C2", lambda: f"stride {list(stride)} makes elements of a tensor of shape "
                  f"{shape_str(a.shape)} overlap")
            extent = st * (size - 1) + extent
    return TensorMeta(tuple(a.shape), tuple(stride), a.dtype, a.device)
