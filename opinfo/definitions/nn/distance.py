"""OpInfo entries: distances (pairwise_distance, cosine_similarity, cdist, pdist, dist)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.nn.common import REDUCTION_TOLERANCES, aten, entry
from primkit.opinfo.dtypes import FLOAT32_64
from primkit.opinfo.samples import layouts, make


# Linear interpolation: eager's kernels combine the two (or 2**n) neighbours in another order and
# precompute weights differently; float16/bfloat16 results may differ by one rounding.
CDIST_DTYPES = (torch.float32, torch.float64)    # eager's CPU cdist has no float16/bfloat16 kernel


def sample_inputs_pairwise_distance(op, device, dtype):
    for p in (2.0, 1.0, 3.0, 0.0, float("inf")):
        for name, t in layouts((4, 5), device, dtype):
            yield SampleInput(t, (make((4, 5), device, dtype),), {"p": p}, name=f"{name} p={p}")
    yield SampleInput(make((3, 4), device, dtype), (make((4,), device, dtype),), {"keepdim": True},
                      name="broadcast keepdim")
    yield SampleInput(make((5,), device, dtype), (make((5,), device, dtype),), name="1-d")


def sample_inputs_cosine_similarity(op, device, dtype):
    for dim in (1, 0, -1):
        for name, t in layouts((4, 5), device, dtype):
            yield SampleInput(t, (make((4, 5), device, dtype),), {"dim": dim}, name=f"{name} dim={dim}")
    yield SampleInput(make((2, 3, 4), device, dtype), (make((1, 3, 4), device, dtype),), name="broadcast")
    yield SampleInput(torch.zeros(2, 3, device=device, dtype=dtype), (make((2, 3), device, dtype),),
                      name="zero vector (eps)")


def error_inputs_cosine_similarity(op, device):
    yield ErrorInput(SampleInput(torch.ones(2, 3, dtype=torch.int64, device=device),
                                 (torch.ones(2, 3, dtype=torch.int64, device=device),)),
                     RuntimeError, "expected common dtype to be floating point")


def sample_inputs_cdist(op, device, dtype):
    for p in (2.0, 1.0, 0.0, 3.0, float("inf")):
        for shape1, shape2 in (((5, 3), (4, 3)), ((2, 5, 3), (2, 4, 3)), ((0, 3), (4, 3))):
            yield SampleInput(make(shape1, device, dtype), (make(shape2, device, dtype),), {"p": p},
                              name=f"{shape1} {shape2} p={p}")
    yield SampleInput(make((3, 5), device, dtype).t(), (make((4, 3), device, dtype),), name="transposed")


def error_inputs_cdist(op, device):
    yield ErrorInput(SampleInput(make((5,), device, torch.float32), (make((4, 3), device, torch.float32),)),
                     RuntimeError, "cdist only supports at least 2D tensors")
    yield ErrorInput(SampleInput(make((5, 2), device, torch.float32), (make((4, 3), device, torch.float32),)),
                     RuntimeError, "X1 and X2 must have the same number of columns")


def sample_inputs_cdist_forward(op, device, dtype):
    for p in (2.0, 1.0, 0.0, float("inf")):
        yield SampleInput(make((2, 5, 3), device, dtype), (make((2, 4, 3), device, dtype), p, None), name=f"p={p}")


def sample_inputs_dist(op, device, dtype):
    for p in (2, 1, 0, 3.5, float("inf")):
        for name, t in layouts((4, 5), device, dtype):
            yield SampleInput(t, (make((4, 5), device, dtype), p), name=f"{name} p={p}")
    yield SampleInput(make((3, 4), device, dtype), (make((4,), device, dtype),), name="broadcast")
    yield SampleInput(make((), device, dtype), (make((), device, dtype),), name="0-d")


def sample_inputs_pdist(op, device, dtype):
    for p in (2.0, 1.0, 0.0, float("inf"), 1.5):
        for name, t in layouts((5, 3), device, dtype):
            if name == "expanded":   # equal rows: distance 0, where the p-norm's derivative is undefined
                continue
            yield SampleInput(t, (p,), name=f"{name} p={p}")
    yield SampleInput(make((2, 4), device, dtype), name="two rows")
    yield SampleInput(make((6, 1), device, dtype), name="one column")
    yield SampleInput(make((1, 3), device, dtype), name="one row (no pairs)")


def error_inputs_pdist(op, device):
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32)), RuntimeError,
                     "pdist only supports 2D tensors")
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32), (-1.0,)), RuntimeError,
                     "pdist only supports non-negative p values")


ENTRIES = [
    entry("nn.functional.pairwise_distance", F.pairwise_distance, ("aten::pairwise_distance",),
          sample_inputs_pairwise_distance, tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.cosine_similarity", F.cosine_similarity, ("aten::cosine_similarity",),
          sample_inputs_cosine_similarity, errors=error_inputs_cosine_similarity, tolerances=REDUCTION_TOLERANCES),
    entry("cdist", torch.cdist, ("aten::cdist", "aten::_cdist_forward"), sample_inputs_cdist,
          errors=error_inputs_cdist, tolerances=REDUCTION_TOLERANCES, dtypes=CDIST_DTYPES),
    entry("_cdist_forward", aten._cdist_forward, ("aten::_cdist_forward", "aten::_cdist_forward.out"),
          sample_inputs_cdist_forward, tolerances=REDUCTION_TOLERANCES, out=True, dtypes=CDIST_DTYPES),
    entry("dist", aten.dist, ("aten::dist", "aten::dist.out"), sample_inputs_dist, tolerances=REDUCTION_TOLERANCES,
          out=True),
    # Eager's CPU pdist and margin losses have no float16/bfloat16 kernels.
    entry("pdist", torch.pdist, ("aten::pdist",), sample_inputs_pdist, errors=error_inputs_pdist,
          dtypes=FLOAT32_64, tolerances=REDUCTION_TOLERANCES),
    # _pdist_forward takes contiguous inputs only (pdist makes its input contiguous).
    entry("_pdist_forward", aten._pdist_forward, ("aten::_pdist_forward", "aten::_pdist_forward.out"),
          lambda op, device, dtype: (s for s in sample_inputs_pdist(op, device, dtype) if s.input.is_contiguous()),
          dtypes=FLOAT32_64, tolerances=REDUCTION_TOLERANCES, out=True),
]
