"""OpInfo entries: index writes, counting, quantiles and unique (decompositions.indexing, reductions, sorting).

Writes whose order matters for eager (index_copy, put without accumulate) draw distinct
positions; adding writes repeat them. Samples of selections by frequency or equality (mode,
unique) hold small integers, so that values repeat. Ops whose output size depends on the data
(bincount, repeat_interleave without output_size, the unique ops) trace with unbacked sizes;
their out= forms trace on the assumption that the size is out's (primkit does not resize out=
tensors), so their samples write into tensors of eager's result shapes.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions import DecompositionError
from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.indexing import _indices, _layouts
from primkit.opinfo.definitions.nn import out_entry
from primkit.opinfo.definitions.reductions import SUM_TOLERANCES, _tuple_out, sample_inputs_reduction
from primkit.opinfo.dtypes import ALL, COMPLEX, FLOAT32_64, FLOATING, NUMERIC
from primkit.opinfo.samples import layouts, make

aten = torch.ops.aten
A_SHAPE = (3, 4, 5)
NAN = float("nan")


def _entry(name, op, aten_names, samples, errors=None, *, dtypes=ALL, **kw):
    return OpInfo(name=name, op=op, aten=tuple(aten_names), sample_inputs=samples, error_inputs=errors,
                  dtypes=frozenset(dtypes), family="indexing_extra", **kw)


def _small_ints(shape, device, dtype, high=3):
    """Values in [0, high): they repeat (exact in every dtype; bool is 0/1)."""
    return torch.randint(0, 2 if dtype == torch.bool else high, shape, device=device).to(dtype)


def _index_vector(size, count, device, *, distinct, dtype=torch.int64):
    if distinct:
        return torch.randperm(size, device=device)[:count].to(dtype)
    return _indices(size, (count,), device, dtype)


# ----------------------------------------------------------------------------- index_add / index_copy / index_reduce

def _index_write_samples(*, distinct, kwargs=({},)):
    """(a, dim, index, source) on a (3, 4, 5) tensor along each dim and layout, plus the 0-d,
    empty-index, 0-d-index and int32-index cases; each with every kwargs of ``kwargs``."""
    def gen(op, device, dtype):
        for kw in kwargs:
            for dim in (0, 1, -1):
                n = A_SHAPE[dim] - 1 if distinct else A_SHAPE[dim] + 2
                shape = list(A_SHAPE)
                shape[dim] = n
                index = _index_vector(A_SHAPE[dim], n, device, distinct=distinct)
                for name, t in _layouts(make(A_SHAPE, device, dtype)):
                    yield SampleInput(t, (dim, index, make(shape, device, dtype)), dict(kw),
                                      name=f"dim={dim} {name} {kw}")
            a = make(A_SHAPE, device, dtype)
            yield SampleInput(a, (1, torch.tensor([2], device=device), make((3, 1, 5), device, dtype)), dict(kw),
                              name=f"one index {kw}")
            yield SampleInput(a, (1, torch.tensor(3, device=device), make((3, 1, 5), device, dtype)), dict(kw),
                              name=f"0-d index {kw}")
            yield SampleInput(a, (2, torch.empty(0, device=device, dtype=torch.int64), make((3, 4, 0), device, dtype)),
                              dict(kw), name=f"empty index {kw}")
            yield SampleInput(make((), device, dtype), (0, torch.tensor([0], device=device), make((), device, dtype)),
                              dict(kw), name=f"0-d {kw}")
            if op.sample_kwargs.get("int32", True):
                yield SampleInput(a, (0, _index_vector(3, 2, device, distinct=distinct, dtype=torch.int32),
                                      make((2, 4, 5), device, dtype)), dict(kw), name=f"int32 index {kw}")
    return gen


def _index_write_errors(name, *, int32_ok=True):
    def gen(op, device):
        a = make((3, 4), device, torch.float32)
        i = torch.tensor([0, 2], device=device)
        source = make((2, 4), device, torch.float32)
        yield ErrorInput(SampleInput(a, (0, i.float(), source)), RuntimeError, "for index")
        if not int32_ok:
            yield ErrorInput(SampleInput(a, (0, i.int(), source)), RuntimeError, "Expected a long tensor for index")
        yield ErrorInput(SampleInput(a, (0, i.reshape(1, 2), source)), IndexError, "")
        yield ErrorInput(SampleInput(a, (0, i, source.double())), RuntimeError, "")
        yield ErrorInput(SampleInput(a, (0, i, make((2, 5), device, torch.float32))), RuntimeError, "")
        yield ErrorInput(SampleInput(a, (2, i, source)), IndexError, "Dimension out of range")
    return gen


def _index_reduce_errors(op, device):
    a = make((3, 4), device, torch.float32)
    i = torch.tensor([0, 2], device=device)
    yield ErrorInput(SampleInput(a, (0, i, make((2, 4), device, torch.float32), "sum")), RuntimeError,
                     "Expected reduce to be one of prod, mean, amax or amin")
    yield ErrorInput(SampleInput(a, (0, i.reshape(1, 2), make((2, 4), device, torch.float32), "amax")), IndexError,
                     "Index is supposed to be a vector")
    yield ErrorInput(SampleInput(a, (0, i, make((3, 4), device, torch.float32), "amax")), RuntimeError,
                     "Number of indices")


def _with_alpha(op, device, dtype):
    """index_add with alpha: a power of two, so the scaled source is exact in every dtype."""
    a = make(A_SHAPE, device, dtype)
    alpha = True if dtype == torch.bool else (2 if dtype in (torch.int64,) else -0.5)
    yield SampleInput(a, (1, _indices(4, (6,), device), make((3, 6, 5), device, dtype)), {"alpha": alpha},
                      name=f"alpha={alpha}")


def _index_add_samples(op, device, dtype):
    yield from _index_write_samples(distinct=False)(op, device, dtype)
    yield from _with_alpha(op, device, dtype)


INDEX_REDUCE_KWARGS = tuple({"reduce": r, "include_self": s} for r in ("prod", "mean", "amax", "amin")
                            for s in (True, False))


def _index_reduce_samples(op, device, dtype):
    for sample in _index_write_samples(distinct=False, kwargs=INDEX_REDUCE_KWARGS)(op, device, dtype):
        kw = dict(sample.kwargs)
        yield SampleInput(sample.input, (*sample.args, kw.pop("reduce")), kw, name=sample.name)
    if dtype.is_floating_point:
        a = torch.tensor([[1.0, NAN], [2.0, 3.0]], device=device, dtype=dtype)
        source = torch.tensor([[NAN, 0.0], [5.0, -1.0], [4.0, 4.0]], device=device, dtype=dtype)
        for reduce in ("amax", "amin"):
            yield SampleInput(a, (0, torch.tensor([0, 0, 1], device=device), source, reduce), name=f"nan {reduce}")


# ----------------------------------------------------------------------------- index_fill

def _index_fill_samples(op, device, dtype):
    """Knob tensor_value: the value as a 0-d tensor (index_fill.int_Tensor)."""
    value = {torch.bool: True}.get(dtype, -2.5 if dtype.is_floating_point or dtype.is_complex else 7)
    as_tensor = op.sample_kwargs.get("tensor_value", False)

    def v(x=value, dtype=dtype):
        return torch.tensor(x, device=device, dtype=dtype) if as_tensor else x
    for dim in (0, 1, -1):
        index = _indices(A_SHAPE[dim], (3,), device)
        if dim == 0 and not as_tensor:
            # negative ones count from the end (eager's derivative for a tensor value cannot take them)
            index = index - A_SHAPE[dim]
        for name, t in layouts(A_SHAPE, device, dtype):
            yield SampleInput(t, (dim, index, v()), name=f"dim={dim} {name}")
    cl = make((2, 3, 4, 5), device, dtype).contiguous(memory_format=torch.channels_last)
    yield SampleInput(cl, (1, torch.tensor([0, 2], device=device), v()), name="channels_last")
    yield SampleInput(make((3, 4), device, dtype), (1, torch.tensor(1, device=device), v()), name="0-d index")
    yield SampleInput(make((3, 4), device, dtype), (0, torch.empty(0, device=device, dtype=torch.int64), v()),
                      name="empty index")
    yield SampleInput(make((), device, dtype), (0, torch.tensor([0, 0 if as_tensor else -1], device=device), v()),
                      name="0-d")
    if dtype.is_floating_point:
        yield SampleInput(make((3, 4), device, dtype), (0, torch.tensor([1], device=device), v(NAN)), name="nan")
    if as_tensor and dtype != torch.float64:
        yield SampleInput(make((3, 4), device, dtype), (0, torch.tensor([1], device=device), v(1, torch.float64)),
                          name="float64 value")


def _index_fill_errors(op, device):
    a = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0, torch.tensor([0], device=device, dtype=torch.int32), 1.0)), IndexError,
                     "Expected dtype int64 for index")
    yield ErrorInput(SampleInput(a, (0, torch.zeros(1, 2, device=device, dtype=torch.int64), 1.0)), RuntimeError,
                     "Index has to be a vector/scalar")
    yield ErrorInput(SampleInput(a, (0, torch.tensor([0], device=device), torch.ones(2, device=device))),
                     RuntimeError, "only supports a 0-dimensional value tensor")
    yield ErrorInput(SampleInput(a, (0, torch.tensor([0], device=device), 1j)), RuntimeError,
                     "Converting complex Scalar to non-complex type is not supported")


# ----------------------------------------------------------------------------- scatter_reduce

SCATTER_REDUCE_KWARGS = tuple({"include_self": s} for s in (True, False))


def _scatter_reduce_samples(op, device, dtype):
    """Knob src_larger: src larger than index in a dim (the prim reads its leading block), and
    eager's unlisted alias reduce='max'."""
    extra = 1 if op.sample_kwargs.get("src_larger") else 0
    reductions = (("sum", "mean") if dtype.is_complex else
                  ("sum", "prod", "amax", "amin") + (("mean",) if dtype != torch.bool else ()))
    for reduce in reductions:
        for kw in SCATTER_REDUCE_KWARGS:
            for dim in (0, -1):
                index_shape = [2, 3, 4]
                index_shape[dim] = A_SHAPE[dim] + 1
                index = _indices(A_SHAPE[dim], index_shape, device)
                for name, t in _layouts(make(A_SHAPE, device, dtype)):
                    src = make([n + extra for n in index_shape], device, dtype)
                    yield SampleInput(t, (dim, index, src, reduce), dict(kw),
                                      name=f"{reduce} dim={dim} {name} {kw}")
        a = make(A_SHAPE, device, dtype)
        yield SampleInput(a, (1, torch.empty(3, 0, 5, device=device, dtype=torch.int64),
                              make((3, 0, 5), device, dtype), reduce), name=f"{reduce} empty index")
        yield SampleInput(make((), device, dtype), (0, torch.tensor(0, device=device), make((), device, dtype), reduce),
                          name=f"{reduce} 0-d")
    a = make(A_SHAPE, device, dtype)
    yield SampleInput(a, (0, _indices(3, (4, 4, 5), device, torch.int32), make((4, 4, 5), device, dtype), "sum"),
                      name="int32 index")
    if extra:
        yield SampleInput(a, (0, _indices(3, (4, 4, 5), device), make((4, 4, 5), device, dtype), "max"),
                          name="max (eager's alias of amax)")


def _scatter_reduce_errors(op, device):
    a = make((3, 4), device, torch.float32)
    index = torch.zeros(2, 4, device=device, dtype=torch.int64)
    src = make((2, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0, index, src, "add")), RuntimeError,
                     "reduce argument must be either sum, prod, mean, amax or amin")
    yield ErrorInput(SampleInput(a, (0, index.short(), src, "sum")), RuntimeError, "Expected dtype int32/int64")
    yield ErrorInput(SampleInput(a, (0, index, src.double(), "sum")), RuntimeError, "Expected self.dtype")
    yield ErrorInput(SampleInput(a, (0, index[0], src, "sum")), RuntimeError, "same number of dimensions")
    yield ErrorInput(SampleInput(a, (0, torch.zeros(2, 5, device=device, dtype=torch.int64), src, "sum")),
                     RuntimeError, "to be no larger than self")


# ----------------------------------------------------------------------------- masked_scatter, put

def _masked_scatter_samples(op, device, dtype):
    for a_shape, mask_shape in (((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 4), ()), ((0, 4), (4,)), ((), ()),
                                ((2, 3, 4, 5), (2, 3, 4, 5))):
        mask = make(mask_shape, device, torch.bool)
        size = math.prod(torch.broadcast_shapes(a_shape, mask_shape))
        for name, t in layouts(a_shape, device, dtype):
            yield SampleInput(t, (mask, make((size + 2,), device, dtype)), name=f"{a_shape} mask {mask_shape} {name}")
    yield SampleInput(make((3, 4), device, dtype), (make((3, 4), device, torch.bool), make((4, 3), device, dtype)),
                      name="2-d source")
    yield SampleInput(make((4,), device, dtype), (make((3, 4), device, torch.bool), make((12,), device, dtype)),
                      name="mask broadcasts self")


def _masked_scatter_errors(op, device):
    a = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (torch.ones(3, 4, device=device, dtype=torch.uint8), make((12,), device,
                                                                                              torch.float32))),
                     RuntimeError, "only supports boolean masks")
    yield ErrorInput(SampleInput(a, (torch.ones(3, 4, device=device, dtype=torch.bool),
                                     make((12,), device, torch.float64))), RuntimeError, "to have same dtypes")
    yield ErrorInput(SampleInput(a, (torch.ones(5, device=device, dtype=torch.bool), make((12,), device,
                                                                                          torch.float32))),
                     RuntimeError, "must match the size")


def _put_samples(op, device, dtype):
    """accumulate=False writes distinct positions (negative ones count from the end)."""
    for accumulate in (False, True):
        for shape in ((3, 4), (2, 3, 4), (7,)):
            n = math.prod(shape)
            index = (_indices(n, (6,), device) if accumulate else torch.randperm(n, device=device)[:6] - n // 2)
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, (index, make((6,), device, dtype), accumulate), name=f"{shape} {name} "
                                  f"accumulate={accumulate}")
        a = make((3, 4), device, dtype)
        yield SampleInput(a, (torch.tensor([[0, 5], [11, 2]], device=device), make((4,), device, dtype), accumulate),
                          name=f"2-d index accumulate={accumulate}")
        yield SampleInput(make((), device, dtype), (torch.tensor([0], device=device), make((1,), device, dtype),
                                                    accumulate), name=f"0-d accumulate={accumulate}")
        yield SampleInput(a, (torch.empty(0, device=device, dtype=torch.int64), make((0,), device, dtype),
                              accumulate), name=f"empty index accumulate={accumulate}")


def _put_errors(op, device):
    a = make((3, 4), device, torch.float32)
    i = torch.tensor([0, 2], device=device)
    yield ErrorInput(SampleInput(a, (i.int(), make((2,), device, torch.float32))), RuntimeError,
                     "Expected a long tensor for index")
    yield ErrorInput(SampleInput(a, (i, make((2,), device, torch.float64))), RuntimeError,
                     "expected to have the same dtype")
    yield ErrorInput(SampleInput(a, (i, make((3,), device, torch.float32))), IndexError,
                     "to have the same number of elements")
    yield ErrorInput(SampleInput(make((0,), device, torch.float32), (i, make((2,), device, torch.float32))),
                     IndexError, "Tried to put elements into an empty tensor")


# ----------------------------------------------------------------------------- reductions

def _mode_samples(op, device, dtype):
    """Rows of at most 16 elements: eager's std::sort is stable there (see decompositions.mode)."""
    for shape, dim in (((), 0), ((1,), 0), ((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2), ((0, 3), 1)):
        for keepdim in (False, True):
            yield SampleInput(_small_ints(shape, device, dtype), (dim, keepdim), name=f"{shape} dim={dim} "
                              f"keepdim={keepdim}")
    t = _small_ints((5, 4), device, dtype).t()
    yield SampleInput(t, (1,), name="transposed")
    yield SampleInput(_small_ints((4, 16), device, dtype, high=5), (), name="rows of 16, default dim")
    if dtype.is_floating_point:
        yield SampleInput(torch.tensor([[-0.0, 0.0, 1.5, 1.5], [2.0, -1.0, -1.0, 2.0]], device=device, dtype=dtype),
                          (1,), name="signed zeros, ties")


def _mode_errors(op, device):
    yield ErrorInput(SampleInput(make((0, 3), device, torch.float32), (0,)), IndexError, "non-zero size")
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), (2,)), IndexError, "Dimension out of range")


def _renorm_samples(op, device, dtype):
    for p in (2, 1, 3.5, math.inf):
        for dim in (0, 1, -1):
            for name, t in layouts((3, 4, 5), device, dtype):
                # maxnorm between the slices' norms: some are scaled, some kept
                yield SampleInput(t, (p, dim, 4.0), name=f"p={p} dim={dim} {name}")
    yield SampleInput(make((4, 5), device, dtype), (2, 0, 0.0), name="maxnorm 0")
    yield SampleInput(make((0, 5), device, dtype), (2, 1, 1.0), name="empty")


def _renorm_errors(op, device):
    a = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0, 0, 1.0)), RuntimeError, "non-positive-norm not supported")
    yield ErrorInput(SampleInput(a, (2, 0, -1.0)), RuntimeError, "expected maxnorm to be >= 0")
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (2, 0, 1.0)), RuntimeError,
                     "input needs at least 2 dimensions")
    yield ErrorInput(SampleInput(torch.ones(3, 3, device=device, dtype=torch.int64), (2, 0, 1.0)), RuntimeError,
                     "Expected a floating point or complex tensor")


def _frobenius_samples(op, device, dtype):
    for shape, dim in (((3, 4), [0, 1]), ((3, 4), [1]), ((2, 3, 4), [0, 2]), ((2, 3, 4), [-1]), ((5,), [0]),
                       ((3, 4), []), ((0, 3), [0])):
        for keepdim in (False, True):
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, (dim, keepdim), name=f"{shape} dim={dim} keepdim={keepdim} {name}")


def _frobenius_errors(op, device):
    yield ErrorInput(SampleInput(make((2, 2, 2), device, torch.float32), ([0, 1, 2],)), RuntimeError,
                     "Expected at most 2 dimensions")


QUANTILE_CASES = (((7,), None), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2), ((), None), ((), 0), ((1,), 0))
INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_samples(op, device, dtype):
    """Knob scalar: q a Python float (quantile.scalar) rather than a tensor."""
    scalar = op.sample_kwargs.get("scalar", False)
    qs = (0.3, 0.0, 1.0) if scalar else (torch.tensor([0.0, 0.25, 0.5, 1.0], device=device, dtype=dtype),
                                         torch.tensor(0.7, device=device, dtype=dtype))
    for shape, dim in QUANTILE_CASES:
        for q in qs:
            for keepdim in (False, True):
                yield SampleInput(make(shape, device, dtype), (q,), {"dim": dim, "keepdim": keepdim},
                                  name=f"{shape} dim={dim} keepdim={keepdim}")
    for interpolation in INTERPOLATIONS:
        yield SampleInput(make((3, 6), device, dtype), (qs[0],), {"dim": 1, "interpolation": interpolation},
                          name=f"{interpolation}")
    t = make((5, 4), device, dtype).t()
    yield SampleInput(t, (qs[0],), {"dim": 0}, name="transposed")
    rows = torch.tensor([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 0.0, -1.0, 2.5]], device=device,
                        dtype=dtype)
    for interpolation in ("linear", "nearest"):
        yield SampleInput(rows, (qs[0],), {"dim": 1, "interpolation": interpolation}, name=f"nan rows {interpolation}")
    yield SampleInput(_small_ints((4, 6), device, dtype), (qs[0],), {"dim": 1}, name="ties")


def _quantile_errors(op, device):
    a = make((3, 4), device, torch.float32)
    q = torch.tensor([0.5], device=device)
    yield ErrorInput(SampleInput(a, (q.double(),)), RuntimeError, "q tensor must be same dtype")
    yield ErrorInput(SampleInput(a, (q.reshape(1, 1),)), RuntimeError, "q must be a scalar or 1D tensor")
    yield ErrorInput(SampleInput(a, (1.5,)), RuntimeError, r"q must be in the range \[0, 1\]")
    yield ErrorInput(SampleInput(a, (q,), {"interpolation": "cubic"}), RuntimeError, "interpolation must be one of")
    yield ErrorInput(SampleInput(make((0, 3), device, torch.float32), (q,)), RuntimeError, "must be non-empty")
    yield ErrorInput(SampleInput(a.half(), (q.half(),)), RuntimeError, "must be either float or double")


# ----------------------------------------------------------------------------- counting and selection

def _repeat_interleave_int_samples(op, device, dtype):
    for shape in ((3, 4), (2, 3, 4), (5,), (0, 3)):
        for name, t in layouts(shape, device, dtype):
            for repeats, dim in ((2, 0), (3, -1), (0, 0), (1, None), (2, None)):
                yield SampleInput(t, (repeats,), {"dim": dim}, name=f"{shape} {name} repeats={repeats} dim={dim}")
    yield SampleInput(make((), device, dtype), (3,), name="0-d")


def _repeat_interleave_tensor_samples(op, device, dtype):
    for shape, dim in (((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((5,), None), ((2, 3), None)):
        for name, t in layouts(shape, device, dtype):
            n = t.numel() if dim is None else t.shape[dim]
            yield SampleInput(t, (torch.randint(0, 3, (n,), device=device),), {"dim": dim},
                              name=f"{shape} {name} dim={dim}")
    a = make((3, 4), device, dtype)
    yield SampleInput(a, (torch.tensor(2, device=device),), {"dim": 1}, name="0-d repeats")
    yield SampleInput(a, (torch.tensor([3], device=device),), {"dim": 0}, name="one repeat")
    yield SampleInput(a, (torch.tensor([1, 0, 2], device=device, dtype=torch.int32),), {"dim": 0},
                      name="int32 repeats")
    yield SampleInput(a, (torch.tensor([2, 1, 1], device=device),), {"dim": 0, "output_size": 4},
                      name="output_size")


def _repeat_interleave_errors(op, device):
    a = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (torch.tensor([1, 2], device=device),), {"dim": 0}), RuntimeError,
                     "repeats must have the same size as input along dim")
    yield ErrorInput(SampleInput(a, (torch.ones(1, 3, device=device, dtype=torch.int64),), {"dim": 0}),
                     RuntimeError, "repeats must be 0-dim or 1-dim tensor")


def _repeat_interleave_int_errors(op, device):
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32), (-1,), {"dim": 0}), RuntimeError,
                     "Repeats must be non-negative")
    yield ErrorInput(SampleInput(make((), device, torch.float32), (2,), {"dim": 0}), IndexError,
                     "Dimension out of range")


def _repeat_interleave_counts_samples(op, device, dtype):
    """Knob static: with output_size (a static size: the out= form can write it)."""
    static = op.sample_kwargs.get("static", False)
    for counts in ([2, 0, 3], [1], [], [0, 0], [4, 1, 1, 2]):
        repeats = torch.tensor(counts, device=device, dtype=dtype)
        yield SampleInput(repeats, (), {"output_size": sum(counts)} if static else {}, name=f"{counts}")


def _repeat_interleave_counts_errors(op, device):
    yield ErrorInput(SampleInput(torch.ones(2, 2, device=device, dtype=torch.int64)), RuntimeError,
                     "only accept 1D vector as repeat")
    yield ErrorInput(SampleInput(torch.ones(2, device=device)), NotImplementedError, "not implemented for")


def _histc_samples(op, device, dtype):
    for shape in ((20,), (4, 5), (), (0,)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (4, -5, 5), name=f"{shape} {name} range [-5, 5]")
            yield SampleInput(t, (), name=f"{shape} {name} data's range")
    t = make((30,), device, dtype)
    yield SampleInput(t, (7, -2.5, 3), name="outside the range")
    yield SampleInput(t, (1, 0, 9), name="one bin")
    yield SampleInput(torch.tensor([1.0, 2.0, 3.0, 3.0, NAN, 5.0], device=device, dtype=dtype), (4, 1, 3),
                      name="edges and nan")
    yield SampleInput(torch.full((5,), 2.0, device=device, dtype=dtype), (3,), name="constant data")
    yield SampleInput(torch.tensor([1.0, 2.0, 3.0], device=device, dtype=dtype), (4, 5, 5), name="min == max != 0")


def _histc_errors(op, device):
    a = make((5,), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0,)), RuntimeError, "bins must be > 0")
    yield ErrorInput(SampleInput(a, (4, 2, 1)), RuntimeError, "max must be larger than min")
    yield ErrorInput(SampleInput(a, (4, 0, math.inf)), RuntimeError, "is not finite")
    yield ErrorInput(SampleInput(torch.ones(3, device=device, dtype=torch.int64), (4, 0, 3)), NotImplementedError,
                     "not implemented for")


def _histogram_samples(op, device, dtype):
    """torch.histogram: bin counts over the data's range and a given one, weights, density, edges
    given as a tensor; edge values, nan and inf (outside any range); constant and empty data."""
    for shape in ((20,), (4, 5), (), (0,)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (5,), name=f"{shape} {name} data's range")
            yield SampleInput(t, (4,), {"range": (-1.0, 1.5)}, name=f"{shape} {name} range [-1, 1.5]")
    t = make((4, 5), device, dtype)
    w = make((4, 5), device, dtype, low=0, high=2)
    yield SampleInput(t, (3,), {"weight": w}, name="weights")
    yield SampleInput(t, (3,), {"weight": w, "density": True}, name="weights, density")
    yield SampleInput(t, (6,), {"range": (-2.0, 2.0), "density": True}, name="range, density")
    edges = torch.tensor([-3.0, -0.5, 0.0, 0.25, 4.0], device=device, dtype=dtype)
    yield SampleInput(t, (edges,), name="edges tensor")
    yield SampleInput(t, (edges,), {"weight": w, "density": True}, name="edges tensor, weights, density")
    special = torch.tensor([1.0, 2.0, 3.0, 3.0, NAN, math.inf, -math.inf, 5.0], device=device, dtype=dtype)
    yield SampleInput(special, (4,), {"range": (1.0, 3.0)}, name="on the edges, nan, inf")
    yield SampleInput(special, (edges,), name="nan, inf against an edges tensor")
    yield SampleInput(torch.full((5,), 2.0, device=device, dtype=dtype), (3,), name="constant data")
    yield SampleInput(make((6,), device, dtype), (2,), {"range": (1.0, 1.0)}, name="empty range: widened")


def _histogram_errors(op, device):
    a = make((5,), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0,)), RuntimeError, "bins must be > 0")
    yield ErrorInput(SampleInput(a, (4,), {"range": (2.0, 1.0)}), RuntimeError, "min should not exceed max")
    yield ErrorInput(SampleInput(a, (4,), {"range": (0.0, math.inf)}), RuntimeError, "is not finite")
    yield ErrorInput(SampleInput(a, (torch.tensor([0.0, 1.0], device=device, dtype=torch.float64),)), RuntimeError,
                     "should have the same dtype")
    yield ErrorInput(SampleInput(torch.ones(3, device=device, dtype=torch.int64), (4,)), NotImplementedError,
                     "not implemented for")


def _histogramdd_samples(op, device, dtype):
    """torch.histogramdd: points as the rows of the last dim (2-d and 3-d inputs, non-contiguous),
    bins per dim or one for all, a range, weights, density, edges tensors; no points."""
    for shape in ((10, 2), (2, 5, 3)):
        for name, t in layouts(shape, device, dtype):
            d = shape[-1]
            yield SampleInput(t, ([3] * (d - 1) + [4],), name=f"{shape} {name} bins per dim")
            yield SampleInput(t, (3,), {"range": [-1.0, 1.0] * d}, name=f"{shape} {name} one bin count, range")
    t = make((10, 2), device, dtype)
    w = make((10,), device, dtype, low=0, high=2)
    yield SampleInput(t, ([2, 3],), {"weight": w, "density": True}, name="weights, density")
    edges = [torch.tensor([-3.0, 0.0, 0.5, 4.0], device=device, dtype=dtype),
             torch.tensor([-1.0, 1.0], device=device, dtype=dtype)]
    yield SampleInput(t, (edges,), name="edges tensors")
    yield SampleInput(t, (edges,), {"weight": w, "density": True}, name="edges tensors, weights, density")
    yield SampleInput(make((0, 2), device, dtype), ([2, 2],), name="no points")


def _histogramdd_errors(op, device):
    a = make((5, 2), device, torch.float32)
    yield ErrorInput(SampleInput(a, ([3],)), RuntimeError, "size of bins must be equal to the innermost dimension")
    yield ErrorInput(SampleInput(a, ([3, 0],)), RuntimeError, "bins must be > 0")
    yield ErrorInput(SampleInput(a, (3,), {"range": [0.0, 1.0]}), RuntimeError, "range should have 4 elements")


def _as_strided_scatter_samples(op, device, dtype):
    """Views of self's own storage: a block, a strided row, the diagonal, with an offset; self
    contiguous, transposed, non-dense (a slice: eager's result keeps its storage and offset),
    channels-last; an empty view."""
    for name, t in (("contiguous", make((3, 4), device, dtype)), ("transposed", make((4, 3), device, dtype).t()),
                    ("strided slice", make((3, 8), device, dtype)[:, ::2]),
                    ("offset slice", make((3, 6), device, dtype)[:, 1:5])):
        for size, stride, offset in (((2, 2), (1, 2), None), ((3,), (5, ), 0), ((2, 3), (4, 1), 1), ((3,), (1,), None)):
            if _reach_of(size, stride, t.storage_offset() if offset is None else offset) > _reach_of(
                    t.shape, t.stride(), t.storage_offset()):
                continue
            yield SampleInput(t, (make(size, device, dtype), size, stride, offset),
                              name=f"{name} self, view {size} {stride} offset {offset}")
    cl = make((2, 3, 4, 5), device, dtype).contiguous(memory_format=torch.channels_last)
    yield SampleInput(cl, (make((4, 2), device, dtype), (4, 2), (3, 1), 2), name="channels-last self")
    yield SampleInput(make((6,), device, dtype), (make((0,), device, dtype), (0,), (1,), 0), name="empty view")


def _reach_of(shape, strides, offset):
    return offset + sum((n - 1) * st for n, st in zip(shape, strides)) + 1


def _bincount_samples(op, device, dtype):
    high = 6
    for n in (10, 1):
        x = torch.randint(0, high, (n,), device=device, dtype=dtype)
        yield SampleInput(x, name=f"n={n}")
        yield SampleInput(x, (), {"minlength": 9}, name=f"n={n} minlength past max")
        yield SampleInput(x, (), {"minlength": 2}, name=f"n={n} minlength below max")
        for w in (torch.float32, torch.float64, torch.float16, torch.int64):
            yield SampleInput(x, (make((n,), device, w),), name=f"n={n} {w} weights")
    empty = torch.empty(0, device=device, dtype=dtype)
    yield SampleInput(empty, name="empty")
    yield SampleInput(empty, (make((0,), device, torch.float32),), {"minlength": 3}, name="empty, weights")
    yield SampleInput(torch.arange(6, device=device, dtype=dtype)[::2], name="strided")


def _bincount_errors(op, device):
    yield ErrorInput(SampleInput(torch.ones(2, 2, device=device, dtype=torch.int64)), RuntimeError,
                     "only supports 1-d non-negative integral inputs")
    yield ErrorInput(SampleInput(torch.ones(2, device=device, dtype=torch.int64), (), {"minlength": -1}),
                     RuntimeError, "minlength should be >= 0")
    yield ErrorInput(SampleInput(torch.ones(2, device=device, dtype=torch.int64), (torch.ones(3, device=device),)),
                     RuntimeError, "weights should be 1-d and have the same length as input")
    yield ErrorInput(SampleInput(torch.ones(2, device=device)), NotImplementedError, "not implemented for")


def _unique_samples(op, device, dtype):
    """Knob dim: along a dim (unique_dim, unique_dim_consecutive, unique_consecutive with dim)."""
    along = op.sample_kwargs.get("dim", False)
    flags = ({}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "return_counts": True})
    cases = ((((6, 3), 0), ((6, 3), 1), ((4, 2, 3), 1), ((4, 2, 3), -1), ((9,), 0), ((2, 0), 1), ((0, 3), 0))
             if along else (((12,), None), ((3, 4), None), ((), None), ((0, 2), None)))
    for shape, dim in cases:
        x = _small_ints(shape, device, dtype, high=2 if along else 3)
        for kw in flags:
            dim_kw = {"dim": dim} if along else {}
            yield SampleInput(x, (), {**kw, **dim_kw}, name=f"{shape} dim={dim} {kw}")
    yield SampleInput(_small_ints((5, 4), device, dtype, high=2).t(), (), {"return_counts": True,
                                                                         **({"dim": 1} if along else {})},
                      name="transposed")


def _unique_dim_positional(op):
    """op(a, dim, ...) for aten.unique_dim and unique_dim_consecutive (and their out= forms),
    whose dim is positional; the samples name it as a keyword."""
    def call(a, *, dim, return_inverse=False, return_counts=False, **outs):
        return op(a, dim, return_inverse=return_inverse, return_counts=return_counts, **outs)
    call.__name__ = str(op)
    return call


def _with_out_shapes(op, device, dtype):
    """The unique samples, each naming the shapes of eager's results (the sizes are data): the
    out= form writes into fresh tensors of those shapes."""
    functional = op.sample_kwargs["functional"]
    for s in _unique_samples(op, device, dtype):
        shapes = [tuple(t.shape) for t in functional(s.input, *s.args, **s.kwargs)]
        yield SampleInput(s.input, s.args, {**s.kwargs, "out_shapes": shapes}, name=s.name)


def _into_fresh_outs(overload):
    """overload (an out= form with out0, out1, out2: values, inverse, counts) writing into fresh
    tensors of the given shapes."""
    def op(a, *args, out_shapes, **kwargs):
        outs = {f"out{i}": torch.empty(shape, device=a.device, dtype=a.dtype if i == 0 else torch.int64)
                for i, shape in enumerate(out_shapes)}
        return overload(a, *args, **kwargs, **outs)
    op.__name__ = str(overload)
    return op


def _unique_dim_errors(op, device):
    yield ErrorInput(SampleInput(make((), device, torch.float32), (), {"dim": 0}), IndexError, "has no dimensions")
    yield ErrorInput(SampleInput(make((0, 3), device, torch.float32), (), {"dim": 1}), RuntimeError,
                     "they aren't selected")


def _nonzero_static_samples(op, device, dtype):
    for shape in ((12,), (3, 4), (2, 3, 4), (), (0, 3)):
        for name, t in layouts(shape, device, dtype):
            mask = torch.rand(shape, device=device) < 0.5
            x = torch.where(mask, t, torch.zeros((), device=device, dtype=dtype))
            for size in (0, 3, 30):
                yield SampleInput(x, (), {"size": size}, name=f"{shape} {name} size={size}")
    x = torch.tensor([0, 3, 0, 1], device=device).to(dtype)
    yield SampleInput(x, (), {"size": 4, "fill_value": -7}, name="fill_value")
    if dtype.is_floating_point:
        yield SampleInput(torch.tensor([NAN, 0.0, -0.0, 1.0], device=device, dtype=dtype), (), {"size": 4},
                          name="nan and signed zeros")


def _nonzero_static_errors(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (), {"size": -1}), RuntimeError,
                     "'size' must be an non-negative integer")


# ----------------------------------------------------------------------------- membership and closeness

def _isin_samples(op, device, dtype):
    """Knob scalar: "elements" or "test" is a Python number (isin.Scalar_Tensor / Tensor_Scalar)."""
    scalar = op.sample_kwargs.get("scalar")
    number = 2 if dtype in (torch.int64, torch.uint8) else 2.0
    for shape, test_shape in (((3, 4), (5,)), ((12,), (3, 2)), ((), (4,)), ((0, 3), (2,)), ((3, 4), ()),
                              ((3, 4), (0,)), ((3, 4), (40,))):
        elements, test = _small_ints(shape, device, dtype, high=5), _small_ints(test_shape, device, dtype, high=5)
        for invert in (False, True):
            kw = {"invert": invert}
            if scalar == "elements":
                yield SampleInput(number, (test,), kw, name=f"number in {test_shape} invert={invert}")
            elif scalar == "test":
                yield SampleInput(elements, (number,), kw, name=f"{shape} holds number invert={invert}")
            else:
                yield SampleInput(elements, (test,), kw, name=f"{shape} in {test_shape} invert={invert}")
    if scalar is None:
        yield SampleInput(_small_ints((5, 4), device, dtype, high=5).t(), (_small_ints((3,), device, dtype, high=5),),
                          name="transposed")
        yield SampleInput(_small_ints((3, 4), device, dtype, high=5), (_small_ints((3,), device, dtype, high=5),),
                          {"assume_unique": True}, name="assume_unique")
        if dtype.is_floating_point:
            vals = torch.tensor([NAN, 1.0, -0.0, 2.5], device=device, dtype=dtype)
            yield SampleInput(vals, (torch.tensor([NAN, 0.0, 2.5], device=device, dtype=dtype),), name="nan, zeros")
        if dtype != torch.float64:
            yield SampleInput(_small_ints((3, 4), device, dtype, high=5),
                              (torch.tensor([1.5, 2.0], device=device, dtype=torch.float64),), name="float64 test")
    elif dtype.is_floating_point:
        yield SampleInput(2.5 if scalar == "elements" else make((3, 4), device, dtype),
                          ((make((4,), device, dtype),) if scalar == "elements" else (2.5,)), name="fractional number")


def _isin_errors(op, device):
    yield ErrorInput(SampleInput(torch.ones(3, device=device, dtype=torch.bool),
                                 (torch.ones(2, device=device, dtype=torch.bool),)), RuntimeError,
                     "Unsupported input type encountered for isin")


def _isclose_samples(op, device, dtype):
    for a_shape, b_shape in (((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((0, 3), (3,))):
        for name, a in layouts(a_shape, device, dtype):
            b = make(b_shape, device, dtype)
            yield SampleInput(a, (b,), name=f"{a_shape} {b_shape} {name}")
            yield SampleInput(a, (a.clone(),), name=f"{a_shape} itself {name}")
    a = make((20,), device, dtype)
    b = a.clone()
    if dtype.is_floating_point or dtype.is_complex:
        b = a + (a.abs() * torch.logspace(-8, -1, 20, device=device).to(dtype))
    for kw in ({}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 1e-3}, {"atol": 0.5}, {"rtol": 0.1, "atol": 0.0}):
        yield SampleInput(a, (b,), kw, name=f"near {kw}")
    if dtype.is_floating_point or dtype.is_complex:
        inf = float("inf")
        x = torch.tensor([NAN, NAN, inf, inf, -inf, 1.0, 0.0], device=device, dtype=dtype)
        y = torch.tensor([NAN, 1.0, inf, -inf, -inf, inf, -0.0], device=device, dtype=dtype)
        if dtype.is_complex:
            x, y = x * (1 + 1j), torch.complex(y.real, torch.tensor([NAN, 0, 0, 0, 0, 0, 0], device=device))
        for equal_nan in (False, True):
            yield SampleInput(x, (y,), {"equal_nan": equal_nan}, name=f"nan, inf equal_nan={equal_nan}")


def _isclose_errors(op, device):
    a = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(a, (a.double(),)), RuntimeError, "did not match")
    yield ErrorInput(SampleInput(a, (a,), {"rtol": -1.0}), RuntimeError, "rtol must be greater than or equal to zero")
    yield ErrorInput(SampleInput(a, (a,), {"atol": -1.0}), RuntimeError, "atol must be greater than or equal to zero")


def _positional_out(overload):
    """aten.<op>.<out overload> with out=, else the packet (which out= would resolve elsewhere)."""
    def op(*args, out=None, **kwargs):
        return overload.overloadpacket(*args, **kwargs) if out is None else overload(*args, out=out, **kwargs)
    op.__name__ = str(overload)
    return op


# int32 counts give int32 positions: the prim's int64 output, of data-dependent length, converted
UNBACKED_CONVERSION = ("convert_element_type's meta rule asks whether a data-dependent size is 0 "
                       "(prims/meta/strides.py _numel_is_zero), which cannot be decided while tracing")
INDEXING = ALL | COMPLEX
NO_BOOL = NUMERIC
# float16/bfloat16: a handful of products or sums over repeated positions, accumulated in another
# order (or with another rounding of the mean's division) than eager's
REDUCE_TOLERANCES = SUM_TOLERANCES

ENTRIES = [
    _entry("index_add", torch.index_add, ("aten::index_add", "aten::index_add.out", "aten::index_add_"),
           _index_add_samples, _index_write_errors("index_add"), dtypes=INDEXING, inplace=torch.Tensor.index_add_,
           supports_out=True, tolerances=REDUCE_TOLERANCES),
    _entry("index_copy", torch.index_copy, ("aten::index_copy", "aten::index_copy.out", "aten::index_copy_"),
           _index_write_samples(distinct=True), _index_write_errors("index_copy", int32_ok=False), dtypes=INDEXING,
           inplace=torch.Tensor.index_copy_, supports_out=True, sample_kwargs={"int32": False}),
    # The packet: torch.index_fill takes no out=.
    _entry("index_fill", aten.index_fill, ("aten::index_fill.int_Scalar", "aten::index_fill.int_Scalar_out",
                                           "aten::index_fill_.int_Scalar"),
           _index_fill_samples, _index_fill_errors, dtypes=INDEXING, inplace=torch.Tensor.index_fill_,
           supports_out=True),
    _entry("index_fill_tensor_value", aten.index_fill, ("aten::index_fill.int_Tensor",
                                                        "aten::index_fill.int_Tensor_out",
                                                        "aten::index_fill_.int_Tensor"),
           _index_fill_samples, dtypes=INDEXING, inplace=torch.Tensor.index_fill_, supports_out=True,
           sample_kwargs={"tensor_value": True}),
    # (No int32 index: eager's derivative of index_reduce calls index_fill, which takes int64 only.)
    _entry("index_reduce", torch.index_reduce, ("aten::index_reduce", "aten::index_reduce.out", "aten::index_reduce_"),
           _index_reduce_samples, _index_reduce_errors, dtypes=NO_BOOL, inplace=torch.Tensor.index_reduce_,
           supports_out=True, tolerances=REDUCE_TOLERANCES, sample_kwargs={"int32": False}),
    _entry("scatter_reduce_two", torch.scatter_reduce, ("aten::scatter_reduce.two", "aten::scatter_reduce.two_out",
                                                        "aten::scatter_reduce_.two"),
           _scatter_reduce_samples, _scatter_reduce_errors, inplace=torch.Tensor.scatter_reduce_, supports_out=True,
           tolerances=REDUCE_TOLERANCES),
    # complex: sum and mean (eager has no complex amax / amin; prod has no decomposition)
    _entry("scatter_reduce_two_complex", torch.scatter_reduce, ("aten::scatter_reduce.two",),
           _scatter_reduce_samples, dtypes=COMPLEX),
    # No gradient test: eager's ScatterReduceBackward returns src's gradient in index's shape when src is
    # larger, and refuses reduce='max'.
    _entry("scatter_reduce_two_src_larger", torch.scatter_reduce, ("aten::scatter_reduce.two",),
           _scatter_reduce_samples, tolerances=REDUCE_TOLERANCES, supports_autograd=False,
           sample_kwargs={"src_larger": True}),
    _entry("masked_scatter", aten.masked_scatter, ("aten::masked_scatter", "aten::masked_scatter.out",
                                                   "aten::masked_scatter_"),
           _masked_scatter_samples, _masked_scatter_errors, dtypes=INDEXING, inplace=torch.Tensor.masked_scatter_,
           supports_out=True),
    _entry("put", aten.put, ("aten::put", "aten::put.out", "aten::put_"), _put_samples, _put_errors,
           dtypes=INDEXING, inplace=torch.Tensor.put_, supports_out=True, tolerances=REDUCE_TOLERANCES),
    OpInfo(name="nanmean_dtype", op=torch.nanmean, aten=("aten::nanmean", "aten::nanmean.out"),
           sample_inputs=sample_inputs_reduction, dtypes=FLOATING, supports_out=True, tolerances=SUM_TOLERANCES,
           family="indexing_extra", sample_kwargs={"variants": ({}, {"dtype": torch.float64})}),
    _entry("mode", torch.mode, ("aten::mode",), _mode_samples, _mode_errors, dtypes=ALL),
    # (No gradient test: eager autograd refuses out= arguments that require grad.)
    _entry("mode_out", _tuple_out(torch.mode), ("aten::mode", "aten::mode.values"), _mode_samples, dtypes=ALL,
           supports_autograd=False),
    _entry("renorm", torch.renorm, ("aten::renorm", "aten::renorm.out", "aten::renorm_"), _renorm_samples,
           _renorm_errors, dtypes=FLOATING | COMPLEX, inplace=torch.Tensor.renorm_, supports_out=True,
           tolerances=SUM_TOLERANCES),
    # The packet: torch.frobenius_norm is gone; the aten op stays for TorchScript.
    _entry("frobenius_norm", aten.frobenius_norm, ("aten::frobenius_norm.dim", "aten::frobenius_norm.out"),
           _frobenius_samples, _frobenius_errors, dtypes=FLOATING | COMPLEX, supports_out=True,
           tolerances=SUM_TOLERANCES),
    _entry("quantile", torch.quantile, ("aten::quantile", "aten::quantile.out"), _quantile_samples,
           _quantile_errors, dtypes=FLOAT32_64, supports_out=True),
    _entry("quantile_scalar", torch.quantile, ("aten::quantile.scalar", "aten::quantile.scalar_out"),
           _quantile_samples, dtypes=FLOAT32_64, supports_out=True, sample_kwargs={"scalar": True}),
    _entry("nanquantile", torch.nanquantile, ("aten::nanquantile", "aten::nanquantile.out"), _quantile_samples,
           _quantile_errors, dtypes=FLOAT32_64, supports_out=True),
    _entry("nanquantile_scalar", torch.nanquantile, ("aten::nanquantile.scalar", "aten::nanquantile.scalar_out"),
           _quantile_samples, dtypes=FLOAT32_64, supports_out=True, sample_kwargs={"scalar": True}),
    _entry("repeat_interleave_int", torch.repeat_interleave, ("aten::repeat_interleave.self_int",),
           _repeat_interleave_int_samples, _repeat_interleave_int_errors, dtypes=INDEXING),
    _entry("repeat_interleave_tensor", torch.repeat_interleave, ("aten::repeat_interleave.self_Tensor",),
           _repeat_interleave_tensor_samples, _repeat_interleave_errors, dtypes=INDEXING),
    _entry("repeat_interleave_counts", _positional_out(aten.repeat_interleave.Tensor_out),
           ("aten::repeat_interleave.Tensor", "aten::repeat_interleave.Tensor_out"),
           _repeat_interleave_counts_samples, _repeat_interleave_counts_errors, dtypes={torch.int64, torch.int32},
           supports_out=True, supports_autograd=False,
           xfails=[XFail(t, UNBACKED_CONVERSION, frozenset({torch.int32}), raises=DecompositionError) for t in ("values", "strides", "out")]),
    _entry("repeat_interleave_counts_static", _positional_out(aten.repeat_interleave.Tensor_out),
           ("aten::repeat_interleave.Tensor", "aten::repeat_interleave.Tensor_out"),
           _repeat_interleave_counts_samples, dtypes={torch.int64, torch.int32}, supports_out=True,
           supports_autograd=False, sample_kwargs={"static": True}),
    _entry("histc", torch.histc, ("aten::histc", "aten::histc.out"), _histc_samples, _histc_errors,
           dtypes=FLOATING, supports_out=True, supports_autograd=False),   # eager: derivative not implemented
    _entry("as_strided_scatter", torch.as_strided_scatter, ("aten::as_strided_scatter",),
           lambda op, device, dtype: (s for s in _as_strided_scatter_samples(op, device, dtype)
                                      if s.input.is_contiguous()), dtypes=ALL,
           xfails=[XFail("gradients", "eager's as_strided_scatter derivative for self is wrong (it fails "
                                      "torch.autograd.gradcheck: it keeps the gradient at the view's positions, which src "
                                      "overwrites, and zeroes it elsewhere); the traced graph's is the correct one",
                                      raises=AssertionError)]),
    # No gradients: eager's autograd refuses a non-contiguous self ("only supported for contiguous inputs").
    _entry("as_strided_scatter.strided_self", torch.as_strided_scatter, ("aten::as_strided_scatter",),
           lambda op, device, dtype: (s for s in _as_strided_scatter_samples(op, device, dtype)
                                      if not s.input.is_contiguous()), dtypes=ALL, supports_autograd=False),
    _entry("aten.as_strided_scatter", aten.as_strided_scatter,
           ("aten::as_strided_scatter", "aten::as_strided_scatter.out"), _as_strided_scatter_samples,
           dtypes=FLOAT32_64, supports_out=True, supports_autograd=False),
    # No gradients: eager's histogram and histogramdd have no derivative.
    _entry("histogram", torch.histogram, ("aten::histogram.bin_ct", "aten::histogram.bins_tensor"), _histogram_samples,
           _histogram_errors, dtypes=FLOAT32_64, supports_autograd=False),
    out_entry(aten.histogram.bin_ct_out, aten.histogram.bin_ct,
              lambda op, device, dtype: (s for s in _histogram_samples(op, device, dtype) if not
                                         isinstance(s.args[0], torch.Tensor)), dtypes=FLOAT32_64,
              family="indexing_extra"),
    out_entry(aten.histogram.bins_tensor_out, aten.histogram.bins_tensor,
              lambda op, device, dtype: (s for s in _histogram_samples(op, device, dtype) if
                                         isinstance(s.args[0], torch.Tensor)), dtypes=FLOAT32_64,
              family="indexing_extra"),
    _entry("histogramdd", torch.histogramdd,
           ("aten::histogramdd", "aten::histogramdd.int_bins", "aten::histogramdd.TensorList_bins",
            "aten::_histogramdd_bin_edges", "aten::_histogramdd_from_bin_cts", "aten::_histogramdd_from_bin_tensors"),
           _histogramdd_samples, _histogramdd_errors, dtypes=FLOAT32_64, supports_autograd=False),
    # The packet: torch.bincount takes no out=.
    _entry("bincount", _positional_out(aten.bincount.out), ("aten::bincount", "aten::bincount.out"),
           _bincount_samples, _bincount_errors, dtypes={torch.int64, torch.int32, torch.uint8}, supports_out=True,
           supports_autograd=False),
    _entry("unique_consecutive", torch.unique_consecutive, ("aten::unique_consecutive",), _unique_samples,
           dtypes=ALL, supports_autograd=False),
    _entry("unique_consecutive_dim", torch.unique_consecutive, ("aten::unique_consecutive",), _unique_samples,
           _unique_dim_errors, dtypes=ALL, supports_autograd=False, sample_kwargs={"dim": True}),
    _entry("unique_dim", _unique_dim_positional(aten.unique_dim.default), ("aten::unique_dim",), _unique_samples,
           _unique_dim_errors, dtypes=ALL, supports_autograd=False, sample_kwargs={"dim": True}),
    _entry("unique_dim_consecutive", _unique_dim_positional(aten.unique_dim_consecutive.default),
           ("aten::unique_dim_consecutive",), _unique_samples, _unique_dim_errors, dtypes=ALL,
           supports_autograd=False, sample_kwargs={"dim": True}),
    # The out= forms (out0, out1, out2), into tensors of eager's result shapes.
    _entry("unique_consecutive_out", _into_fresh_outs(aten.unique_consecutive.out),
           ("aten::unique_consecutive.out",), _with_out_shapes, dtypes=ALL, supports_autograd=False,
           sample_kwargs={"functional": aten.unique_consecutive.default}),
    _entry("unique_dim_out", _into_fresh_outs(_unique_dim_positional(aten.unique_dim.out)), ("aten::unique_dim.out",),
           _with_out_shapes, dtypes=ALL, supports_autograd=False,
           sample_kwargs={"dim": True, "functional": _unique_dim_positional(aten.unique_dim.default)}),
    _entry("unique_dim_consecutive_out", _into_fresh_outs(_unique_dim_positional(aten.unique_dim_consecutive.out)),
           ("aten::unique_dim_consecutive.out",), _with_out_shapes, dtypes=ALL, supports_autograd=False,
           sample_kwargs={"dim": True, "functional": _unique_dim_positional(aten.unique_dim_consecutive.default)}),
    _entry("nonzero_static", torch.nonzero_static, ("aten::nonzero_static", "aten::nonzero_static.out"),
           _nonzero_static_samples, _nonzero_static_errors, dtypes=INDEXING, supports_out=True,
           supports_autograd=False),
    _entry("isin", torch.isin, ("aten::isin.Tensor_Tensor", "aten::isin.Tensor_Tensor_out"), _isin_samples,
           _isin_errors, dtypes=NUMERIC, supports_out=True, supports_autograd=False),
    _entry("isin_scalar_elements", torch.isin, ("aten::isin.Scalar_Tensor", "aten::isin.Scalar_Tensor_out"),
           _isin_samples, dtypes=NUMERIC, supports_out=True, supports_autograd=False,
           sample_kwargs={"scalar": "elements"}),
    _entry("isin_scalar_test", torch.isin, ("aten::isin.Tensor_Scalar", "aten::isin.Tensor_Scalar_out"),
           _isin_samples, dtypes=NUMERIC, supports_out=True, supports_autograd=False,
           sample_kwargs={"scalar": "test"}),
    _entry("isclose", torch.isclose, ("aten::isclose",), _isclose_samples, _isclose_errors, dtypes=ALL | COMPLEX,
           supports_autograd=False),
]
