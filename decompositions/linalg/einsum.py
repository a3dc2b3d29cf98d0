"""einsum, as eager's algorithm: operands aligned to one label order, then contracted pairwise.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import aten
from primkit.decompositions.registry import register


# --- einsum ------------------------------------------------------------------------------------------------------
# Eager's algorithm (ATen's einsum): each operand's labels are aligned to one order (output labels,
# then contracted ones; a repeated label is a diagonal, a missing one a size-1 dim); operands are
# contracted pairwise, left to right (or along ``path``), each pair by one bmm; dims only one
# operand still holds are summed first. The same permutes, views and bmm give eager's strides.

_LETTERS = 26


def _subscript(label):
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _parse_labels(lhs):
    """Each operand's labels as subscripts in [0, 52), ``...`` as None."""
    operands, current, i = [], [], 0
    while i < len(lhs):
        c = lhs[i]
        if c == ",":
            operands.append(current)
            current = []
        elif c == ".":
            if None in current:
                raise RuntimeError(f"einsum(): found '.' for operand {len(operands)} for which an ellipsis was already "
                                   f"found")
            if lhs[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for operand {len(operands)} that is not part of any ellipsis")
            current.append(None)
            i += 2
        elif c != " ":
            if not c.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                                   f"must be in [a-zA-Z]")
            current.append(_subscript(c))
        i += 1
    operands.append(current)
    return operands


def _sum_product_pair(left, right, sum_dims):
    """(left * right) summed over sum_dims (kept as size 1) by one bmm; the operands share a rank
    and their size-1 dims broadcast."""
    if not sum_dims:
        return torch.mul(left, right)
    lro, lo, ro = [], [], []
    sum_size = 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = torch.sum(left, i, keepdim=True)
            elif sr:
                right = torch.sum(right, i, keepdim=True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
        elif sl:
            lo.append(i)
        else:
            ro.append(i)
    if lo and ro and ro[-1] < lo[0]:
        # right's output dims all come first: swapped, the bmm writes them in output order
        left, right, lo, ro = right, left, ro, lo
    size = lambda t, dims: math.prod(t.shape[d] for d in dims)   # noqa: E731
    out_size = [left.shape[d] for d in lro + lo] + [1] * len(sum_dims) + [right.shape[d] for d in ro]
    order = lro + lo + list(sum_dims) + ro
    a = torch.reshape(torch.permute(left, order), (size(left, lro), size(left, lo), sum_size))
    b = torch.reshape(torch.permute(right, lro + list(sum_dims) + ro + lo),
                      (size(left, lro), sum_size, size(right, ro)))
    inverse = [order.index(d) for d in range(len(order))]
    return torch.permute(torch.bmm(a, b).view(out_size), inverse)


def einsum(equation, operands, *, path=None):
    if len(operands) == 0:
        raise RuntimeError("einsum(): must provide at least one operand")
    lhs, arrow, rhs = equation.partition("->")
    labels = _parse_labels(lhs)
    if len(labels) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(labels) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    count, ell_dims = _label_counts(operands, labels)
    index, ell_index, out_dims, total = _label_positions(lhs, rhs if arrow else None, count, ell_dims)
    aligned, dim_counts = _aligned(operands, labels, index, ell_index, ell_dims, total)
    result = _contracted(aligned, dim_counts, out_dims, total, path)
    if total > out_dims:
        if len(operands) > 1:
            return result.view(list(result.shape[:out_dims]))
        return torch.sum(result, list(range(out_dims, total)))
    return result


def _label_counts(operands, labels):
    """(how many operands each label appears in, the number of dims the ellipsis covers); checks that
    each operand has as many dims as its subscripts say."""
    count = [0] * (2 * _LETTERS)
    ell_dims = 0
    for i, (op, ls) in enumerate(zip(operands, labels)):
        named = [s for s in ls if s is not None]
        for s in named:
            count[s] += 1
        has_ellipsis = None in ls
        if has_ellipsis:
            ell_dims = max(ell_dims, op.dim() - len(named))
        if (len(named) > op.dim()) if has_ellipsis else (len(named) != op.dim()):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) "
                               + ("is more than the number of dimensions" if has_ellipsis else
                                  "does not match the number of dimensions") + f" ({op.dim()}) for operand {i}"
                               + ("" if has_ellipsis else " and no ellipsis was given"))
    return count, ell_dims


def _label_positions(lhs, rhs, count, ell_dims):
    """(each label's position in the aligned order, the ellipsis' first position, the number of output
    dims, the number of dims in all): output dims first, in the output's order (``rhs``; None: the
    implicit output, the labels seen once in alphabetical order), then the contracted ones."""
    # Where each label (and the ellipsis dims) sits in the aligned order: output dims first.
    index = [None] * (2 * _LETTERS)
    position, ell_index, ell_in_output = 0, 0, False
    if rhs is None:
        position, ell_in_output = ell_dims, True
        for s in range(2 * _LETTERS):
            if count[s] == 1:
                index[s], position = position, position + 1
    else:
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if ell_in_output or rhs[i:i + 3] != "...":
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found"
                                       if ell_in_output else
                                       "einsum(): found '.' for output that is not part of any ellipsis (...)")
                ell_index, position, ell_in_output = position, position + ell_dims, True
                i += 2
            elif c != " ":
                if not c.isalpha():
                    raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                       f"equation string, subscripts must be in [a-zA-Z]")
                s = _subscript(c)
                if count[s] == 0 or index[s] is not None:
                    raise RuntimeError(f"einsum(): output subscript {c} " + (
                        "appears more than once in the output" if index[s] is not None else
                        "does not appear in the equation for any input operand"))
                index[s], position = position, position + 1
            i += 1
    out_dims = position
    if not ell_in_output:
        ell_index, position = position, position + ell_dims
    for s in range(2 * _LETTERS):
        if count[s] > 0 and index[s] is None:
            index[s], position = position, position + 1
    total = position
    return index, ell_index, out_dims, total


def _aligned(operands, labels, index, ell_index, ell_dims, total):
    """Every operand permuted to the aligned order, and the number of operands of size > 1 per dim."""
    # Align every operand: diagonals for repeated labels, size-1 dims for missing ones.
    label_size, ell_size = [1] * (2 * _LETTERS), [1] * ell_dims
    dim_counts = [0] * total
    aligned = []
    for i, (op, ls) in enumerate(zip(operands, labels)):
        permutation = [None] * total
        dim = 0
        for s in ls:
            if s is None:
                covered = op.dim() - (len(ls) - 1)
                for j in range(ell_dims - covered, ell_dims):
                    if op.shape[dim] != 1:
                        if ell_size[j] not in (1, op.shape[dim]):
                            raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                                               f"{op.shape[dim]} which does not broadcast with previously seen "
                                               f"ellipsis with size {ell_size[j]} for the respective dimension")
                        ell_size[j] = op.shape[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[index[s]] is None:
                if op.shape[dim] != 1:
                    if label_size[s] not in (1, op.shape[dim]):
                        label = chr(ord("A") + s) if s < _LETTERS else chr(ord("a") + s - _LETTERS)
                        raise RuntimeError(f"einsum(): subscript {label} has size {op.shape[dim]} for operand {i} "
                                           f"which does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = op.shape[dim]
                    dim_counts[index[s]] += 1
                permutation[index[s]] = dim
                dim += 1
            else:
                previous = permutation[index[s]]
                if op.shape[dim] != op.shape[previous]:
                    label = chr(ord("A") + s) if s < _LETTERS else chr(ord("a") + s - _LETTERS)
                    raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {i} but the sizes don't "
                                       f"match, {op.shape[dim]} != {op.shape[previous]}")
                op = torch.movedim(torch.diagonal(op, 0, previous, dim), -1, previous)
        for p in range(total):
            if permutation[p] is None:
                op = torch.unsqueeze(op, dim)
                permutation[p], dim = dim, dim + 1
        aligned.append(torch.permute(op, permutation))
    return aligned, dim_counts


def _contracted(aligned, dim_counts, out_dims, total, path):
    """The aligned operands contracted pairwise (in ``path``'s order where given): the product of all."""
    # Contract pairwise.
    steps = list(path) if path is not None else None
    while len(aligned) > 1:
        i, j = 0, 1
        if steps is not None:
            i, j = sorted(steps[:2])
            steps = steps[2:]
        a, b = aligned[i], aligned[j]
        del aligned[j], aligned[i]
        sum_dims, a_sums, b_sums = [], [], []
        for d in range(out_dims, total):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sums.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sums.append(d)
                    dim_counts[d] = 0
        if a_sums:
            a = torch.sum(a, a_sums, keepdim=True)
        if b_sums:
            b = torch.sum(b, b_sums, keepdim=True)
        product = _sum_product_pair(a, b, sum_dims)
        if steps is not None:
            aligned.append(product)
        else:
            aligned.insert(0, product)
    return aligned[0]


register(aten.einsum.default)(einsum)
