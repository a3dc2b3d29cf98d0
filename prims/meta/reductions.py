"""Meta rules of the reduction family: reduce the listed dims; output is contiguous.

`with_mean` (var_mean) adds the mean, in the operand's dtype; `with_values` (median) puts the
extreme value, in the operand's dtype, before the int64 index."""
from __future__ import annotations

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import PrimIndexError, check
from primkit.prims.meta.rules import TensorMeta, flag, meta_rule, one_of
from primkit.prims.meta.common import canonical_dim, canonical_dims, check_dtype
from primkit.prims.layout import contiguous_strides

OUT_DTYPE = {"same": lambda d: d, "real": dt.to_real, "int64": lambda d: torch.int64}


def _reduced(prim, a, dims):
    shape = tuple(s for i, s in enumerate(a.shape) if i not in dims)
    return TensorMeta(shape, contiguous_strides(shape),
                      OUT_DTYPE[prim.params.get("out_dtype", "same")](a.dtype), a.device)


@meta_rule("reduction", params={"out_dtype": one_of(*OUT_DTYPE), "needs_elements": flag, "with_mean": flag},
           constraints=("C1", "C2"), outputs=lambda params: 2 if params.get("with_mean") else 1)
def reduction(prim, a, dims, *rest):
    dims = canonical_dims(prim, "C1", dims, len(a.shape))
    check_dtype(prim, "C2", a, prim.dtypes)
    if prim.params.get("needs_elements"):   # no identity (amax, amin): an empty reduced dim is an error
        for d in dims:
            check(a.shape[d] != 0, prim, "C3", lambda: f"cannot reduce dim {d} of size 0: it has no identity",
                  PrimIndexError)
    out = _reduced(prim, a, dims)
    if prim.params.get("with_mean"):
        return out, TensorMeta(out.shape, out.strides, a.dtype, a.device)
    return out


@meta_rule("arg_reduction", params={"out_dtype": one_of(*OUT_DTYPE), "with_values": flag},
           constraints=("C1", "C2", "C3"), outputs=lambda params: 2 if params.get("with_values") else 1)
def arg_reduction(prim, a, dim):
    dim = canonical_dim(prim, "C1", dim, len(a.shape))
    check_dtype(prim, "C2", a, prim.dtypes)
    if len(a.shape):
        check(a.shape[dim] != 0, prim, "C3", lambda: f"cannot reduce dim {dim} of size 0: it has no identity",
              PrimIndexError)
    out = _reduced(prim, a, (dim,) if len(a.shape) else ())
    if prim.params.get("with_values"):
        return TensorMeta(out.shape, out.strides, a.dtype, a.device), out
    return out
