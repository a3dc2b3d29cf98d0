"""OpInfo entries: bilinear and _trilinear."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from primkit.opinfo.core import SampleInput
from primkit.opinfo.definitions.nn.common import aten, entry
from primkit.opinfo.samples import make


# bilinear / _trilinear: eager rounds the pairwise product (sumproduct_pair, through bmm) to
# float16/bfloat16 before the third factor; primkit computes in float32 and rounds once. Where the
# sum cancels, eager's rounding of partial sums up to ~500 is the whole difference: measured up to
# 4.0 (bfloat16, 2 ulp at 512) and 0.5 (float16) on outputs whose large entries rtol covers.
BILINEAR_TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (0.15, 2e-3),
    torch.bfloat16: (2.0, 2e-2),
}


def sample_inputs_bilinear(op, device, dtype):
    yield SampleInput(make((5, 3), device, dtype), (make((5, 4), device, dtype), make((6, 3, 4), device, dtype),
                                                    make((6,), device, dtype)), name="bias")
    yield SampleInput(make((2, 5, 3), device, dtype), (make((2, 5, 4), device, dtype),
                                                       make((6, 3, 4), device, dtype)), name="batch no bias")
    yield SampleInput(make((3, 5), device, dtype).t(), (make((5, 4), device, dtype), make((2, 3, 4), device, dtype)),
                      name="transposed")


def sample_inputs_trilinear(op, device, dtype):
    # bilinear's call: x1 (B, I), W (O, I, J), x2 (B, J)
    yield SampleInput(make((5, 3), device, dtype), (make((6, 3, 4), device, dtype), make((5, 4), device, dtype),
                                                    [1, 3], [0], [1, 2], [2, 3], 1), name="bilinear form")
    yield SampleInput(make((2, 3), device, dtype), (make((2, 3), device, dtype), make((2, 3), device, dtype),
                                                    [], [], [], [1], 1), name="triple product")
    # An empty input: eager returns zeros, each kept dim the largest size there among the inputs not expanded
    # there (sizes 0 and 1 give 1, unlike broadcasting)
    yield SampleInput(make((0, 3), device, dtype), (make((6, 3, 4), device, dtype), make((0, 4), device, dtype),
                                                    [1, 3], [0], [1, 2], [2, 3], 1), name="bilinear form, empty batch")
    yield SampleInput(make((0, 2, 6), device, dtype), (make((1, 2, 6), device, dtype), make((1, 2, 6), device, dtype),
                                                       [], [], [], [], 1), name="empty against size 1")
    yield SampleInput(make((2, 6), device, dtype), (make((0, 2, 6), device, dtype), make((1, 2, 6), device, dtype),
                                                    [0], [], [], [2], 1), name="empty, one input expanded")


ENTRIES = [
    entry("nn.functional.bilinear", F.bilinear, ("aten::bilinear", "aten::_trilinear"), sample_inputs_bilinear,
          tolerances=BILINEAR_TOLERANCES),
    entry("_trilinear", aten._trilinear, ("aten::_trilinear", "aten::_trilinear.out"), sample_inputs_trilinear,
          tolerances=BILINEAR_TOLERANCES, out=True),
]
