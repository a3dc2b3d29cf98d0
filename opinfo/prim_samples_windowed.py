"""Samples and constraint error inputs of the windowed family (reduce_window_*, argmax_window)."""
from __future__ import annotations

import torch

from opinfo.core import ErrorInput, SampleInput
from opinfo.samples import layouts, make
from prims.errors import PrimConstraintError

# (name, operand shape, window_dimensions, window_strides, padding_low, padding_high, window_dilation)
WINDOW_CASES = [
    ("2-d overlapping, padded", (3, 4), [2, 2], [1, 2], [0, 1], [1, 0], [1, 1]),
    ("max_pool2d-like, dilated", (2, 3, 7, 8), [1, 1, 3, 3], [1, 1, 2, 2], [0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 2, 2]),
    ("avg_pool2d-like, ceil-mode padding", (2, 3, 5, 6), [1, 1, 2, 2], [1, 1, 2, 2], [0, 0, 0, 0], [0, 0, 1, 0],
     [1, 1, 1, 1]),
    ("1-d disjoint", (9,), [3], [3], [0], [0], [1]),
    ("1-d stride larger than window", (10,), [2], [3], [1], [0], [1]),
    ("3-d dilation and stride", (4, 5, 6), [2, 1, 3], [2, 1, 1], [1, 0, 0], [0, 2, 1], [2, 1, 2]),
    ("windows wholly in padding", (2,), [2], [1], [3], [2], [1]),
    ("window larger than the padded size", (2, 3), [3, 1], [1, 1], [0, 0], [0, 0], [1, 1]),
    ("empty operand", (0, 5), [1, 2], [1, 1], [0, 0], [0, 0], [1, 1]),
    ("0-d", (), [], [], [], [], []),
]


def samples_reduce_window(op, device, dtype):
    for name, shape, *window in WINDOW_CASES:
        for layout, a in layouts(shape, device, dtype):
            yield SampleInput(a, tuple(window), name=f"{name}, {layout} {shape}")
    if dtype.is_floating_point:
        a = make((2, 6), device, dtype)
        a[0, 1], a[0, 3], a[1] = float("nan"), float("nan"), -float("inf")
        yield SampleInput(a, ([1, 3], [1, 1], [0, 1], [0, 1], [1, 1]), name="nan and -inf")


def errors_reduce_window(op, device):
    prim = op.prim
    a = make((4, 5), device, torch.float32)

    def err(cid, name, t, *window):
        return ErrorInput(SampleInput(t, window, name=f"{cid}: {name}"), PrimConstraintError, f"{prim.name}: {cid}:")
    good = ([2, 2], [1, 1], [0, 0], [0, 0], [1, 1])
    for i, arg in enumerate(("window_dimensions", "window_strides", "padding_low", "padding_high",
                             "window_dilation")):
        bad = list(good)
        bad[i] = bad[i][:1]
        yield err("C1", f"{arg} one entry short", a, *bad)
    for i, value, what in ((0, [0, 2], "zero window"), (1, [1, 0], "zero stride"), (2, [-1, 0], "negative padding"),
                           (3, [0, -2], "negative high padding"), (4, [1, 0], "zero dilation")):
        bad = list(good)
        bad[i] = value
        yield err("C2", what, a, *bad)
    unsupported = next(d for d in (torch.bool, torch.complex64, torch.uint16) if d not in prim.dtypes)
    yield err("C3", f"unsupported dtype {unsupported}", torch.zeros(4, 5, dtype=unsupported, device=device), *good)


SPECIFIC = {name: (samples_reduce_window, errors_reduce_window)
            for name in ("reduce_window_max", "reduce_window_min", "reduce_window_sum", "reduce_window_prod",
                         "argmax_window")}
