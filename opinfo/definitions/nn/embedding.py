"""OpInfo entries: embedding, embedding_bag and one_hot."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.nn.common import REDUCTION_TOLERANCES, _entry, aten, entry
from primkit.opinfo.dtypes import INTEGRAL
from primkit.opinfo.samples import make


def sample_inputs_embedding(op, device, dtype):
    weight = make((10, 4), device, dtype)
    for name, idx in (("1-d", [1, 3, 3, 9]), ("2-d", [[0, 2], [9, 1]]), ("0-d", 7), ("empty", [])):
        for index_dtype in (torch.int64, torch.int32):
            indices = torch.tensor(idx, device=device, dtype=index_dtype)
            yield SampleInput(indices, (weight,), name=f"{name} {index_dtype}")
    yield SampleInput(torch.tensor([[0, 2], [2, 1]], device=device), (weight,), {"padding_idx": 2}, name="padding_idx")
    yield SampleInput(torch.tensor([1, 2], device=device), (weight.t().contiguous().t(),), name="transposed weight")


def error_inputs_embedding(op, device):
    yield ErrorInput(SampleInput(torch.tensor([1.0, 2.0], device=device), (make((3, 4), device, torch.float32),)),
                     RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar types")
    yield ErrorInput(SampleInput(torch.tensor([1], device=device), (make((3, 4, 2), device, torch.float32),)),
                     RuntimeError, "'weight' must be 2-D")


def sample_inputs_aten_embedding(op, device, dtype):
    """(weight, indices, padding_idx)."""
    weight = make((10, 4), device, dtype)
    for name, idx in (("1-d", [1, 3, 3, 9]), ("2-d", [[0, 2], [9, 1]]), ("0-d", 7), ("empty", [])):
        for index_dtype in (torch.int64, torch.int32):
            yield SampleInput(weight, (torch.tensor(idx, device=device, dtype=index_dtype),),
                              name=f"{name} {index_dtype}")
    yield SampleInput(weight, (torch.tensor([[0, 2], [2, 1]], device=device), 2), name="padding_idx")
    yield SampleInput(weight.t().contiguous().t(), (torch.tensor([1, 2], device=device),), name="transposed weight")


def sample_inputs_embedding_bag(op, device, dtype):
    """torch.nn.functional.embedding_bag: bags given by offsets (with an empty bag), fixed-size bags
    (a 2-d input), per-sample weights, include_last_offset (the last offset is the input's length),
    padding_idx, int32 indices, and a weight without unit row stride (not eager's fast path)."""
    weight = make((10, 3), device, dtype)
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=device)
    offsets = torch.tensor([0, 4, 4, 6], device=device)
    for mode in ("sum", "mean", "max"):
        yield SampleInput(indices, (weight,), {"offsets": offsets, "mode": mode}, name=f"offsets {mode}")
        yield SampleInput(torch.tensor([[1, 2, 3], [4, 4, 9]], device=device), (weight,), {"mode": mode},
                          name=f"2-d input {mode}")
        yield SampleInput(indices, (weight,), {"offsets": torch.tensor([0, 3, 3, 5, 8], device=device), "mode": mode,
                                               "include_last_offset": True}, name=f"include_last_offset {mode}")
        yield SampleInput(indices, (weight,), {"offsets": offsets, "mode": mode, "padding_idx": 4},
                          name=f"padding_idx {mode}")
        yield SampleInput(indices.to(torch.int32), (weight.t().contiguous().t(),),
                          {"offsets": offsets.to(torch.int32), "mode": mode}, name=f"int32, transposed weight {mode}")
    yield SampleInput(indices, (weight,), {"offsets": offsets, "mode": "sum",
                                           "per_sample_weights": make((8,), device, dtype)}, name="per_sample_weights")


def sample_inputs_aten_embedding_bag(op, device, dtype):
    """aten.embedding_bag (weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
    include_last_offset): every result, auxiliary ones included (int32 indices and offsets among them)."""
    weight = make((10, 3), device, dtype)
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=device)
    offsets = torch.tensor([0, 4, 4, 6], device=device)
    for mode in (0, 1, 2):
        yield SampleInput(weight, (indices, offsets, False, mode), name=f"mode={mode}")
        yield SampleInput(weight.t().contiguous().t(), (indices, offsets, False, mode),
                          name=f"transposed weight mode={mode}")
        yield SampleInput(weight, (indices, torch.tensor([0, 3, 3, 5, 8], device=device), False, mode, False, None,
                                   True), name=f"include_last_offset mode={mode}")
        # the auxiliary results are int32 where indices and offsets both are, else int64
        yield SampleInput(weight, (indices.to(torch.int32), offsets.to(torch.int32), False, mode),
                          name=f"int32 indices and offsets mode={mode}")
        yield SampleInput(weight, (indices.to(torch.int32), offsets, False, mode), name=f"int32 indices mode={mode}")
    yield SampleInput(weight, (indices, offsets, False, 0, False, make((8,), device, dtype)),
                      name="per_sample_weights")


def sample_inputs_embedding_bag_impl(op, device, dtype):
    """aten._embedding_bag / _embedding_bag_forward_only: aten.embedding_bag's arguments, and padding_idx."""
    yield from sample_inputs_aten_embedding_bag(op, device, dtype)
    indices, offsets = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=device), torch.tensor([0, 4, 4, 6], device=device)
    for mode in (0, 1, 2):
        yield SampleInput(make((10, 3), device, dtype), (indices, offsets, False, mode, False, None, False, 4),
                          name=f"padding_idx=4 mode={mode}")


def error_inputs_embedding_bag(op, device):
    w = make((10, 3), device, torch.float32)
    yield ErrorInput(SampleInput(torch.tensor([1, 2], device=device), (w,),
                                 {"offsets": torch.tensor([0], device=device), "mode": "max",
                                  "per_sample_weights": torch.ones(2, device=device)}), NotImplementedError,
                     "per_sample_weights was not None")


def sample_inputs_one_hot(op, device, dtype):
    for shape in ((), (0,), (5,), (3, 4)):
        yield SampleInput(make(shape, device, torch.int64, low=0, high=4), (4,), name=f"{shape}")
    yield SampleInput(make((3, 4), device, torch.int64, low=0, high=4).t(), (6,), name="transposed")


def error_inputs_one_hot(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (4,)), RuntimeError,
                     "one_hot is only applicable to index tensor")


ENTRIES = [
    _entry("nn.functional.embedding", F.embedding, ("aten::embedding",), sample_inputs_embedding,
           errors=error_inputs_embedding),
    _entry("aten.embedding", aten.embedding, ("aten::embedding", "aten::embedding.out"), sample_inputs_aten_embedding,
           out=True),
    # Sums of rows in another order than eager's kernels (float16/bfloat16 round once here).
    _entry("nn.functional.embedding_bag", F.embedding_bag, ("aten::embedding_bag.padding_idx",),
           sample_inputs_embedding_bag, errors=error_inputs_embedding_bag, tolerances=REDUCTION_TOLERANCES),
    _entry("aten.embedding_bag", aten.embedding_bag, ("aten::embedding_bag",), sample_inputs_aten_embedding_bag,
           tolerances=REDUCTION_TOLERANCES),
    _entry("aten._embedding_bag", aten._embedding_bag, ("aten::_embedding_bag",), sample_inputs_embedding_bag_impl,
           tolerances=REDUCTION_TOLERANCES),
    _entry("aten._embedding_bag_forward_only", aten._embedding_bag_forward_only, ("aten::_embedding_bag_forward_only",),
           sample_inputs_embedding_bag_impl, tolerances=REDUCTION_TOLERANCES, autograd=False),
    entry("nn.functional.one_hot", F.one_hot, ("aten::one_hot",), sample_inputs_one_hot,
          dtypes=INTEGRAL, errors=error_inputs_one_hot),
]
