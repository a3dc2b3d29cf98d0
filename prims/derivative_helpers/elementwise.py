"""Derivative helpers of the elementwise families."""
from __future__ import annotations

from primkit.prims.derivative_helpers.common import full_like, prim_ops


def conj(x):
    """conj_physical(x) for a complex x, x itself otherwise (Wirtinger convention, as eager)."""
    return prim_ops().conj_physical(x) if x.is_complex() else x


def zeros_like(x):
    """A zero tensor with x's shape, dtype and device (the prim ``full``)."""
    return full_like(x, 0)


def mvdigamma(a, p):
    """The derivative of ``mvlgamma(a, p)``: the sum of digamma(a - j / 2) for j in 0..p-1."""
    ops = prim_ops()
    total = ops.digamma(a)
    for j in range(1, p):
        total = ops.add(total, ops.digamma(ops.sub(a, ops.full(list(a.shape), j / 2, dtype=a.dtype, device=a.device))))
    return total


def negated(xs):
    """The numbers of xs negated (roll's inverse shifts)."""
    return [-x for x in xs]


HELPERS = (conj, zeros_like, mvdigamma, negated,)
