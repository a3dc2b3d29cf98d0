"""Shapes of products: block_diag, cartesian_prod, combinations."""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, broadcast_to, register_overloads, to_dtype
from primkit.decompositions.layout import contiguous
from primkit.decompositions.registry import register
from primkit.decompositions.type_promotion import result_type


# --- shapes of products: block_diag, cartesian_prod, combinations ----------------------------------------

def block_diag(tensors):
    """The tensors (0-d: 1 x 1, 1-d: one row) along the diagonal of a zero matrix."""
    if len(tensors) == 0:
        return P.full([1, 0], 0, dtype=torch.get_default_dtype(), device=torch.device("cpu"))
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        if t.device != tensors[0].device:
            raise RuntimeError(f"torch.block_diag: input tensors must all be on the same device. Input 0 is on device "
                               f"{tensors[0].device} and input {i} is on device {t.device}")
    dtype = result_type(*tensors)
    blocks = [to_dtype(P.reshape(t, [1, t.numel()]) if t.dim() < 2 else t, dtype) for t in tensors]
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        rows.append(P.pad(b, 0, [0, left], [0, width - left - b.shape[1]], [0, 0]))
        left += b.shape[1]
    return P.cat(rows, 0)


register_overloads(block_diag, "block_diag", ("default", "out"))


def _check_vector(t):
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


@register(aten.cartesian_prod.default)
def cartesian_prod(tensors):
    """The rows (x_1[i_1], ..., x_k[i_k]) for every index tuple, the last index fastest."""
    for t in tensors:
        _check_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = torch.meshgrid(*tensors, indexing="ij")
    return torch.stack([g.flatten() for g in grids], 1)


def _combination_rows(x, r, with_replacement):
    """x's r-combinations in lexicographic order, as a (count, r) tensor: each element x[i] followed
    by the (r-1)-combinations of the elements after it (from it, with replacement)."""
    if r == 1:
        return contiguous(P.expand_dims(x, [1]))
    pieces = []
    for i in range(x.shape[0]):
        start = i if with_replacement else i + 1
        if x.shape[0] - start <= 0 or (not with_replacement and x.shape[0] - start < r - 1):
            continue
        tail = _combination_rows(P.slice(x, [start], [x.shape[0]], [1]), r - 1, with_replacement)
        head = broadcast_to(P.slice(x, [i], [i + 1], [1]), (tail.shape[0],))
        pieces.append(P.cat([P.expand_dims(head, [1]), tail], 1))
    return P.cat(pieces, 0) if pieces else P.full([0, r], 0, dtype=x.dtype, device=x.device)


@register(aten.combinations.default)
def combinations(x, r=2, with_replacement=False):
    _check_vector(x)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return P.full([0], 0, dtype=x.dtype, device=x.device)
    return _combination_rows(x, r, with_replacement)
