"""Samples and constraint error inputs of special-function prims that take a non-tensor order
(polygamma, mvlgamma)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError

SHAPES = ((), (0,), (5,), (3, 1, 4), (4, 5), (2, 3, 4, 5))


def samples_polygamma(op, device, dtype):
    for shape in SHAPES:
        for name, t in layouts(shape, device, dtype, low=0.5):
            for n in (0, 1, 3):
                yield SampleInput(t, (n,), name=f"{name} {shape} n={n}")


def errors_polygamma(op, device):
    def err(cid, name, t, n):
        return ErrorInput(SampleInput(t, (n,), name=f"{cid}: {name}"), PrimConstraintError, f"polygamma: {cid}:")
    yield err("C1", "int64 operand", make((2, 3), device, torch.int64), 1)
    yield err("C2", "negative order", make((2, 3), device, torch.float32), -1)


def samples_mvlgamma(op, device, dtype):
    for shape in SHAPES:
        for p in (1, 2, 5):
            # Inside the domain a > (p - 1) / 2, as eager requires.
            for name, t in layouts(shape, device, dtype, low=(p - 1) / 2 + 0.25, high=(p - 1) / 2 + 9):
                yield SampleInput(t, (p,), name=f"{name} {shape} p={p}")
    edges = torch.tensor([0.5, 1.0, 1.5, 2.0, 100.0, float("inf"), float("nan"), 0.75, -1.0], device=device,
                         dtype=dtype)
    for p in (1, 2, 3):
        yield SampleInput(edges, (p,), name=f"edge values (outside the domain: nan) p={p}")


def errors_mvlgamma(op, device):
    def err(cid, name, t, p):
        return ErrorInput(SampleInput(t, (p,), name=f"{cid}: {name}"), PrimConstraintError, f"mvlgamma: {cid}:")
    yield err("C1", "int64 operand", make((2, 3), device, torch.int64), 1)
    yield err("C2", "order 0", make((2, 3), device, torch.float32, low=2), 0)


SPECIFIC = {"polygamma": (samples_polygamma, errors_polygamma), "mvlgamma": (samples_mvlgamma, errors_mvlgamma)}
