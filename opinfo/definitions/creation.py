"""OpInfo entries: creation ops (full/zeros/ones/empty, empty_permuted and their _like and new_
forms, arange, range, linspace, logspace, eye, tril_indices/triu_indices, scalar_tensor, fill, zero_).

Factory samples pass the size (or range) as the input and dtype/device as kwargs. An empty
tensor's values are uninitialized, so the empty* entries run ``.zero_()`` on the result: the
geometry (shape, dtype, strides) comes from the empty decomposition, the values from zero_.
"""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.dtypes import ALL, FLOATING, NUMERIC
from primkit.opinfo.samples import layouts, make

SIZES = ((), (0,), (3,), (2, 3), (2, 0, 4), (2, 3, 4, 5))


def entry(name, op, aten_names, samples, *, errs=None, dtypes=ALL, inplace=None, out=False, **kw):
    return OpInfo(name=name, op=op, aten=tuple(aten_names), sample_inputs=samples, error_inputs=errs,
                  dtypes=frozenset(dtypes), inplace=inplace, supports_out=out, family="creation", **kw)


def errors(*rows):
    """rows: (input, args, kwargs, exception type, regex on eager's message)."""
    def gen(op, device):
        for input_, args, kwargs, exc, match in rows:
            yield ErrorInput(SampleInput(input_, args, {"device": device, **kwargs}, name=match), exc, match)
    return gen


def _value(dtype):
    return {torch.bool: True, torch.int64: 7}.get(dtype, 2.5)


def _factory_samples(*extra_args):
    def gen(op, device, dtype):
        for size in SIZES:
            yield SampleInput(size, tuple(extra_args), {"dtype": dtype, "device": device}, name=f"{size}")
    return gen


def _full_samples(op, device, dtype):
    for size in SIZES:
        yield SampleInput(size, (_value(dtype),), {"dtype": dtype, "device": device}, name=f"{size}")
    yield SampleInput((2, 3), (_value(dtype),), {"device": device}, name="dtype from the value")


def _like_samples(*extra_args, memory_formats=True):
    def gen(op, device, dtype):
        for shape in ((), (0, 3), (4, 5), (2, 3, 4, 5)):
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, extra_args, name=f"{name} {shape}")
                if memory_formats and t.dim() == 4:
                    for fmt in (torch.contiguous_format, torch.channels_last):
                        yield SampleInput(t, extra_args, {"memory_format": fmt}, name=f"{name} {fmt}")
        yield SampleInput(make((4, 5), device, dtype), extra_args, {"dtype": torch.float64}, name="dtype override")
    return gen


def _new_samples(*extra_args):
    def gen(op, device, dtype):
        t = make((4, 5), device, dtype).t()
        for size in SIZES:
            yield SampleInput(t, (size,) + extra_args, name=f"{size}")
        yield SampleInput(t, ((2, 3),) + extra_args, {"dtype": torch.float64}, name="dtype override")
    return gen


def _fill_samples(op, device, dtype):
    for shape in ((), (0, 3), (4, 5), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            if name != "expanded":   # eager refuses to write into overlapping memory
                yield SampleInput(t, (_value(dtype),), name=f"{name} {shape}")
    yield SampleInput(make((4, 5), device, dtype), (make((), device, torch.float64),), name="0-d float64 value")
    yield SampleInput(make((4, 5), device, dtype), (make((), device, dtype),), name="0-d tensor value")


def _zero_samples(op, device, dtype):
    for shape in ((), (0, 3), (4, 5), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            if name != "expanded":
                yield SampleInput(t, (), name=f"{name} {shape}")


def _arange_samples(op, device, dtype):
    floating = dtype in FLOATING
    rows = [((5,), {}), ((0,), {}), ((2, 9), {}), ((2, 9, 3), {}), ((9, 2, -2), {}), ((-3, 4, 2), {})]
    if floating:
        rows += [((0.5, 3.2, 0.25), {}), ((1.0, -1.0, -0.3), {}), ((0, 1, 0.1), {})]
    for args, kw in rows:
        yield SampleInput(args[0], args[1:], {"dtype": dtype, "device": device, **kw}, name=f"{args}")
    if dtype == torch.int64:
        yield SampleInput(0, (5.5, 1.5), {"dtype": dtype, "device": device}, name="float args, int64 result")


def _inferred_arange(op, device, dtype):
    for args in ((5,), (1, 7, 2), (0.5, 3.0), (0, 2, 0.5)):
        yield SampleInput(args[0], args[1:], {"device": device}, name=f"dtype inferred from {args}")


def _linspace_samples(op, device, dtype):
    rows = [(0, 10, 5), (-2, 3, 7), (0, 1, 1), (0, 1, 0), (3, -3, 6), (0, 100, 13)]
    if dtype in FLOATING:
        rows += [(0.5, 2.25, 8), (-1e3, 1e3, 21)]
    for start, end, steps in rows:
        yield SampleInput(start, (end, steps), {"dtype": dtype, "device": device}, name=f"{start} {end} {steps}")


def _logspace_samples(op, device, dtype):
    for start, end, steps, base in ((0, 3, 4, 10.0), (-2, 2, 5, 2.0), (0, 1, 1, 10.0), (0, 1, 0, 10.0),
                                    (1, 0, 6, 3.0)):
        yield SampleInput(start, (end, steps, base), {"dtype": dtype, "device": device}, name=f"{start} {end}")


def _tensor_limit_samples(rows):
    """linspace/logspace with start and/or end given as 0-d tensors (of other dtypes too): rows of
    (start, end, steps[, base]), where a (value, dtype) pair is a 0-d tensor and a number stays one."""
    def gen(op, device, dtype):
        def limit(v):
            return torch.tensor(v[0], dtype=v[1] or dtype, device=device) if isinstance(v, tuple) else v
        for start, end, *rest in rows(dtype):
            yield SampleInput(limit(start), (limit(end), *rest), {"dtype": dtype, "device": device},
                              name=f"{start} {end} {rest}")
        if dtype == torch.get_default_dtype():   # the result's dtype, whose tolerance the entry applies
            yield SampleInput(torch.tensor(1, device=device),
                              (torch.tensor(4.5, device=device, dtype=torch.float64), *rows(dtype)[0][2:]),
                              {"device": device}, name="default dtype")
    return gen


F64, I64 = torch.float64, torch.int64


def _linspace_limits(dtype):
    """(value, None) is a 0-d tensor of the result's dtype."""
    rows = [((0.0, F64), (10, I64), 5), ((-2, I64), 3, 7), (0, (1.0, torch.float32), 1), ((0, I64), (1, I64), 0),
            (3, (-3.0, F64), 6), ((0, None), (100, None), 13), ((1.7, F64), 5, 4)]
    if dtype in FLOATING:
        rows += [((0.5, None), (2.25, F64), 8), ((-1e3, F64), (1e3, torch.float32), 21)]
    return rows


def _logspace_limits(dtype):
    return [((0, I64), (3.0, F64), 4, 10.0), ((-2.0, F64), 2, 5, 2.0), (0, (1, None), 1, 10.0),
            ((0, None), (1, I64), 0, 10.0), ((1, None), (0, None), 6, 3.0)]


def _limit_errors(op, device):
    one_d = torch.ones(1, device=device)
    for start, end, which in ((one_d, 3.0, "start"), (0.0, one_d, "end"), (one_d, one_d, "start")):
        yield ErrorInput(SampleInput(start, (end, 4), {"device": device}, name=f"1-d {which}"), RuntimeError,
                         f"only supports 0-dimensional start and end tensors, but got {which}")
    zero_d = torch.tensor(0.0, device=device)
    yield ErrorInput(SampleInput(zero_d, (zero_d, -1), {"device": device}, name="negative steps"), RuntimeError,
                     "number of steps must be non-negative")


def _eye_samples(op, device, dtype):
    for args in ((3,), (0,), (3, 5), (5, 2), (1, 0)):
        yield SampleInput(args[0], args[1:], {"dtype": dtype, "device": device}, name=f"{args}")


def _scalar_tensor_samples(op, device, dtype):
    for value in (_value(dtype), 0, 1):
        yield SampleInput(value, (), {"dtype": dtype, "device": device}, name=f"{value}")
    yield SampleInput(3, (), {"device": device}, name="default dtype")


def _empty(fn):
    """The empty* op, then zero_: empty's geometry is tested, its uninitialized values are not."""
    def op(*args, **kwargs):
        return fn(*args, **kwargs).zero_()
    op.__name__ = fn.__name__
    return op


def _empty_strided_samples(op, device, dtype):
    for size, stride in (((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 3, 4), (1, 8, 2)), ((), ()), ((0, 3), (3, 1))):
        yield SampleInput(size, (stride,), {"dtype": dtype, "device": device}, name=f"{size} {stride}")


def _new_empty_strided_samples(op, device, dtype):
    t = make((4, 5), device, dtype).t()
    for s in _empty_strided_samples(op, device, dtype):
        yield SampleInput(t, (s.input,) + s.args, {"dtype": dtype}, name=s.name)


def _empty_samples(op, device, dtype):
    yield from _factory_samples()(op, device, dtype)
    yield SampleInput((2, 3, 4, 5), (), {"dtype": dtype, "device": device, "memory_format": torch.channels_last},
                      name="channels_last")


def _empty_permuted_samples(op, device, dtype):
    for size, physical in (((2, 3, 4), (0, 2, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((2, 3, 4), (2, 1, 0)),
                           ((3, 4), (0, 1)), ((), ()), ((0, 3), (1, 0)), ((3,), (0,))):
        yield SampleInput(size, (physical,), {"dtype": dtype, "device": device}, name=f"{size} {physical}")


def _range_samples(op, device, dtype):
    """torch.range includes end. Integer results read start, end and step as integers (eager divides
    by the truncated step: a fractional step below 1 crashes it, so none is sampled)."""
    rows = [(1, 4, 1), (3, 1, -1), (1, 1, 1), (0, 10, 3), (-4, 4, 2), (1.5, 4, 1)]
    if dtype in FLOATING:
        rows += [(0, 1, 0.1), (-2.5, 3, 0.5), (1.0, -1.0, -0.3), (0, 2, 0.25)]
    for start, end, step in rows:
        yield SampleInput(start, (end, step), {"dtype": dtype, "device": device}, name=f"{start} {end} {step}")
    if dtype == torch.get_default_dtype():
        yield SampleInput(1, (4,), {"device": device}, name="default dtype")


def _triangle_indices_samples(op, device, dtype):
    for row, col, offset in ((3, 4, 1), (4, 3, -1), (5, 5, 0), (0, 3, 0), (3, 0, 0), (3, 3, -5), (3, 3, 10),
                             (1, 1, 0), (6, 2, -2), (2, 6, 3)):
        yield SampleInput(row, (col, offset), {"dtype": dtype, "device": device}, name=f"{row} {col} {offset}")


NEGATIVE_SIZE = ((2, -1), (), {}, RuntimeError, "negative")

ENTRIES = [
    entry("full", torch.full, ["aten::full", "aten::full.out"], _full_samples, out=True,
          errs=errors(((-1,), (1.0,), {}, RuntimeError, "negative dimension"))),
    entry("zeros", torch.zeros, ["aten::zeros", "aten::zeros.out"], _factory_samples(), out=True,
          errs=errors(NEGATIVE_SIZE)),
    entry("ones", torch.ones, ["aten::ones", "aten::ones.out"], _factory_samples(), out=True,
          errs=errors(NEGATIVE_SIZE)),
    entry("empty", _empty(torch.empty), ["aten::empty.memory_format"], _empty_samples, errs=errors(NEGATIVE_SIZE)),
    entry("empty_strided", _empty(torch.empty_strided), ["aten::empty_strided"], _empty_strided_samples),
    entry("scalar_tensor", torch.scalar_tensor, ["aten::scalar_tensor"], _scalar_tensor_samples),
    entry("full_like", torch.full_like, ["aten::full_like"], lambda op, d, t: _like_samples(_value(t))(op, d, t)),
    entry("zeros_like", torch.zeros_like, ["aten::zeros_like"], _like_samples()),
    entry("ones_like", torch.ones_like, ["aten::ones_like"], _like_samples()),
    entry("empty_like", _empty(torch.empty_like), ["aten::empty_like"], _like_samples()),
    entry("new_full", torch.Tensor.new_full, ["aten::new_full"],
          lambda op, d, t: _new_samples(_value(t))(op, d, t)),
    entry("new_zeros", torch.Tensor.new_zeros, ["aten::new_zeros"], _new_samples()),
    entry("new_ones", torch.Tensor.new_ones, ["aten::new_ones"], _new_samples()),
    entry("new_empty", _empty(torch.Tensor.new_empty), ["aten::new_empty"], _new_samples()),
    entry("new_empty_strided", _empty(torch.Tensor.new_empty_strided), ["aten::new_empty_strided"],
          _new_empty_strided_samples),
    entry("fill", torch.fill, ["aten::fill.Scalar", "aten::fill.Tensor", "aten::fill_.Scalar", "aten::fill_.Tensor"],
          _fill_samples, inplace=torch.Tensor.fill_,
          errs=lambda op, device: iter([ErrorInput(SampleInput(make((2, 3), device, torch.float32),
                                                               (make((2,), device, torch.float32),)),
                                                   RuntimeError, "only supports 0-dimension value tensor")])),
    entry("zero", torch.ops.aten.zero, ["aten::zero", "aten::zero_"], _zero_samples, inplace=torch.Tensor.zero_),
    entry("arange", torch.arange, ["aten::arange", "aten::arange.start", "aten::arange.start_step",
                                   "aten::arange.out", "aten::arange.start_out"], _arange_samples,
          dtypes=NUMERIC, out=True,
          errs=errors((0, (5, 0), {}, RuntimeError, "step must be nonzero"),
                      (5, (0, 1), {}, RuntimeError, "upper bound and lower bound inconsistent with step sign"))),
    entry("arange_inferred_dtype", torch.arange, ["aten::arange.start_step"], _inferred_arange,
          dtypes={torch.float32}),
    entry("linspace", torch.linspace, ["aten::linspace", "aten::linspace.out"], _linspace_samples, dtypes=NUMERIC,
          out=True, errs=errors((0, (1, -1), {}, RuntimeError, "number of steps must be non-negative"))),
    entry("logspace", torch.logspace, ["aten::logspace", "aten::logspace.out"], _logspace_samples,
          dtypes=NUMERIC, out=True),
    entry("empty_permuted", _empty(torch.empty_permuted), ["aten::empty_permuted"], _empty_permuted_samples,
          supports_autograd=False,   # creates a tensor from sizes
          errs=errors(((2, 3), ((0, 0),), {}, RuntimeError, "Duplicate dim not allowed"),
                      ((2, -3), ((0, 1),), {}, RuntimeError, "negative"))),
    entry("range", torch.range, ["aten::range.step", "aten::range.out"], _range_samples, dtypes=NUMERIC, out=True,
          supports_autograd=False,   # creates a tensor from numbers
          errs=errors((0, (5, 0), {}, RuntimeError, "step must be nonzero"),
                      (5, (0, 1), {}, RuntimeError, "upper bound and lower bound inconsistent with step sign"))),
    *(entry(name, getattr(torch, name), [f"aten::{name}"], _triangle_indices_samples,
            dtypes={torch.int64, torch.int32}, supports_autograd=False,   # integer indices
            errs=errors((-1, (3,), {}, RuntimeError, "row must be non-negative"),
                        (3, (-2,), {}, RuntimeError, "col must be non-negative"),
                        (3, (3,), {"dtype": torch.float32}, RuntimeError, "not implemented for 'Float'")))
      for name in ("tril_indices", "triu_indices")),
    # Tensor limits: eager reads them with .item(); the decomposition keeps them as data.
    entry("linspace.tensor_limits", torch.linspace,
          ["aten::linspace.Tensor_Tensor", "aten::linspace.Tensor_Scalar", "aten::linspace.Scalar_Tensor",
           "aten::linspace.Tensor_Tensor_out", "aten::linspace.Tensor_Scalar_out", "aten::linspace.Scalar_Tensor_out"],
          _tensor_limit_samples(_linspace_limits), dtypes=NUMERIC, out=True, errs=_limit_errors,
          supports_autograd=False),   # eager reads the limits as numbers: no gradient reaches them
    entry("logspace.tensor_limits", torch.logspace,
          ["aten::logspace.Tensor_Tensor", "aten::logspace.Tensor_Scalar", "aten::logspace.Scalar_Tensor",
           "aten::logspace.Tensor_Tensor_out", "aten::logspace.Tensor_Scalar_out", "aten::logspace.Scalar_Tensor_out"],
          _tensor_limit_samples(_logspace_limits), dtypes=NUMERIC, out=True, errs=_limit_errors,
          supports_autograd=False),   # as linspace.tensor_limits
    entry("eye", torch.eye, ["aten::eye", "aten::eye.m", "aten::eye.out", "aten::eye.m_out"], _eye_samples,
          out=True, errs=errors((-1, (), {}, RuntimeError, "n must be greater or equal to 0, got -1"))),
]
