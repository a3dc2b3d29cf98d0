"""Samples of the logical, bitwise and log-space reductions and var_mean: the reduction family's
generic samples and errors (opinfo/prims.py) plus the edge values each prim is about."""
from __future__ import annotations

import torch

from primkit.opinfo.core import SampleInput
from primkit.opinfo.prims import errors_reduction, samples_reduction
from primkit.opinfo.samples import make


def _edge_values(device, dtype):
    """Rows that are all True / all False / mixed (bool), or bit patterns that cancel (integers)."""
    if dtype == torch.bool:
        return torch.tensor([[True, True, True], [False, False, False], [True, False, True]], device=device)
    hi = torch.iinfo(dtype).max
    return torch.tensor([[hi, hi, 0], [1, 2, 3], [0, 0, 0]], device=device, dtype=dtype)


def samples_logical(op, device, dtype):
    yield from samples_reduction(op, device, dtype)
    edge = _edge_values(device, dtype)
    for dims in ([1], [0], [0, 1]):
        yield SampleInput(edge, (dims,), name=f"edge values dims={dims}")
        yield SampleInput(edge.mT, (dims,), name=f"edge values, transposed, dims={dims}")
    yield SampleInput(make((2, 0, 3), device, dtype), ([1, 2],), name="empty dim among the reduced")


def samples_logsumexp(op, device, dtype):
    yield from samples_reduction(op, device, dtype)
    inf, nan = float("inf"), float("nan")
    # all -inf, one inf, inf and -inf, nan, and magnitudes where a naive exp overflows
    edge = torch.tensor([[-inf, -inf, -inf], [inf, 1, -inf], [inf, inf, 0], [nan, 0, 1], [-inf, 2, 3],
                         [80, 90, 100]], device=device, dtype=dtype)
    for dims in ([1], [0, 1]):
        yield SampleInput(edge, (dims,), name=f"inf, nan, large, dims={dims}")
    yield SampleInput(make((2, 0, 3), device, dtype), ([1],), name="empty reduced dim: -inf")


def samples_var_mean(op, device, dtype):
    yield from samples_reduction(op, device, dtype)
    t = make((4, 5), device, dtype)
    for correction in (0.0, 2.5, 5.0, 6.0):
        yield SampleInput(t, ([1], correction), name=f"correction={correction}")
    yield SampleInput(t.mT, ([0, 1], 0.0), name="transposed, every dim")


SPECIFIC = {
    "reduce_and": (samples_logical, errors_reduction),
    "reduce_or": (samples_logical, errors_reduction),
    "reduce_xor": (samples_logical, errors_reduction),
    "logsumexp": (samples_logsumexp, errors_reduction),
    "var_mean": (samples_var_mean, errors_reduction),
}
