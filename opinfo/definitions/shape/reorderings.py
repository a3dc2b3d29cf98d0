"""OpInfo entries: reorderings, repeats, padding and triangles (flip, roll, repeat, constant_pad_nd, triu, tril)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from primkit.opinfo.core import SampleInput
from primkit.opinfo.definitions.shape.common import aten, cases, entry, errors
from primkit.opinfo.samples import make


def _roll_samples(op, device, dtype):
    yield from cases(((7,), (2,)), ((4, 5), (1, 0)), ((4, 5), (-2, 1)), ((2, 3, 4, 5), ((1, 2), (1, 3))),
                     ((2, 3, 4, 5), (3, 1)), ((4, 5), (7,)), ((4, 5), (0, 0)), ((0, 3), (1, 1)),
                     ((2, 3, 4, 5), (5, 0)))(op, device, dtype)


def _pad_samples(op, device, dtype):
    value = {torch.bool: True}.get(dtype, 3 if dtype in (torch.int64,) else 2.5)
    yield from cases(((4, 5), ((1, 2),)), ((4, 5), ((1, 2, 0, 3), value)), ((2, 3, 4, 5), ((1, 1, 2, 2),)),
                     ((4, 5), ((-1, 2),)), ((4, 5), ((-1, 0, 0, -2),)), ((4, 5), ((0, 0),)), ((7,), ((2, -3),)),
                     ((0, 3), ((1, 1),)), ((), ((),)))(op, device, dtype)
    if dtype not in (torch.bool, torch.int64):
        yield SampleInput(make((3,), device, dtype), ((1, 1), 2.7), name="float value")


def _triangle_samples(op, device, dtype):
    yield from cases(((4, 5), ()), ((5, 4), (1,)), ((4, 5), (-2,)), ((2, 3, 4, 5), (0,)), ((3, 3), (10,)),
                     ((3, 3), (-10,)), ((0, 3), ()), ((2, 0, 3), (1,)))(op, device, dtype)


def _roll(t, shifts, dims=(), **out):
    as_list = lambda x: list(x) if isinstance(x, (list, tuple)) else [x]   # noqa: E731
    return aten.roll(t, as_list(shifts), as_list(dims), **out)


def _fpad(t, pad, value=0):
    return F.pad(t, pad, value=value)


ENTRIES = [
    entry("flip", aten.flip, ["aten::flip", "aten::flip.out"],
          cases(((7,), ([0],)), ((4, 5), ([0, 1],)), ((2, 3, 4, 5), ([-1, 1],)), ((), ([],)), ((0, 3), ([1],)),
                ((4, 5), ([],))),
          errs=errors(((2, 3), ([0, 0],), RuntimeError, "appears multiple times"),
                      ((2, 3), ([2],), IndexError, "Dimension out of range")), out=True),
    entry("roll", _roll, ["aten::roll", "aten::roll.out"], _roll_samples,
          errs=errors(((2, 3), ((1, 2), (0,)), RuntimeError, "shifts and dimensions must align"),
                      ((2, 3), (1, 2), IndexError, "Dimension out of range")), out=True),
    entry("repeat", aten.repeat, ["aten::repeat", "aten::repeat.out"],
          cases(((4, 5), ([2, 3],)), ((4, 5), ([2, 1, 3],)), ((), ([2, 3],)), ((4, 5), ([0, 1],)),
                ((2, 3, 4, 5), ([1, 1, 1, 1],)), ((7,), ([3],))),
          errs=errors(((2, 3), ([2],), RuntimeError, "can not be smaller than number of dimensions"),
                      ((2, 3), ([-1, 2],), RuntimeError, "negative dimension")), out=True),
    entry("constant_pad_nd", aten.constant_pad_nd, ["aten::constant_pad_nd", "aten::constant_pad_nd.out"],
          _pad_samples, out=True,
          errs=errors(((2, 3), ((1,),), RuntimeError, "Length of pad must be even"),
                      ((2, 3), ((1, 1, 1, 1, 1, 1),), RuntimeError, "no more than twice"),
                      ((2, 3), ((-2, -2),), RuntimeError, "must be non-negative"))),
    entry("nn.functional.pad", _fpad, ["aten::pad", "aten::constant_pad_nd"], _pad_samples),
    entry("triu", torch.triu, ["aten::triu", "aten::triu.out", "aten::triu_"], _triangle_samples,
          inplace=torch.Tensor.triu_, out=True, errs=errors(((3,), (), RuntimeError, "at least 2 dimensions"))),
    entry("tril", torch.tril, ["aten::tril", "aten::tril.out", "aten::tril_"], _triangle_samples,
          inplace=torch.Tensor.tril_, out=True, errs=errors(((3,), (), RuntimeError, "at least 2 dimensions"))),
]
