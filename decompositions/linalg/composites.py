"""Eager's compositions (CompositeImplicitAutograd) written again in ops that decompose, so their
rounding, type promotion and output strides follow eager's: vander, trace, kron, cross.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, broadcast_shapes, register_with_variants, to_dtype, wrap_dim
from primkit.decompositions.linalg.factorizations import LAPACK_DTYPES
from primkit.decompositions.registry import register
from primkit.prims import dtypes as dt


# --- Vandermonde matrices -------------------------------------------------------------------------------------

@register(aten.linalg_vander.default)
def linalg_vander(x, *, N=None):
    """The powers x^0, ..., x^(N-1) along a new last dim (cumulative products)."""
    if not (x.dtype in LAPACK_DTYPES or x.dtype in dt.INT):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{dt.short(x.dtype)}")
    x = torch.unsqueeze(x, -1) if x.dim() == 0 else x
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = torch.cumprod(torch.unsqueeze(x, -1).expand(*x.shape, n - 1), -1)
    return torch.cat([torch.ones(*x.shape, 1, dtype=powers.dtype, device=x.device), powers], -1)


@register(aten.vander.default)
def vander(x, N=None, increasing=False):
    """Columns x^(N-1), ..., x^0 (x^0 first when increasing), in x's dtype promoted with int64."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if N is not None and n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = torch.promote_types(x.dtype, torch.int64)
    ones = torch.ones(x.shape[0], min(n, 1), dtype=dtype, device=x.device)
    if n <= 1:
        result = ones
    else:
        powers = torch.cumprod(to_dtype(P.expand_dims(x, [1]), dtype).expand(x.shape[0], n - 1), 1)
        result = torch.cat([ones, powers], 1)
    return result if increasing else torch.flip(result, [1])


# --- trace, kron, cross ----------------------------------------------------------------------------

def trace(a):
    """The sum of a matrix's main diagonal (integers sum to int64, as sum does)."""
    if a.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.dim()}")
    if a.dtype == torch.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return aten.sum.default(aten.diagonal.default(a))


register_with_variants("trace", trace)


def kron(a, b):
    """The Kronecker product: a's and b's dims interleaved, multiplied, then merged pairwise."""
    n = max(a.dim(), b.dim())
    sa = [1] * (n - a.dim()) + list(a.shape)
    sb = [1] * (n - b.dim()) + list(b.shape)
    a2 = aten.view.default(a, [s for d in sa for s in (d, 1)])
    b2 = aten.view.default(b, [s for d in sb for s in (1, d)])
    return aten.view.default(aten.mul.Tensor(a2, b2), [x * y for x, y in zip(sa, sb)])


register_with_variants("kron", kron)


def linalg_cross(a, b, *, dim=-1):
    """a x b along dim (size 3): a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0."""
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, a.dim(), "linalg_cross")
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
                           f"{b.shape[d]}")
    shape = list(broadcast_shapes(a.shape, b.shape))
    a, b = aten.expand.default(a, shape), aten.expand.default(b, shape)

    def roll(t, k):
        return aten.index_select.default(t, d, _indices(k, t.device))
    return aten.sub.Tensor(aten.mul.Tensor(roll(a, 1), roll(b, 2)), aten.mul.Tensor(roll(a, 2), roll(b, 1)))


def _indices(k, device):
    return aten.remainder.Scalar(P.iota(3, start=k, step=1, dtype=torch.int64, device=device), 3)


def cross(a, b, dim=None):
    if dim is None:   # eager's deprecated default: the first dim of size 3
        dim = next((i for i, s in enumerate(a.shape) if s == 3), -1)
    return linalg_cross(a, b, dim=dim)


register_with_variants("linalg_cross", linalg_cross)
register_with_variants("cross", cross)
