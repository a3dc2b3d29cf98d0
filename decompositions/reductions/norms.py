"""Norms: linalg_vector_norm, norm, renorm, frobenius_norm."""
from __future__ import annotations

import math

from primkit.decompositions.common import (
    P, check_sizes, elementwise, like, register_overloads, to_dtype, upcast, wrap_dim)
from primkit.decompositions.layout import contiguous
from primkit.decompositions.reductions.common import _check_inexact, _scalar_name, keep, reduced_count, reduced_dims
from primkit.decompositions.type_promotion import computation_dtype
from primkit.prims import dtypes as dt


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    _check_inexact("linalg.vector_norm", dtype or x.dtype, f"linalg.vector_norm: Expected a floating point or "
                                                            f"complex tensor as input. Got {_scalar_name(x.dtype)}")
    dims = reduced_dims(x, dim)
    if ord < 0 and not math.isinf(ord):
        for d in dims:
            check_sizes(x.shape[d] != 0, lambda: RuntimeError(
                f"linalg.vector_norm cannot compute the {ord} norm on the dimension {d}because this dimension is "
                f"empty and the operation does not have an identity"))
    out_dtype = dt.to_real(dtype or x.dtype)
    (magnitude,), _ = upcast(P.abs(to_dtype(x, dtype or x.dtype)))
    if math.isinf(ord):
        check_sizes(reduced_count(x, dims) != 0, lambda: RuntimeError(
            f"linalg.vector_norm cannot compute the {'' if ord > 0 else '-'}inf norm on an empty tensor because the "
            f"operation does not have an identity"))
        out = (P.amax if ord > 0 else P.amin)(magnitude, dims)
    elif ord == 0:
        out = P.sum(to_dtype(P.ne(magnitude, like(magnitude, 0)), magnitude.dtype), dims)
    elif ord == 1:
        out = P.sum(magnitude, dims)
    elif ord == 2:
        out = P.sqrt(P.sum(P.mul(magnitude, magnitude), dims))
    else:
        total = P.sum(P.pow(magnitude, like(magnitude, ord)), dims)
        out = P.pow(total, like(total, 1.0 / ord))
    return keep(to_dtype(out, out_dtype), dims, keepdim)


register_overloads(vector_norm, "linalg_vector_norm", ("default", "out"))


def norm(a, p=2, dim=None, keepdim=False, *, dtype=None):
    """aten.norm's number-p overloads: the vector norm (p=None means 2)."""
    return vector_norm(a, 2 if p is None else p, dim, keepdim, dtype=dtype)


register_overloads(lambda a, p=2, *, dtype=None: norm(a, p, dtype=dtype), "norm",
                   ("Scalar", "ScalarOpt_dtype", "Scalar_out", "ScalarOpt_dtype_out"))
register_overloads(norm, "norm", ("ScalarOpt_dim", "ScalarOpt_dim_dtype", "out", "dtype_out"))


def renorm(a, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm scaled to norm maxnorm: factor
    maxnorm / (norm + 1e-7), computed in the norm's accumulation dtype (float32 for
    float16/bfloat16) and taken to a's dtype, as eager's kernel does. Contiguous, as eager's."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if a.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {a.dim()} dimensions")
    d = wrap_dim(dim, a.dim())
    others = [k for k in range(a.dim()) if k != d]
    accumulate = computation_dtype(a.dtype)
    norm = vector_norm(a, p, others, True, dtype=accumulate if accumulate != a.dtype else None)
    factor = P.where(P.gt(norm, like(norm, maxnorm)), P.div(like(norm, maxnorm), P.add(norm, like(norm, 1e-7))),
                     like(norm, 1))
    return contiguous(elementwise(P.mul, a, to_dtype(factor, a.dtype)))


register_overloads(renorm, "renorm", ("default", "out"), inplace=("default",))


def frobenius_norm(a, dim, keepdim=False):
    """The 2-norm over at most two dims (eager's frobenius_norm is norm(a, 2, dim))."""
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    return vector_norm(a, 2, dim, keepdim)


register_overloads(frobenius_norm, "frobenius_norm", ("dim", "out"))
