"""Integration and differences: trapezoid, trapz, cumulative_trapezoid, diff."""
from __future__ import annotations

import torch

from primkit.decompositions.common import aten, register_with_variants, wrap_dim
from primkit.decompositions.registry import register
from primkit.prims.layout import surely


# --- integration: trapezoid, trapz, cumulative_trapezoid ----------------------------------------------------

def _sample_dim(y, dim):
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, y.dim())


def _check_real_dx(name, dx):
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


def _spacing(name, y, x, dim):
    """The differences of x along dim, x laid against y's dims as eager lays it (a 1-d x along dim,
    a lower-rank x against y's last dims)."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = torch.reshape(x, [x.shape[0] if d == dim else 1 for d in range(y.dim())])
    elif x.dim() < y.dim():
        x = torch.reshape(x, [1] * (y.dim() - x.dim()) + list(x.shape))
    return aten.slice.Tensor(x, dim, 1) - aten.slice.Tensor(x, dim, 0, -1)


def _zeros_without(y, dim):
    """Eager's integral over no samples: zeros of y's shape without dim, in y's dtype."""
    return torch.zeros([s for d, s in enumerate(y.shape) if d != dim], dtype=y.dtype, device=y.device)


def _neighbour_sums(y, dim):
    """y[i] + y[i + 1] along dim: twice each trapezoid's mean height."""
    return aten.slice.Tensor(y, dim, 0, -1) + aten.slice.Tensor(y, dim, 1)


def trapezoid_x(y, x, *, dim=-1):
    dim = _sample_dim(y, dim)
    if y.shape[dim] == 0:
        return _zeros_without(y, dim)
    if y.dtype == torch.bool or x.dtype == torch.bool:
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    dx = _spacing("trapezoid", y, x, dim)
    pairs = _neighbour_sums(y, dim)
    return torch.sum(pairs * dx, dim) / 2.0


def trapezoid_dx(y, *, dx=1, dim=-1):
    dim = _sample_dim(y, dim)
    if y.shape[dim] == 0:
        return _zeros_without(y, dim)
    if y.dtype == torch.bool:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    _check_real_dx("trapezoid", dx)
    # constant spacing: (sum of y - half of its two ends) * dx
    ends = torch.select(y, dim, 0) + torch.select(y, dim, -1)
    return (torch.sum(y, dim) - ends * 0.5) * float(dx)


def cumulative_trapezoid_x(y, x, *, dim=-1):
    dim = _sample_dim(y, dim)
    if y.dtype == torch.bool or x.dtype == torch.bool:
        raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    dx = _spacing("cumulative_trapezoid", y, x, dim)
    pairs = _neighbour_sums(y, dim)
    return torch.cumsum(pairs * dx, dim) / 2.0


def cumulative_trapezoid_dx(y, *, dx=1, dim=-1):
    dim = _sample_dim(y, dim)
    _check_real_dx("cumulative_trapezoid", dx)
    pairs = _neighbour_sums(y, dim)
    return torch.cumsum(float(dx) / 2.0 * pairs, dim)


register(aten.trapezoid.x, aten.trapz.x)(trapezoid_x)
register(aten.trapezoid.dx, aten.trapz.dx)(trapezoid_dx)
register(aten.cumulative_trapezoid.x)(cumulative_trapezoid_x)
register(aten.cumulative_trapezoid.dx)(cumulative_trapezoid_dx)


# --- differences and sums to a size: diff, sum_to_size --------------------------------------------

def diff(a, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along dim (not-equal for bool), after prepend and append."""
    if a.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    pieces = [t for t in (prepend, a, append) if t is not None]
    x = aten.cat.default(pieces, dim) if len(pieces) > 1 else a
    for _ in range(n):
        size = x.shape[wrap_dim(dim, x.dim(), "diff")]
        if surely(size == 0):   # (a size read from data: the slices below are empty for 0 too)
            break
        hi, lo = aten.slice.Tensor(x, dim, 1, size, 1), aten.slice.Tensor(x, dim, 0, size - 1, 1)
        x = aten.ne.Tensor(hi, lo) if x.dtype == torch.bool else aten.sub.Tensor(hi, lo)
    return aten.clone.default(x) if x is a else x   # n == 0: eager returns a copy


register_with_variants("diff", diff)
