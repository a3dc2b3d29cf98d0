"""Embedding lookups: Embedding and EmbeddingBag."""
import torch
from torch import nn

from primkit.decompositions import DecompositionError
from primkit.opinfo.module_db import T, ModuleInfo, f, fwd, i64, variant, xfail


def _offsets(gen, dtype):
    return torch.tensor([0, 2, 2, 5])   # an empty bag among them


def _last_offsets(gen, dtype):
    # include_last_offset: the last offset is the number of indices (7), as the docs ask; with one short of
    # it eager's kernels disagree among themselves about the indices past it (sum without padding_idx sums
    # them into the last bag, mean and max do not)
    return torch.tensor([0, 2, 2, 5, 7])


MODULES = [
    ModuleInfo(nn.Embedding, (
        variant("default", 10, 3, forwards=[fwd("2d", i64(2, 4, high=10)), fwd("1d", i64(5, high=10))]),
        variant("padding_idx", 10, 3, padding_idx=0, forwards=[fwd("2d", i64(3, 4, high=3))]),
        variant("scale_grad_by_freq", 10, 3, scale_grad_by_freq=True, forwards=[fwd("2d", i64(3, 4, high=4))]),
        # max_norm renormalizes the looked-up rows of the weight in place, under no_grad
        variant("max_norm", 10, 3, max_norm=1.0, forwards=[fwd("2d", i64(2, 4, high=10))]),
    ), family="embedding", xfails=(
        xfail("eval", DecompositionError, "aten::embedding_renorm_ (max_norm) has no decomposition",
              variants=["max_norm"]),
        xfail("train", AssertionError, "aten::embedding_renorm (max_norm) has no decomposition: the forward "
              "graph keeps it", variants=["max_norm"]))),
    ModuleInfo(nn.EmbeddingBag, (
        variant("default", 10, 3, forwards=[fwd("2d", i64(3, 4, high=10)),
                                            fwd("offsets", i64(7, high=10), T((4,), _offsets))]),
        variant("sum_per_sample_weights", 10, 3, mode="sum", forwards=[
            fwd("2d", i64(3, 4, high=10), per_sample_weights=f(3, 4))]),
        variant("max", 10, 3, mode="max", forwards=[fwd("2d", i64(3, 4, high=10))]),
        variant("padding_idx_last_offset", 10, 3, padding_idx=0, include_last_offset=True, forwards=[
            fwd("offsets", i64(7, high=4), T((5,), _last_offsets))]),
    ), family="embedding"),
]
