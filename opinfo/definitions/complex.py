"""OpInfo entries: complex numbers built (complex, polar), taken apart (real, imag, view_as_real,
view_as_complex) and conjugated (conj).

The views among them are checked for eager's values and strides: samples walk every layout
(non-contiguous with gaps, transposed, expanded, offset), 0-d and empty tensors, and inf and
nan in either part.
"""
from __future__ import annotations

import functools
import math

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.definitions.common import complex_samples, packet_entry, table_entry
from primkit.opinfo.definitions.shape.common import ALIAS
from primkit.opinfo.dtypes import ALL, COMPLEX, FLOAT32_64
from primkit.opinfo.samples import UNARY_SHAPES, extremal_unary, layouts, make

COMPLEX_64_128 = frozenset({torch.complex64, torch.complex128})
INF, NAN = math.inf, math.nan


def _first(op, shape, device, dtype, **kw):
    """The first operand, within the entry's domain (polar's abs is not negative)."""
    low, high = op.domain
    return make(shape, device, dtype, low=low, high=high, **kw)


def sample_inputs_from_parts(op, device, dtype):
    """(a, b) pairs of one float dtype, as complex and polar require."""
    low, high = op.domain
    for shape in ((), (0,), (7,), (4, 5), (2, 3, 4, 5)):
        for name, a in layouts(shape, device, dtype, low=low, high=high):
            yield SampleInput(a, (make(shape, device, dtype),), name=f"{name} {shape}")
    for sa, sb in (((4, 1), (1, 5)), ((5,), ()), ((), (5,)), ((2, 3, 4), (3, 1)), ((0, 3), (3,))):
        yield SampleInput(_first(op, sa, device, dtype), (make(sb, device, dtype),), name=f"broadcast {sa} {sb}")
    yield SampleInput(_first(op, (5, 4), device, dtype).t(), (make((5, 4), device, dtype).t(),),
                      name="both transposed")
    yield SampleInput(_first(op, (4, 5), device, dtype), (make((5, 4), device, dtype).t(),), name="second transposed")
    firsts = [0.0, -0.0, 1.0, INF, NAN, 1e30, torch.finfo(dtype).tiny] + ([] if low == 0 else [-INF, -2.5])
    seconds = [INF, -INF, NAN, 0.0, -0.0, math.pi, -1e30, 2.5, 1.0]
    grid = torch.tensor([firsts] * len(seconds), device=device, dtype=dtype)
    other = torch.tensor([[y] * len(firsts) for y in seconds], device=device, dtype=dtype)
    yield SampleInput(grid, (other,), name="extremal pairs")


def error_inputs_from_parts(op, device):
    f32, f64 = make((3,), device, torch.float32), make((3,), device, torch.float64)
    yield ErrorInput(SampleInput(f32, (f64,), name="float32 and float64"), RuntimeError,
                     "Expected object of scalar type Float but got scalar type Double for second argument")
    yield ErrorInput(SampleInput(f32.to(torch.int64), (f32.to(torch.int64),), name="int64 operands"), RuntimeError,
                     "Expected both inputs to be Half, Float or Double tensors but got Long and Long")
    yield ErrorInput(SampleInput(f32, (make((2,), device, torch.float32),), name="shapes do not broadcast"),
                     RuntimeError, "must match the size")


def sample_inputs_parts_of(op, device, dtype):
    """One tensor per layout of each shape (the storage offset of a slice too), and extremal values
    (inf and nan in the real and imaginary parts of complex dtypes)."""
    for shape in UNARY_SHAPES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, name=f"{name} {shape}")
    yield SampleInput(make((5, 4), device, dtype)[1:, ::2], name="offset slice with gaps")
    yield from extremal_unary(op, device, dtype)
    if dtype.is_complex:
        values = [complex(INF, NAN), complex(NAN, -INF), complex(-0.0, 0.0), complex(1e30, -1e-30)]
        yield SampleInput(torch.tensor(values, device=device, dtype=dtype), name="extremal parts")


def sample_inputs_view_as_complex(op, device, dtype):
    """Last dim of size 2 and stride 1; the other strides and the offset even."""
    for shape in ((3, 2), (2, 4, 2), (0, 2), (2,), (1, 2), (2, 1, 3, 2)):
        yield SampleInput(make(shape, device, dtype), name=f"contiguous {shape}")
    yield SampleInput(make((4, 3, 2), device, dtype).transpose(0, 1), name="transposed outer dims")
    yield SampleInput(make((1, 3, 2), device, dtype).expand(4, 3, 2), name="expanded")
    yield SampleInput(make((6, 3, 2), device, dtype)[::2], name="noncontiguous outer dim")
    yield SampleInput(make((5, 2), device, dtype)[1:], name="even storage offset")
    yield SampleInput(torch.tensor([[INF, NAN], [-INF, 0.0], [NAN, -0.0]], device=device, dtype=dtype),
                      name="extremal")


def error_inputs_view_as_complex(op, device):
    rows = (
        (torch.tensor(1.0, device=device), "Input tensor must have one or more dimensions"),
        (make((3, 3), device, torch.float32), "Tensor must have a last dimension of size 2"),
        (make((2, 3), device, torch.float32).t(), "Tensor must have a last dimension with stride 1"),
        (make((3, 3), device, torch.float32)[:, :2], "Tensor must have a stride divisible by 2"),
        (make((6,), device, torch.float32)[1:5].view(2, 2), "Tensor must have a storage_offset divisible by 2"),
        (make((3, 2), device, torch.int64), "only supported for half, float and double tensors"),
    )
    for t, match in rows:
        yield ErrorInput(SampleInput(t, name=match), RuntimeError, match)


def _needs_complex(message):
    def gen(op, device):
        yield ErrorInput(SampleInput(make((3,), device, torch.float32), name="float32 input"), RuntimeError, message)
    return gen


ENTRIES = [
    OpInfo(name="complex", op=torch.complex, aten=("aten::complex", "aten::complex.out"),
           sample_inputs=sample_inputs_from_parts, error_inputs=error_inputs_from_parts, dtypes=FLOAT32_64,
           supports_out=True, family="complex"),
    # abs not negative: eager's derivative in abs is sgn(result), which flips for a negative abs
    OpInfo(name="polar", op=torch.polar, aten=("aten::polar", "aten::polar.out"), domain=(0, None),
           sample_inputs=sample_inputs_from_parts, error_inputs=error_inputs_from_parts, dtypes=FLOAT32_64,
           supports_out=True, family="complex"),
    OpInfo(name="real", op=torch.real, aten=("aten::real",), sample_inputs=sample_inputs_parts_of,
           dtypes=ALL | COMPLEX_64_128, family="complex"),
    OpInfo(name="imag", op=torch.imag, aten=("aten::imag",), sample_inputs=sample_inputs_parts_of,
           error_inputs=_needs_complex("imag is not implemented for tensors with non-complex dtypes"),
           dtypes=COMPLEX_64_128, family="complex"),
    OpInfo(name="view_as_real", op=torch.view_as_real, aten=("aten::view_as_real",),
           sample_inputs=sample_inputs_parts_of,
           error_inputs=_needs_complex("view_as_real is only supported for complex tensors"),
           dtypes=COMPLEX_64_128, family="complex"),
    OpInfo(name="view_as_complex", op=torch.view_as_complex, aten=("aten::view_as_complex",),
           sample_inputs=sample_inputs_view_as_complex, error_inputs=error_inputs_view_as_complex,
           dtypes=FLOAT32_64, family="complex"),
    # torch.conj never dispatches aten::conj (Tensor.conj is inline C++: self, or _conj): call the op
    OpInfo(name="conj", op=torch.ops.aten.conj.default, aten=("aten::conj",), sample_inputs=sample_inputs_parts_of,
           dtypes=ALL | COMPLEX_64_128, family="complex"),
]


_packet_entry = functools.partial(packet_entry, family="complex")
_table_entry = functools.partial(table_entry, family="complex")


ENTRIES += [
    _table_entry("resolve_conj", ALIAS), _table_entry("resolve_neg", ALIAS),
    # eager's lazy conjugate (a view with the conj bit set; eager asserts on a real input); primkit computes it
    _packet_entry("_conj", torch.ops.aten._conj, complex_samples, dtypes=COMPLEX, out=False),
]
