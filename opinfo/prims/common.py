"""What the prim sample modules share: error inputs citing a constraint, a second device, int64
indices, a dtype no catalog class holds.

Each family module ``opinfo/prims/<family>.py`` (the elementwise families share ``elementwise.py``)
gives ``SPECIFIC[name] = (samples, errors)`` for its prims: samples call the prim directly and cover
the layouts its meta rule must model (non-contiguous, transposed, channels-last, expanded, 0-d,
empty, size-1 dims, negative dims); errors violate one constraint each, and every constraint id of
the prim's YAML entry has at least one (a device mismatch uses the meta device where there is no
GPU). ``BY_META[rule]`` gives the generic samples of a meta rule, and ``STRATEGIES[rule]`` its
hypothesis strategy (tests/test_fuzz_meta.py).
"""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.samples import make
from primkit.prims.errors import PrimConstraintError

# A dtype no catalog class holds: "dtype is one of the prim's dtypes" fails for it even under [all].
ODD_DTYPE = torch.uint16


def unsupported_dtype(prim):
    return next(d for d in (torch.bool, torch.complex64, torch.int64, torch.float32, ODD_DTYPE)
                if d not in prim.dtypes)


def fill_value(dtype):
    """A Python scalar that the dtype holds exactly."""
    if dtype == torch.bool:
        return True
    if dtype.is_complex:
        return 1.5 - 2j
    return 3 if not dtype.is_floating_point else -1.5


def error(op, cid, name, input, *args, exc=PrimConstraintError, **kwargs):
    return ErrorInput(SampleInput(input, args, kwargs, name=f"{cid}: {name}"), exc, f"{op.prim.name}: {cid}:")


def other_device(device):
    """A second device for device-mismatch inputs: the other of cpu/cuda, or without a GPU the
    meta device (a meta tensor meets a cpu one: the prim's device check fires all the same)."""
    if not torch.cuda.is_available():
        return "meta" if torch.device(device).type != "meta" else "cpu"
    return "cpu" if torch.device(device).type == "cuda" else "cuda"


def index_tensor(shape, high, device, *, negative=False):
    """int64 indices in [0, high) (or [-high, high) with negative), of the given shape."""
    if high == 0 or 0 in shape:
        return torch.zeros(shape, device=device, dtype=torch.int64)
    return make(shape, device, torch.int64, low=-high if negative else 0, high=high)


def errors_unsupported_dtype(op, device):
    """C1 of the prims that take every dtype class: a dtype in none of them."""
    yield ErrorInput(SampleInput(torch.zeros(3, dtype=ODD_DTYPE, device=device), name="C1: unsupported dtype"),
                     PrimConstraintError, f"{op.prim.name}: C1:")
