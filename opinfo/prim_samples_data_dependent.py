"""Samples and constraint error inputs of the data_dependent family (nonzero, masked_select,
unique, unique_consecutive).

Their meta rules size the data-dependent dim with an unbacked SymInt, which needs a ShapeEnv:
test_prim_meta's plain FakeTensorMode has none, so there the fake kernel raises
DynamicOutputShapeException (as aten.nonzero does).
"""
from __future__ import annotations

import torch

from opinfo.core import ErrorInput, SampleInput
from opinfo.samples import make
from prims.errors import PrimConstraintError

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


SPECIFIC = {
    "nonzero": (samples_one_operand, None),
    "masked_select": (samples_masked_select, errors_masked_select),
    "unique": (samples_one_operand, errors_unique),
    "unique_consecutive": (samples_one_operand, errors_unique),
}
