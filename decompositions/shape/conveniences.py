"""The CompositeImplicitAutograd conveniences of torch.* and Tensor (movedim, ravel, flatten, narrow, tile,
tensor_split, chunk, hsplit, atleast_2d, hstack, broadcast_tensors, fliplr, view_as, ...): torch.export keeps
them, and these are what its graph then decomposes with."""
from __future__ import annotations

import math
import torch

from primkit.decompositions.common import P, aten, broadcast_shapes, register_out, to_dtype, wrap_dim, wrap_dims
from primkit.decompositions.layout import in_layout, strides_for
from primkit.decompositions.registry import register
from primkit.decompositions.shape.common import wrapped_clamped
from primkit.prims import dtypes as dt
from primkit.prims.layout import elementwise_strides, is_contiguous, is_non_overlapping, maybe, same_sizes


# ------------------------------------------------------------------ conveniences of torch.* and Tensor
# CompositeImplicitAutograd in eager: torch.export keeps them, and these are what its graph then
# decomposes with. Each is written in the views and copies above (or in shape.py).


@register(aten.movedim.int, aten.movedim.intlist)
def movedim(a, source, destination):
    """a's dims permuted so that source[i] lands at destination[i], the rest keeping their order."""
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims) should contain the "
                           f"same number of dims as destination ({destination} dims)")
    n = a.dim()
    src, dst = wrap_dims(source, n, "movedim"), wrap_dims(destination, n, "movedim")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `source` ({source}) or `destination` ({destination})")
    perm = [-1] * n
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(d for d in range(n) if d not in src)
    perm = [p if p != -1 else next(rest) for p in perm]
    return aten.permute.default(a, perm)


@register(aten.ravel.default)
def ravel(a):
    """a's values in one dim: a view of a contiguous a, else of a contiguous copy."""
    return aten.view.default(make_contiguous(a), [-1])


@register(aten.flatten.using_ints)
def flatten(a, start_dim=0, end_dim=-1):
    if a.dim() == 0:
        return aten.reshape.default(a, [1])
    start, end = wrap_dim(start_dim, a.dim(), "flatten"), wrap_dim(end_dim, a.dim(), "flatten")
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return a
    shape = list(a.shape)
    return aten.reshape.default(a, shape[:start] + [-1] + shape[end + 1:])


@register(aten.unflatten.int)
def unflatten(a, dim, sizes):
    dim = wrap_dim(dim, a.dim(), "unflatten")
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape, sizes = list(a.shape), list(sizes)
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes and known != 0:   # eager infers -1 from the dim's size, not the tensor's (0 if any dim is empty)
        if shape[dim] % known:
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                               f"({shape[dim]}) in the input tensor")
        sizes[sizes.index(-1)] = shape[dim] // known
    return aten.view.default(a, shape[:dim] + sizes + shape[dim + 1:])


@register(aten.narrow.default)
def narrow(a, dim, start, length):
    if a.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = a.shape[wrap_dim(dim, a.dim(), "narrow")]
    # maybe / torch._check: a start read from data (.item()) is checked where the graph runs
    if not (maybe(-size <= start) and maybe(start <= size)):
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    torch._check(-size <= start)
    torch._check(start <= size)
    start = wrapped_clamped(start, size)   # in range: a negative start counts from the end
    if not maybe(start + length <= size):
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    torch._check(start + length <= size)
    # aten's view op, which the tracers know for a view: a write into the result reaches a
    return aten.slice.Tensor(a, dim, start, start + length, 1)


@register(aten.narrow.Tensor)
def narrow_tensor(a, dim, start, length):
    """narrow with start a 0-d integer tensor, kept as data (eager reads it with .item()): the
    block dynamic_slice cuts, laid out with a's strides as eager's view is. A negative start counts
    from the end, as eager's. A start eager refuses (out of range) cannot be checked without a host
    read; dynamic_slice clamps it so the block stays in bounds."""
    if start.dim() != 0 or start.dtype not in dt.INT:
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    if a.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, a.dim(), "narrow")
    size = a.shape[d]
    if length > size:
        raise RuntimeError(f"narrow(): length ({length}) exceeds dimension size ({size}).")
    first = to_dtype(P.device_put(start, a.device) if start.device != a.device else start, torch.int64)
    zero = P.scalar_tensor(0, dtype=torch.int64, device=a.device)
    first = P.where(P.lt(first, zero), P.add(first, P.scalar_tensor(size, dtype=torch.int64, device=a.device)), first)
    starts, sizes = [zero] * a.dim(), list(a.shape)
    starts[d], sizes[d] = first, length
    block = P.dynamic_slice(a, starts, sizes)
    # eager's view keeps a's strides; where a's elements overlap (stride 0), dense in a's dim order
    strides = a.stride() if is_non_overlapping(a.shape, a.stride()) else \
        elementwise_strides(block.shape, [(a.stride(), 1)])
    return in_layout(block, strides)


@register(aten.tile.default)
def tile(a, dims):
    dims = list(dims)
    reps = [1] * (a.dim() - len(dims)) + dims
    return aten.repeat.default(a, reps)


def _sections(size, sections, op):
    if sections <= 0:
        raise RuntimeError(f"{op}: number of sections must be larger than 0, got {sections}")
    return [size // sections + 1] * (size % sections) + [size // sections] * (sections - size % sections)


@register(aten.tensor_split.sections)
def tensor_split_sections(a, sections, dim=0):
    if a.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    return aten.split_with_sizes.default(a, _sections(a.shape[wrap_dim(dim, a.dim(), "tensor_split")], sections,
                                                      "tensor_split()"), dim)


@register(aten.tensor_split.indices)
def tensor_split_indices(a, indices, dim=0):
    if a.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    size = a.shape[wrap_dim(dim, a.dim(), "tensor_split")]
    bounds = [0] + list(indices) + [size]
    # sym_min / sym_max: indices read from a tensor (tensor_split(a, tensor)) are data: clamped symbolically
    return [aten.slice.Tensor(a, dim, torch.sym_min(lo, size), torch.sym_min(torch.sym_max(hi, lo), size), 1)
            for lo, hi in zip(bounds[:-1], bounds[1:])]


@register(aten.where.default, aten.nonzero_numpy.default)
def where_indices(condition):
    """The indices of condition's nonzero elements, one 1-d tensor per dim (nonzero(as_tuple=True)):
    the columns of nonzero's (count, dims) result. A 0-d condition reads as 1-d."""
    c = aten.reshape.default(condition, [1]) if condition.dim() == 0 else condition
    return aten.unbind.int(aten.nonzero.default(c), 1)


@register(aten.chunk.default, aten.unsafe_chunk.default)
def chunk(a, chunks, dim=0):
    if a.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = a.shape[wrap_dim(dim, a.dim(), "chunk")]
    split = -(-size // chunks)
    if split == 0 and size == 0:   # eager splits an empty dim into `chunks` empty pieces
        return aten.split_with_sizes.default(a, [0] * chunks, dim)
    return aten.split.Tensor(a, split, dim)


def _directional_split(op, dim, min_dims):
    def split(a, sections):
        if a.dim() < min_dims:
            raise RuntimeError(f"torch.{op} requires a tensor with at least {min_dims} dimension, but got a tensor "
                               f"with {a.dim()} dimensions!")
        d = 0 if op == "hsplit" and a.dim() == 1 else dim
        if isinstance(sections, int):
            if sections == 0 or a.shape[d] % sections != 0:
                raise RuntimeError(f"torch.{op} attempted to split along dimension {d}, but the size of the "
                                   f"dimension {a.shape[d]} is not divisible by the split_size {sections}!")
            return tensor_split_sections(a, sections, d)
        return tensor_split_indices(a, sections, d)
    split.__qualname__ = op
    return split


for _op, _dim, _min in (("hsplit", 1, 1), ("vsplit", 0, 2), ("dsplit", 2, 3)):
    register(getattr(aten, _op).int, getattr(aten, _op).array)(_directional_split(_op, _dim, _min))


def _atleast(n):
    def atleast(a):
        if isinstance(a, (list, tuple)):
            return [atleast(t) for t in a]
        if a.dim() >= n:
            return a
        if n == 3 and a.dim() == 2:
            return aten.unsqueeze.default(a, -1)
        if n == 3 and a.dim() == 1:
            return aten.reshape.default(a, [1, a.shape[0], 1])
        return aten.reshape.default(a, [1] * (n - a.dim()) + list(a.shape))
    atleast.__qualname__ = f"atleast_{n}d"
    return atleast


for _n in (1, 2, 3):
    register(getattr(aten, f"atleast_{_n}d"))(_atleast(_n))


def _stack_along(op, prepare, dim):
    def stack(tensors):
        if len(tensors) == 0:
            raise RuntimeError(f"{op} expects a non-empty TensorList")
        pieces = prepare(list(tensors))
        d = 0 if op == "hstack" and pieces[0].dim() == 1 else dim
        return aten.cat.default(pieces, d)
    stack.__qualname__ = op
    return stack


def _column_pieces(tensors):
    return [aten.reshape.default(t, [t.numel(), 1]) if t.dim() <= 1 else t for t in tensors]


STACKS = {"hstack": (_atleast(1), 1), "vstack": (_atleast(2), 0), "dstack": (_atleast(3), 2),
          "column_stack": (_column_pieces, 1)}
for _op, (_prepare, _dim) in STACKS.items():
    _fn = _stack_along(_op, _prepare, _dim)
    register(getattr(aten, _op).default)(_fn)
    register_out(getattr(aten, _op).out, _fn, f"{_op}.out")


@register(aten.broadcast_to.default)
def broadcast_to_shape(a, size):
    return aten.expand.default(a, size)


@register(aten.broadcast_tensors.default)
def broadcast_tensors(tensors):
    shape = list(broadcast_shapes(*(t.shape for t in tensors)))
    return [aten.expand.default(t, shape) for t in tensors]


@register(aten.fliplr.default)
def fliplr(a):
    if a.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return aten.flip.default(a, [1])


@register(aten.flipud.default)
def flipud(a):
    if a.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return aten.flip.default(a, [0])


def _matrix_transpose(op, conj):
    def transpose(a):
        if a.dim() < 2:
            raise RuntimeError(f"tensor.{op} is only supported on matrices or batches of matrices. Got {a.dim()}-D "
                               "tensor.")
        t = aten.transpose.int(a, -2, -1)
        return aten.conj_physical.default(t) if conj and a.is_complex() else t
    transpose.__qualname__ = op
    return transpose


register(aten.mT.default)(_matrix_transpose("mT", False))
register(aten.mH.default)(_matrix_transpose("mH", True))
register(aten.adjoint.default)(_matrix_transpose("adjoint", True))


@register(aten.matrix_H.default)
def matrix_h(a):
    """Tensor.H: the conjugate transpose of a matrix (2-d only, unlike mH)."""
    if a.dim() != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {a.dim()}-D tensor.")
    return _matrix_transpose("matrix_H", True)(a)


@register(aten.numpy_T.default)
def numpy_t(a):
    return aten.permute.default(a, list(range(a.dim() - 1, -1, -1)))


@register(aten.view_as.default)
def view_as(a, other):
    return aten.view.default(a, list(other.shape))


@register(aten.reshape_as.default)
def reshape_as(a, other):
    return aten.reshape.default(a, list(other.shape))


@register(aten.expand_as.default)
def expand_as(a, other):
    return aten.expand.default(a, list(other.shape))


@register(aten.type_as.default)
def type_as(a, other):
    return a if a.dtype == other.dtype else aten._to_copy.default(a, dtype=other.dtype)


@register(aten.contiguous.default)
def make_contiguous(a, memory_format=torch.contiguous_format):
    if same_sizes(a.stride(), strides_for(a.shape, memory_format)) or (
            memory_format == torch.contiguous_format and is_contiguous(a.shape, a.stride())):
        return a
    return aten.clone.default(a, memory_format=memory_format)
