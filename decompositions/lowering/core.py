"""The lowering registry: ``@lowers("<prim>")`` registers a lowering of a prim into other prims, and
the helpers lowerings share. Family modules (``lowering/<family>.py``) hold the lowerings."""
from __future__ import annotations

import functools

import torch

from primkit import prims
from primkit.prims import dtypes as dt

P = torch.ops.primkit
LOWERINGS: dict = {}     # prim name -> (function, example-args factory, dtypes or None)


def lowers(name, example=None, dtypes=None):
    """Register a lowering of prim ``name``. ``dtypes``: a dtype class of ``prims.dtypes`` ("float",
    "real", ...) or a set of dtypes, where the formula is valid (default: every dtype the prim takes);
    elsewhere the prim is left to the backend or to another lowering. ``example(dtype)`` builds the
    arguments to trace it with at a dtype (default: one tensor of shape (3,) per Tensor argument), or a list
    of argument tuples where the lowering takes a different path per non-tensor argument."""
    prims.get(name)
    if isinstance(dtypes, str):
        dtypes = dt.resolve([dtypes])
    elif dtypes is not None:
        dtypes = dt.resolve(dtypes) if all(isinstance(d, str) for d in dtypes) else frozenset(dtypes)

    def deco(fn):
        if name in LOWERINGS:
            raise ValueError(f"prim '{name}' has two lowerings")
        LOWERINGS[name] = (fn, example, dtypes)
        return fn
    return deco


LOW_PRECISION = (torch.float16, torch.bfloat16)


def in_opmath(fn):
    """Compute a float16/bfloat16 lowering in float32 and round once at the end, as eager's
    kernels do (a formula of several prims rounded after each would drift by ulps)."""
    @functools.wraps(fn)
    def lowered(x, *rest):
        if x.dtype not in LOW_PRECISION:
            return fn(x, *rest)
        rest = [P.convert_element_type(r, torch.float32) if isinstance(r, torch.Tensor) and r.dtype == x.dtype else r
                for r in rest]
        result = fn(P.convert_element_type(x, torch.float32), *rest)
        if isinstance(result, tuple):     # several outputs: those in float32 go back to x's dtype
            return tuple(P.convert_element_type(r, x.dtype) if r.dtype == torch.float32 else r for r in result)
        return P.convert_element_type(result, x.dtype)
    return lowered


def splat(value, like):
    """The Python number ``value`` as a tensor of ``like``'s shape, dtype and device."""
    return P.broadcast_in_dim(scalar(value, like), list(like.shape), [])


def where_eq(x, value, then, otherwise):
    return P.where(P.eq(x, splat(value, x)), then, otherwise)


def with_strides(x, strides):
    """A new tensor ``x`` (the result of a prim that allocates) with the given strides: itself where it
    has them, else a copy (copy_strided). Lowerings end with it where their prim returns a fixed layout."""
    return x if tuple(x.stride()) == tuple(strides) else P.copy_strided(x, list(strides))


def iota(n, like, start=0, step=1, dtype=torch.int64):
    """0, 1, ..., n - 1 (times step, plus start) as a 1-d tensor on ``like``'s device."""
    return P.iota(n, start=start, step=step, dtype=dtype, device=like.device)


def scalar(value, like, dtype=None):
    """A 0-d tensor holding ``value`` at ``like``'s dtype (or ``dtype``) and device."""
    return P.scalar_tensor(value, dtype=dtype or like.dtype, device=like.device)


def isnan(x):
    return P.logical_not(P.eq(x, x))     # nan is the one value unequal to itself
