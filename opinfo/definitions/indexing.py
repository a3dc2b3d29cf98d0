"""OpInfo entries: indexing. Index samples hold in-range indices; scatter samples whose
writes must not collide draw distinct positions (a permutation per column).

Index writes (index_add/copy/fill/reduce, scatter_reduce, masked_scatter, put): writes whose order
matters for eager (index_copy, put without accumulate) draw distinct positions; adding writes
repeat them. Ops whose output size depends on the data (repeat_interleave without output_size)
trace with unbacked sizes; their out= forms trace on the assumption that the size is out's
(primkit does not resize out= tensors), so their samples write into tensors of eager's result
shapes."""
from __future__ import annotations

import functools
import math

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.definitions.common import aten_entry, positional_out
from primkit.opinfo.definitions.reductions import SUM_TOLERANCES
from primkit.opinfo.dtypes import ALL, COMPLEX, NUMERIC
from primkit.opinfo.samples import layouts, make

A_SHAPE = (3, 4, 5)


def _indices(size, shape, device, dtype=torch.int64):
    """Random in-range positions (repeats allowed), negative ones included for ops that wrap."""
    return torch.randint(0, size, shape, device=device, dtype=dtype) if size else \
        torch.empty(shape, device=device, dtype=dtype)


def _distinct(a_shape, dim, index_shape, device):
    """Positions along dim that are distinct within each column, shaped index_shape."""
    order = torch.rand(a_shape, device=device).argsort(dim)
    return order[tuple(slice(0, n) for n in index_shape)]


def _layouts(t):
    yield "contiguous", t
    if t.dim() >= 2:
        yield "transposed", t.transpose(0, -1).contiguous().transpose(0, -1)


def sample_inputs_gather(op, device, dtype):
    for dim in (0, 1, -1):
        index_shape = [2, 3, 4]
        index_shape[dim] = 6
        a = make(A_SHAPE, device, dtype)
        index = _indices(A_SHAPE[dim], index_shape, device)
        for name, t in _layouts(a):
            yield SampleInput(t, (dim, index), name=f"dim={dim} {name}")
        yield SampleInput(a, (dim, index.transpose(0, 1).contiguous().transpose(0, 1)), name=f"dim={dim} strided index")
    a = make(A_SHAPE, device, dtype)
    yield SampleInput(a, (1, _indices(4, (3, 2, 5), device, torch.int32)), name="int32 index")
    yield SampleInput(a, (0, _indices(3, (0, 4, 5), device)), name="empty index")
    yield SampleInput(make((), device, dtype), (0, torch.zeros((), device=device, dtype=torch.int64)), name="0-d")


def error_inputs_gather(op, device):
    a = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0, torch.zeros(2, device=device, dtype=torch.int64))), RuntimeError,
                     "same number of dimensions")
    yield ErrorInput(SampleInput(a, (0, torch.zeros(2, 5, device=device, dtype=torch.int64))), RuntimeError,
                     "Size does not match at dimension 1")
    yield ErrorInput(SampleInput(a, (2, torch.zeros(2, 2, device=device, dtype=torch.int64))), IndexError,
                     "Dimension out of range")


def sample_inputs_scatter(op, device, dtype):
    """Knobs: value (scatter a number), colliding (repeated positions are fine: add reductions)."""
    kw = op.sample_kwargs
    for dim in (0, 1, -1):
        index_shape = [2, 3, 4]
        index_shape[dim] = A_SHAPE[dim] - 1
        if kw.get("colliding"):
            index = _indices(A_SHAPE[dim], index_shape, device)
        else:
            index = _distinct(A_SHAPE, dim, index_shape, device)
        src = 3 if kw.get("value") else make((3, 4, 5), device, dtype)
        for name, t in _layouts(make(A_SHAPE, device, dtype)):
            yield SampleInput(t, (dim, index, src), dict(kw.get("kwargs", {})), name=f"dim={dim} {name}")
    a = make(A_SHAPE, device, dtype)
    yield SampleInput(a, (0, torch.empty(0, 4, 5, device=device, dtype=torch.int64),
                          3 if kw.get("value") else make((0, 4, 5), device, dtype)), dict(kw.get("kwargs", {})),
                      name="empty index")


def error_inputs_scatter(op, device):
    a = make((3, 4), device, torch.float32)
    index = torch.zeros(2, 2, device=device, dtype=torch.int64)
    yield ErrorInput(SampleInput(a, (0, index, make((2, 2), device, torch.float64))), RuntimeError,
                     "Expected self.dtype to be equal to src.dtype")
    yield ErrorInput(SampleInput(a, (0, index.float(), make((2, 2), device, torch.float32))), RuntimeError,
                     "Expected dtype int32/int64 for index")
    yield ErrorInput(SampleInput(a, (0, index, make((2, 2), device, torch.float32)), {"reduce": "max"}),
                     RuntimeError, "reduce argument must be either add or multiply")


def sample_inputs_index_select(op, device, dtype):
    for dim in (0, 1, -1):
        for name, t in _layouts(make(A_SHAPE, device, dtype)):
            yield SampleInput(t, (dim, _indices(A_SHAPE[dim], (6,), device)), name=f"dim={dim} {name}")
    a = make(A_SHAPE, device, dtype)
    yield SampleInput(a, (1, _indices(4, (), device)), name="0-d index")
    yield SampleInput(a, (1, _indices(4, (3,), device, torch.int32)), name="int32 index")
    yield SampleInput(a, (2, _indices(5, (0,), device)), name="empty index")


def error_inputs_index_select(op, device):
    a = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0, torch.zeros(2, 2, device=device, dtype=torch.int64))), IndexError,
                     "Index is supposed to be a vector")
    yield ErrorInput(SampleInput(a, (0, torch.zeros(2, device=device))), RuntimeError, "Expected dtype int32 or int64")


def sample_inputs_take_along_dim(op, device, dtype):
    a = make(A_SHAPE, device, dtype)
    for dim in (0, 1, -1):
        index_shape = [3, 4, 5]
        index_shape[dim] = 2
        yield SampleInput(a, (_indices(A_SHAPE[dim], index_shape, device),), {"dim": dim}, name=f"dim={dim}")
    yield SampleInput(a, (_indices(4, (1, 2, 5), device),), {"dim": 1}, name="broadcast index")
    yield SampleInput(a.transpose(0, 2), (_indices(4, (5, 2, 1), device),), {"dim": 1}, name="transposed, broadcast")
    yield SampleInput(a, (_indices(60, (7,), device),), name="dim=None flattens")


def error_inputs_take_along_dim(op, device):
    a = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (torch.zeros(2, device=device, dtype=torch.int64),), {"dim": 0}), RuntimeError,
                     "same number of dimensions")
    yield ErrorInput(SampleInput(a, (torch.zeros(2, 2, device=device, dtype=torch.int32),), {"dim": 0}), RuntimeError,
                     "dtype of indices should be Long")


def sample_inputs_masked_fill(op, device, dtype):
    value = {torch.bool: True}.get(dtype, 7 if not dtype.is_floating_point else -2.5)
    for a_shape, mask_shape in (((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 4), ()), ((0, 4), (4,)), ((), ()),
                                ((2, 3, 4, 5), (2, 3, 4, 5))):
        mask = make(mask_shape, device, torch.bool)
        for name, t in _layouts(make(a_shape, device, dtype)):
            yield SampleInput(t, (mask, value), name=f"{a_shape} mask {mask_shape} {name}")
            yield SampleInput(t, (mask, torch.tensor(value, device=device, dtype=dtype)), name=f"{a_shape} 0-d value")
    cl = make((2, 3, 4, 5), device, dtype).contiguous(memory_format=torch.channels_last)
    yield SampleInput(cl, (make((2, 3, 4, 5), device, torch.bool), value), name="channels_last")
    if dtype.is_floating_point:
        yield SampleInput(make((3, 4), device, dtype), (make((3, 4), device, torch.bool), float("nan")), name="nan")
        yield SampleInput(make((3, 4), device, dtype), (make((3, 4), device, torch.bool),
                                                        torch.tensor(float("inf"), dtype=torch.float64)),
                          name="float64 0-d inf value")


def error_inputs_masked_fill(op, device):
    a = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (torch.ones(3, 4, device=device, dtype=torch.int64), 1.0)), RuntimeError,
                     "only supports boolean masks")
    yield ErrorInput(SampleInput(a, (torch.ones(3, 4, device=device, dtype=torch.bool), torch.ones(2, device=device))),
                     RuntimeError, "0-dimensional value tensor")


# Advanced-indexing cases on a (3, 4, 5) tensor: index tensors (as shapes, per dim) or None.
INDEX_CASES = (
    ((6,), None, None), (None, (2, 3), None), (None, None, (4,)), ((2, 1), (1, 3), None),
    (None, (2,), (2,)), ((2, 2), None, (2, 2)), ((), None, (3,)), ((0,), None, None), ((4,),),
)


def _index_list(a, shapes, device):
    return [None if s is None else _indices(a.shape[d], s, device) - (a.shape[d] if d == 0 else 0)
            for d, s in enumerate(shapes)]   # dim 0's indices are negative: eager wraps them


def sample_inputs_index(op, device, dtype):
    for shapes in INDEX_CASES:
        for name, t in _layouts(make(A_SHAPE, device, dtype)):
            yield SampleInput(t, (_index_list(t, shapes, device),), name=f"{shapes} {name}")
    p = make((3, 4, 5), device, dtype).permute(2, 0, 1)
    yield SampleInput(p, ([None, None, _indices(4, (2,), device)],), name="permuted, last dim")


def error_inputs_index(op, device):
    a = make((3, 4), device, torch.float32)
    i = torch.zeros(2, device=device, dtype=torch.int64)
    yield ErrorInput(SampleInput(a, ([i, i, i],)), IndexError, "too many indices")
    yield ErrorInput(SampleInput(a, ([i.float()],)), IndexError, "tensors used as indices must be long")
    yield ErrorInput(SampleInput(a, ([i, torch.zeros(3, device=device, dtype=torch.int64)],)), IndexError,
                     "shape mismatch")


def sample_inputs_index_put(op, device, dtype):
    """Knob accumulate: repeated positions are fine when adding."""
    accumulate = op.sample_kwargs.get("accumulate", False)
    for shapes in (((3,), None, None), (None, (2, 2), None), (None, (2,), (2,)), ((2,), None, (2,)), ((0,),)):
        for name, t in _layouts(make(A_SHAPE, device, dtype)):
            indices = [None if s is None else (_indices(t.shape[d], s, device) if accumulate else
                                               torch.randperm(t.shape[d], device=device)[:math.prod(s)].reshape(s))
                       for d, s in enumerate(shapes)]
            result_shape = torch.ops.aten.index.Tensor(t, indices).shape
            yield SampleInput(t, (indices, make(result_shape, device, dtype), accumulate), name=f"{shapes} {name}")
            yield SampleInput(t, (indices, make(result_shape[-1:], device, dtype), accumulate),
                              name=f"{shapes} {name} broadcast values")


def error_inputs_index_put(op, device):
    a = make((3, 4), device, torch.float32)
    i = torch.tensor([0, 1], device=device)
    yield ErrorInput(SampleInput(a, ([i], make((2, 4), device, torch.float64))), RuntimeError,
                     "source and destination dtypes match")
    yield ErrorInput(SampleInput(a, ([i], make((3,), device, torch.float32))), RuntimeError, "shape mismatch")


def sample_inputs_bool_mask(op, device, dtype):
    a = make((3, 4), device, dtype)
    yield SampleInput(a, ([make((3,), device, torch.bool)],), name="bool mask")


def _aten_index(a, indices, *, out=None):
    if out is not None:
        return torch.ops.aten.index.Tensor_out(a, indices, out=out)
    return torch.ops.aten.index.Tensor(a, indices)


def _aten_index_put(a, indices, values, accumulate=False, *, out=None):
    if out is not None:
        return torch.ops.aten.index_put.out(a, indices, values, accumulate, out=out)
    return torch.ops.aten.index_put.default(a, indices, values, accumulate)


def _aten_unsafe_index(a, indices):
    return torch.ops.aten._unsafe_index.Tensor(a, indices)


def _aten_unsafe_index_put(a, indices, values, accumulate=False):
    return torch.ops.aten._unsafe_index_put.default(a, indices, values, accumulate)


def _aten_index_put_(a, indices, values, accumulate=False):
    return torch.ops.aten.index_put_.default(a, indices, values, accumulate)


def _aten_index_put_impl(a, indices, values, accumulate=False, *, out=None):
    if out is not None:
        return torch.ops.aten._index_put_impl.out(a, indices, values, accumulate, True, out=out)
    return torch.ops.aten._index_put_impl.default(a, indices, values, accumulate, True)


def _aten_index_put_impl_(a, indices, values, accumulate=False):
    return torch.ops.aten._index_put_impl_.default(a, indices, values, accumulate, True)


def _entry(name, op, samples, errors=None, *, aten=None, dtypes=ALL, inplace=None, supports_out=True,
           tolerances=None, xfails=(), **knobs):
    return OpInfo(name=name, op=op, aten=aten or (f"aten::{name}",), sample_inputs=samples, error_inputs=errors,
                  dtypes=frozenset(dtypes), inplace=inplace, supports_out=supports_out, sample_kwargs=knobs,
                  tolerances=tolerances or {}, xfails=tuple(xfails), family="indexing")


ENTRIES = [
    _entry("gather", torch.gather, sample_inputs_gather, error_inputs_gather),
    _entry("scatter", torch.scatter, sample_inputs_scatter, error_inputs_scatter, aten=("aten::scatter.src",),
           inplace=torch.Tensor.scatter_),
    _entry("scatter_value", torch.scatter, sample_inputs_scatter, aten=("aten::scatter.value",),
           inplace=torch.Tensor.scatter_, value=True),
    _entry("scatter_reduce_add", torch.scatter, sample_inputs_scatter, aten=("aten::scatter.reduce",),
           dtypes=NUMERIC, inplace=torch.Tensor.scatter_, colliding=True, kwargs={"reduce": "add"}),
    # The deprecated reduce= form with a number: scatter.value_reduce, its out= and in-place forms.
    _entry("scatter_value_reduce", torch.scatter, sample_inputs_scatter, dtypes=NUMERIC, inplace=torch.Tensor.scatter_,
           aten=("aten::scatter.value_reduce", "aten::scatter.value_reduce_out", "aten::scatter_.value_reduce"),
           value=True, colliding=True, kwargs={"reduce": "add"}),
    _entry("scatter_value_reduce_multiply", torch.scatter, sample_inputs_scatter, dtypes=NUMERIC,
           inplace=torch.Tensor.scatter_, value=True, colliding=True, kwargs={"reduce": "multiply"},
           aten=("aten::scatter.value_reduce", "aten::scatter.value_reduce_out", "aten::scatter_.value_reduce")),
    _entry("scatter_add", torch.scatter_add, sample_inputs_scatter, dtypes=NUMERIC, inplace=torch.Tensor.scatter_add_,
           colliding=True),
    _entry("index_select", torch.index_select, sample_inputs_index_select, error_inputs_index_select),
    _entry("take_along_dim", torch.take_along_dim, sample_inputs_take_along_dim, error_inputs_take_along_dim,
           aten=("aten::take_along_dim", "aten::take_along_dim.out")),
    # The packet (not torch.masked_fill) so that out= reaches masked_fill.Scalar_out / Tensor_out.
    _entry("masked_fill", torch.ops.aten.masked_fill, sample_inputs_masked_fill, error_inputs_masked_fill,
           aten=("aten::masked_fill.Scalar", "aten::masked_fill.Tensor", "aten::masked_fill.Scalar_out",
                 "aten::masked_fill.Tensor_out"), inplace=torch.Tensor.masked_fill_),
    _entry("index", _aten_index, sample_inputs_index, error_inputs_index,
           aten=("aten::index.Tensor", "aten::index.Tensor_out")),
    _entry("index_bool_mask", _aten_index, sample_inputs_bool_mask, aten=("aten::index.Tensor",), supports_out=False),
    # The unchecked forms (upsampling's CompositeImplicitAutograd kernels use them): index's samples.
    _entry("_unsafe_index", _aten_unsafe_index, sample_inputs_index, aten=("aten::_unsafe_index.Tensor",),
           supports_out=False),
    _entry("_unsafe_index_put", _aten_unsafe_index_put, sample_inputs_index_put, aten=("aten::_unsafe_index_put",),
           supports_out=False),
    _entry("index_put", _aten_index_put, sample_inputs_index_put, error_inputs_index_put,
           aten=("aten::index_put", "aten::index_put.out"), inplace=_aten_index_put_),
    # index_put_'s kernel (unsafe: no bounds check; the samples' indices are in range)
    _entry("_index_put_impl", _aten_index_put_impl, sample_inputs_index_put, error_inputs_index_put,
           aten=("aten::_index_put_impl", "aten::_index_put_impl.out", "aten::_index_put_impl_"),
           inplace=_aten_index_put_impl_),
    _entry("_index_put_impl_accumulate", _aten_index_put_impl, sample_inputs_index_put, dtypes=NUMERIC,
           aten=("aten::_index_put_impl", "aten::_index_put_impl_"), inplace=_aten_index_put_impl_,
           supports_out=False, accumulate=True,
           tolerances={torch.float16: (2e-2, 5e-3), torch.bfloat16: (1e-1, 2e-2)}),   # as index_put_accumulate's
    _entry("index_put_accumulate", _aten_index_put, sample_inputs_index_put, aten=("aten::index_put",),
           dtypes=NUMERIC, inplace=_aten_index_put_, supports_out=False, accumulate=True,
           # Repeated positions are added in another order than eager's (each add rounds in float16).
           tolerances={torch.float16: (2e-2, 5e-3), torch.bfloat16: (1e-1, 2e-2)}),
]


NAN = float("nan")
aten = torch.ops.aten
_aten_entry = functools.partial(aten_entry, family="indexing")


def _index_vector(size, count, device, *, distinct, dtype=torch.int64):
    if distinct:
        return torch.randperm(size, device=device)[:count].to(dtype)
    return _indices(size, (count,), device, dtype)


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


INDEXING = ALL | COMPLEX


NO_BOOL = NUMERIC


# float16/bfloat16: a handful of products or sums over repeated positions, accumulated in another
# order (or with another rounding of the mean's division) than eager's
REDUCE_TOLERANCES = SUM_TOLERANCES


ENTRIES += [
    _aten_entry("index_add", torch.index_add, ("aten::index_add", "aten::index_add.out", "aten::index_add_"),
                _index_add_samples, _index_write_errors("index_add"), dtypes=INDEXING, inplace=torch.Tensor.index_add_,
                supports_out=True, tolerances=REDUCE_TOLERANCES),
    _aten_entry("index_copy", torch.index_copy, ("aten::index_copy", "aten::index_copy.out", "aten::index_copy_"),
                _index_write_samples(distinct=True), _index_write_errors("index_copy", int32_ok=False), dtypes=INDEXING,
                inplace=torch.Tensor.index_copy_, supports_out=True, sample_kwargs={"int32": False}),
    # The packet: torch.index_fill takes no out=.
    _aten_entry("index_fill", aten.index_fill, ("aten::index_fill.int_Scalar", "aten::index_fill.int_Scalar_out",
                                                "aten::index_fill_.int_Scalar"),
                _index_fill_samples, _index_fill_errors, dtypes=INDEXING, inplace=torch.Tensor.index_fill_,
                supports_out=True),
    _aten_entry("index_fill_tensor_value", aten.index_fill, ("aten::index_fill.int_Tensor",
                                                             "aten::index_fill.int_Tensor_out",
                                                             "aten::index_fill_.int_Tensor"),
                _index_fill_samples, dtypes=INDEXING, inplace=torch.Tensor.index_fill_, supports_out=True,
                sample_kwargs={"tensor_value": True}),
    # (No int32 index: eager's derivative of index_reduce calls index_fill, which takes int64 only.)
    _aten_entry("index_reduce", torch.index_reduce, ("aten::index_reduce", "aten::index_reduce.out", "aten::index_reduce_"),
                _index_reduce_samples, _index_reduce_errors, dtypes=NO_BOOL, inplace=torch.Tensor.index_reduce_,
                supports_out=True, tolerances=REDUCE_TOLERANCES, sample_kwargs={"int32": False}),
    _aten_entry("scatter_reduce_two", torch.scatter_reduce, ("aten::scatter_reduce.two", "aten::scatter_reduce.two_out",
                                                             "aten::scatter_reduce_.two"),
                _scatter_reduce_samples, _scatter_reduce_errors, inplace=torch.Tensor.scatter_reduce_, supports_out=True,
                tolerances=REDUCE_TOLERANCES),
    # complex: sum and mean (eager has no complex amax / amin; prod has no decomposition)
    _aten_entry("scatter_reduce_two_complex", torch.scatter_reduce, ("aten::scatter_reduce.two",),
                _scatter_reduce_samples, dtypes=COMPLEX),
    # No gradient test: eager's ScatterReduceBackward returns src's gradient in index's shape when src is
    # larger, and refuses reduce='max'.
    _aten_entry("scatter_reduce_two_src_larger", torch.scatter_reduce, ("aten::scatter_reduce.two",),
                _scatter_reduce_samples, tolerances=REDUCE_TOLERANCES, supports_autograd=False,
                sample_kwargs={"src_larger": True}),
    _aten_entry("masked_scatter", aten.masked_scatter, ("aten::masked_scatter", "aten::masked_scatter.out",
                                                        "aten::masked_scatter_"),
                _masked_scatter_samples, _masked_scatter_errors, dtypes=INDEXING, inplace=torch.Tensor.masked_scatter_,
                supports_out=True),
    _aten_entry("put", aten.put, ("aten::put", "aten::put.out", "aten::put_"), _put_samples, _put_errors,
                dtypes=INDEXING, inplace=torch.Tensor.put_, supports_out=True, tolerances=REDUCE_TOLERANCES),
    _aten_entry("repeat_interleave_int", torch.repeat_interleave, ("aten::repeat_interleave.self_int",),
                _repeat_interleave_int_samples, _repeat_interleave_int_errors, dtypes=INDEXING),
    _aten_entry("repeat_interleave_tensor", torch.repeat_interleave, ("aten::repeat_interleave.self_Tensor",),
                _repeat_interleave_tensor_samples, _repeat_interleave_errors, dtypes=INDEXING),
    _aten_entry("repeat_interleave_counts", positional_out(aten.repeat_interleave.Tensor_out),
               ("aten::repeat_interleave.Tensor", "aten::repeat_interleave.Tensor_out"),
               _repeat_interleave_counts_samples, _repeat_interleave_counts_errors, dtypes={torch.int64, torch.int32},
               supports_out=True, supports_autograd=False),
    _aten_entry("repeat_interleave_counts_static", positional_out(aten.repeat_interleave.Tensor_out),
               ("aten::repeat_interleave.Tensor", "aten::repeat_interleave.Tensor_out"),
               _repeat_interleave_counts_samples, dtypes={torch.int64, torch.int32}, supports_out=True,
               supports_autograd=False, sample_kwargs={"static": True}),
    _aten_entry("nonzero_static", torch.nonzero_static, ("aten::nonzero_static", "aten::nonzero_static.out"),
                _nonzero_static_samples, _nonzero_static_errors, dtypes=INDEXING, supports_out=True,
                supports_autograd=False),
]
