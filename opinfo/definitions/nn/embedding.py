"""OpInfo entries: embedding, embedding_bag and one_hot."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput, XFail
from primkit.opinfo.definitions.nn.common import ACCUMULATE_TOLERANCES, REDUCTION_TOLERANCES, _entry, aten, entry
from primkit.opinfo.dtypes import FLOATING, INTEGRAL
from primkit.opinfo.samples import make


def sample_inputs_embedding(op, device, dtype):
    weight = make((10, 4), device, dtype)
    for name, idx in (("1-d", [1, 3, 3, 9]), ("2-d", [[0, 2], [9, 1]]), ("0-d", 7), ("empty", [])):
        for index_dtype in (torch.int64, torch.int32):
            indices = torch.tensor(idx, device=device, dtype=index_dtype)
            yield SampleInput(indices, (weight,), name=f"{name} {index_dtype}")
    yield SampleInput(torch.tensor([[0, 2], [2, 1]], device=device), (weight,), {"padding_idx": 2}, name="padding_idx")
    yield SampleInput(torch.tensor([1, 2], device=device), (weight.t().contiguous().t(),), name="transposed weight")
    for padding_idx in (None, 1):   # 3 thrice, 1 once: each row's gradient divided by its index's count
        yield SampleInput(torch.tensor([[1, 3], [3, 3]], device=device), (weight,),
                          {"scale_grad_by_freq": True, "padding_idx": padding_idx},
                          name=f"scale_grad_by_freq padding_idx={padding_idx}")


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
    # each index twice: eager's CPU backward scales by another index's count where counts differ (see
    # aten._embedding_bag_backward.scale_grad_by_freq)
    twice, halves = torch.tensor([2, 7, 5, 5, 2, 7], device=device), torch.tensor([0, 3], device=device)
    for mode in ("sum", "mean"):   # max mode refuses it (error_inputs_embedding_bag)
        yield SampleInput(twice, (weight,), {"offsets": halves, "mode": mode, "scale_grad_by_freq": True},
                          name=f"scale_grad_by_freq {mode}")
    yield SampleInput(twice, (weight,), {"offsets": halves, "mode": "sum", "scale_grad_by_freq": True,
                                         "per_sample_weights": make((6,), device, dtype), "padding_idx": 5},
                      name="scale_grad_by_freq, per_sample_weights, padding_idx")


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
    twice, halves = torch.tensor([2, 7, 5, 5, 2, 7], device=device), torch.tensor([0, 3], device=device)
    for mode in (0, 1, 2):   # each index twice (see sample_inputs_embedding_bag)
        yield SampleInput(weight, (twice, halves, True, mode), name=f"scale_grad_by_freq mode={mode}")


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
    yield ErrorInput(SampleInput(torch.tensor([1, 2], device=device), (w,),
                                 {"offsets": torch.tensor([0], device=device), "mode": "max",
                                  "scale_grad_by_freq": True}), ValueError,
                     "max mode does not support scaling the gradient by the frequency")


# ----------------------------------------------------------------------------- embedding_bag's backward ops


def _bag_cases(device, dtype):
    """(name, weight, indices, offsets, mode, include_last_offset, padding_idx) of eager's _embedding_bag, the
    forward whose saved tensors autograd hands its backward: each mode with an empty bag and repeated
    indices, padding_idx (a bag of only padding rows too), include_last_offset, int32 indices and offsets,
    no indices at all."""
    weight = make((10, 3), device, dtype)
    indices, offsets = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=device), torch.tensor([0, 4, 4, 6], device=device)
    for mode in (0, 1, 2):
        yield f"mode={mode}", weight, indices, offsets, mode, False, -1
        yield f"padding_idx=4 mode={mode}", weight, indices, offsets, mode, False, 4
        yield (f"a bag of only padding rows mode={mode}", weight, torch.tensor([4, 4, 1, 4], device=device),
               torch.tensor([0, 2, 2], device=device), mode, False, 4)
        yield (f"include_last_offset mode={mode}", weight, indices, torch.tensor([0, 3, 3, 5, 8], device=device), mode,
               True, -1)
        yield f"int32 indices and offsets mode={mode}", weight, indices.int(), offsets.int(), mode, False, -1
        yield (f"no indices mode={mode}", weight, torch.tensor([], device=device, dtype=torch.int64),
               torch.tensor([0, 0], device=device), mode, False, -1)


def _saved(weight, indices, offsets, mode, last, padding_idx, per_sample_weights=None):
    """(grad, offset2bag, bag_size, maximum_indices): a random gradient of eager's forward result, and its saved
    tensors (offset2bag is empty where eager took its fast sum path)."""
    out, offset2bag, bag_size, maximum_indices = aten._embedding_bag(weight, indices, offsets, False, mode, False,
                                                                     per_sample_weights, last, padding_idx)
    return make(out.shape, out.device, out.dtype), offset2bag, bag_size, maximum_indices


def _no_cuda_kernel(mode, device, dtype) -> bool:
    """Max mode's backward in bfloat16 on CUDA: eager's CUDA kernel (embedding_bag_backward_cuda_max) has no bfloat16
    implementation (NotImplementedError), so no such sample there."""
    return mode == 2 and dtype == torch.bfloat16 and torch.device(device).type == "cuda"


def sample_inputs_embedding_bag_backward(op, device, dtype):
    """aten._embedding_bag_backward (grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
    scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx), as eager's autograd calls it; scale_grad_by_freq
    where every index occurs equally often (see the .scale_grad_by_freq entry), a transposed grad. Not max mode in
    bfloat16 on CUDA (see _no_cuda_kernel)."""
    for name, weight, indices, offsets, mode, last, pad in _bag_cases(device, dtype):
        if _no_cuda_kernel(mode, device, dtype):
            continue
        psw = make(indices.shape, device, dtype) if mode == 0 else None
        for weights in ((None, psw) if mode == 0 else (None,)):
            saved = _saved(weight, indices, offsets, mode, last, pad, weights)
            yield SampleInput(saved[0], (indices, offsets, *saved[1:], 10, False, mode, False, weights, pad),
                              name=f"{name}{' per_sample_weights' if weights is not None else ''}")
    weight, indices = make((10, 3), device, dtype), torch.tensor([2, 7, 5, 5, 2, 7], device=device)
    for mode in (0, 1) if _no_cuda_kernel(2, device, dtype) else (0, 1, 2):
        for pad in (-1, 5):
            grad, *saved = _saved(weight, indices, torch.tensor([0, 3], device=device), mode, False, pad)
            yield SampleInput(grad, (indices, torch.tensor([0, 3], device=device), *saved, 10, True, mode, False, None,
                                     pad), name=f"scale_grad_by_freq, each index twice padding_idx={pad} mode={mode}")
    grad, *saved = _saved(weight, indices, torch.tensor([0, 3], device=device), 1, False, -1)
    yield SampleInput(grad.t().contiguous().t(), (indices, torch.tensor([0, 3], device=device), *saved, 10, False, 1,
                                                  False, None, -1), name="transposed grad")


def sample_inputs_embedding_bag_backward_by_freq(op, device, dtype):
    """scale_grad_by_freq where indices occur unequally often (1 twice, 3 once), and no indices."""
    for name, idx, off in (("1 twice, 3 once", [1, 3, 1], [0, 2]), ("no indices", [], [0, 0])):
        indices, offsets = torch.tensor(idx, device=device, dtype=torch.int64), torch.tensor(off, device=device)
        for mode in (0, 1):
            grad, *saved = _saved(make((4, 3), device, dtype), indices, offsets, mode, False, -1)
            yield SampleInput(grad, (indices, offsets, *saved, 4, True, mode, False, None, -1),
                              name=f"{name} mode={mode}")


def sample_inputs_embedding_bag_dense_backward(op, device, dtype):
    """aten._embedding_bag_dense_backward (grad, indices, offset2bag, bag_size, maximum_indices, num_weights,
    scale_grad_by_freq, mode, per_sample_weights, padding_idx): offset2bag in full (eager's forward on a weight
    without unit row stride, off its fast sum path). Not max mode in bfloat16 on CUDA (see _no_cuda_kernel)."""
    for name, weight, indices, offsets, mode, last, pad in _bag_cases(device, dtype):
        if _no_cuda_kernel(mode, device, dtype):
            continue
        psw = make(indices.shape, device, dtype) if mode == 0 else None
        grad, *saved = _saved(weight.t().contiguous().t(), indices, offsets, mode, last, pad, psw)
        yield SampleInput(grad, (indices, *saved, 10, False, mode, psw, pad), name=name)


def sample_inputs_embedding_bag_per_sample_weights_backward(op, device, dtype):
    """aten._embedding_bag_per_sample_weights_backward (grad, weight, indices, offsets, offset2bag, mode, padding_idx):
    sum mode (the only one with per-sample weights), offset2bag in full and empty (eager's fast sum path)."""
    for name, weight, indices, offsets, mode, last, pad in _bag_cases(device, dtype):
        if mode == 0:
            psw = make(indices.shape, device, dtype)
            grad, offset2bag, _, _ = _saved(weight, indices, offsets, mode, last, pad, psw)
            yield SampleInput(grad, (weight, indices, offsets, offset2bag, mode, pad),
                              name=f"{name} offset2bag of {offset2bag.numel()}")
    indices, offsets = torch.tensor([1, 2, 4, 5], device=device), torch.tensor([0, 1], device=device)
    weight = make((6, 3), device, dtype)
    grad, offset2bag, _, _ = _saved(weight, indices, offsets, 0, False, 2, make((4,), device, dtype))
    yield SampleInput(grad.t().contiguous().t(), (weight.t().contiguous().t(), indices, offsets, offset2bag, 0, 2),
                      name="transposed grad and weight")


def error_inputs_embedding_bag_per_sample_weights_backward(op, device):
    w = make((10, 3), device, torch.float32)
    yield ErrorInput(SampleInput(make((1, 3), device, torch.float32), (w, torch.tensor([1, 2], device=device),
                                                                       torch.tensor([0], device=device),
                                                                       torch.tensor([0, 0], device=device), 1, -1)),
                     RuntimeError, "per_sample_weights only supported for mode='sum'")


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
    # Sums of a repeated index's rows: float16/bfloat16 round once here, after each term in eager.
    _entry("aten._embedding_bag_backward", aten._embedding_bag_backward, ("aten::_embedding_bag_backward",),
           sample_inputs_embedding_bag_backward, tolerances=ACCUMULATE_TOLERANCES, autograd=False),
    _entry("aten._embedding_bag_backward.scale_grad_by_freq", aten._embedding_bag_backward,
           ("aten::_embedding_bag_backward",), sample_inputs_embedding_bag_backward_by_freq, autograd=False,
           tolerances=ACCUMULATE_TOLERANCES,
           xfails=[XFail("values", "eager's CPU kernel divides a row's gradient by the count of another index (the "
                         "sorted indices' i-th, i counting distinct indices: pytorch/pytorch#190063); primkit divides "
                         "by the row's own count, as embedding, eager's CUDA kernel and the documentation do",
                         device="cpu", raises=AssertionError)]),
    _entry("aten._embedding_bag_dense_backward", aten._embedding_bag_dense_backward,
           ("aten::_embedding_bag_dense_backward", "aten::_embedding_bag_dense_backward.out"),
           sample_inputs_embedding_bag_dense_backward, tolerances=ACCUMULATE_TOLERANCES, autograd=False, out=True),
    # A dot product per index: in another order than eager's (a few ulps in float16/bfloat16). Eager's CUDA kernel
    # has no bfloat16 implementation.
    _entry("aten._embedding_bag_per_sample_weights_backward", aten._embedding_bag_per_sample_weights_backward,
           ("aten::_embedding_bag_per_sample_weights_backward", "aten::_embedding_bag_per_sample_weights_backward.out"),
           sample_inputs_embedding_bag_per_sample_weights_backward, tolerances=REDUCTION_TOLERANCES, autograd=False,
           out=True, errors=error_inputs_embedding_bag_per_sample_weights_backward,
           dtypes_cuda=FLOATING - {torch.bfloat16}),
    entry("nn.functional.one_hot", F.one_hot, ("aten::one_hot",), sample_inputs_one_hot,
          dtypes=INTEGRAL, errors=error_inputs_one_hot),
]
