"""Helpers the nn OpInfo modules share: the entry builders (``entry``, ``out_entry`` for multi-result out= overloads), error rows and tolerance tables."""
from __future__ import annotations

import math
import torch
import torch.utils._pytree as pytree

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.dtypes import FLOATING
from primkit.opinfo.harness import clone_sample


aten = torch.ops.aten


# test_out checks ops with one result; an op with several results gets an entry of its own whose
# op is ``with_outs(overload)``: the out= overload called with fresh out tensors.


def with_outs(overload):
    """``overload`` (an out= overload) called with fresh out tensors as the ``out_like`` kwarg
    describes them (shape, dtype, dims from outermost to innermost), filled with nan (1 for
    non-floating dtypes) so that an out it does not write shows; returns what the overload returns."""
    names = [a.name for a in overload._schema.arguments if a.is_out]

    def fresh(shape, dtype, order, device):
        strides, step = [0] * len(shape), 1
        for d in reversed(order):
            strides[d], step = step, step * max(shape[d], 1)
        # a fresh tensor, not a permuted view (out= tensors are fresh tensors, as eager's callers pass them)
        return torch.empty_strided(shape, strides, dtype=dtype, device=device).fill_(
            math.nan if dtype.is_floating_point else 1)

    def op(*args, out_like, **kwargs):
        device = next(t.device for t in pytree.tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor))
        outs = {n: fresh(*like, device) for n, like in zip(names, out_like)}
        return overload(*args, **kwargs, **outs)
    op.__name__ = overload.name().split("::")[1].replace(".", "_")
    return op


def _dim_order(t):
    return sorted(range(t.dim()), key=lambda d: (-t.stride(d), d))


def out_samples(functional, samples):
    """``samples`` with ``out_like``: the shape, dtype and dim order of each result of ``functional``
    in eager, as test_out lays out its out tensors (run on a copy: batch norm's training mode
    updates its running statistics)."""
    def gen(op, device, dtype):
        for s in samples(op, device, dtype):
            c = clone_sample(s)
            results = functional(c.input, *c.args, **c.kwargs)
            like = [(tuple(r.shape), r.dtype, _dim_order(r)) for r in results]
            yield SampleInput(s.input, s.args, {**s.kwargs, "out_like": like}, s.name)
    return gen


def out_entry(overload, functional, samples, *, tolerances=None, xfails=(), dtypes=FLOATING, family="nn"):
    """An entry for a multi-result out= overload (see ``with_outs``). Eager refuses out= arguments
    that require grad, so there are no gradients to compare."""
    name = overload.name().split("::")[1]
    return OpInfo(name=f"aten.{name}", op=with_outs(overload), aten=(overload.name(),),
                  sample_inputs=out_samples(functional, samples), dtypes=frozenset(dtypes),
                  tolerances=tolerances or {}, xfails=tuple(xfails), family=family, supports_autograd=False)


def _entry(name, op, aten, samples, *, dtypes=FLOATING, errors=None, tolerances=None, xfails=(), inplace=None,
           out=False, autograd=True, dtypes_cuda=None):
    return OpInfo(name=name, op=op, aten=aten, sample_inputs=samples, dtypes=frozenset(dtypes), error_inputs=errors,
                  tolerances=tolerances or {}, xfails=tuple(xfails), inplace=inplace, supports_out=out,
                  supports_autograd=autograd, family="nn",
                  dtypes_cuda=None if dtypes_cuda is None else frozenset(dtypes_cuda))


# Reductions (mean/var/sum) in another order than eager's kernels: a few ulps in float32 and a
# rounding step more or less in float16/bfloat16.
REDUCTION_TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (2e-2, 2e-2),
}

# Scatter-adds (embedding rows of a repeated index, overlapping pooling windows): eager adds the
# terms one by one in float16/bfloat16, the decomposition in float32 rounding once; the difference
# is an ulp of a term (magnitude up to 9 with make's default range: 0.0078 in float16, 0.0625 in
# bfloat16).
ACCUMULATE_TOLERANCES = {
    torch.float16: (1e-2, 5e-3),
    torch.bfloat16: (1e-1, 2e-2),
}


def _writable(samples):
    """samples without the expanded ones: an in-place op cannot write into overlapping memory."""
    def gen(op, device, dtype):
        return (s for s in samples(op, device, dtype) if "expanded" not in s.name)
    return gen


def entry(name, op, aten_names, samples, *, dtypes=FLOATING, errors=None, tolerances=None, xfails=(),
          inplace=None, out=False, **kw):
    return OpInfo(name=name, op=op, aten=tuple(aten_names), sample_inputs=samples, dtypes=frozenset(dtypes),
                  error_inputs=errors, tolerances=tolerances or {}, xfails=tuple(xfails), inplace=inplace,
                  supports_out=out, family="nn", **kw)


def errors(*rows):
    """rows: (callable device -> SampleInput, exception type, regex on eager's message)."""
    def gen(op, device):
        for make_sample, exc, match in rows:
            yield ErrorInput(make_sample(device), exc, match)
    return gen
