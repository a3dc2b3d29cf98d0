"""Samples and constraint error inputs of the scan prims (cumsum, cumprod, cummax, cummin, logcumsumexp)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.strategies import composite, dim_of, dtype_of, shapes, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError

# (operand shape, dims scanned): every case in every layout of its shape.
SCAN_CASES = (((3, 4, 5), (0, 1, -1, -3)), ((2, 3, 4, 5), (1, 3)), ((7,), (0, -1)), ((4, 1), (1,)),
              ((0, 3), (0, 1)), ((), (0, -1)))


def samples_scan(op, device, dtype):
    for shape, dims in SCAN_CASES:
        for name, t in layouts(shape, device, dtype):
            for dim in dims:
                yield SampleInput(t, (dim,), name=f"{name} {shape} dim={dim}")
    if dtype.is_floating_point:
        # Ties, nan and infinities: cummax/cummin's index rules and logcumsumexp's -inf prefix.
        nan, inf = float("nan"), float("inf")
        t = torch.tensor([[1, 3, 3, nan, 2, nan], [-inf, -inf, 0, inf, inf, 1]], device=device, dtype=dtype)
        yield SampleInput(t, (1,), name="ties, nan, inf")


def errors_scan(op, device):
    prim = op.prim
    dtype = sorted(prim.dtypes, key=str)[0]

    def err(cid, name, t, dim, exc=PrimConstraintError):
        return ErrorInput(SampleInput(t, (dim,), name=f"{cid}: {name}"), exc, f"{prim.name}: {cid}:")
    yield err("C1", "dim out of range", make((2, 3), device, dtype), 2, PrimIndexError)
    yield err("C1", "negative dim out of range", make((2, 3), device, dtype), -3, PrimIndexError)
    yield err("C1", "0-d, dim 1", make((), device, dtype), 1, PrimIndexError)
    bad = next(d for d in (torch.bool, torch.complex64, torch.int64) if d not in prim.dtypes)
    yield err("C2", f"{bad} operand", make((2, 3), device, bad), 0)


SPECIFIC = {name: (samples_scan, errors_scan) for name in ("cumsum", "cumprod", "cummax", "cummin", "logcumsumexp")}


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def scan_call(draw, prim):
    shape = draw(shapes())
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (dim_of(draw, len(shape)),))


STRATEGIES = {"scan": scan_call}
