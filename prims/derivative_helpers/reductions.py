"""Derivative helpers of the reductions family."""
from __future__ import annotations

import math

import torch

from primkit.prims.derivative_helpers.common import prim_ops


def other_dims(a, dims):
    """The dims of ``a`` not in ``dims`` (negative dims wrapped), in order: a reduction's kept dims."""
    reduced = {d % max(a.dim(), 1) for d in dims}
    return [d for d in range(a.dim()) if d not in reduced]


def unreduce(x, a, dims):
    """x (the shape of a reduced over dims) broadcast back to a's shape."""
    return prim_ops().broadcast_in_dim(x, list(a.shape), other_dims(a, dims))


def count(a, dims):
    """How many elements of a each output element of a reduction over dims combines (a number)."""
    return math.prod(a.shape[d] for d in dims)


def prod_back(grad, a, result, dims):
    """The gradient of ``prod(a, dims)``: grad times the (conjugated) product of the other elements of
    each element's slice. Where a != 0 that is conj(result / a), in eager's order (the quotient
    first, so that grad * result cannot overflow where the gradient does not); where a == 0 it is
    the product of the slice's nonzero elements if that zero is the slice's only one, else 0.
    Exact to first order, and to second order except where a slice holds two or more zeros."""
    ops = prim_ops()
    full = lambda x, v: ops.full(list(x.shape), v, dtype=x.dtype, device=x.device)   # noqa: E731
    conj = ops.conj_physical if a.is_complex() else (lambda x: x)
    is_zero = ops.eq(a, full(a, 0))
    nonzero = ops.where(is_zero, full(a, 1), a)
    zeros = ops.sum(ops.convert_element_type(is_zero, torch.int64), list(dims))
    only_zero = ops.eq(unreduce(zeros, a, dims), ops.full(list(a.shape), 1, dtype=torch.int64, device=a.device))
    others_of_zero = ops.where(only_zero, unreduce(ops.prod(nonzero, list(dims)), a, dims), full(a, 0))
    quotient = ops.div(unreduce(result, a, dims), nonzero)
    return ops.mul(unreduce(grad, a, dims), conj(ops.where(is_zero, others_of_zero, quotient)))


HELPERS = (other_dims, unreduce, count, prod_back)
