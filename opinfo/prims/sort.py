"""Samples and constraint error inputs of the sort prims (sort, argsort, topk, kthvalue, median)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.reductions import errors_arg_reduction
from primkit.opinfo.prims.strategies import composite, dim_of, dtype_of, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError

# (operand shape, dims sorted): every case in every layout of its shape.
SORT_CASES = (((3, 4, 5), (0, 1, -1)), ((2, 3, 4, 5), (1, -1)), ((7,), (0,)), ((4, 1), (1,)),
              ((0, 3), (0, 1)), ((), (0, -1)))


def _ties_and_nan(device, dtype):
    """Repeated values (and nan, inf for floating dtypes): where stable order and nan placement show."""
    if dtype == torch.bool:
        return torch.tensor([[True, False, True, False, False, True]], device=device)
    if not dtype.is_floating_point:
        return torch.tensor([[3, 1, 3, 0, 1, 3]], device=device, dtype=dtype)
    nan, inf = float("nan"), float("inf")
    return torch.tensor([[1, nan, -inf, 2, nan, 1], [0, -0.0, inf, 0, -inf, inf]], device=device, dtype=dtype)


def samples_sort(op, device, dtype):
    for shape, dims in SORT_CASES:
        for name, t in layouts(shape, device, dtype):
            for dim in dims:
                for descending in (False, True):
                    yield SampleInput(t, (dim, descending, dim == 0), name=f"{name} {shape} dim={dim} "
                                      f"descending={descending}")
    for descending in (False, True):
        yield SampleInput(_ties_and_nan(device, dtype), (1, descending, True), name=f"ties, stable, "
                          f"descending={descending}")


def samples_topk(op, device, dtype):
    for shape, dims in SORT_CASES:
        for name, t in layouts(shape, device, dtype):
            for dim in dims:
                size = shape[dim] if shape else 1
                for k in sorted({0, min(1, size), size} if shape else {1}):
                    yield SampleInput(t, (k, dim, k % 2 == 0, True), name=f"{name} {shape} k={k} dim={dim}")
    yield SampleInput(make((3, 4, 5), device, dtype), (2, -1, True, False), name="sorted=False")
    for largest in (False, True):
        yield SampleInput(_ties_and_nan(device, dtype), (3, 1, largest, True), name=f"ties, largest={largest}")


def _errors(op, device, extra):
    prim = op.prim

    def err(cid, name, t, dim, exc=PrimConstraintError, k=1):
        args = ((k,) if prim.name == "topk" else ()) + (dim, *extra)
        return ErrorInput(SampleInput(t, args, name=f"{cid}: {name}"), exc, f"{prim.name}: {cid}:")
    f = make((2, 3), device, torch.float32)
    yield err("C1", "dim out of range", f, 2, PrimIndexError)
    yield err("C1", "negative dim out of range", f, -3, PrimIndexError)
    yield err("C1", "0-d, dim 1", make((), device, torch.float32), 1, PrimIndexError)
    yield err("C2", "complex64 operand", make((2, 3), device, torch.complex64), 0)
    if prim.name == "topk":
        yield err("C3", "k larger than dim", f, 1, k=4)
        yield err("C3", "negative k", f, 1, k=-1)
        yield err("C3", "0-d, k=2", make((), device, torch.float32), 0, k=2)


def errors_sort(op, device):
    yield from _errors(op, device, (False, True))


def _selection_cases(device, dtype):
    """(name, operand, dim) of every non-empty-dim case of SORT_CASES, in every layout."""
    for shape, dims in SORT_CASES:
        for name, t in layouts(shape, device, dtype):
            for dim in dims:
                if not shape or shape[dim] != 0:
                    yield f"{name} {shape} dim={dim}", t, dim


def samples_kthvalue(op, device, dtype):
    for name, t, dim in _selection_cases(device, dtype):
        size = t.shape[dim] if t.dim() else 1
        for k in sorted({1, (size + 1) // 2, size}):
            yield SampleInput(t, (k, dim), name=f"{name} k={k}")
    yield SampleInput(make((0, 3), device, dtype), (2, 1), name="empty, non-empty dim selected")
    ties = _ties_and_nan(device, dtype)
    for k in range(1, ties.shape[1] + 1):
        yield SampleInput(ties, (k, 1), name=f"ties and nan, k={k}")


def samples_median(op, device, dtype):
    for name, t, dim in _selection_cases(device, dtype):
        yield SampleInput(t, (dim,), name=name)
    yield SampleInput(make((0, 3), device, dtype), (1,), name="empty, non-empty dim reduced")
    ties = _ties_and_nan(device, dtype)
    yield SampleInput(ties, (1,), name="ties and nan (even length: the lower median)")
    yield SampleInput(ties[..., :5], (1,), name="ties and nan (odd length)")
    yield SampleInput(ties.mT, (0,), name="ties and nan, transposed")


def errors_kthvalue(op, device):
    prim = op.prim

    def err(cid, name, t, k, dim, exc=PrimConstraintError):
        return ErrorInput(SampleInput(t, (k, dim), name=f"{cid}: {name}"), exc, f"{prim.name}: {cid}:")
    f = make((2, 3), device, torch.float32)
    yield err("C1", "dim out of range", f, 1, 2, PrimIndexError)
    yield err("C1", "0-d, dim 1", make((), device, torch.float32), 1, 1, PrimIndexError)
    yield err("C2", "bool operand", make((2, 3), device, torch.bool), 1, 0)
    yield err("C2", "complex64 operand", make((2, 3), device, torch.complex64), 1, 0)
    yield err("C3", "empty dim", make((0, 3), device, torch.float32), 1, 0, PrimIndexError)
    yield err("C4", "k larger than dim", f, 4, 1)
    yield err("C4", "k = 0", f, 0, 1)
    yield err("C4", "0-d, k=2", make((), device, torch.float32), 2, 0)


SPECIFIC = {
    "sort": (samples_sort, errors_sort),
    "argsort": (samples_sort, errors_sort),
    "topk": (samples_topk, errors_sort),
    "kthvalue": (samples_kthvalue, errors_kthvalue),
    "median": (samples_median, errors_arg_reduction),
}


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def sort_call(draw, prim):
    shape = draw(shapes())
    a = draw(strided(shape, dtype_of(draw, prim)))
    return SampleInput(a, (dim_of(draw, len(shape)), draw(st.booleans()), draw(st.booleans())))


@composite
def topk_call(draw, prim):
    shape = draw(shapes())
    a = draw(strided(shape, dtype_of(draw, prim)))
    dim = dim_of(draw, len(shape))
    size = shape[dim] if shape and -len(shape) <= dim < len(shape) else 1
    k = maybe(draw, draw(st.integers(0, size)) if shape else 1, size + 1)
    return SampleInput(a, (k, dim, draw(st.booleans()), draw(st.booleans())))


@composite
def kthvalue_call(draw, prim):
    shape = draw(shapes())
    dim = dim_of(draw, len(shape))
    size = (shape[dim] if -len(shape) <= dim < len(shape) else 0) if shape else 1
    k = maybe(draw, draw(st.integers(1, size)) if size else 1, size + 1)
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (k, dim))


STRATEGIES = {"sort": sort_call, "topk": topk_call, "kthvalue": kthvalue_call}
