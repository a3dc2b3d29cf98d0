"""Samples and constraint error inputs of bitcast_convert_type."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.strategies import composite, dtype_of, DTYPES, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError

SHAPES = ((), (0,), (5,), (3, 1, 4), (4, 5), (2, 3, 4, 5))

# Targets of each tested dtype's width (the operand's own dtype included: an identity bitcast).
SAME_WIDTH = {
    torch.bool: (torch.bool, torch.uint8, torch.int8),
    torch.float16: (torch.float16, torch.bfloat16, torch.int16),
    torch.bfloat16: (torch.bfloat16, torch.float16, torch.int16),
    torch.float32: (torch.float32, torch.int32),
    torch.float64: (torch.float64, torch.int64, torch.complex64),
    torch.int64: (torch.int64, torch.float64, torch.complex64),
    torch.complex64: (torch.complex64, torch.float64, torch.int64),
}


def samples_bitcast_convert_type(op, device, dtype):
    for shape in SHAPES:
        for name, t in layouts(shape, device, dtype):
            for target in SAME_WIDTH[dtype]:
                yield SampleInput(t, (target,), name=f"{name} {shape} to {target}")


def errors_bitcast_convert_type(op, device):
    def err(cid, name, t, dtype):
        return ErrorInput(SampleInput(t, (dtype,), name=f"{cid}: {name}"), PrimConstraintError,
                          f"bitcast_convert_type: {cid}:")
    # uint16 is in no catalog dtype class, so it is outside even [all].
    yield err("C1", "uint16 operand", torch.zeros((2, 3), dtype=torch.uint16, device=device), torch.int16)
    yield err("C2", "uint16 target", make((2, 3), device, torch.int16), torch.uint16)
    yield err("C3", "float32 to float64", make((2, 3), device, torch.float32), torch.float64)
    yield err("C3", "bool to int32", make((2, 3), device, torch.bool), torch.int32)


SPECIFIC = {"bitcast_convert_type": (samples_bitcast_convert_type, errors_bitcast_convert_type)}


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def bitcast_call(draw, prim):
    dtype = dtype_of(draw, prim)
    same_size = [d for d in DTYPES if d in prim.dtypes and d.itemsize == dtype.itemsize] or [dtype]
    target = maybe(draw, draw(st.sampled_from(same_size)), draw(st.sampled_from(DTYPES)))
    return SampleInput(draw(strided(draw(shapes()), dtype)), (target,))


STRATEGIES = {"bitcast": bitcast_call}
