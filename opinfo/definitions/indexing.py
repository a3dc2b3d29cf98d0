"""OpInfo entries: indexing. Index samples hold in-range indices; scatter samples whose
writes must not collide draw distinct positions (a permutation per column)."""
from __future__ import annotations

import math

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.dtypes import ALL, NUMERIC
from primkit.opinfo.samples import make

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
    _entry("index_bool_mask", _aten_index, sample_inputs_bool_mask, aten=("aten::index.Tensor",), supports_out=False,
           xfails=[XFail(t, "a boolean mask index gives a result shape that depends on the mask's values; primkit "
                            "traces static shapes only and raises", raises=RuntimeError) for t in ("values", "strides", "gradients")]),
    # The unchecked forms (upsampling's CompositeImplicitAutograd kernels use them): index's samples.
    _entry("_unsafe_index", _aten_unsafe_index, sample_inputs_index, aten=("aten::_unsafe_index.Tensor",),
           supports_out=False),
    _entry("_unsafe_index_put", _aten_unsafe_index_put, sample_inputs_index_put, aten=("aten::_unsafe_index_put",),
           supports_out=False),
    _entry("index_put", _aten_index_put, sample_inputs_index_put, error_inputs_index_put,
           aten=("aten::index_put", "aten::index_put.out"), inplace=_aten_index_put_),
    _entry("index_put_accumulate", _aten_index_put, sample_inputs_index_put, aten=("aten::index_put",),
           dtypes=NUMERIC, inplace=_aten_index_put_, supports_out=False, accumulate=True,
           # Repeated positions are added in another order than eager's (each add rounds in float16).
           tolerances={torch.float16: (2e-2, 5e-3), torch.bfloat16: (1e-1, 2e-2)}),
]
