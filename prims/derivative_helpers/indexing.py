"""Helpers for the derivatives of the indexing family:
the adjoints of reads and writes at tensor-valued indices, written in prims. Where eager's
formula is a one-liner the catalog spells it in place; these are the ones that need a few steps.
"""
from __future__ import annotations

import torch

from primkit.prims.derivative_helpers.common import full, prim_ops


def _where(pred, x):
    """x where pred is True, zero elsewhere."""
    return prim_ops().where(pred, x, full(x.shape, 0, x))


def _replace(x, pred, value):
    """x with value where pred is True."""
    return prim_ops().where(pred, full(x.shape, value, x), x)


def _is(x, value):
    """Where x equals the number value (bool)."""
    return prim_ops().eq(x, full(x.shape, value, x))


def _overwritten(a, dim, index):
    """Where a scatter along dim at index writes into a (bool, a's shape)."""
    return prim_ops().scatter(full(a.shape, False, a, torch.bool), dim, index, full(index.shape, True, a, torch.bool))


def zero_at_index(grad, dim, index):
    """grad with zero written at the positions index names along dim (eager's grad.scatter(dim, index, 0)):
    the gradient reaching an operand whose elements a scatter overwrote."""
    return prim_ops().scatter(grad, dim, index, full(index.shape, 0, grad))


def _read_part(src, index):
    """The part of src a scatter reads: its leading index.shape block (src may be larger)."""
    if list(src.shape) == list(index.shape):
        return src
    return prim_ops().slice(src, [0] * src.dim(), list(index.shape), [1] * src.dim())


def _to_src_shape(g, src):
    """g (index's shape) zero-padded at the end of each dim to src's shape: the elements of src a
    scatter never reads get zero gradient. (Eager's scatter backwards return g alone, which
    autograd rejects when src is larger than index.)"""
    if list(g.shape) == list(src.shape):
        return g
    n = g.dim()
    return prim_ops().pad(g, 0, [0] * n, [s - k for s, k in zip(src.shape, g.shape)], [0] * n)


def scatter_src_back(grad, dim, index, src):
    """The src gradient of scatter and scatter_add along dim at index: grad gathered at index, in
    src's shape (see _to_src_shape)."""
    return _to_src_shape(prim_ops().gather(grad, dim, index), src)


def take_back(grad, a, index):
    """The gradient of ``take(a, index)``: grad added (index_put with accumulate: repeats add up, negative
    indices count from the end) into a flat zero buffer of a's size, reshaped to a's shape."""
    ops = prim_ops()
    flat = full([a.numel()], 0, grad)
    return ops.reshape(ops.index_put(flat, [index], grad, True), list(a.shape))


def index_copy_source_grad(grad, dim, index):
    """The source gradient of ``index_copy(a, dim, index, source)``: slice i of source gets grad's slice at
    index[i] if it is the last write there (the largest i naming that position, which wins), else zero."""
    ops = prim_ops()
    taken = ops.index_select(grad, dim, index)
    if grad.dim() == 0:     # one index, one write
        return taken
    dim = dim % grad.dim()
    count = index.shape[0]
    order = ops.iota(count, start=0, step=1, dtype=torch.int64, device=index.device)
    last = ops.scatter_reduce(full([grad.shape[dim]], -1, index), 0, index, order, "amax", True)
    wins = ops.eq(ops.gather(last, 0, index), order)
    return _where(ops.broadcast_in_dim(wins, list(taken.shape), [dim]), taken)


def masked_scatter_source_grad(grad, mask, source):
    """The source gradient of ``masked_scatter(a, mask, source)``: grad at the True positions of mask
    (row-major, as they were filled) for source's leading elements, zero for the unused rest."""
    ops = prim_ops()
    used = ops.masked_select(grad, mask)
    n = source.numel()
    padded = ops.pad(used, 0, [0], [n - used.shape[0]], [0])
    return ops.reshape(padded, list(source.shape))


# --- scatter_reduce: eager's per-mode gradients -------------------------------------------------

def _scatter_counts(a, dim, index, include_self):
    """How many values each position of a averages in scatter_reduce's mean (1 where none is scattered)."""
    ops = prim_ops()
    n = ops.scatter_add(full(a.shape, 1 if include_self else 0, a), dim, index, full(index.shape, 1, a))
    return _replace(n, _is(n, 0), 1)


def _extremum_shares(a, dim, index, src, include_self, result):
    """For amax and amin: whether each element of a and of src equals its position's result, and the
    gradient per position divided by how many elements tie there (eager splits it evenly)."""
    ops = prim_ops()
    a_is = ops.eq(a, result)
    if not include_self:    # an overwritten element of a takes no part
        a_is = ops.logical_and(a_is, ops.logical_not(_overwritten(a, dim, index)))
    src_is = ops.eq(src, ops.gather(result, dim, index))
    ties = ops.scatter_add(ops.convert_element_type(a_is, a.dtype), dim, index,
                           ops.convert_element_type(src_is, a.dtype))
    return a_is, src_is, ties


def scatter_reduce_a_grad(grad, a, dim, index, src, reduce, include_self, result):
    """The gradient of ``scatter_reduce(a, dim, index, src, reduce, include_self)`` with respect to a, per
    reduce as eager defines it; without include_self the positions index names get none."""
    ops = prim_ops()
    src = _read_part(src, index)
    if reduce == "sum":
        out = grad
    elif reduce == "mean":
        out = ops.div(grad, _scatter_counts(a, dim, index, include_self))
    elif reduce == "prod":
        # the product of the other factors: result / a, recomputed with a's zeros as ones
        nonzero_a = _replace(a, _is(a, 0), 1)
        others = ops.scatter_reduce(nonzero_a, dim, index, src, "prod", include_self)
        out = ops.div(ops.mul(grad, others), nonzero_a)
    else:   # amax, amin
        a_is, _, ties = _extremum_shares(a, dim, index, src, include_self, result)
        return _where(a_is, ops.div(grad, _replace(ties, _is(ties, 0), 1)))
    return out if include_self else zero_at_index(out, dim, index)


def scatter_reduce_src_grad(grad, a, dim, index, src, reduce, include_self, result):
    """The gradient of ``scatter_reduce(a, dim, index, src, reduce, include_self)`` with respect to src,
    per reduce as eager defines it, in src's shape (see _to_src_shape)."""
    return _to_src_shape(_scatter_reduce_read_grad(grad, a, dim, index, _read_part(src, index), reduce,
                                                   include_self, result), src)


def _scatter_reduce_read_grad(grad, a, dim, index, src, reduce, include_self, result):
    ops = prim_ops()
    if reduce == "sum":
        return ops.gather(grad, dim, index)
    if reduce == "mean":
        return ops.div(ops.gather(grad, dim, index), ops.gather(_scatter_counts(a, dim, index, include_self), dim, index))
    if reduce == "prod":
        # result / src where src is not 0; a lone zero at its position gets the product of the others,
        # recomputed with that zero as one; a zero beside another zero gets 0 (result is 0)
        zero = _is(src, 0)
        zeros_at = ops.scatter_add(full(a.shape, 0, a), dim, index, ops.convert_element_type(zero, a.dtype))
        lone = ops.logical_and(zero, _is(ops.gather(zeros_at, dim, index), 1))
        others = ops.scatter_reduce(a, dim, index, _replace(src, lone, 1), "prod", include_self)
        by_division = ops.div(ops.gather(ops.mul(grad, result), dim, index), _replace(src, zero, 1))
        return ops.where(lone, ops.gather(ops.mul(grad, others), dim, index), by_division)
    _, src_is, ties = _extremum_shares(a, dim, index, src, include_self, result)
    return _where(src_is, ops.gather(ops.div(grad, _replace(ties, _is(ties, 0), 1)), dim, index))


HELPERS = (zero_at_index, scatter_src_back, take_back, index_copy_source_grad, masked_scatter_source_grad,
           scatter_reduce_a_grad, scatter_reduce_src_grad)
