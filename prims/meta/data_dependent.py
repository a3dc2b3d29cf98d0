"""Meta rules of the data_dependent family (nonzero, masked_select, unique, bincount, repeat_interleave;
histc, whose size is fixed): a dim whose size depends on values is an unbacked SymInt under FakeTensor, a
fresh symbol elsewhere."""
from __future__ import annotations

import math

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import meta_rule
from primkit.prims.meta.common import check_addressable, check_dtype, check_same_device, contiguous_meta, shape_str


def data_dependent_size(prim, a=None, *, least=0):
    """A size that only the data decides: between least and a.numel() with an operand a, else unbounded
    above."""
    ctx = torch.library.get_ctx()
    if ctx is not None:     # inside a fake kernel: an unbacked SymInt (raises without a ShapeEnv)
        numel = None
        if a is not None:
            numel = 1
            for s in a.shape:
                numel = numel * s
        least = least if isinstance(least, int) else 0
        return ctx.new_dynamic_size(min=least, max=numel) if isinstance(numel, int) else \
            ctx.new_dynamic_size(min=least)
    from primkit.prims.symdim import SymDim, symbol   # imports sympy (0.3 s): only where a symbol is made
    return SymDim(symbol(f"{prim.name}_size"))


@meta_rule("nonzero", constraints=("C1",))
def nonzero(prim, a):
    check_dtype(prim, "C1", a, prim.dtypes)
    return contiguous_meta((data_dependent_size(prim, a), len(a.shape)), torch.int64, a.device)


@meta_rule("masked_select", constraints=("C1", "C2", "C3"))
def masked_select(prim, a, mask):
    check(mask.dtype == torch.bool, prim, "C1", lambda: f"mask has dtype {dt.short(mask.dtype)}, expected bool")
    check(tuple(mask.shape) == tuple(a.shape), prim, "C2", lambda: f"mask has shape {shape_str(mask.shape)} but "
          f"the operand has {shape_str(a.shape)}")
    check_same_device(prim, "C3", [a, mask])
    return contiguous_meta((data_dependent_size(prim, a),), a.dtype, a.device)


@meta_rule("unique", constraints=("C1",), outputs=3)
def unique(prim, a):
    check_dtype(prim, "C1", a, prim.dtypes)
    n = data_dependent_size(prim, a)
    return (contiguous_meta((n,), a.dtype, a.device), contiguous_meta(a.shape, torch.int64, a.device),
            contiguous_meta((n,), torch.int64, a.device))


def _check_int64_vector(prim, x, what):
    check(x.dtype == torch.int64, prim, "C1", lambda: f"{what} has dtype {dt.short(x.dtype)}, expected int64")
    check(len(x.shape) == 1, prim, "C2", lambda: f"{what} has shape {shape_str(x.shape)}, expected 1-d")


@meta_rule("bincount", constraints=("C1", "C2", "C3"))
def bincount(prim, a, minlength):
    _check_int64_vector(prim, a, "a")
    check(minlength >= 0, prim, "C3", lambda: f"minlength is {minlength}, expected minlength >= 0")
    check_addressable(prim, (minlength,), (1,), torch.int64)     # the least size: addressable
    # max(a) + 1 is not bounded by a's length: only minlength bounds the size, from below
    return contiguous_meta((data_dependent_size(prim, least=minlength),), torch.int64, a.device)


@meta_rule("repeat_interleave", constraints=("C1", "C2"))
def repeat_interleave(prim, repeats):
    _check_int64_vector(prim, repeats, "repeats")
    return contiguous_meta((data_dependent_size(prim),), torch.int64, repeats.device)


@meta_rule("histc", constraints=("C1", "C2", "C3"))
def histc(prim, a, bins, min, max):
    check_dtype(prim, "C1", a, prim.dtypes)
    check(bins >= 1, prim, "C2", lambda: f"bins is {bins}, expected bins >= 1")
    check(math.isfinite(min) and math.isfinite(max) and min < max, prim, "C3",
          lambda: f"[min, max] is [{min}, {max}], expected finite min < max")
    return contiguous_meta((bins,), a.dtype, a.device)
