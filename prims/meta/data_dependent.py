"""Meta rules of the data_dependent family (nonzero, masked_select, unique): a dim whose size
depends on values is an unbacked SymInt under FakeTensor, a fresh symbol elsewhere."""
from __future__ import annotations

import torch

from prims import dtypes as dt
from prims.errors import check
from prims.meta import TensorMeta, meta_rule
from prims.meta.common import check_dtype, check_same_device, shape_str
from prims.meta.strides import contiguous_strides


def data_dependent_size(prim, a):
    """A size between 0 and a.numel() that only the data decides."""
    ctx = torch.library.get_ctx()
    if ctx is not None:     # inside a fake kernel: an unbacked SymInt (raises without a ShapeEnv)
        numel = 1
        for s in a.shape:
            numel = numel * s
        return ctx.new_dynamic_size(max=numel) if isinstance(numel, int) else ctx.new_dynamic_size()
    from prims.symbolic import SymDim, symbol   # lazily: prims.symbolic imports the meta rules
    return SymDim(symbol(f"{prim.name}_size"))


def _contiguous(shape, dtype, device):
    shape = tuple(shape)
    return TensorMeta(shape, contiguous_strides(shape), dtype, device)


@meta_rule("nonzero")
def nonzero(prim, a):
    return _contiguous((data_dependent_size(prim, a), len(a.shape)), torch.int64, a.device)


@meta_rule("masked_select", constraints=("C1", "C2", "C3"))
def masked_select(prim, a, mask):
    check(mask.dtype == torch.bool, prim, "C1", lambda: f"mask has dtype {dt.short(mask.dtype)}, expected bool")
    check(tuple(mask.shape) == tuple(a.shape), prim, "C2", lambda: f"mask has shape {shape_str(mask.shape)} but "
          f"the operand has {shape_str(a.shape)}")
    check_same_device(prim, "C3", [a, mask])
    return _contiguous((data_dependent_size(prim, a),), a.dtype, a.device)


@meta_rule("unique", constraints=("C1",))
def unique(prim, a):
    check_dtype(prim, "C1", a, prim.dtypes)
    n = data_dependent_size(prim, a)
    return (_contiguous((n,), a.dtype, a.device), _contiguous(a.shape, torch.int64, a.device),
            _contiguous((n,), torch.int64, a.device))
