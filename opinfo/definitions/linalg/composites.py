"""OpInfo entries of eager's compositions (decompositions/linalg/composites.py): vander, trace, kron, cross.
"""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.common import make_f32
from primkit.opinfo.definitions.linalg.common import NUMERIC_NO_BOOL, _linalg_entry, _table_entry
from primkit.opinfo.definitions.shape.common import DENSE, EVERY, cases, errors
from primkit.opinfo.dtypes import ALL, FLOAT32_64, INTEGRAL
from primkit.opinfo.samples import layouts, make


def _vander_samples(op, device, dtype):
    x = make((4,), device, dtype, low=-2, high=2)
    for args in ((), (3,), (1,), (0,), (5, True), (None, True)):
        yield SampleInput(x, args, name=f"{args}")
    yield SampleInput(make((8,), device, dtype, low=-2, high=2)[::2], name="strided")
    yield SampleInput(make((0,), device, dtype), name="empty")


def _linalg_vander_samples(op, device, dtype):
    for shape in ((4,), (2, 3)):
        yield SampleInput(make(shape, device, dtype, low=-2, high=2), name=f"{shape}")
    yield SampleInput(make((), device, dtype, low=-2, high=2), kwargs={"N": 3}, name="0-d, N=3")
    x = make((2, 3), device, dtype, low=-2, high=2)
    yield SampleInput(x, kwargs={"N": 5}, name="N=5")
    yield SampleInput(x.T, kwargs={"N": 2}, name="transposed N=2")


ENTRIES = [
    # eager's vander overwrites its cumprod's input in place, and its backward then refuses ("modified by
    # an inplace operation"): no gradient to compare
    _linalg_entry("vander", torch.vander, ("aten::vander",), _vander_samples, dtypes=ALL, supports_autograd=False,
                  errors=lambda op, device: [ErrorInput(SampleInput(make_f32((2, 2), device)), RuntimeError,
                                                        "one-dimensional"),
                                             ErrorInput(SampleInput(make_f32((3,), device), (-1,)), RuntimeError,
                                                        "N must be non-negative")]),
    _linalg_entry("linalg.vander", torch.linalg.vander, ("aten::linalg_vander",), _linalg_vander_samples,
                  dtypes=FLOAT32_64 | INTEGRAL | {torch.complex64},
                  errors=lambda op, device: [ErrorInput(SampleInput(make_f32((3,), device, torch.bool)), RuntimeError,
                                                        "supports floating point, complex, and integer"),
                                             ErrorInput(SampleInput(make_f32((3,), device), kwargs={"N": 1}), RuntimeError,
                                                        "N must be greater than 1")]),
]


def _pairs(*rows, on=EVERY):
    """Samples of binary ops: rows (shape, other shape[, kwargs]) on the layouts ``on`` of the input."""
    def gen(op, device, dtype):
        for shape, other, *kw in rows:
            for name, t in layouts(shape, device, dtype):
                if name in on:
                    yield SampleInput(t, (make(other, device, dtype),), kw[0] if kw else {},
                                      name=f"{name} {shape} {other} {kw}")
    return gen


CROSS = _pairs(((4, 3), (4, 3)), ((3, 5), (3, 5), {"dim": 0}), ((2, 1, 3), (1, 4, 3)), ((0, 3), (0, 3)))


ENTRIES += [
    _table_entry("trace", cases(((4, 5), ()), ((5, 4), ()), ((0, 3), ()), ((1, 1), ())), out=True,
                 dtypes=NUMERIC_NO_BOOL, errs=errors(((2, 3, 4), (), RuntimeError, "expected a matrix"))),
    _table_entry("kron", _pairs(((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 1, 3), (2,)), ((), (3,)), ((0, 2), (3, 1)),
                                on=DENSE), out=True),
    _table_entry("linalg_cross", CROSS, out=True, dtypes=ALL - {torch.bool},
                 errs=lambda op, device: iter([ErrorInput(
                     SampleInput(make((4, 2), device, torch.float32), (make((4, 2), device, torch.float32),)),
                     RuntimeError, "must have length 3")])),
    _table_entry("cross", _pairs(((4, 3), (4, 3)), ((3, 5), (3, 5), {"dim": 0}), ((3, 3), (3, 3))), out=True,
                 dtypes=ALL - {torch.bool}),
]
