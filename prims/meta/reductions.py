"""Meta rules of the reduction family: reduce the listed dims; output is contiguous."""
from __future__ import annotations

import torch

from prims import dtypes as dt
from prims.errors import PrimIndexError, check
from prims.meta import TensorMeta, meta_rule
from prims.meta.common import canonical_dim, canonical_dims, check_dtype
from prims.meta.strides import contiguous_strides

OUT_DTYPE = {"same": lambda d: d, "real": dt.to_real, "int64": lambda d: torch.int64}


def _reduced(prim, a, dims):
    shape = tuple(s for i, s in enumerate(a.shape) if i not in dims)
    return TensorMeta(shape, contiguous_strides(shape),
                      OUT_DTYPE[prim.params.get("out_dtype", "same")](a.dtype), a.device)


@meta_rule("reduction", params=("out_dtype", "needs_elements"), constraints=("C1", "C2"))
def reduction(prim, a, dims, *rest):
    dims = canonical_dims(prim, "C1", dims, len(a.shape))
    check_dtype(prim, "C2", a, prim.dtypes)
    if prim.params.get("needs_elements"):   # no identity (amax, amin): an empty reduced dim is an error
        for d in dims:
            check(a.shape[d] != 0, prim, "C3", lambda: f"cannot reduce dim {d} of size 0: it has no identity",
                  PrimIndexError)
    return _reduced(prim, a, dims)


@meta_rule("arg_reduction", params=("out_dtype",), constraints=("C1", "C2", "C3"))
def arg_reduction(prim, a, dim):
    dim = canonical_dim(prim, "C1", dim, len(a.shape))
    check_dtype(prim, "C2", a, prim.dtypes)
    if len(a.shape):
        check(a.shape[dim] != 0, prim, "C3", lambda: f"cannot reduce dim {dim} of size 0: it has no identity",
              PrimIndexError)
    return _reduced(prim, a, (dim,) if len(a.shape) else ())
