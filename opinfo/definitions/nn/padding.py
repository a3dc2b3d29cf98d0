"""OpInfo entries: padding (reflection, replication, circular, F.pad's modes)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.nn.common import aten, entry
from primkit.opinfo.dtypes import FLOATING, INTEGRAL
from primkit.opinfo.samples import layouts, make


def pad_samples(n, pads):
    """Every layout with the first padding; the other paddings (zero, wide, negative) contiguous;
    an unbatched input and an empty batch."""
    def gen(op, device, dtype):
        shape = (2, 3) + (4, 5, 3)[:n]
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (list(pads[0]),), name=f"{name} {shape} pad={pads[0]}")
        for pad in pads[1:]:
            yield SampleInput(make(shape, device, dtype), (list(pad),), name=f"{shape} pad={pad}")
        yield SampleInput(make(shape[1:], device, dtype), (list(pads[0]),), name="unbatched")
        yield SampleInput(make((0, 2) + (3, 3, 3)[:n], device, dtype), (list(pads[0]),), name="empty batch")
    return gen


REFLECTION_PADS = {1: ((1, 2), (0, 0), (3, 3), (-1, 2)), 2: ((1, 2, 2, 1), (0, 0, 3, 0), (2, -1, 1, 1)),
                   3: ((1, 0, 2, 1, 1, 2), (2, 2, 0, 0, 1, 1))}


REPLICATION_PADS = {1: ((1, 2), (0, 0), (5, 6), (-1, 2)), 2: ((1, 2, 2, 1), (0, 0, 6, 0), (2, -1, 1, 1)),
                    3: ((1, 0, 2, 1, 1, 2), (4, 4, 0, 0, 1, 1))}


def _pad_errors(n, reflection):
    def gen(op, device):
        x = make((2, 3) + (3, 3, 3)[:n], device, torch.float32)
        yield ErrorInput(SampleInput(make((3,) * (n + 3), device, torch.float32), ([1] * (2 * n),)), RuntimeError,
                         "Expected")
        if reflection:
            yield ErrorInput(SampleInput(x, ([3] * (2 * n),)), RuntimeError,
                             "Padding size should be less than the corresponding input dimension")
    return gen


def sample_inputs_pad(op, device, dtype):
    for mode, pads in (("reflect", ((1, 2), (2, 1, 1, 2))), ("replicate", ((1, 2), (2, 0, 3, 1))),
                       ("constant", ((1, 2), (1, -1, 2, 0)))):
        for pad in pads:
            shape = (2, 3, 4, 5) if len(pad) == 4 else (2, 3, 5)
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, (list(pad),), {"mode": mode}, name=f"{mode} {name} {pad}")
    yield SampleInput(make((2, 3, 4), device, dtype), ([1, 1],), {"mode": "constant", "value": 2.5},
                      name="constant value")
    yield SampleInput(make((2, 2, 3, 3, 4), device, dtype), ([1, 1, 1, 2, 0, 1],), {"mode": "reflect"},
                      name="reflect 3d")


def error_inputs_pad(op, device):
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32), ([1, 1],), {"mode": "reflect", "value": 1.0}),
                     RuntimeError, "doesn't take in value argument")
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32), ([1, 1],), {"mode": "wrap"}),
                     RuntimeError, "Unrecognised padding mode")


def sample_inputs_pad_circular(op, device, dtype):
    for pad in ((1, 2), (2, 1, 1, 3)):
        shape = (2, 3, 4, 5) if len(pad) == 4 else (2, 3, 5)
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (list(pad),), {"mode": "circular"}, name=f"{name} {pad}")


ENTRIES = [
    *(entry(f"nn.functional.reflection_pad{n}d", getattr(aten, f"reflection_pad{n}d"),
            (f"aten::reflection_pad{n}d", f"aten::reflection_pad{n}d.out"), pad_samples(n, REFLECTION_PADS[n]),
            dtypes=FLOATING | INTEGRAL, errors=_pad_errors(n, True), out=True) for n in (1, 2, 3)),
    *(entry(f"nn.functional.replication_pad{n}d", getattr(aten, f"replication_pad{n}d"),
            (f"aten::replication_pad{n}d", f"aten::replication_pad{n}d.out"), pad_samples(n, REPLICATION_PADS[n]),
            errors=_pad_errors(n, False), out=True) for n in (1, 2, 3)),
    entry("nn.functional.pad.modes", F.pad, ("aten::pad",), sample_inputs_pad, errors=error_inputs_pad),
    entry("nn.functional.pad.circular", F.pad, ("aten::_pad_circular",), sample_inputs_pad_circular),
]
