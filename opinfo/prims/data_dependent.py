"""Samples and constraint error inputs of the data_dependent family (nonzero, masked_select,
unique, unique_consecutive, bincount, repeat_interleave, histc).

Their meta rules size the data-dependent dim with an unbacked SymInt, which needs a ShapeEnv:
test_prim_meta's plain FakeTensorMode has none, so there the fake kernel raises
DynamicOutputShapeException (as aten.nonzero does).
"""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.common import error, errors_unsupported_dtype
from primkit.opinfo.prims.strategies import composite, dtype_of, FLOATS, int_bound, invalid, laid_out, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError

SHAPES = ((), (0,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5))


def _with_repeats(shape, device, dtype):
    """Values from a small set (zeros and repeats included), so nonzero and unique have work to do."""
    small = make(shape, device, torch.int8, low=-2, high=3)
    return small.to(dtype) if dtype != torch.bool else small > 0


def with_repeats_layouts(shape, device, dtype):
    """(name, tensor) in the layout cases of opinfo.samples.layouts, values from _with_repeats."""
    yield "contiguous", _with_repeats(shape, device, dtype)
    if len(shape) >= 1 and shape[-1] > 1:
        yield "noncontiguous", _with_repeats(tuple(shape[:-1]) + (2 * shape[-1],), device, dtype)[..., ::2]
    if len(shape) >= 2:
        yield "transposed", _with_repeats(tuple(shape[:-2]) + (shape[-1], shape[-2]), device, dtype).transpose(-1, -2)
    if len(shape) == 4:
        yield "channels_last", _with_repeats(shape, device, dtype).contiguous(memory_format=torch.channels_last)
    if len(shape) >= 1 and shape[0] > 1:
        yield "expanded", _with_repeats((1,) + tuple(shape[1:]), device, dtype).expand(shape)


def samples_one_operand(op, device, dtype):
    for shape in SHAPES:
        for name, a in with_repeats_layouts(shape, device, dtype):
            yield SampleInput(a, name=f"{name} {shape}")
    yield SampleInput(torch.zeros(3, 4, device=device, dtype=dtype), name="all zero")
    if dtype.is_floating_point:
        yield SampleInput(torch.tensor([1.0, float("nan"), float("nan"), 1.0], device=device, dtype=dtype), name="nan")


def errors_unique(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.complex64), name="C1: complex operand"),
                     PrimConstraintError, f"{op.prim.name}: C1:")


def samples_masked_select(op, device, dtype):
    for shape in SHAPES:
        mask = _with_repeats(shape, device, torch.bool)
        for name, a in with_repeats_layouts(shape, device, dtype):
            yield SampleInput(a, (mask,), name=f"{name} {shape}")
        for name, m in with_repeats_layouts(shape, device, torch.bool):
            yield SampleInput(_with_repeats(shape, device, dtype), (m,), name=f"{name} mask {shape}")


def errors_masked_select(op, device):
    a = make((2, 3), device, torch.float32)
    other = "meta" if not torch.cuda.is_available() else ("cpu" if torch.device(device).type == "cuda" else "cuda")
    for cid, name, mask in (("C1", "uint8 mask", torch.ones(2, 3, dtype=torch.uint8, device=device)),
                            ("C2", "mask shape differs", torch.ones(3, dtype=torch.bool, device=device)),
                            ("C3", "mask on another device", torch.ones(2, 3, dtype=torch.bool, device=other))):
        yield ErrorInput(SampleInput(a, (mask,), name=f"{cid}: {name}"), PrimConstraintError, f"masked_select: {cid}:")


def _counts_1d(n, high, device):
    """(name, 1-d int64 tensor of n values in [0, high)) in the 1-d layouts: contiguous, strided, expanded."""
    yield "contiguous", make((n,), device, torch.int64, low=0, high=high)
    if n > 1:
        yield "noncontiguous", make((2 * n,), device, torch.int64, low=0, high=high)[::2]
        yield "expanded", make((1,), device, torch.int64, low=0, high=high).expand(n)


def samples_bincount(op, device, dtype):
    for n, high in ((0, 1), (1, 1), (7, 5), (30, 3), (4, 1000)):
        for name, a in _counts_1d(n, high, device):
            for minlength in (0, 1, 6):
                yield SampleInput(a, (minlength,), name=f"{name} n={n} values<{high} minlength={minlength}")
    yield SampleInput(torch.zeros(5, dtype=torch.int64, device=device), (0,), name="all zero")


def errors_bincount(op, device):
    yield error(op, "C1", "int32 operand", torch.ones(3, dtype=torch.int32, device=device), 0)
    yield error(op, "C1", "float operand", torch.ones(3, device=device), 0)
    yield error(op, "C2", "2-d operand", torch.ones(2, 3, dtype=torch.int64, device=device), 0)
    yield error(op, "C2", "0-d operand", torch.ones((), dtype=torch.int64, device=device), 0)
    yield error(op, "C3", "negative minlength", torch.ones(3, dtype=torch.int64, device=device), -1)


def samples_repeat_interleave(op, device, dtype):
    for n, high in ((0, 1), (1, 4), (6, 4), (20, 2)):
        for name, repeats in _counts_1d(n, high, device):
            yield SampleInput(repeats, name=f"{name} n={n} repeats<{high}")
    yield SampleInput(torch.zeros(4, dtype=torch.int64, device=device), name="all zero repeats")


def errors_repeat_interleave(op, device):
    yield error(op, "C1", "int32 repeats", torch.ones(3, dtype=torch.int32, device=device))
    yield error(op, "C2", "2-d repeats", torch.ones(2, 3, dtype=torch.int64, device=device))
    yield error(op, "C2", "0-d repeats", torch.ones((), dtype=torch.int64, device=device))


def samples_histc(op, device, dtype):
    for shape in SHAPES:
        for name, a in layouts(shape, device, dtype, low=-3, high=3):
            yield SampleInput(a, (5, -2.0, 2.5), name=f"{name} {shape}")
    a = make((4, 5), device, dtype, low=-3, high=3)
    for bins, lo, hi in ((1, -3.0, 3.0), (100, -1.0, 1.0), (7, 10.0, 20.0)):
        yield SampleInput(a, (bins, lo, hi), name=f"bins={bins} [{lo}, {hi}]")
    nan, inf = float("nan"), float("inf")
    edges = torch.tensor([-1.0, -1.0, 0.0, 0.5, 1.0, 1.0, 1.5, -inf, inf, nan, -0.0], device=device, dtype=dtype)
    yield SampleInput(edges, (4, -1.0, 1.0), name="values on the edges, beyond, inf and nan")
    yield SampleInput(edges, (3, -1.0, -0.999), name="min and max round to neighbours")


def errors_histc(op, device):
    a = make((3, 4), device, torch.float32)
    yield error(op, "C1", "int64 operand", make((3,), device, torch.int64), 4, 0.0, 1.0)
    yield error(op, "C2", "zero bins", a, 0, 0.0, 1.0)
    yield error(op, "C3", "min == max", a, 4, 0.0, 0.0)
    yield error(op, "C3", "min > max", a, 4, 1.0, -1.0)
    yield error(op, "C3", "infinite max", a, 4, 0.0, float("inf"))
    yield error(op, "C3", "nan min", a, 4, float("nan"), 1.0)


SPECIFIC = {
    "bincount": (samples_bincount, errors_bincount),
    "repeat_interleave": (samples_repeat_interleave, errors_repeat_interleave),
    "histc": (samples_histc, errors_histc),
    "nonzero": (samples_one_operand, errors_unsupported_dtype),
    "masked_select": (samples_masked_select, errors_masked_select),
    "unique": (samples_one_operand, errors_unique),
    "unique_consecutive": (samples_one_operand, errors_unique),
}


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def nonzero_call(draw, prim):
    shape = draw(shapes())
    return SampleInput(draw(laid_out((torch.rand(shape) < 0.5).to(dtype_of(draw, prim)))))


@composite
def masked_select_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    mask = draw(laid_out(torch.rand(shape) < 0.5))
    a = draw(strided(maybe(draw, shape, shape + (2,)), dtype_of(draw, prim)))
    return SampleInput(a, (maybe(draw, mask, mask.to(torch.int64)),))


@composite
def unique_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    values = torch.testing.make_tensor(shape, dtype=dtype, device="cpu", low=0, high=int_bound(dtype)) \
        if dtype.is_floating_point or dtype.is_complex else torch.randint(0, int_bound(dtype) + 1, shape).to(dtype)
    return SampleInput(draw(laid_out(values)))


@composite
def bincount_call(draw, prim):
    values = torch.randint(0, 5, (draw(st.integers(0, 6)),))
    if invalid(draw):
        values = draw(st.sampled_from([values.to(torch.int32), values.reshape(1, -1)]))
    return SampleInput(draw(laid_out(values)), (maybe(draw, draw(st.integers(0, 7)), -1),))


@composite
def repeat_interleave_call(draw, prim):
    repeats = torch.randint(0, 3, (draw(st.integers(0, 5)),))
    if invalid(draw):
        repeats = draw(st.sampled_from([repeats.to(torch.int32), repeats.reshape(1, -1)]))
    return SampleInput(draw(laid_out(repeats)))


@composite
def histc_call(draw, prim):
    a = draw(strided(draw(shapes(max_dims=3)), dtype_of(draw, prim, FLOATS)))
    low = draw(st.sampled_from([0.0, 1.0, -1.0]))
    high = maybe(draw, low + draw(st.sampled_from([0.5, 2.0])), low)
    return SampleInput(a, (maybe(draw, draw(st.integers(1, 6)), 0), low, high))


STRATEGIES = {"nonzero": nonzero_call, "masked_select": masked_select_call, "unique": unique_call, "bincount": bincount_call, "repeat_interleave": repeat_interleave_call, "histc": histc_call}
