"""More shape ops: the functional copies of views (permute_copy, ...), the *_scatter ops that
write a view's worth of values into a copy, and the CompositeImplicitAutograd conveniences of
torch.* (ravel, hsplit, atleast_2d, ...), each written in the views and copies that decompose.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, elementwise, out_names, register_out, register_with_variants, to_dtype, wrap_dim, wrap_dims)
from primkit.decompositions.registry import register
from primkit.decompositions.shape import bitcast, in_layout, strides_for
from primkit.prims import dtypes as dt
from primkit.prims.meta.strides import elementwise_strides, is_non_overlapping

# ------------------------------------------------------------------ functional copies of views
# Eager's <view>_copy is the view cloned into a fresh contiguous tensor.


def contiguous_copy(t):
    return aten.clone.default(t, memory_format=torch.contiguous_format)


def _copy_of(view):
    def copy(a, *args, **kwargs):
        out = view(a, *args, **kwargs)
        return [contiguous_copy(t) for t in out] if isinstance(out, (list, tuple)) else contiguous_copy(out)
    return copy


def _squeeze(a, dim=None):
    if dim is None:
        return aten.squeeze.default(a)
    return aten.squeeze.dims(a, dim) if isinstance(dim, (list, tuple)) else aten.squeeze.dim(a, dim)




VIEW_COPIES = {
    "alias_copy": aten.alias.default, "as_strided_copy": aten.as_strided.default,
    "detach_copy": aten.detach.default, "diagonal_copy": aten.diagonal.default, "expand_copy": aten.expand.default,
    "permute_copy": aten.permute.default, "select_copy": aten.select.int, "slice_copy": aten.slice.Tensor,
    "squeeze_copy": _squeeze, "t_copy": aten.t.default, "transpose_copy": aten.transpose.int,
    "unsqueeze_copy": aten.unsqueeze.default, "unfold_copy": P.unfold, "view_as_real_copy": P.view_as_real,
    "view_as_complex_copy": P.view_as_complex,
}
for _name, _view_fn in VIEW_COPIES.items():
    register_with_variants(_name, _copy_of(_view_fn))
register(aten.view_copy.default)(_copy_of(aten.view.default))
register_out(aten.view_copy.out, _copy_of(aten.view.default), "view_copy.out")


@register(aten.view_copy.dtype)
def view_copy_dtype(a, dtype):
    """a's bytes read as elements of dtype, in a contiguous tensor (eager's checks of view(dtype))."""
    return bitcast(a, dtype, "view_copy")


register_out(aten.view_copy.dtype_out, view_copy_dtype, "view_copy.dtype_out")


def narrow_copy(a, dim, start, length):
    """narrow, copied; eager checks dim itself (a RuntimeError, where narrow's is an IndexError)."""
    if not -max(a.dim(), 1) <= dim < max(a.dim(), 1):
        raise RuntimeError(f"narrow_copy: Expected dim < static_cast<int64_t>(self_sizes.size()): dim {dim} is out "
                           f"of range for a {a.dim()}-d tensor")
    return contiguous_copy(aten.narrow.default(a, dim, start, length))


register_with_variants("narrow_copy", narrow_copy)


# Views returning several tensors: their out= overloads write into a list of tensors.
LIST_COPIES = {"split_copy": aten.split.Tensor, "split_with_sizes_copy": aten.split_with_sizes.default,
               "unbind_copy": aten.unbind.int}


for _name, _view_fn in LIST_COPIES.items():
    _packet = getattr(aten, _name)
    for _overload in _packet.overloads():
        _op = getattr(_packet, _overload)
        if out_names(_op):
            register_out(_op, _copy_of(_view_fn))
        else:
            register(_op)(_copy_of(_view_fn))


# ------------------------------------------------------------------ *_scatter: a view's values written into a copy


def _check_src(src, view, op):
    if tuple(src.shape) != tuple(view.shape):
        raise RuntimeError(f"{op}: expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")


def in_scatter_layout(result, a):
    """result laid out as eager's *_scatter lays it out: a's exact strides (gaps included) when a's
    elements do not overlap, else dense in a's dim order (a clone that preserves strides)."""
    strides = a.stride() if is_non_overlapping(a.shape, a.stride()) else elementwise_strides(a.shape, [(a.stride(), 1)])
    return in_layout(result, strides)


def _slice_update(a, src, dim, start, limit, step):
    """a with src written into a[start:limit:step] along dim (every other dim whole)."""
    starts = [0] * a.dim()
    limits = list(a.shape)
    steps = [1] * a.dim()
    starts[dim], limits[dim], steps[dim] = start, limit, step
    return in_scatter_layout(P.slice_update(a, to_dtype(src, a.dtype), starts, limits, steps), a)


def select_scatter(a, src, dim, index):
    """a with src written at index along dim (dense in a's dim order, like eager's clone)."""
    view = aten.select.int(a, dim, index)     # eager's checks of dim and index
    _check_src(src, view, "select_scatter")
    dim = wrap_dim(dim, a.dim(), "select_scatter")
    index = index + a.shape[dim] if index < 0 else index
    return _slice_update(a, aten.unsqueeze.default(src, dim), dim, index, index + 1, 1)


def slice_scatter(a, src, dim=0, start=None, end=None, step=1):
    """a with src written into a[start:end:step] along dim."""
    view = aten.slice.Tensor(a, dim, start, end, step)
    _check_src(src, view, "slice_scatter")
    dim = wrap_dim(dim, a.dim(), "slice_scatter")
    size = a.shape[dim]
    start = 0 if start is None else (start + size if start < 0 else start)
    start = min(max(start, 0), size)
    end = size if end is None else (end + size if end < 0 else end)
    end = min(max(end, start), size)
    return _slice_update(a, src, dim, start, end, step)


def diagonal_scatter(a, src, offset=0, dim1=0, dim2=1):
    """a with src written on its diagonal (offset, dim1, dim2): src's last dim, padded to the
    length of the dim it runs along, broadcast over the other dim and selected on the diagonal."""
    view = aten.diagonal.default(a, offset, dim1, dim2)   # eager's checks of the dims
    _check_src(src, view, "diagonal_scatter")
    d1, d2 = wrap_dim(dim1, a.dim(), "diagonal_scatter"), wrap_dim(dim2, a.dim(), "diagonal_scatter")
    along = d1 if offset >= 0 else d2            # the diagonal's k-th entry sits at index k of this dim
    n = a.shape[along]
    padded = aten.constant_pad_nd.default(to_dtype(src, a.dtype), [0, n - src.shape[-1]])
    batch = [d for d in range(a.dim()) if d not in (d1, d2)]
    targets = batch + [along]                    # a's dim each of padded's dims maps to
    order = sorted(range(len(targets)), key=targets.__getitem__)
    full = P.broadcast_in_dim(aten.permute.default(padded, order), list(a.shape), sorted(targets))
    rows = P.broadcast_in_dim(P.iota(a.shape[d1], start=0, step=1, dtype=torch.int64, device=a.device),
                              list(a.shape), [d1])
    cols = P.broadcast_in_dim(P.iota(a.shape[d2], start=-offset, step=1, dtype=torch.int64, device=a.device),
                              list(a.shape), [d2])
    return in_scatter_layout(aten.where.self(P.eq(rows, cols), full, a), a)


register_with_variants("select_scatter", select_scatter)
register_with_variants("slice_scatter", slice_scatter)
register_with_variants("diagonal_scatter", diagonal_scatter)


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
    shape = list(a.shape)
    return aten.view.default(a, shape[:dim] + list(sizes) + shape[dim + 1:])


@register(aten.narrow.default)
def narrow(a, dim, start, length):
    if a.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = a.shape[wrap_dim(dim, a.dim(), "narrow")]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
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
    return [aten.slice.Tensor(a, dim, min(lo, size), min(max(hi, lo), size), 1)
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
    if tuple(a.stride()) == tuple(strides_for(a.shape, memory_format)) or (
            memory_format == torch.contiguous_format and a.is_contiguous()):
        return a
    return aten.clone.default(a, memory_format=memory_format)


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


register_with_variants("rot90", rot90)


def trace(a):
    """The sum of a matrix's main diagonal (integers sum to int64, as sum does)."""
    if a.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.dim()}")
    if a.dtype == torch.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return aten.sum.default(aten.diagonal.default(a))


register_with_variants("trace", trace)


def square(a):
    return aten.pow.Tensor_Scalar(a, 2)


register_with_variants("square", square)


def _integer_binary(name, prim):
    def decomp(a, b):
        for t in (a, b):
            if isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex()):
                raise RuntimeError(f"\"{name}_cpu\" not implemented for '{str(t.dtype)[6:].capitalize()}'")
        return elementwise(prim, a, b, upcast=False)
    decomp.__qualname__ = name
    return decomp


register_with_variants("gcd", _integer_binary("gcd", P.gcd))
register_with_variants("lcm", _integer_binary("lcm", P.lcm))


@register(aten.frexp.Tensor)
def frexp(a):
    if not a.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return tuple(P.frexp(a))


register_out(aten.frexp.Tensor_out, frexp, "frexp.Tensor_out")


@register(aten.isreal.default)
def isreal(a):
    """True where the imaginary part is 0 (always, for a real tensor)."""
    if not a.is_complex():
        return aten.ones_like.default(a, dtype=torch.bool)
    return P.eq(P.imag(a), aten.zeros_like.default(P.imag(a)))


@register(aten.resolve_conj.default, aten.resolve_neg.default)
def resolve_lazy_bits(a):
    """a itself: primkit tensors never carry eager's lazy conjugate or negative bit."""
    return a


def kron(a, b):
    """The Kronecker product: a's and b's dims interleaved, multiplied, then merged pairwise."""
    n = max(a.dim(), b.dim())
    sa = [1] * (n - a.dim()) + list(a.shape)
    sb = [1] * (n - b.dim()) + list(b.shape)
    a2 = aten.view.default(a, [s for d in sa for s in (d, 1)])
    b2 = aten.view.default(b, [s for d in sb for s in (1, d)])
    return aten.view.default(aten.mul.Tensor(a2, b2), [x * y for x, y in zip(sa, sb)])


register_with_variants("kron", kron)


def linalg_cross(a, b, *, dim=-1):
    """a x b along dim (size 3): a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0."""
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, a.dim(), "linalg_cross")
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
                           f"{b.shape[d]}")
    shape = list(broadcast_shapes(a.shape, b.shape))
    a, b = aten.expand.default(a, shape), aten.expand.default(b, shape)

    def roll(t, k):
        return aten.index_select.default(t, d, _indices(k, t.device))
    return aten.sub.Tensor(aten.mul.Tensor(roll(a, 1), roll(b, 2)), aten.mul.Tensor(roll(a, 2), roll(b, 1)))


def _indices(k, device):
    return aten.remainder.Scalar(P.iota(3, start=k, step=1, dtype=torch.int64, device=device), 3)


def cross(a, b, dim=None):
    if dim is None:   # eager's deprecated default: the first dim of size 3
        dim = next((i for i, s in enumerate(a.shape) if s == 3), -1)
    return linalg_cross(a, b, dim=dim)


register_with_variants("linalg_cross", linalg_cross)
register_with_variants("cross", cross)


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
        if size == 0:
            break
        hi, lo = aten.slice.Tensor(x, dim, 1, size, 1), aten.slice.Tensor(x, dim, 0, size - 1, 1)
        x = aten.ne.Tensor(hi, lo) if x.dtype == torch.bool else aten.sub.Tensor(hi, lo)
    return aten.clone.default(x) if x is a else x   # n == 0: eager returns a copy


register_with_variants("diff", diff)


@register(aten.sum_to_size.default)
def sum_to_size(a, size):
    """a summed down to size (which a's shape broadcasts to): leading dims and dims of size 1."""
    size = list(size)
    lead = a.dim() - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and a.shape[lead + i] != 1]
    if not dims:
        return a
    return aten.view.default(aten.sum.dim_IntList(a, dims, True), size)


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
