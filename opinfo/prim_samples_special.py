"""Samples and constraint error inputs of special-function prims that take a non-tensor order."""
from __future__ import annotations

import torch

from opinfo.core import ErrorInput, SampleInput
from opinfo.samples import layouts, make
from prims.errors import PrimConstraintError

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


SPECIFIC = {"polygamma": (samples_polygamma, errors_polygamma)}
