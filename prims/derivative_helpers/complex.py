"""Derivative helpers of the complex family: view_as_real's and angle's gradients."""
from __future__ import annotations

from primkit.prims.derivative_helpers.common import full, prim_ops


def complex_from_pairs(x):
    """The complex tensor x[..., 0] + x[..., 1] * 1j of x (..., 2): the gradient of view_as_real."""
    ops = prim_ops()
    lo, hi = [0] * x.dim(), list(x.shape)
    halves = []
    for k in (0, 1):
        lo[-1], hi[-1] = k, k + 1
        halves.append(ops.reshape(ops.slice(x, list(lo), list(hi), [1] * x.dim()), list(x.shape[:-1])))
    return ops.complex(*halves)


def angle_back(grad, a):
    """The gradient of angle(a): grad * 1j * a / |a|^2 for complex a (0 where a is 0); zero for a
    real a (piecewise constant)."""
    ops = prim_ops()
    if not a.is_complex():
        return prim_ops().full(list(a.shape), 0, dtype=grad.dtype, device=grad.device)
    abs2 = ops.convert_element_type(ops.mul(ops.abs(a), ops.abs(a)), a.dtype)
    g = ops.div(ops.mul(ops.convert_element_type(grad, a.dtype), ops.mul(a, full(a.shape, 1j, a))), abs2)
    zero = full(a.shape, 0, a)
    return ops.where(ops.eq(a, zero), zero, g)


HELPERS = (complex_from_pairs, angle_back,)
