"""OpInfo entries: scaled_dot_product_attention."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.nn.common import REDUCTION_TOLERANCES, _entry
from primkit.opinfo.dtypes import FLOATING
from primkit.opinfo.samples import make


def sample_inputs_sdpa(op, device, dtype):
    def qkv(batch, L, S, E, Ev=None, heads_kv=None):
        kv_batch = batch[:-1] + (heads_kv,) if heads_kv else batch
        return (make(batch + (L, E), device, dtype), make(kv_batch + (S, E), device, dtype),
                make(kv_batch + (S, Ev or E), device, dtype))
    q, k, v = qkv((2, 3), 5, 6, 8)
    yield SampleInput(q, (k, v), name="4-d")
    yield SampleInput(q, (k, v), {"is_causal": True}, name="causal")
    yield SampleInput(q, (k, v), {"scale": 0.3}, name="scale")
    bool_mask = torch.rand(5, 6, device=device) > 0.3
    bool_mask[:, 0] = True
    yield SampleInput(q, (k, v), {"attn_mask": bool_mask}, name="bool mask")
    yield SampleInput(q, (k, v), {"attn_mask": make((2, 1, 5, 6), device, dtype)}, name="float mask")
    all_masked = bool_mask.clone()
    all_masked[1] = False
    yield SampleInput(q, (k, v), {"attn_mask": all_masked}, name="fully masked row")
    q3, k3, v3 = qkv((4,), 5, 7, 8, Ev=3)
    yield SampleInput(q3, (k3, v3), name="3-d, value head size differs")
    q0, k0, v0 = qkv((4,), 5, 7, 0, Ev=3)   # scores of an empty head are 0: each row the mean of v
    yield SampleInput(q0, (k0, v0), name="3-d, empty query/key head")
    q0, k0, v0 = qkv((0, 3), 5, 6, 8)
    yield SampleInput(q0, (k0, v0), {"is_causal": True}, name="empty batch")
    q, k, v = qkv((2, 4), 5, 5, 8, heads_kv=2)
    yield SampleInput(q, (k, v), {"enable_gqa": True, "is_causal": True}, name="gqa")
    q, k, v = qkv((2, 3), 5, 6, 8)
    yield SampleInput(q.transpose(1, 2).contiguous().transpose(1, 2), (k, v), name="query (B, L, H, E) layout")


def error_inputs_sdpa(op, device):
    f32 = torch.float32
    x = make((2, 3, 4), device, f32)
    yield ErrorInput(SampleInput(x, (x, x), {"attn_mask": torch.ones(3, 3, dtype=torch.bool, device=device),
                                             "is_causal": True}), RuntimeError, "Explicit attn_mask should not be set")
    yield ErrorInput(SampleInput(x, (x.double(), x)), RuntimeError,
                     "Expected query, key, and value to have the same dtype")


ENTRIES = [
    _entry("nn.functional.scaled_dot_product_attention", F.scaled_dot_product_attention,
           ("aten::_scaled_dot_product_flash_attention_for_cpu",), sample_inputs_sdpa, errors=error_inputs_sdpa,
           dtypes=FLOATING, tolerances=REDUCTION_TOLERANCES),
]
