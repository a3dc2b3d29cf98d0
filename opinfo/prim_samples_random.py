"""Samples and constraint error inputs of the random prims (uniform, normal, bernoulli)."""
from __future__ import annotations

import torch

from opinfo.core import ErrorInput, SampleInput
from opinfo.samples import layouts
from prims.errors import PrimConstraintError

SHAPES = ((), (0,), (7,), (2, 3), (1, 4, 1), (2, 0, 3))

# (first, second float argument, seed, offset): (low, high) for uniform, (mean, std) for normal.
CASES = ((0.0, 1.0, 0, 0), (-2.0, 3.5, 12345, 17), (1.0, 1.0, -7, 0), (-1e30, 1e30, 2 ** 62, 2 ** 40))


def samples_fresh(op, device, dtype):
    for shape in SHAPES:
        for first, second, seed, offset in CASES:
            yield SampleInput(list(shape), (first, second, seed, offset), {"dtype": dtype, "device": device},
                              name=f"{shape} ({first}, {second}) seed={seed} offset={offset}")


def errors_fresh(op, device):
    name = op.prim.name

    def err(cid, what, shape, first, second, dtype=torch.float32):
        return ErrorInput(SampleInput(shape, (first, second, 0, 0), {"dtype": dtype, "device": device},
                                      name=f"{cid}: {what}"), PrimConstraintError, f"{name}: {cid}:")
    yield err("C1", "negative size", [2, -1], 0.0, 1.0)
    yield err("C2", "int64 dtype", [2], 0.0, 1.0, torch.int64)
    yield err("C2", "complex64 dtype", [2], 0.0, 1.0, torch.complex64)
    if name == "uniform":
        yield err("C3", "low > high", [2], 1.0, 0.0)
    else:
        yield err("C3", "negative std", [2], 0.0, -1.0)


def samples_bernoulli(op, device, dtype):
    for shape in ((), (0,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5)):
        for name, p in layouts(shape, device, dtype, low=0, high=1):
            yield SampleInput(p, (3, 0), name=f"{name} {shape}")
    p = torch.tensor([0.0, 1.0, -0.5, 1.5, float("nan"), 0.5], device=device, dtype=dtype)
    yield SampleInput(p, (-1, 2 ** 50), name="p at and beyond 0 and 1, nan")


def errors_bernoulli(op, device):
    p = torch.zeros((2, 3), dtype=torch.int64, device=device)
    yield ErrorInput(SampleInput(p, (0, 0), name="C1: int64 p"), PrimConstraintError, "bernoulli: C1:")


SPECIFIC = {
    "uniform": (samples_fresh, errors_fresh),
    "normal": (samples_fresh, errors_fresh),
    "bernoulli": (samples_bernoulli, errors_bernoulli),
}
