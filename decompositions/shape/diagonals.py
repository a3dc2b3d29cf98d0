"""Diagonals, rotations and small conveniences: diag_embed, diagflat, diag, rot90, meshgrid, chunk_cat."""
from __future__ import annotations

from primkit.decompositions.common import aten, contiguous_out, register_out, register_with_variants, wrap_dim
from primkit.decompositions.registry import register
from primkit.decompositions.shape.copies import contiguous_copy
from primkit.decompositions.shape.scatters import diagonal_scatter


# ------------------------------------------------------------------ diagonals, rotations and small math conveniences


def diag_embed(a, offset=0, dim1=-2, dim2=-1):
    """Zeros with a's last dim written on the (offset, dim1, dim2) diagonal of two new dims."""
    ndim = a.dim() + 1
    d1, d2 = wrap_dim(dim1, ndim, "diag_embed"), wrap_dim(dim2, ndim, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = a.shape[-1] + abs(offset)
    shape = list(a.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    zeros = aten.zeros.default(shape, dtype=a.dtype, device=a.device)
    return diagonal_scatter(zeros, a, offset, d1, d2)


@register(aten.diagflat.default)
def diagflat(a, offset=0):
    return diag_embed(aten.reshape.default(a, [-1]), offset, 0, 1)


def diag(a, diagonal=0):
    """A 1-d a on a matrix's diagonal, or a matrix's diagonal (a contiguous copy)."""
    if a.dim() == 1:
        return diag_embed(a, diagonal, 0, 1)
    if a.dim() == 2:
        return contiguous_copy(aten.diagonal.default(a, diagonal, 0, 1))
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{a.dim()}D")


register_with_variants("diag", diag)
register_with_variants("diag_embed", diag_embed)


def rot90(a, k=1, dims=(0, 1)):
    """a rotated k quarter turns from dims[0] towards dims[1]: flips and a transpose."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if a.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {a.dim()}")
    d0, d1 = wrap_dim(dims[0], a.dim(), "rot90"), wrap_dim(dims[1], a.dim(), "rot90")
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return aten.transpose.int(aten.flip.default(a, [d1]), d0, d1)
    if k == 2:
        return aten.flip.default(a, [d0, d1])
    if k == 3:
        return aten.transpose.int(aten.flip.default(a, [d0]), d0, d1)
    return contiguous_copy(a)


register_with_variants("rot90", rot90, contiguous_out)   # eager: resize_output, then a copy


@register(aten.meshgrid.default, aten.meshgrid.indexing)
def meshgrid(tensors, *, indexing="ij"):
    """Each 0-d or 1-d tensor viewed along its own dim and expanded to the grid ("xy": the grid of
    the first two tensors swapped, so the first varies along dim 1)."""
    tensors = list(tensors)
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.dim()}D")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = [t.numel() for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[i] = -1
        grids.append(aten.expand.default(aten.view.default(t, view), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


@register(aten._chunk_cat.default)
def chunk_cat(tensors, dim, num_chunks):
    """FSDP's flat-parameter copy: each tensor zero-padded along dim to a multiple of num_chunks, seen as
    (its dims before dim, num_chunks, the rest flattened), and the tensors concatenated on the flat dim."""
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    d = dim % tensors[0].dim() if -tensors[0].dim() <= dim < tensors[0].dim() else dim
    pieces = []
    for t in tensors:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
        if t.numel() == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if not 0 <= d < t.dim():
            raise IndexError(f"_chunk_cat: dim {dim} is out of range for a {t.dim()}-d tensor")
        if tuple(t.shape[:d]) != tuple(tensors[0].shape[:d]):
            raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
        padded = -(-t.shape[d] // num_chunks) * num_chunks
        if padded != t.shape[d]:
            t = aten.constant_pad_nd.default(t, [0, 0] * (t.dim() - d - 1) + [0, padded - t.shape[d]], 0)
        pieces.append(aten.reshape.default(t, list(t.shape[:d]) + [num_chunks, -1]))
    return aten.cat.default(pieces, d + 1)


register_out(aten._chunk_cat.out, chunk_cat, "_chunk_cat")
