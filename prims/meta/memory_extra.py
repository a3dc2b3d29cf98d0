"""Meta rule of the memory_extra family (copy_strided): the output has the requested strides."""
from __future__ import annotations

from primkit.prims.errors import check
from primkit.prims.meta.strides import is_non_overlapping
from primkit.prims.meta import TensorMeta, meta_rule
from primkit.prims.meta.common import shape_str


@meta_rule("copy_strided", constraints=("C1", "C2"))
def copy_strided(prim, a, stride):
    check(len(stride) == len(a.shape), prim, "C1", lambda: f"stride has {len(stride)} entries but the operand has "
          f"rank {len(a.shape)}")
    check(all(s >= 0 for s in stride), prim, "C2", lambda: f"stride {list(stride)} has a negative entry")
    check(is_non_overlapping(a.shape, stride), prim, "C2", lambda: f"stride {list(stride)} makes elements of a "
          f"tensor of shape {shape_str(a.shape)} overlap")
    return TensorMeta(tuple(a.shape), tuple(stride), a.dtype, a.device)
