"""Samples of the logical, bitwise and log-space reductions and var_mean: the reduction family's
generic samples and errors (opinfo/prims.py) plus the edge values each prim is about."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.strategies import composite, dim_of, dtype_of, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError


def samples_reduction(op, device, dtype):
    extra = (1.0,) if "correction" in op.prim.arg_names else ()
    for name, t in layouts((3, 4, 5), device, dtype):
        for dims in ([0], [1], [0, 2], [], [-1], [0, 1, 2]):
            yield SampleInput(t, (dims, *extra), name=f"{name} dims={dims}")
    yield SampleInput(make((), device, dtype), ([], *extra), name="0-d")
    yield SampleInput(make((0, 3), device, dtype), ([1], *extra), name="empty, non-empty dim reduced")
    if not op.prim.params.get("needs_elements"):
        yield SampleInput(make((0, 3), device, dtype), ([0], *extra), name="empty dim reduced")


def errors_reduction(op, device):
    extra = (1.0,) if "correction" in op.prim.arg_names else ()
    t = make((2, 3), device, sorted(op.prim.dtypes, key=str)[0])
    yield ErrorInput(SampleInput(t, ([2], *extra), name="C1: dim out of range"), PrimIndexError, f"{op.prim.name}: C1:")
    if op.prim.params.get("needs_elements"):
        empty = make((0, 3), device, torch.float32)
        yield ErrorInput(SampleInput(empty, ([0], *extra), name="C3: empty reduced dim"), PrimIndexError,
                         f"{op.prim.name}: C3:")
    bad = next((d for d in (torch.bool, torch.complex64, torch.int64) if d not in op.prim.dtypes), None)
    if bad is not None:
        yield ErrorInput(SampleInput(make((2, 3), device, bad), ([0], *extra), name="C2: unsupported dtype"),
                         PrimConstraintError, f"{op.prim.name}: C2:")


def samples_arg_reduction(op, device, dtype):
    for name, t in layouts((3, 4, 5), device, dtype):
        for dim in (0, 1, -1):
            yield SampleInput(t, (dim,), name=f"{name} dim={dim}")
    yield SampleInput(make((), device, dtype), (0,), name="0-d")


def errors_arg_reduction(op, device):
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), (2,), name="C1"), PrimIndexError,
                     f"{op.prim.name}: C1:")
    yield ErrorInput(SampleInput(make((2, 3), device, torch.bool), (0,), name="C2"), PrimConstraintError,
                     f"{op.prim.name}: C2:")
    yield ErrorInput(SampleInput(make((0, 3), device, torch.float32), (0,), name="C3"), PrimIndexError,
                     f"{op.prim.name}: C3:")


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

BY_META = {"reduction": (samples_reduction, errors_reduction),
           "arg_reduction": (samples_arg_reduction, errors_arg_reduction)}


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def reduction_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    a = draw(strided(shape, dtype_of(draw, prim)))
    if "dim" in prim.arg_names:    # arg reductions: one dim
        return SampleInput(a, (dim_of(draw, len(shape)),))
    dims = draw(st.lists(st.integers(0, len(shape) - 1), unique=True))
    rest = (draw(st.sampled_from([0.0, 1.0])),) if "correction" in prim.arg_names else ()
    return SampleInput(a, (dims, *rest))


STRATEGIES = {"reduction": reduction_call, "arg_reduction": reduction_call}
