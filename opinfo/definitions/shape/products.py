"""OpInfo entries: block_diag, cartesian_prod, combinations."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.common import make_f32
from primkit.opinfo.definitions.shape.common import _aten_entry, aten
from primkit.opinfo.dtypes import ALL
from primkit.opinfo.samples import make


def block_diag(tensors, *, out=None):
    # torch.block_diag takes no out=: the overloads are called directly
    return aten.block_diag.default(tensors) if out is None else aten.block_diag.out(tensors, out=out)


def _block_diag_samples(op, device, dtype):
    for shapes in ([(2, 3), (3,), (), (1, 2)], [(2, 2)], [(0, 2), (3, 0), (2, 2)], [(3,), (4,)]):
        yield SampleInput([make(s, device, dtype) for s in shapes], name=f"{shapes}")
    yield SampleInput([make((3, 2), device, dtype).T, make((2, 2), device, dtype)], name="transposed block")
    other = torch.float64 if dtype != torch.float64 else torch.int64
    yield SampleInput([make((2, 2), device, dtype), make((2,), device, other)], name=f"mixed with {other}")


def _cartesian_samples(op, device, dtype):
    for shapes in ([(2,), (3,)], [(3,)], [(2,), (0,), (2,)], [(2,), (3,), (2,)]):
        yield SampleInput([make(s, device, dtype) for s in shapes], name=f"{shapes}")
    yield SampleInput([make((6,), device, dtype)[::2], make((2,), device, dtype)], name="strided")


def _combination_samples(op, device, dtype):
    for n, r, replace in ((4, 2, False), (5, 3, False), (4, 1, False), (3, 0, False), (2, 3, False), (3, 2, True),
                          (3, 3, True), (0, 2, False), (1, 1, True)):
        yield SampleInput(make((n,), device, dtype), (r, replace), name=f"n={n} r={r} with_replacement={replace}")
    yield SampleInput(make((8,), device, dtype)[::2], name="strided")


ENTRIES = [
    _aten_entry("block_diag", block_diag, ("aten::block_diag", "aten::block_diag.out"), _block_diag_samples, dtypes=ALL,
                supports_out=True,
                errors=lambda op, device: [ErrorInput(SampleInput([make_f32((2, 2, 2), device)]), RuntimeError,
                                                      "must have 2 or fewer dimensions")]),
    _aten_entry("cartesian_prod", lambda tensors: torch.cartesian_prod(*tensors), ("aten::cartesian_prod",),
                _cartesian_samples, dtypes=ALL,
                errors=lambda op, device: [ErrorInput(SampleInput([make_f32((2, 2), device)]), RuntimeError,
                                                      "Expect a 1D vector")]),
    _aten_entry("combinations", torch.combinations, ("aten::combinations",), _combination_samples, dtypes=ALL,
                errors=lambda op, device: [ErrorInput(SampleInput(make_f32((2, 2), device)), RuntimeError, "Expect a 1D vector"),
                                           ErrorInput(SampleInput(make_f32((3,), device), (-1,)), RuntimeError,
                                                      "Expect a non-negative number")]),
]
