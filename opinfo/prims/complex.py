"""Samples and constraint error inputs of the complex prims viewed as real pairs (view_as_real,
view_as_complex)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import SampleInput
from primkit.opinfo.prims.common import error
from primkit.opinfo.prims.strategies import composite, dtype_of, invalid, shapes, st, strided
from primkit.opinfo.samples import layouts, make

SPECIFIC = {}


def samples_view_as_real(op, device, dtype):
    for shape in ((), (0, 3), (5,), (3, 1, 4), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (), name=f"{name} {shape}")


def samples_view_as_complex(op, device, dtype):
    cases = [("contiguous", make((4, 2), device, dtype)), ("3-d", make((2, 3, 2), device, dtype)),
             ("one pair, 0-d result", make((2,), device, dtype)), ("empty", make((0, 2), device, dtype)),
             ("rows with gaps", make((4, 4), device, dtype)[:, :2]),
             ("transposed outer dims", make((3, 4, 2), device, dtype).transpose(0, 1)),
             ("expanded", make((1, 3, 2), device, dtype).expand(4, 3, 2)),
             ("permuted outer dims", make((2, 3, 4, 2), device, dtype).permute(0, 2, 1, 3)),
             ("size-1 dim", make((3, 1, 2), device, dtype))]
    for name, t in cases:
        yield SampleInput(t, (), name=name)


def errors_view_as_real(op, device):
    yield error(op, "C1", "float32 operand", make((3,), device, torch.float32))


def errors_view_as_complex(op, device):
    yield error(op, "C1", "int64 operand", make((3, 2), device, torch.int64))
    yield error(op, "C1", "complex64 operand", make((3, 2), device, torch.complex64))
    yield error(op, "C2", "last dim of size 3", make((3, 3), device, torch.float32))
    yield error(op, "C2", "0-d operand", make((), device, torch.float32))
    yield error(op, "C3", "last stride 2", make((2, 4), device, torch.float32)[:, ::2])
    yield error(op, "C4", "odd row stride", make((3, 3), device, torch.float32)[:, :2])
    yield error(op, "C5", "odd storage offset", make((7,), device, torch.float32)[1:].view(3, 2))


SPECIFIC.update({
    "view_as_real": (samples_view_as_real, errors_view_as_real),
    "view_as_complex": (samples_view_as_complex, errors_view_as_complex),
})


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def view_as_real_call(draw, prim):
    return SampleInput(draw(strided(draw(shapes()), dtype_of(draw, prim, [torch.complex64, torch.complex128]))))


@composite
def view_as_complex_call(draw, prim):
    """A real view of a random strided complex tensor (valid), or any strided float tensor whose last dim
    has size 2 (C3..C5 errors where its strides do not fit)."""
    shape = draw(shapes(max_dims=3))
    if invalid(draw):
        return SampleInput(draw(strided(shape + (2,), dtype_of(draw, prim))))
    c = draw(strided(shape, draw(st.sampled_from([torch.complex64, torch.complex128]))))
    return SampleInput(torch.view_as_real(c))


STRATEGIES = {"view_as_real": view_as_real_call, "view_as_complex": view_as_complex_call}
