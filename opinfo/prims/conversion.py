"""Samples and constraint error inputs of the conversion prims the elementwise generator does not
cover (reduce_precision)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.elementwise import edge_values, elementwise_call, SHAPES
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError


# (exponent_bits, mantissa_bits): bfloat16, float16, float32, float64 and narrower formats, the
# least allowed, and wider than every dtype (no change).
PRECISIONS = ((8, 7), (5, 10), (8, 23), (11, 52), (4, 3), (5, 2), (2, 1), (1, 0), (15, 60))


def samples_reduce_precision(op, device, dtype):
    for shape in SHAPES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (5, 10), name=f"{name} {shape}")
    edges = edge_values(device, dtype)
    # Ties: 1 + 2**-11 lies halfway between float16 neighbours 1 and 1 + 2**-10 (to even: 1);
    # 1 + 3 * 2**-11 halfway between 1 + 2**-10 and 1 + 2**-9 (to even: the latter).
    ties = torch.tensor([1 + 2 ** -11, 1 + 3 * 2 ** -11, -(1 + 2 ** -11), 65504.0, 65519.0, 65520.0, 2 ** -14,
                         2 ** -15, 2 ** -24], device=device, dtype=torch.float64).to(dtype)
    for bits in PRECISIONS:
        yield SampleInput(edges, bits, name=f"edge values, bits {bits}")
        yield SampleInput(ties, bits, name=f"ties and float16 limits, bits {bits}")
    yield SampleInput(make((300,), device, dtype, low=-4, high=4), (5, 10), name="random, float16 bits")


def errors_reduce_precision(op, device):
    def err(cid, name, t, bits):
        return ErrorInput(SampleInput(t, bits, name=f"{cid}: {name}"), PrimConstraintError, f"reduce_precision: {cid}:")
    yield err("C1", "int32 operand", make((2, 3), device, torch.int32), (5, 10))
    yield err("C2", "zero exponent bits", make((2, 3), device, torch.float32), (0, 10))
    yield err("C3", "negative mantissa bits", make((2, 3), device, torch.float32), (5, -1))


SPECIFIC = {"reduce_precision": (samples_reduce_precision, errors_reduce_precision)}


# fuzz strategy: the elementwise one (its arguments include exponent_bits and mantissa_bits)
STRATEGIES = {"reduce_precision": elementwise_call}
