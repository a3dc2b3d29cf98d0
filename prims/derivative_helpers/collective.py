"""Derivative helpers of the collective family. Each backward collective passes through ``wait``, as
in a forward graph; every rank runs the same backward, so the ranks call the same collectives in the
same order.

For a reduction over ranks (all_reduce, reduce_scatter, reduce) with result y = op_s(x_s) and upstream
gradient G, the sum over the ranks that read y of their gradients, rank r's gradient is:
sum: G; avg: G / n; min and max: G where x_r holds the extremum, split evenly between the ranks that
tie (as amax's gradient splits between tied elements); product: G times the product of the other
ranks' elements (with zeros handled exactly, as prod's gradient: prims.derivative_helpers.reductions).
Bitwise ops have integral results, which are never differentiated."""
from __future__ import annotations

import torch

from primkit.prims.derivative_helpers.common import full_like, prim_ops


def _waited(x):
    return prim_ops().wait(x)


def _reduction_back(op, g_sum, a, y, group, group_size):
    """Rank r's gradient of a reduction over ranks: ``g_sum`` is the summed upstream gradient and ``y``
    the reduction, both shaped like a."""
    ops = prim_ops()
    if op == "sum":
        return g_sum
    if op == "avg":
        return ops.div(g_sum, full_like(g_sum, group_size))
    if op in ("min", "max"):
        holds = ops.convert_element_type(ops.eq(a, y), a.dtype)
        ties = _waited(ops.all_reduce(holds, "sum", group))
        return ops.div(ops.mul(g_sum, holds), ties)
    if op == "product":
        is_zero = ops.eq(a, full_like(a, 0))
        nonzero = ops.where(is_zero, full_like(a, 1), a)
        zeros = _waited(ops.all_reduce(ops.convert_element_type(is_zero, torch.int64), "sum", group))
        only_zero = ops.eq(zeros, full_like(zeros, 1))
        others_of_zero = ops.where(only_zero, _waited(ops.all_reduce(nonzero, "product", group)), full_like(a, 0))
        no_zero = ops.eq(zeros, full_like(zeros, 0))
        # y / a where no rank holds a zero; a nonzero element beside another rank's zero has product 0
        quotient = ops.where(no_zero, ops.div(y, nonzero), full_like(a, 0))
        return ops.mul(g_sum, ops.where(is_zero, others_of_zero, quotient))
    raise RuntimeError(f"primkit collective: reduce op {op!r} has no derivative (its results are integral)")


def all_reduce_back(grad, a, result, op, group):
    """all_reduce's gradient: the ranks' gradients summed (an all_reduce of them), then per op."""
    ops = prim_ops()
    if op == "avg":     # the gradients' sum over the group size: their average (all_reduce knows no size)
        return _waited(ops.all_reduce(grad, "avg", group))
    g_sum = _waited(ops.all_reduce(grad, "sum", group))
    y = _waited(result) if op in ("min", "max", "product") else None
    return _reduction_back(op, g_sum, a, y, group, None)


def all_gather_back(grad, group_size, group):
    """all_gather's gradient: each rank's chunk of the ranks' gradients, summed (a reduce_scatter)."""
    return _waited(prim_ops().reduce_scatter(grad, "sum", group_size, group))


def reduce_scatter_back(grad, a, result, op, group_size, group):
    """reduce_scatter's gradient: the ranks' gradients gathered (each chunk is read by one rank), then
    per op against the gathered reduction."""
    ops = prim_ops()
    g_all = _waited(ops.all_gather(grad, group_size, group))
    y = _waited(ops.all_gather(_waited(result), group_size, group)) if op in ("min", "max", "product") else None
    return _reduction_back(op, g_all, a, y, group, group_size)


def all_to_all_back(grad, output_splits, input_splits, group):
    """all_to_all's gradient: the gradient sent back, with the splits swapped."""
    return _waited(prim_ops().all_to_all(grad, list(input_splits), list(output_splits), group))


def broadcast_back(grad, src, group_size, group):
    """broadcast's gradient: the sum of the ranks' gradients on rank src, zero on the others."""
    return _waited(prim_ops().reduce(grad, "sum", src, group_size, group))


def reduce_back(grad, a, result, op, dst, group_size, group):
    """reduce's gradient: rank dst's gradient (the only rank whose result is the reduction) broadcast,
    then per op against the broadcast reduction."""
    ops = prim_ops()
    g_dst = _waited(ops.broadcast(grad, dst, group_size, group))
    y = _waited(ops.broadcast(_waited(result), dst, group_size, group)) if op in ("min", "max", "product") else None
    return _reduction_back(op, g_dst, a, y, group, group_size)


HELPERS = (all_reduce_back, all_gather_back, reduce_scatter_back, all_to_all_back, broadcast_back, reduce_back)
