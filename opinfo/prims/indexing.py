"""Samples and constraint error inputs of the indexing family (gather, scatter, scatter_add,
index_select, scatter_reduce, index, index_put, searchsorted, take, index_add, index_copy,
masked_scatter)."""
from __future__ import annotations

import math

import torch

from primkit.opinfo.core import SampleInput
from primkit.opinfo.prims.common import error, index_tensor, ODD_DTYPE, other_device, unsupported_dtype
from primkit.opinfo.prims.strategies import composite, dtype_of, indices_into, invalid, laid_out, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError
from primkit.prims.layout import numel

# --- scatter_reduce ---------------------------------------------------------------------------

# (operand shape, dim, index shape, src shape)
SCATTER_REDUCE_CASES = [((4, 5, 6), 0, (6, 5, 6), (7, 5, 6)), ((4, 5, 6), 1, (4, 2, 3), (4, 3, 6)),
                 ((4, 5, 6), -1, (4, 5, 6), (4, 5, 6)), ((4, 5, 6), 0, (0, 5, 6), (2, 5, 6)), ((), 0, (), ())]


def samples_scatter_reduce(op, device, dtype):
    # small first, one index length per reduce (the derivative test reads a few small samples per shape)
    for k, reduce in enumerate(("prod", "mean", "amax", "amin", "sum")):
        index = index_tensor((3, 2 + k), 4, device)
        yield SampleInput(make((3, 4), device, dtype), (1, index, make((3, 2 + k), device, dtype), reduce, k % 2 == 0),
                          name=f"small (3, 4) dim=1 {reduce} include_self={k % 2 == 0}")
    for shape, dim, ishape, sshape in SCATTER_REDUCE_CASES:
        index = index_tensor(ishape, shape[dim] if shape else 1, device)
        for reduce in ("sum", "prod", "mean", "amax", "amin"):
            for include_self in (True, False):
                yield SampleInput(make(shape, device, dtype), (dim, index, make(sshape, device, dtype), reduce,
                                  include_self), name=f"{shape} dim={dim} {reduce} include_self={include_self}")
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index, make(sshape, device, dtype), "sum", True), name=f"{name} a {shape}")
        for name, src in layouts(sshape, device, dtype):
            yield SampleInput(make(shape, device, dtype), (dim, index, src, "amax", False), name=f"{name} src {shape}")


def errors_scatter_reduce(op, device):
    a, src, index = make((4, 5), device, torch.float32), make((4, 5), device, torch.float32), index_tensor((2, 5), 4, device)
    yield error(op, "C1", "int32 index", a, 0, index.int(), src, "sum", True)
    yield error(op, "C2", "index rank differs", a, 0, index_tensor((2,), 4, device), src, "sum", True)
    yield error(op, "C2", "devices differ", a, 0, index_tensor((2, 5), 4, other_device(device)), src, "sum", True)
    yield error(op, "C3", "dim out of range", a, 2, index, src, "sum", True, exc=PrimIndexError)
    yield error(op, "C4", "index larger than the operand", a, 0, index_tensor((2, 6), 4, device), src, "sum", True)
    yield error(op, "C5", "src dtype differs", a, 0, index, src.double(), "sum", True)
    yield error(op, "C5", "unsupported dtype", a.bool(), 0, index, src.bool(), "sum", True)
    yield error(op, "C6", "unknown reduction", a, 0, index, src, "max", True)


# --- index, index_put -------------------------------------------------------------------------

# (operand shape, index shapes): the index tensors broadcast together.
INDEX_CASES = [((5, 4), [(3,)]), ((5, 4), [(3,), (3,)]), ((5, 4, 3), [(2, 1), (1, 3)]),
               ((5, 4, 3), [(2, 3)]), ((5, 4, 3), [(), (4,)]), ((5,), [()]), ((5, 4), [(0,)]),
               ((0, 4), [(0,)]), ((2, 3, 4, 5), [(3,), (1,)])]


def _indices(shape, ishapes, device, *, negative=False):
    return [index_tensor(s, shape[d], device, negative=negative) for d, s in enumerate(ishapes)]


def _index_calls(device, dtype):
    """(name, a, indices) for every case, layout, and negative or transposed indices."""
    for shape, ishapes in INDEX_CASES:
        indices = _indices(shape, ishapes, device)
        for name, a in layouts(shape, device, dtype):
            yield f"{name} {shape} indices {ishapes}", a, indices
        yield f"{shape} negative indices {ishapes}", make(shape, device, dtype), \
            _indices(shape, ishapes, device, negative=True)
    t = index_tensor((3, 2), 5, device).t()
    yield "transposed index", make((5, 4), device, dtype), [t, index_tensor((2, 3), 4, device)]
    yield "expanded index", make((5, 4), device, dtype), [index_tensor((1,), 5, device).expand(4)]


def samples_index(op, device, dtype):
    for name, a, indices in _index_calls(device, dtype):
        yield SampleInput(a, (indices,), name=name)


def _indexed_shape(a, indices):
    return tuple(torch.broadcast_shapes(*(i.shape for i in indices))) + tuple(a.shape[len(indices):])


def _repeats_a_position(a, indices):
    """Whether two index tuples name one position of a (negative indices counted from the end)."""
    flat = torch.broadcast_tensors(*indices)
    positions = torch.stack([i.reshape(-1) % max(a.shape[d], 1) for d, i in enumerate(flat)], dim=1)
    return positions.unique(dim=0).shape[0] < positions.shape[0]


def samples_index_put(op, device, dtype):
    # Without accumulate a repeated position keeps an unspecified one of its values: such a write is not a
    # function of values (the derivative test reads the first samples), so it comes once, named, at the end.
    for name, a, indices in _index_calls(device, dtype):
        values = make(_indexed_shape(a, indices), device, dtype)
        accumulations = (False, True) if dtype != torch.bool else (False,)
        for accumulate in accumulations:
            if accumulate or not _repeats_a_position(a, indices):
                yield SampleInput(a, (indices, values, accumulate), name=f"{name} accumulate={accumulate}")
    a, indices = make((5, 4), device, dtype), [index_tensor((3,), 5, device)]
    values = make((4, 3), device, dtype).t()
    yield SampleInput(a, (indices, values, False), name="transposed values")
    repeated = [torch.tensor([1, 3, 1], device=device)]
    yield SampleInput(make((5, 4), device, dtype), (repeated, make((3, 4), device, dtype), False),
                      name="a repeated position, accumulate=False")


def _advanced_index_errors(op, device, put):
    a = make((5, 4), device, torch.float32)

    def call(cid, name, indices, values=None, exc=PrimConstraintError):
        extra = (make(_indexed_shape(a, indices), device, torch.float32) if values is None else values, False) \
            if put else ()
        return error(op, cid, name, a, indices, *extra, exc=exc)
    yield call("C1", "no index", [], make((5, 4), device, torch.float32))
    yield call("C1", "more indices than dims", [index_tensor((2,), 4, device)] * 3, make((2,), device, torch.float32))
    yield call("C2", "int32 index", [index_tensor((2,), 5, device).int()], make((2, 4), device, torch.float32))
    yield call("C3", "index shapes do not broadcast", [index_tensor((2,), 5, device), index_tensor((3,), 4, device)],
               make((3,), device, torch.float32))
    yield call("C4", "index on another device", [index_tensor((2,), 5, other_device(device))],
               make((2, 4), device, torch.float32))
    if put:
        index = [index_tensor((2,), 5, device)]
        yield call("C4", "values on another device", index, make((2, 4), other_device(device), torch.float32))
        yield call("C5", "values not of the indexed shape", index, make((4,), device, torch.float32))
        yield call("C6", "values dtype differs", index, make((2, 4), device, torch.float64))
        yield error(op, "C6", "unsupported dtype", torch.zeros(5, 4, dtype=ODD_DTYPE, device=device), index,
                     torch.zeros(2, 4, dtype=ODD_DTYPE, device=device), False)


def errors_index(op, device):
    yield from _advanced_index_errors(op, device, put=False)


def errors_index_put(op, device):
    yield from _advanced_index_errors(op, device, put=True)


# --- searchsorted, take -----------------------------------------------------------------------

def _sorted(shape, device, dtype):
    return torch.sort(make(shape, device, dtype), dim=-1).values


def samples_searchsorted(op, device, dtype):
    cases = [("1-d sequence", (7,), (3, 4)), ("1-d sequence, 0-d value", (7,), ()),
             ("batched rows", (2, 3, 6), (2, 3, 4)), ("empty sequence", (0,), (5,)), ("no values", (6,), (0, 2)),
             ("single row", (1, 5), (1, 3))]
    for name, sshape, vshape in cases:
        seq = _sorted(sshape, device, dtype)
        for right in (False, True):
            for layout, values in layouts(vshape, device, dtype):
                yield SampleInput(seq, (values, right), name=f"{name}, {layout} values, right={right}")
    seq = _sorted((5, 3), device, dtype)
    yield SampleInput(seq.t().contiguous().t(), (make((5, 2), device, dtype), False), name="transposed sequence")
    # values equal to sequence elements: left and right sides differ
    yield SampleInput(_sorted((6,), device, dtype), (_sorted((6,), device, dtype), True), name="ties")


def errors_searchsorted(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    yield error(op, "C1", "0-d sequence", f(()), f((3,)), False)
    yield error(op, "C1", "leading sizes differ", f((2, 5)), f((3, 4)), False)
    yield error(op, "C1", "ranks differ", f((2, 5)), f((2, 1, 4)), False)
    yield error(op, "C2", "dtypes differ", f((5,)), f((3,), torch.float64), False)
    yield error(op, "C2", "unsupported dtype", f((5,), torch.complex64), f((3,), torch.complex64), False)
    yield error(op, "C3", "devices differ", f((5,)), f((3,), dev=other_device(device)), False)


def samples_take(op, device, dtype):
    cases = [((3, 4), (5,)), ((3, 4), (2, 3)), ((5,), ()), ((), (3,)), ((2, 3, 4), (0,)), ((0,), (0, 2))]
    for shape, ishape in cases:
        n = math.prod(shape)
        index = index_tensor(ishape, n, device, negative=n > 0)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (index,), name=f"{name} {shape} index {ishape}")
    yield SampleInput(make((3, 4), device, dtype), (index_tensor((3, 2), 12, device).t(),), name="transposed index")


def errors_take(op, device):
    a = make((3, 4), device, torch.float32)
    yield error(op, "C1", "int32 index", a, index_tensor((2,), 12, device).int())
    yield error(op, "C2", "devices differ", a, index_tensor((2,), 12, other_device(device)))


# --- index_add, index_copy, masked_scatter ---------------------------------------------------

# (operand shape, dim, index length): repeats among the indices whenever the length exceeds 1.
INDEX_WRITE_CASES = [((5, 4), 0, 3), ((5, 4), 1, 6), ((3, 4, 5), -1, 5), ((3, 4, 5), 1, 0), ((0, 3), 1, 2),
                     ((4,), 0, 4), ((2, 3, 4, 5), 2, 7), ((), 0, 1), ((), -1, 1)]


def _source_shape(shape, dim, count):
    return tuple(count if d == dim % len(shape) else n for d, n in enumerate(shape)) if shape else ()


def samples_index_write(op, device, dtype):
    for shape, dim, count in INDEX_WRITE_CASES:
        size = shape[dim] if shape else 1
        index = index_tensor((count,), size, device)
        if count > 1 and size > 1:
            index[-1] = index[0]      # a repeated position: index_add sums, index_copy keeps the last
        sshape = _source_shape(shape, dim, count)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index, make(sshape, device, dtype)), name=f"{name} a {shape} dim={dim}")
        for name, source in layouts(sshape, device, dtype):
            if name != "contiguous":
                yield SampleInput(make(shape, device, dtype), (dim, index, source), name=f"{name} source {sshape}")
    a = make((6, 3), device, dtype)
    index = index_tensor((2, 4), 6, device).t()[0]      # a strided index
    yield SampleInput(a, (0, index, make((2, 3), device, dtype)), name="strided index")
    yield SampleInput(a, (0, torch.zeros(5, dtype=torch.int64, device=device), make((5, 3), device, dtype)),
                      name="every index the same")


def errors_index_write(op, device):
    a, source, index = make((5, 4), device, torch.float32), make((3, 4), device, torch.float32), index_tensor((3,), 5, device)
    yield error(op, "C1", "int32 index", a, 0, index.int(), source)
    yield error(op, "C2", "2-d index", a, 0, index.reshape(3, 1), source)
    yield error(op, "C2", "index on another device", a, 0, index.to(other_device(device)), source)
    yield error(op, "C2", "source on another device", a, 0, index, source.to(other_device(device)))
    yield error(op, "C3", "dim out of range", a, 2, index, source, exc=PrimIndexError)
    yield error(op, "C4", "source length differs from the index", a, 0, index, make((4, 4), device, torch.float32))
    yield error(op, "C4", "source differs in another dim", a, 0, index, make((3, 5), device, torch.float32))
    yield error(op, "C4", "source rank differs", a, 0, index, make((3, 4, 1), device, torch.float32))
    yield error(op, "C4", "0-d operand, two indices", make((), device, torch.float32), 0, index_tensor((2,), 1, device),
                 make((), device, torch.float32))
    yield error(op, "C5", "source dtype differs", a, 0, index, source.double())
    bad = torch.bool if torch.bool not in op.prim.dtypes else ODD_DTYPE
    yield error(op, "C5", f"unsupported dtype {bad}", torch.zeros(5, 4, dtype=bad, device=device), 0, index,
                 torch.zeros(3, 4, dtype=bad, device=device))


def _mask(shape, device):
    return make(shape, device, torch.int8, low=0, high=2) > 0 if 0 not in shape else torch.zeros(shape, dtype=torch.bool,
                                                                                                 device=device)


def samples_masked_scatter(op, device, dtype):
    for shape in ((), (0,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5)):
        n = math.prod(shape)
        mask = _mask(shape, device)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (mask, make((n,), device, dtype)), name=f"{name} a {shape}")
        for name, m in layouts(shape, device, torch.bool):
            if name != "contiguous":
                yield SampleInput(make(shape, device, dtype), (m, make((n + 2,), device, dtype)), name=f"{name} mask")
        for name, source in layouts(shape, device, dtype):
            if name != "contiguous":
                yield SampleInput(make(shape, device, dtype), (mask, source), name=f"{name} source {shape}")
    a = make((3, 4), device, dtype)
    yield SampleInput(a, (torch.zeros(3, 4, dtype=torch.bool, device=device), make((0,), device, dtype)),
                      name="no True, empty source")
    yield SampleInput(a, (torch.ones(3, 4, dtype=torch.bool, device=device), make((2, 3, 2), device, dtype)),
                      name="all True, 3-d source")


def errors_masked_scatter(op, device):
    a, mask, source = make((3, 4), device, torch.float32), _mask((3, 4), device), make((12,), device, torch.float32)
    yield error(op, "C1", "uint8 mask", a, mask.to(torch.uint8), source)
    yield error(op, "C2", "mask broadcasts but differs", a, mask[0], source)
    yield error(op, "C2", "mask rank differs", a, mask.reshape(1, 3, 4), source)
    yield error(op, "C3", "source dtype differs", a, mask, source.double())
    yield error(op, "C4", "mask on another device", a, mask.to(other_device(device)), source)
    yield error(op, "C4", "source on another device", a, mask, source.to(other_device(device)))


SPECIFIC = {
    "index_add": (samples_index_write, errors_index_write),
    "index_copy": (samples_index_write, errors_index_write),
    "masked_scatter": (samples_masked_scatter, errors_masked_scatter),
    "scatter_reduce": (samples_scatter_reduce, errors_scatter_reduce),
    "index": (samples_index, errors_index),
    "index_put": (samples_index_put, errors_index_put),
    "searchsorted": (samples_searchsorted, errors_searchsorted),
    "take": (samples_take, errors_take),
}


# --- gather, scatter, index_select ------------------------------------------------------------

# (operand shape, dim, index shape); for gather/scatter index fits the operand but along dim.
GATHER_CASES = [((4, 5, 6), 0, (7, 5, 6)), ((4, 5, 6), 1, (3, 2, 6)), ((4, 5, 6), -1, (4, 5, 2)),
                ((4, 5, 6), 2, (0, 5, 6)), ((3, 1), 1, (3, 4)), ((), 0, ())]


def samples_gather(op, device, dtype):
    for shape, dim, ishape in GATHER_CASES:
        index = index_tensor(ishape, shape[dim] if shape else 1, device)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index), name=f"{name} {shape} dim={dim} index {ishape}")
        if len(ishape) >= 2:
            yield SampleInput(make(shape, device, dtype), (dim, index.transpose(0, 1).contiguous().transpose(0, 1)),
                              name=f"{shape} dim={dim} transposed index")


def _gather_scatter_errors(op, device, with_src):
    """Constraint errors shared by gather and scatter: index dtype, ranks, dim, index fit."""
    a = make((4, 5), device, torch.float32)
    src = (make((4, 5), device, torch.float32),) if with_src else ()
    yield error(op, "C1", "int32 index", a, 0, index_tensor((2, 5), 4, device).int(), *src)
    yield error(op, "C2", "index rank differs", a, 0, index_tensor((2,), 4, device), *src)
    other = other_device(device)
    if other:
        yield error(op, "C2", "devices differ", a, 0, index_tensor((2, 5), 4, other), *src)
    yield error(op, "C3", "dim out of range", a, 2, index_tensor((2, 5), 4, device), *src, exc=PrimIndexError)
    yield error(op, "C4", "index larger than the operand", a, 0, index_tensor((2, 6), 4, device), *src)


def errors_gather(op, device):
    yield from _gather_scatter_errors(op, device, with_src=False)


# (operand shape, dim, index shape, src shape)
SCATTER_CASES = [((4, 5, 6), 0, (2, 5, 6), (3, 5, 6)), ((4, 5, 6), 1, (4, 2, 3), (4, 3, 6)),
                 ((4, 5, 6), -1, (4, 5, 6), (4, 5, 6)), ((4, 5, 6), 0, (0, 5, 6), (2, 5, 6)),
                 ((2, 3, 4, 5), 1, (2, 3, 4, 5), (2, 3, 4, 5)), ((), 0, (), ())]


def samples_scatter(op, device, dtype):
    for shape, dim, ishape, sshape in SCATTER_CASES:
        index = index_tensor(ishape, shape[dim] if shape else 1, device)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index, make(sshape, device, dtype)), name=f"{name} {shape} dim={dim}")
        for name, src in layouts(sshape, device, dtype):
            yield SampleInput(make(shape, device, dtype), (dim, index, src), name=f"src {name} {shape} dim={dim}")


def errors_scatter(op, device):
    yield from _gather_scatter_errors(op, device, with_src=True)
    a, index = make((4, 5), device, torch.float32), index_tensor((2, 5), 4, device)
    yield error(op, "C4", "index larger than src", a, 0, index, make((1, 5), device, torch.float32))
    yield error(op, "C5", "src dtype differs", a, 0, index, make((4, 5), device, torch.float64))
    bad = unsupported_dtype(op.prim)
    yield error(op, "C5", "unsupported dtype", torch.zeros(4, 5, dtype=bad, device=device), 0, index,
                 torch.zeros(4, 5, dtype=bad, device=device))


INDEX_SELECT_CASES = [((4, 5, 6), 0, 7), ((4, 5, 6), 1, 3), ((4, 5, 6), -1, 0), ((4, 5, 6), 2, 1), ((), 0, 1),
                      ((0, 3), 1, 2)]


def samples_index_select(op, device, dtype):
    for shape, dim, n in INDEX_SELECT_CASES:
        index = index_tensor((n,), shape[dim] if shape else 1, device)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index), name=f"{name} {shape} dim={dim} {n} indices")
    index = index_tensor((6,), 4, device)[::2]
    yield SampleInput(make((4, 5), device, dtype), (0, index), name="strided index")


def errors_index_select(op, device):
    a = make((4, 5), device, torch.float32)
    yield error(op, "C1", "int32 index", a, 0, index_tensor((2,), 4, device).int())
    yield error(op, "C2", "2-d index", a, 0, index_tensor((2, 1), 4, device))
    other = other_device(device)
    if other:
        yield error(op, "C2", "devices differ", a, 0, index_tensor((2,), 4, other))
    yield error(op, "C3", "dim out of range", a, -3, index_tensor((2,), 4, device), exc=PrimIndexError)


SPECIFIC.update({
    "gather": (samples_gather, errors_gather),
    "scatter": (samples_scatter, errors_scatter),
    "scatter_add": (samples_scatter, errors_scatter),
    "index_select": (samples_index_select, errors_index_select),
})


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def gather_call(draw, prim):
    shape = draw(shapes(min_dims=1, max_dims=3))
    a = draw(strided(shape, dtype_of(draw, prim)))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = tuple((draw(st.integers(0, 3)) if s else 0) if d == dim % len(shape) else draw(st.integers(0, s))
                        for d, s in enumerate(shape))
    index = draw(laid_out(indices_into(shape[dim], index_shape)))
    return SampleInput(a, (dim, maybe(draw, index, index.to(torch.int32))))


@composite
def index_select_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    a = draw(strided(shape, dtype_of(draw, prim)))
    dim = draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1))
    size = shape[dim] if shape else 1
    index = draw(laid_out(indices_into(size, (draw(st.integers(0, 3)) if size else 0,) if shape else (1,))))
    return SampleInput(a, (dim, maybe(draw, index, index.reshape(-1, 1))))


@composite
def scatter_call(draw, prim):
    shape = draw(shapes(min_dims=1, max_dims=3))
    dtype = dtype_of(draw, prim)
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    d0 = dim % len(shape)
    src_shape = tuple(draw(st.integers(0, 3)) if d == d0 else s for d, s in enumerate(shape))
    index_shape = tuple(draw(st.integers(0, s)) for s in src_shape)
    if shape[d0] == 0:      # no position to write to: an empty index
        index_shape = tuple(0 if d == d0 else s for d, s in enumerate(index_shape))
    a = draw(strided(shape, dtype))
    index = draw(laid_out(indices_into(shape[d0], index_shape)))
    src = draw(strided(src_shape, maybe(draw, dtype, torch.float64 if dtype != torch.float64 else torch.int64)))
    extra = ()
    if prim.meta == "scatter_reduce":
        extra = (maybe(draw, draw(st.sampled_from(["sum", "prod", "mean", "amax", "amin"])), "max"), draw(st.booleans()))
    return SampleInput(a, (dim, index, src, *extra))


@composite
def _broadcastable_indices(draw, shape, count):
    """count int64 index tensors (valid for the first count dims of shape) whose shapes broadcast."""
    common = list(draw(shapes(max_dims=2, max_size=3)))
    if any(shape[d] == 0 for d in range(count)):
        common = [0] + common[1:]     # nothing to index in an empty dim: an empty index
    out = []
    for d in range(count):
        own = common[draw(st.integers(0, len(common))):] if 0 not in common else list(common)
        own = [1 if s != 0 and draw(st.booleans()) else s for s in own]
        out.append(draw(laid_out(indices_into(shape[d], tuple(own)) - (shape[d] if draw(st.booleans()) and shape[d]
                                                                          else 0))))
    return out


@composite
def advanced_index_call(draw, prim):
    shape = draw(shapes(min_dims=1, max_dims=3))
    dtype = dtype_of(draw, prim)
    count = draw(st.integers(1, len(shape)))
    indices = draw(_broadcastable_indices(shape, count))
    if invalid(draw):
        indices[0] = indices[0].to(torch.int32)
    a = draw(strided(shape, dtype))
    if prim.meta == "advanced_index":
        return SampleInput(a, (indices,))
    indexed = tuple(torch.broadcast_shapes(*(i.shape for i in indices))) + tuple(shape[count:])
    values = draw(strided(maybe(draw, indexed, indexed + (1,)), dtype))
    # accumulate=False with repeated indices writes one of them: the values differ, not the geometry
    return SampleInput(a, (indices, values, draw(st.booleans())))


@composite
def take_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    a = draw(strided(shape, dtype_of(draw, prim)))
    count = numel(shape)
    index_shape = draw(shapes(max_dims=2, max_size=3)) if count else (0,)
    index = indices_into(2 * count, index_shape) - count if count else indices_into(0, index_shape)
    index = draw(laid_out(index))
    return SampleInput(a, (maybe(draw, index, index.to(torch.int32)),))


@composite
def searchsorted_call(draw, prim):
    dtype = dtype_of(draw, prim, [torch.float32, torch.float64, torch.int64, torch.int32])
    values_shape = draw(shapes(max_dims=3))
    if values_shape and draw(st.booleans()):
        seq_shape = tuple(values_shape[:-1]) + (draw(st.integers(0, 4)),)
    else:
        seq_shape = (draw(st.integers(0, 4)),)
    seq = torch.testing.make_tensor(seq_shape, dtype=torch.float64, device="cpu", low=0, high=9).sort(dim=-1).values
    seq = seq.to(dtype)     # (sorted in float64: an invalid dtype drawn may have no sort kernel)
    seq = draw(laid_out(seq))
    values = draw(strided(maybe(draw, values_shape, values_shape + (2, 1)), dtype))
    return SampleInput(seq, (values, draw(st.booleans())))


@composite
def index_write_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    rank = len(shape)
    dim = draw(st.integers(-max(rank, 1), max(rank, 1) - 1))
    size = shape[dim] if rank else 1
    length = (draw(st.integers(0, 3)) if size else 0) if rank else 1
    index = draw(laid_out(indices_into(size, (length,))))
    source_shape = tuple(length if d == dim % max(rank, 1) else s for d, s in enumerate(shape))
    source = draw(strided(maybe(draw, source_shape, source_shape + (1,)), dtype))
    return SampleInput(draw(strided(shape, dtype)), (dim, index, source))


@composite
def masked_scatter_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    mask = draw(laid_out(torch.rand(shape) < 0.5))
    # source holds at least as many elements as the mask selects (eager checks that on the values)
    source = draw(strided(draw(st.sampled_from([shape, (numel(shape) + draw(st.integers(0, 2)),)])), dtype))
    return SampleInput(draw(strided(shape, dtype)), (maybe(draw, mask, mask.to(torch.uint8)), source))


STRATEGIES = {"gather": gather_call, "index_select": index_select_call, "scatter": scatter_call, "scatter_reduce": scatter_call, "advanced_index": advanced_index_call, "advanced_index_put": advanced_index_call, "take": take_call, "searchsorted": searchsorted_call, "index_write": index_write_call, "masked_scatter": masked_scatter_call}
