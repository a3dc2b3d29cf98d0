"""Samples and constraint error inputs of the elementwise prims added with cbrt: the family's
generic cases plus the edge values each prim defines (signed zeros, inf, nan, subnormals, integer
extremes), and the prims whose scalar arguments the generic generator cannot make (nan_to_num,
reduce_precision)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims import errors_elementwise, samples_elementwise
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError

SHAPES = ((), (0,), (5,), (3, 1, 4), (4, 5), (2, 3, 4, 5))


def edge_values(device, dtype):
    """One 1-d tensor of the values where elementwise prims are easiest to get wrong."""
    if dtype.is_floating_point:
        info = torch.finfo(dtype)
        values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, 8.0, -27.0, 1e-3, info.tiny, -info.tiny, info.tiny / 4,
                  -info.tiny / 4, info.max, -info.max, info.max / 3, float("inf"), float("-inf"), float("nan")]
    elif dtype.is_complex:
        values = [0j, 1 + 1j, complex("nan+1j"), complex("inf-infj"), complex(1, float("nan")), -2.5 + 0.5j]
    elif dtype == torch.bool:
        values = [False, True]
    else:
        info = torch.iinfo(dtype)
        values = [v for v in (0, 1, -1, 2, 3, 7, 8, 127, 128, 255, 256, -128, -129, 2 ** 31 - 1, -2 ** 31, 2 ** 32,
                              info.min, info.max, info.min + 1, info.max - 1) if info.min <= v <= info.max]
    return torch.tensor(values, device=device, dtype=dtype)


def samples_with_edges(op, device, dtype):
    """The family's samples, then every operand drawn from the edge values (shifted per operand,
    so a ternary prim meets nan and inf in each position)."""
    yield from samples_elementwise(op, device, dtype)
    edges = edge_values(device, dtype)
    operands = [edges.roll(i) for i in range(len(op.prim.arg_names))]
    yield SampleInput(operands[0], tuple(operands[1:]), name="edge values")
    if len(operands) > 1:    # every pairing of edge values: nan/inf against each bound or weight
        grid = torch.meshgrid(*[edges] * len(operands), indexing="ij")
        yield SampleInput(grid[0], tuple(grid[1:]), name="edge value grid")


def samples_nan_to_num(op, device, dtype):
    for shape in SHAPES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (0.0, 1.0, -1.0), name=f"{name} {shape}")
    edges = edge_values(device, dtype)
    real = dtype if not dtype.is_complex else dtype.to_real()
    big = torch.finfo(real).max
    for values in ((0.0, 1.0, -1.0), (-0.0, big, -big), (7.5, 1e300, -1e300), (float("nan"), float("inf"), 0.0)):
        yield SampleInput(edges, values, name=f"edge values, replacements {values}")


def errors_nan_to_num(op, device):
    yield ErrorInput(SampleInput(make((2, 3), device, torch.int64), (0.0, 1.0, -1.0), name="C1: int64 operand"),
                     PrimConstraintError, "nan_to_num: C1:")


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


EDGES = ("cbrt", "square", "population_count", "count_leading_zeros", "frac", "isposinf", "isneginf", "ndtr",
         "frexp", "clamp", "lerp")
SPECIFIC = {
    **{name: (samples_with_edges, errors_elementwise) for name in EDGES},
    "nan_to_num": (samples_nan_to_num, errors_nan_to_num),
    "reduce_precision": (samples_reduce_precision, errors_reduce_precision),
}
