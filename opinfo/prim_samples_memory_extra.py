"""Samples and constraint error inputs of the memory_extra family (copy_strided) and of item (memory)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError
from primkit.prims.meta.strides import channels_last_strides, contiguous_strides, strides_from_perm

# (name, shape, target strides)
STRIDE_CASES = [
    ("contiguous", (3, 4), contiguous_strides((3, 4))),
    ("column-major", (3, 4), (1, 3)),
    ("gaps", (2, 3), (8, 2)),
    ("channels_last", (2, 3, 4, 5), channels_last_strides((2, 3, 4, 5))),
    ("permuted", (2, 3, 4), strides_from_perm((2, 3, 4), (1, 2, 0))),
    ("size-1 dim with any stride", (3, 1, 4), (4, 100, 1)),
    ("0-d", (), ()),
    ("empty", (0, 3), (0, 0)),
    ("1-d stride 3", (5,), (3,)),
]


def samples_copy_strided(op, device, dtype):
    for name, shape, stride in STRIDE_CASES:
        for layout, a in layouts(shape, device, dtype):
            yield SampleInput(a, (list(stride),), name=f"{layout} {shape} to {name} {tuple(stride)}")


def errors_copy_strided(op, device):
    a = torch.zeros(2, 3, device=device)
    for cid, name, stride in (("C1", "one entry short", [1]), ("C2", "negative stride", [3, -1]),
                              ("C2", "overlapping", [2, 1]), ("C2", "stride 0 on a dim of size 3", [1, 0])):
        yield ErrorInput(SampleInput(a, (stride,), name=f"{cid}: {name}"), PrimConstraintError, f"copy_strided: {cid}:")


def samples_item(op, device, dtype):
    yield SampleInput(make((), device, dtype), name="0-d")
    yield SampleInput(make((1,), device, dtype), name="1-d, one element")
    yield SampleInput(make((1, 1, 1), device, dtype).transpose(0, 2), name="transposed (1, 1, 1)")
    yield SampleInput(make((3, 4), device, dtype)[2:, 1:2], name="one element of a larger tensor (offset)")
    yield SampleInput(make((1,), device, dtype).expand(1), name="expanded")


def errors_item(op, device):
    yield ErrorInput(SampleInput(make((2,), device, torch.float32), name="C1: two elements"), PrimConstraintError,
                     "item: C1:")
    yield ErrorInput(SampleInput(make((0,), device, torch.float32), name="C1: no element"), PrimConstraintError,
                     "item: C1:")
    yield ErrorInput(SampleInput(make((), device, torch.complex64), name="C2: complex64 operand"),
                     PrimConstraintError, "item: C2:")


SPECIFIC = {"copy_strided": (samples_copy_strided, errors_copy_strided), "item": (samples_item, errors_item)}
