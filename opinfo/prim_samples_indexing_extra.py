"""Samples and constraint error inputs of the indexing_extra family (scatter_reduce, index, index_put,
searchsorted, take, index_add, index_copy, masked_scatter)."""
from __future__ import annotations

import math

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError

ODD_DTYPE = torch.uint16     # in no catalog dtype class


def _error(op, cid, name, input, *args, exc=PrimConstraintError):
    return ErrorInput(SampleInput(input, args, name=f"{cid}: {name}"), exc, f"{op.prim.name}: {cid}:")


def _other_device(device):
    # without a GPU a meta tensor meets a cpu one: the device check fires all the same
    if not torch.cuda.is_available():
        return "meta" if torch.device(device).type != "meta" else "cpu"
    return "cpu" if torch.device(device).type == "cuda" else "cuda"


def _index(shape, high, device, *, negative=False):
    """int64 indices in [0, high) (or [-high, high) with negative), of the given shape."""
    if high == 0 or 0 in shape:
        return torch.zeros(shape, device=device, dtype=torch.int64)
    return make(shape, device, torch.int64, low=-high if negative else 0, high=high)


# --- scatter_reduce ---------------------------------------------------------------------------

# (operand shape, dim, index shape, src shape)
SCATTER_CASES = [((4, 5, 6), 0, (6, 5, 6), (7, 5, 6)), ((4, 5, 6), 1, (4, 2, 3), (4, 3, 6)),
                 ((4, 5, 6), -1, (4, 5, 6), (4, 5, 6)), ((4, 5, 6), 0, (0, 5, 6), (2, 5, 6)), ((), 0, (), ())]


def samples_scatter_reduce(op, device, dtype):
    # small first, one index length per reduce (the derivative test reads a few small samples per shape)
    for k, reduce in enumerate(("prod", "mean", "amax", "amin", "sum")):
        index = _index((3, 2 + k), 4, device)
        yield SampleInput(make((3, 4), device, dtype), (1, index, make((3, 2 + k), device, dtype), reduce, k % 2 == 0),
                          name=f"small (3, 4) dim=1 {reduce} include_self={k % 2 == 0}")
    for shape, dim, ishape, sshape in SCATTER_CASES:
        index = _index(ishape, shape[dim] if shape else 1, device)
        for reduce in ("sum", "prod", "mean", "amax", "amin"):
            for include_self in (True, False):
                yield SampleInput(make(shape, device, dtype), (dim, index, make(sshape, device, dtype), reduce,
                                  include_self), name=f"{shape} dim={dim} {reduce} include_self={include_self}")
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index, make(sshape, device, dtype), "sum", True), name=f"{name} a {shape}")
        for name, src in layouts(sshape, device, dtype):
            yield SampleInput(make(shape, device, dtype), (dim, index, src, "amax", False), name=f"{name} src {shape}")


def errors_scatter_reduce(op, device):
    a, src, index = make((4, 5), device, torch.float32), make((4, 5), device, torch.float32), _index((2, 5), 4, device)
    yield _error(op, "C1", "int32 index", a, 0, index.int(), src, "sum", True)
    yield _error(op, "C2", "index rank differs", a, 0, _index((2,), 4, device), src, "sum", True)
    yield _error(op, "C2", "devices differ", a, 0, _index((2, 5), 4, _other_device(device)), src, "sum", True)
    yield _error(op, "C3", "dim out of range", a, 2, index, src, "sum", True, exc=PrimIndexError)
    yield _error(op, "C4", "index larger than the operand", a, 0, _index((2, 6), 4, device), src, "sum", True)
    yield _error(op, "C5", "src dtype differs", a, 0, index, src.double(), "sum", True)
    yield _error(op, "C5", "unsupported dtype", a.bool(), 0, index, src.bool(), "sum", True)
    yield _error(op, "C6", "unknown reduction", a, 0, index, src, "max", True)


# --- index, index_put -------------------------------------------------------------------------

# (operand shape, index shapes): the index tensors broadcast together.
INDEX_CASES = [((5, 4), [(3,)]), ((5, 4), [(3,), (3,)]), ((5, 4, 3), [(2, 1), (1, 3)]),
               ((5, 4, 3), [(2, 3)]), ((5, 4, 3), [(), (4,)]), ((5,), [()]), ((5, 4), [(0,)]),
               ((0, 4), [(0,)]), ((2, 3, 4, 5), [(3,), (1,)])]


def _indices(shape, ishapes, device, *, negative=False):
    return [_index(s, shape[d], device, negative=negative) for d, s in enumerate(ishapes)]


def _index_calls(device, dtype):
    """(name, a, indices) for every case, layout, and negative or transposed indices."""
    for shape, ishapes in INDEX_CASES:
        indices = _indices(shape, ishapes, device)
        for name, a in layouts(shape, device, dtype):
            yield f"{name} {shape} indices {ishapes}", a, indices
        yield f"{shape} negative indices {ishapes}", make(shape, device, dtype), \
            _indices(shape, ishapes, device, negative=True)
    t = _index((3, 2), 5, device).t()
    yield "transposed index", make((5, 4), device, dtype), [t, _index((2, 3), 4, device)]
    yield "expanded index", make((5, 4), device, dtype), [_index((1,), 5, device).expand(4)]


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
    a, indices = make((5, 4), device, dtype), [_index((3,), 5, device)]
    values = make((4, 3), device, dtype).t()
    yield SampleInput(a, (indices, values, False), name="transposed values")
    repeated = [torch.tensor([1, 3, 1], device=device)]
    yield SampleInput(make((5, 4), device, dtype), (repeated, make((3, 4), device, dtype), False),
                      name="a repeated position, accumulate=False")


def _index_errors(op, device, put):
    a = make((5, 4), device, torch.float32)

    def call(cid, name, indices, values=None, exc=PrimConstraintError):
        extra = (make(_indexed_shape(a, indices), device, torch.float32) if values is None else values, False) \
            if put else ()
        return _error(op, cid, name, a, indices, *extra, exc=exc)
    yield call("C1", "no index", [], make((5, 4), device, torch.float32))
    yield call("C1", "more indices than dims", [_index((2,), 4, device)] * 3, make((2,), device, torch.float32))
    yield call("C2", "int32 index", [_index((2,), 5, device).int()], make((2, 4), device, torch.float32))
    yield call("C3", "index shapes do not broadcast", [_index((2,), 5, device), _index((3,), 4, device)],
               make((3,), device, torch.float32))
    yield call("C4", "index on another device", [_index((2,), 5, _other_device(device))],
               make((2, 4), device, torch.float32))
    if put:
        index = [_index((2,), 5, device)]
        yield call("C4", "values on another device", index, make((2, 4), _other_device(device), torch.float32))
        yield call("C5", "values not of the indexed shape", index, make((4,), device, torch.float32))
        yield call("C6", "values dtype differs", index, make((2, 4), device, torch.float64))
        yield _error(op, "C6", "unsupported dtype", torch.zeros(5, 4, dtype=ODD_DTYPE, device=device), index,
                     torch.zeros(2, 4, dtype=ODD_DTYPE, device=device), False)


def errors_index(op, device):
    yield from _index_errors(op, device, put=False)


def errors_index_put(op, device):
    yield from _index_errors(op, device, put=True)


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
    yield _error(op, "C1", "0-d sequence", f(()), f((3,)), False)
    yield _error(op, "C1", "leading sizes differ", f((2, 5)), f((3, 4)), False)
    yield _error(op, "C1", "ranks differ", f((2, 5)), f((2, 1, 4)), False)
    yield _error(op, "C2", "dtypes differ", f((5,)), f((3,), torch.float64), False)
    yield _error(op, "C2", "unsupported dtype", f((5,), torch.complex64), f((3,), torch.complex64), False)
    yield _error(op, "C3", "devices differ", f((5,)), f((3,), dev=_other_device(device)), False)


def samples_take(op, device, dtype):
    cases = [((3, 4), (5,)), ((3, 4), (2, 3)), ((5,), ()), ((), (3,)), ((2, 3, 4), (0,)), ((0,), (0, 2))]
    for shape, ishape in cases:
        n = math.prod(shape)
        index = _index(ishape, n, device, negative=n > 0)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (index,), name=f"{name} {shape} index {ishape}")
    yield SampleInput(make((3, 4), device, dtype), (_index((3, 2), 12, device).t(),), name="transposed index")


def errors_take(op, device):
    a = make((3, 4), device, torch.float32)
    yield _error(op, "C1", "int32 index", a, _index((2,), 12, device).int())
    yield _error(op, "C2", "devices differ", a, _index((2,), 12, _other_device(device)))


# --- index_add, index_copy, masked_scatter ---------------------------------------------------

# (operand shape, dim, index length): repeats among the indices whenever the length exceeds 1.
INDEX_WRITE_CASES = [((5, 4), 0, 3), ((5, 4), 1, 6), ((3, 4, 5), -1, 5), ((3, 4, 5), 1, 0), ((0, 3), 1, 2),
                     ((4,), 0, 4), ((2, 3, 4, 5), 2, 7), ((), 0, 1), ((), -1, 1)]


def _source_shape(shape, dim, count):
    return tuple(count if d == dim % len(shape) else n for d, n in enumerate(shape)) if shape else ()


def samples_index_write(op, device, dtype):
    for shape, dim, count in INDEX_WRITE_CASES:
        size = shape[dim] if shape else 1
        index = _index((count,), size, device)
        if count > 1 and size > 1:
            index[-1] = index[0]      # a repeated position: index_add sums, index_copy keeps the last
        sshape = _source_shape(shape, dim, count)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index, make(sshape, device, dtype)), name=f"{name} a {shape} dim={dim}")
        for name, source in layouts(sshape, device, dtype):
            if name != "contiguous":
                yield SampleInput(make(shape, device, dtype), (dim, index, source), name=f"{name} source {sshape}")
    a = make((6, 3), device, dtype)
    index = _index((2, 4), 6, device).t()[0]      # a strided index
    yield SampleInput(a, (0, index, make((2, 3), device, dtype)), name="strided index")
    yield SampleInput(a, (0, torch.zeros(5, dtype=torch.int64, device=device), make((5, 3), device, dtype)),
                      name="every index the same")


def errors_index_write(op, device):
    a, source, index = make((5, 4), device, torch.float32), make((3, 4), device, torch.float32), _index((3,), 5, device)
    yield _error(op, "C1", "int32 index", a, 0, index.int(), source)
    yield _error(op, "C2", "2-d index", a, 0, index.reshape(3, 1), source)
    yield _error(op, "C2", "index on another device", a, 0, index.to(_other_device(device)), source)
    yield _error(op, "C2", "source on another device", a, 0, index, source.to(_other_device(device)))
    yield _error(op, "C3", "dim out of range", a, 2, index, source, exc=PrimIndexError)
    yield _error(op, "C4", "source length differs from the index", a, 0, index, make((4, 4), device, torch.float32))
    yield _error(op, "C4", "source differs in another dim", a, 0, index, make((3, 5), device, torch.float32))
    yield _error(op, "C4", "source rank differs", a, 0, index, make((3, 4, 1), device, torch.float32))
    yield _error(op, "C4", "0-d operand, two indices", make((), device, torch.float32), 0, _index((2,), 1, device),
                 make((), device, torch.float32))
    yield _error(op, "C5", "source dtype differs", a, 0, index, source.double())
    bad = torch.bool if torch.bool not in op.prim.dtypes else ODD_DTYPE
    yield _error(op, "C5", f"unsupported dtype {bad}", torch.zeros(5, 4, dtype=bad, device=device), 0, index,
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
    yield _error(op, "C1", "uint8 mask", a, mask.to(torch.uint8), source)
    yield _error(op, "C2", "mask broadcasts but differs", a, mask[0], source)
    yield _error(op, "C2", "mask rank differs", a, mask.reshape(1, 3, 4), source)
    yield _error(op, "C3", "source dtype differs", a, mask, source.double())
    yield _error(op, "C4", "mask on another device", a, mask.to(_other_device(device)), source)
    yield _error(op, "C4", "source on another device", a, mask, source.to(_other_device(device)))


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
